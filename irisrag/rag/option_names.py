"""A how-to question's words in English, for the option a manual names in English.

Manuals name their options and subcommands in English even in German ("-L, --lock", "--search",
"search regulärer_Ausdruck … search führt eine Volltextsuche …"), and people ask in German
("Wie sperre ich ein Benutzerkonto?", "Wie suche ich nach einem Paket?"). For a how-to question
(``span_kinds``: "Wie … ich/man", "welche Option") the word list's translations of its words
(``Dictionary.translations``; a verb also through its infinitive, "sperre" -> "sperren" ->
"lock") are matched against the names a unit starts with: its long options and the subcommand
an entry begins with. Such a unit gets ``BONUS`` in the extractive answer's score. A name
matches a translation when they share ``MIN_PREFIX`` letters from the start ("depends" and
"dependencies"), or are equal.
"""
from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from irisrag.rag import separable
from irisrag.rag.definitions import overview_line
from irisrag.rag.lexical import stop_word
from irisrag.rag.span_kinds import QUESTIONS

if TYPE_CHECKING:
    from irisrag.rag.dictionary import Dictionary

BONUS = 0.3
MIN_PREFIX = 5
MAX_TRANSLATIONS = 8
_WORD = re.compile(r"[^\W\d_][\w-]*")
_LONG = re.compile(r"--([a-z][a-z0-9-]+)")
_ENTRY = re.compile(r"^([a-z][a-z-]{2,})\b")   # "search regulärer_Ausdruck... search führt ..."
_HEAD_CHARS = 60
HEADER_PENALTY = 0.3
_GENERIC = re.compile(r"--(?:help|version)\b")
_HELP = re.compile(r"\b(?:hilfe|help|version)", re.I)
# a manual's SIEHE AUCH / SEE ALSO line: only references to other manuals ("stat(2), statfs(2), statx(2)")
_REFERENCES = re.compile(r"^\s*(?:[\w.@+-]+\(\d\w*\)[\s,;]*)+$")   # one way to match: no backtracking blow-up
REFERENCES_PENALTY = 1.0


def asked_words(question: str, words: Dictionary | None, manual: bool = False) -> frozenset[str]:
    """The English words a how-to question's words translate to (empty for other questions or without a list).
    A question that names a program whose manual is among the candidates (``manual``: ``Context.manuals``) asks
    for an option however it is phrased ("Kann ich ls so einstellen, dass …?", "Was gebe ich gzip mit?"). A
    separable verb counts joined ("Wie hänge ich hinten an?": "anhängen" -> "append", ``separable.infinitives``)."""
    if words is None or not (manual or QUESTIONS["command"].search(question)):
        return frozenset()
    found: set[str] = {t.casefold() for verb in separable.infinitives(question)
                       for t in words.translations(verb)[:MAX_TRANSLATIONS] if " " not in t}
    for word in [part for token in _WORD.findall(question) for part in {token, *token.split("-")} if part]:
        if stop_word(word.casefold()):
            continue
        for guess in _guesses(word):
            found.update(t.casefold() for t in words.translations(guess)[:MAX_TRANSLATIONS] if " " not in t)
        if word.isascii():
            found.add(word.casefold())   # "Shell", "GID": the same word in both languages
    return frozenset(found)


def _guesses(word: str) -> list[str]:
    """The word, then the infinitive of a verb form ("sperre", "suchst", "sperrt" -> "sperren")."""
    lower = word.casefold()
    if word[:1].isupper():
        return [word]
    stems = [lower[:-2] if lower.endswith(("st", "et", "en")) else lower[:-1] if lower.endswith(("t", "e")) else lower]
    return [lower, *(f"{stem}en" for stem in stems if len(stem) >= 3)]


def names(text: str) -> list[str]:
    """The option names and the subcommand a unit starts with, split at hyphens ("create-home" -> create, home)."""
    head = text[:_HEAD_CHARS]
    found = _LONG.findall(head) if head.lstrip().startswith("-") else []
    entry = _ENTRY.match(text)
    if entry and re.search(rf"\b{re.escape(entry.group(1))}\b", text[entry.end():]):
        found.append(entry.group(1))
    return [part for name in found for part in name.split("-") if len(part) >= 3]


def bonus(asked: frozenset[str], text: str) -> float:
    """``BONUS`` when a name the unit starts with is a translation of the question's words."""
    if not asked:
        return 0.0
    return BONUS if any(_matches(name, asked) for name in names(text)) else 0.0


def header_penalty(asked: frozenset[str], text: str, question: str = "") -> float:
    """``HEADER_PENALTY`` for a manual's name line ("touch - Zeitstempel von Dateien ändern") or synopsis ("split
    [OPTION]…", ``definitions.overview_line``) in the answer to a how-to question or one naming a manual (``asked``
    not empty): it names the program, not how to do what was asked, and it shares the program's name with the
    question, so it came first (eval/holdout9-de touch-03). A how-to question's own penalty (``definitions.overview``)
    adds to it; 1.0 for a question that names a manual but not how to, "Seit wann läuft das System laut uptime?",
    left the answer "-s, --since" out (holdout3-de up-01).
    So do every program's ``--help`` and ``--version`` unless the question asks for help or a version: "Ausgabe"
    translates to "version", and "--version gibt Versionsinformationen aus" followed the answer to "Ich leite die
    Ausgabe mit tee in eine Logdatei um … Wie hänge ich hinten an?" (eval/holdout9-de tee-01).
    A line of references to other manuals ("stat(2), statfs(2), statx(2)") loses ``REFERENCES_PENALTY``: it
    answers nothing, and it came first for "Welcher Platzhalter gibt bei stat den Zeitpunkt … aus?" (holdout9-de
    stat-04), second for "Was macht apt-cache stats?"."""
    if not asked:
        return 0.0
    if _REFERENCES.match(text):
        return REFERENCES_PENALTY
    if _GENERIC.match(text):
        return 0.0 if _HELP.search(question) else HEADER_PENALTY
    return HEADER_PENALTY if overview_line(text) else 0.0


def _matches(name: str, asked: frozenset[str]) -> bool:
    return name in asked or any(len(os.path.commonprefix((name, word))) >= MIN_PREFIX for word in asked)


SEARCHED_TRANSLATIONS = 5


def searched(text: str, question: str, words: Dictionary | None) -> str:
    """The full-text query plus the first ``SEARCHED_TRANSLATIONS`` English words of a how-to question's verb, so
    that the option entry a manual names in English ("-L, --lock") reaches the candidates."""
    if words is None or not QUESTIONS["command"].search(question):
        return text
    extra: list[str] = []
    for word in _verbs(question):
        for guess in _guesses(word):
            extra += [t.casefold() for t in words.translations(guess)[:SEARCHED_TRANSLATIONS] if " " not in t]
    new = [w for w in dict.fromkeys(extra) if w not in text.split()]
    return f"{text} {' '.join(new)}" if new else text


def _verbs(question: str) -> list[str]:
    """The finite verb (the first lower-case word after the question word that is not a stop word) and a closing
    infinitive ("Wie kann ich ein Konto sperren?"); other lower-case words ("samt", "alle") are left alone."""
    words = _WORD.findall(question)
    lower = [w for w in words[1:] if w.islower() and not stop_word(w)]
    found = lower[:1]
    if words and words[-1].islower() and words[-1].endswith("en") and words[-1] not in found:
        found.append(words[-1])
    return found
