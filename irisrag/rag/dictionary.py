"""A German→English word list for the term bridge, read from Debian's ``trans-de-en`` (Ding).

The Ding dictionary (``/usr/share/trans/de-en``, GPL-2+, 200,000 lines) pairs German and
English alternatives line by line::

    gewinnen; siegen {vi} | gewinnend; siegend | ... | ich/er/sie gewann; ... :: to win {won; won} | winning | ... | I/he/she won; ...

Each alternative (``|``) on the German side corresponds to the one at the same place on the
English side; synonyms within one are separated by ``;``. A German synonym that is one word
once its notes (``{m}``, ``[Br.]``, ``(...)``), article or pronouns are dropped ("die
Normannen", "ich/er/sie gewann") maps to the English synonyms of its alternative that are one
or two words ("to win" → "win", "I/he/she won" → "won"). Inflected forms are in the
dictionary itself, so no German stemming is needed to find "gewann" or "Normannen".

``translations(word)`` lists a word's translations, the line's first alternative first (the
headword's own meanings), then in the dictionary's order; a compound the dictionary lacks
("Sommertheater") is split into two words it has ("Sommer" + "Theater" → "summer theater").

``forms(word)`` lists the other forms of the verb a word is a form of, from the verb lines'
alternatives ("betreiben {vt} | betreibend | betrieben", "ich/er/sie flog", "er/sie hat gewonnen"):
the full-text search looks for "betrieben" when a question asks "Wer betreibt ...?"
(``verbforms.py``); a strong verb's forms share no stem the stemmer could find.

Reading the file takes a few seconds, so the parsed list is kept as a pickle beside the
instance's other caches (``cache_path``), keyed by the file's size and modification time.
"""
from __future__ import annotations

import os
import pickle
import re
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

DEFAULT_PATH = Path("/usr/share/trans/de-en")
FORMAT = 3            # the parsed list's layout: part of the cache's name
MAX_TRANSLATIONS = 8
MIN_PART = 3          # the shortest part of a split compound
LINKS = ("s", "es", "n", "en", "")   # the linking letters a compound's first part may end with
ENDINGS = ("en", "er", "es", "em", "e", "n", "s")   # inflection endings tried off a word the list lacks
MIN_STEM = 4          # the shortest word left once an ending is taken off

_NOTES = re.compile(r"\{[^}]*\}|\[[^\]]*\]|\([^)]*\)")
_DE_LEADING = frozenset({"der", "die", "das", "den", "dem", "des", "ein", "eine", "sich", "zu"})
_EN_LEADING = frozenset({"to", "the", "a", "an"})
_WORD = re.compile(r"^[^\W\d_][\w'-]*$")
_VERB_NOTE = re.compile(r"\{v[tir]*\}")
_PRONOUNS = frozenset({"ich", "du", "er", "sie", "es", "wir", "ihr", "sich", "etw.", "jdn.", "jdm.", "zu"})
_LOWER_WORD = re.compile(r"^[a-zäöüß]{3,}$")


def _clean(text: str) -> list[str]:
    return _NOTES.sub(" ", text).split()


def _german_word(synonym: str) -> str | None:
    words = [w for w in _clean(synonym) if "/" not in w]
    while len(words) > 1 and words[0].casefold() in _DE_LEADING:
        words = words[1:]
    return words[0] if len(words) == 1 and _WORD.match(words[0]) else None


def _english_phrase(synonym: str) -> str | None:
    words = [w for w in _clean(synonym) if "/" not in w]
    while len(words) > 1 and words[0].casefold() in _EN_LEADING:
        words = words[1:]
    if not 1 <= len(words) <= 2 or not all(_WORD.match(w) for w in words):
        return None
    return " ".join(words)


def _pairs(line: str) -> Iterable[tuple[int, str, list[str]]]:
    """Yield (alternative's place, German word, its English phrases) for one dictionary line."""
    if line.startswith("#") or " :: " not in line:
        return
    german, english = line.rstrip("\n").split(" :: ", 1)
    left, right = german.split(" | "), english.split(" | ")
    if len(left) != len(right):
        return
    for place, (de, en) in enumerate(zip(left, right, strict=True)):
        phrases = [p for p in (_english_phrase(s) for s in _NOTES.sub(" ", en).split(";")) if p]
        for word in filter(None, (_german_word(s) for s in _NOTES.sub(" ", de).split(";"))):
            if phrases:
                yield place, word, phrases


def parse(lines: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Map each German word (case kept) to its English translations, first meanings first."""
    ranked: dict[str, list[tuple[int, int, int, str]]] = {}
    for number, line in enumerate(lines):
        for place, word, phrases in _pairs(line):
            ranked.setdefault(word, []).extend((min(place, 1), number, i, p) for i, p in enumerate(phrases))
    return {word: _best(entries) for word, entries in ranked.items()}


def parse_verbs(lines: Iterable[str]) -> dict[str, frozenset[str]]:
    """Map each form of a verb line (one word once pronouns and notes are dropped) to all forms of its verb."""
    members: dict[str, set[str]] = {}
    for line in lines:
        for family in _verb_lines(line):
            infinitive, *_ = family
            members.setdefault(infinitive, set()).update(family)
    families = {infinitive: frozenset(forms) for infinitive, forms in members.items() if len(forms) > 1}
    verb_of: dict[str, frozenset[str]] = {}
    for forms in families.values():
        for form in forms:
            verb_of[form] = verb_of.get(form, frozenset()) | forms
    return verb_of


def _verb_lines(line: str) -> list[list[str]]:
    """The forms of each verb of a verb line, synonyms apart, the infinitive first; [] for other lines."""
    german = line.split(" :: ", 1)[0]
    if line.startswith("#") or " :: " not in line or not _VERB_NOTE.search(german.split(" | ", 1)[0]):
        return []
    places = [[_verb_form(s) for s in alternative.split(";")] for alternative in german.split(" | ")]
    width = len(places[0])
    columns = [[place[i] for place in places if len(place) == width] for i in range(width)]
    return [[form for form in column if form] for column in columns if column[0]]


def _verb_form(synonym: str) -> str | None:
    words = [w for w in _clean(synonym) if "/" not in w and w.casefold() not in _PRONOUNS]
    return words[0] if len(words) == 1 and _LOWER_WORD.match(words[0]) else None


def _best(entries: list[tuple[int, int, int, str]]) -> tuple[str, ...]:
    ordered = dict.fromkeys(entry[-1] for entry in sorted(entries))
    return tuple(list(ordered)[:MAX_TRANSLATIONS])


class Dictionary:
    """German words to English translations, looked up by exact case first, then folded case."""

    def __init__(self, entries: dict[str, tuple[str, ...]], verbs: dict[str, frozenset[str]] | None = None) -> None:
        self.entries = entries
        self.verbs = verbs or {}
        self.folded: dict[str, tuple[str, ...]] = {}
        for word, phrases in entries.items():
            key = word.casefold()
            self.folded[key] = tuple(dict.fromkeys(self.folded.get(key, ()) + phrases))[:MAX_TRANSLATIONS]

    def __len__(self) -> int:
        return len(self.entries)

    def lookup(self, word: str) -> tuple[str, ...]:
        """The word's own translations (no compound splitting)."""
        return self.entries.get(word) or self.folded.get(word.casefold(), ())

    def forms(self, word: str) -> frozenset[str]:
        """All forms of the verb(s) a lower-case word is a form of (empty when it is none)."""
        return self.verbs.get(word, frozenset())

    def knows(self, word: str) -> bool:
        """Tell whether the word, or its uninflected form, is a word of the list (a compound's parts are not enough)."""
        return bool(self.lookup(word) or self._uninflected(word))

    def translations(self, word: str) -> tuple[str, ...]:
        """The word's translations; else those of its uninflected form ("Sächsischen" -> "sächsisch");
        else those of the compound's two parts joined ("summer theater")."""
        return self.lookup(word) or self._uninflected(word) or self._compound(word)

    def _uninflected(self, word: str) -> tuple[str, ...]:
        for ending in ENDINGS:
            if word.endswith(ending) and len(word) - len(ending) >= MIN_STEM:
                found = self.lookup(word[: -len(ending)])
                if found:
                    return found
        return ()

    def _compound(self, word: str) -> tuple[str, ...]:
        for cut in range(len(word) - MIN_PART, MIN_PART - 1, -1):
            head, tail = word[:cut], word[cut:].capitalize()
            tail_words = self.lookup(tail)
            if not tail_words:
                continue
            head_words = next((self.lookup(head[: len(head) - len(link)]) for link in LINKS
                               if head.endswith(link) and len(head) - len(link) >= MIN_PART
                               and self.lookup(head[: len(head) - len(link)])), ())
            if head_words:
                return (f"{head_words[0].split()[-1]} {tail_words[0].split()[-1]}",)
        return ()


_loaded: dict[Path, Dictionary] = {}
_lock = threading.Lock()


def load(path: Path, cache_dir: Path | None = None) -> Dictionary | None:
    """The dictionary at ``path`` (None when it is not there), parsed once per process."""
    path = Path(path)
    with _lock:
        if path not in _loaded:
            if not path.is_file():
                return None
            _loaded[path] = Dictionary(*_cached(path, cache_dir))
        return _loaded[path]


def _cached(path: Path, cache_dir: Path | None) -> tuple[dict[str, tuple[str, ...]], dict[str, frozenset[str]]]:
    stat = path.stat()
    cache = cache_dir / f"dictionary-{path.name}-{stat.st_size}-{int(stat.st_mtime)}-v{FORMAT}.pickle" if cache_dir else None
    if cache and cache.is_file():
        with cache.open("rb") as handle:
            return pickle.load(handle)  # noqa: S301 - written by this module into the instance folder
    with path.open(encoding="utf-8", errors="replace") as handle:
        lines = handle.readlines()
    entries = parse(lines), parse_verbs(lines)
    if cache:
        cache.parent.mkdir(parents=True, exist_ok=True)
        partial = cache.with_suffix(f".{os.getpid()}.tmp")
        with partial.open("wb") as handle:
            pickle.dump(entries, handle, protocol=pickle.HIGHEST_PROTOCOL)
        partial.replace(cache)
    return entries


def cache_folder(config: Mapping[str, Any]) -> str:
    """The instance folder parsed word lists are kept in (``load``)."""
    from irisrag import ROOT

    return str(ROOT / str(config.get("INSTANCE_PATH", "instance")) / "cache")
