"""The third-person forms of a how-to question's verbs, for the full-text search.

Manuals describe what a command does in the third person ("-x, --extract entpackt Dateien
aus einem Archiv"), people ask in the first person or the infinitive ("Wie entpacke ich
...?", "Wie kann ich ... entpacken?"). The Snowball stemmer of the full-text index makes
"entpacke" and "entpacken" one stem ("entpack") but leaves "entpackt" apart
(``lexical``'s known gaps), so the option entry lost to chunks that merely said
"Entpacken" (eval/holdout-de tar-01). A how-to question (``span_kinds``: "Wie ... ich/man",
"how do I") therefore searches each lower-case verb-like word (not a stop word: "anderen") ending in -e, -en, -ern or
-eln also as its -t form ("entpackt", "ändert", "sammelt") and, after -d/-t stems, -et
("meldet"). A form no document holds matches nothing, so a wrong guess costs nothing; only
the full-text query grows: the question's terms, the gate and the vector are unchanged.

Any question's lower-case words are also looked up among the word list's verb forms
(``dictionary.Dictionary.forms``, directly or as the infinitive of a -t/-st/-e form): a strong
verb's other forms share no stem ("Wer betreibt die Kantine?" against "Betrieben wird sie von
..."), so the extractive answer counts a sentence with another form (at most MAX_VERB_FORMS a
word; present participles and forms that are also a noun of the list, "betrieb", left out) as
holding the question's verb (``alternates``). The full-text query does not grow with them:
searched there too, they changed eval/real-de's rankings (right and clean 0.951 -> 0.941) for no gain.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from irisrag.rag.lexical import STOP_WORDS, fold_accents, normal_form
from irisrag.rag.span_kinds import QUESTIONS

if TYPE_CHECKING:
    from irisrag.rag.dictionary import Dictionary

_VERB_LIKE = re.compile(r"(?<![\w-])([a-zäöüß]{3,}?)(e|en|n)(?![\w-])")
_MIN_STEM = 4   # "gebe" -> "geb" is left alone: short stems are strong verbs ("gibt") or noise
_LOWER = re.compile(r"(?<![\w-])[a-zäöüß]{4,}(?![\w-])")
MAX_VERB_FORMS = 6
_PARTICIPLE = ("end", "ernd", "elnd")   # present participles: "ändernd"


def _stem(word: str, ending: str) -> str | None:
    """The verb stem of a word ending in -e, -en, or the -n of -ern/-eln; None when not verb-like."""
    if ending == "n" and not word.endswith(("er", "el")):
        return None
    return word if len(word) >= _MIN_STEM else None


def _stop_word(word: str) -> bool:
    """A stop word as written: "anderen" is one, "ändere" is not (the stop list is folded to "andere")."""
    return fold_accents(word) == word and word in STOP_WORDS


def third_person(stem: str) -> str:
    """The -t form of a weak verb's stem: "entpack" -> "entpackt", "meld" -> "meldet"."""
    return stem + ("et" if stem.endswith(("d", "t")) else "t")


def forms(question: str) -> list[str]:
    """The -t forms a how-to question's verbs may take in a manual (empty for other questions)."""
    if not QUESTIONS["command"].search(question):
        return []
    found = (_stem(*m.groups()) for m in _VERB_LIKE.finditer(question)
             if not _stop_word(m.group(0)))
    return list(dict.fromkeys(third_person(stem) for stem in found if stem))


def alternates(question: str, words: Dictionary | None) -> dict[str, str]:
    """Each other verb form, as written (lower case, accents folded) -> the normal form of the question's word it is a form of:
    the extractive answer counts "Betrieben" in a sentence as the question's "betreibt". As written, because
    the normal forms collide ("betrieben" and the noun "Betrieb" both stem to "betrieb")."""
    return dict(_other_forms(question, words))


def _other_forms(question: str, words: Dictionary | None) -> list[tuple[str, str]]:
    if words is None:
        return []
    asked = {normal_form(m.group()) for m in _LOWER.finditer(question)}
    found: dict[str, str] = {}
    for m in _LOWER.finditer(question):
        if _stop_word(m.group()):
            continue
        family = next(filter(None, (words.forms(w) for w in _infinitives(m.group()))), frozenset())
        new = sorted(f for f in family if not f.endswith(_PARTICIPLE) and normal_form(f) not in asked
                     and f.capitalize() not in words.entries)   # "betrieb" is also the noun "Betrieb"
        for form in new[:MAX_VERB_FORMS]:
            found.setdefault(fold_accents(form), normal_form(m.group()))
    return list(found.items())


def _infinitives(word: str) -> list[str]:
    """The word itself, then the infinitives it may be a form of ("betreibt", "behalte" -> "...en")."""
    guesses = [word]
    if word.endswith("st"):
        guesses.append(word[:-2] + "en")
    if word.endswith("et"):
        guesses.append(word[:-2] + "en")
    if word.endswith("t"):
        guesses.append(word[:-1] + "en")
    if word.endswith("e"):
        guesses.append(word + "n")
    return guesses


_IEREN = re.compile(r"(?<![\w-])([a-zäöüß]{3,})ier(?:e|en|st|t)(?![\w-])")


def action_nouns(question: str) -> list[str]:
    """The -ation noun of each lower-case -ieren verb: "simuliere" -> "simulation", "installiert" -> "installation".

    The stemmer keeps "simuli" and "simulation" apart, and a manual names what an option does with
    the noun ("-s, --simulate ... führt eine Simulation der Ereignisse aus", eval/holdout2-de ag-03).
    """
    return [f"{m.group(1)}ation" for m in _IEREN.finditer(question)]


def searched(text: str, question: str) -> str:
    """The full-text query: the text plus the question's third-person verb forms and -ation nouns."""
    extra = [form for form in dict.fromkeys(forms(question) + action_nouns(question)) if form not in text.split()]
    return f"{text} {' '.join(extra)}" if extra else text
