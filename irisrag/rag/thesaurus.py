"""German synonyms for a question word the documents say in other words (OpenThesaurus).

People ask in their words, documents use others: "Ordner" for the manual's "Verzeichnis",
"Fahrstuhl" for the handbook's "Aufzug", "Prämie" for the price sheet's "Bonus". The term
bridge's embedder does not join such pairs reliably (USE word cosines 0.52-0.73 for these,
0.59-0.66 for "Urlaubstage"/"Arbeitstage" or "Freibad"/"Schwimmbad", which are not the same),
and the German→English word list does not either ("Ordner" -> "folder", "Verzeichnis" ->
"directory").

OpenThesaurus (Debian's ``openthesaurus-de-text``, LGPL, 34,000 lines) lists synonym sets, one
per line, separated by ``;``, with notes in brackets::

    Dateiverzeichnis;Verzeichnis;Ordner
    Aufzug;Aufzugsanlage;Lift;Fahrstuhl

``synonyms(word)`` gives the one-word synonyms of every set the word is in, the word as written
or, for an inflected form the sets lack, without an inflection ending ("Ordnern" -> "Ordner",
"doppelte" -> "doppelt"); case counts, so the noun "Ordner" does not find the verb "ordnen". Entries marked colloquial, figurative, old or
regional (``MARKED``) are left out: "Waschmaschine (ugs., berlinerisch)" is the chancellery.
Sets larger than ``MAX_SET`` are loose collections of related words and are left out too.
``bridge.bridge`` maps an unknown question word onto a synonym the first candidates hold.
"""
from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from irisrag.rag.compounds import LINKS, Compounds
from irisrag.rag.dictionary import ENDINGS, MIN_STEM
from irisrag.rag.lexical import normal_form

PATH = Path("/usr/share/openthesaurus-de/openthesaurus.txt")
MAX_SET = 10
SENSE_MIN = 0.5     # the word cosine (USE) a synonym needs: the sense the question means
HEAD_LETTERS = 3     # the shortest head noun a compound is cut at for its synonyms (compound_synonyms)
MIN_LETTERS = 5      # shorter synonyms are mostly a compound's generic part ("Reisepass" -> "Pass")
MARKED = ("ugs.", "fig.", "veraltet", "derb", "vulg.", "scherzh.", "abwertend", "österr.", "schweiz.",
          "regional", "bayr.", "norddeutsch", "süddeutsch", "selten", "historisch", "mundartlich", "Jargon")
_NOTE = re.compile(r"\(([^)]*)\)")
_WORD = re.compile(r"^[^\W\d_][\w-]*$")


def entry_word(entry: str) -> str | None:
    """The entry's word without its notes, None for a phrase or a marked entry ("Lift", not "Blechbüchse (ugs.)")."""
    notes = " ".join(_NOTE.findall(entry))
    if any(mark in notes for mark in MARKED):
        return None
    word = _NOTE.sub(" ", entry).strip()
    return word if _WORD.match(word) else None


def parse(lines: list[str]) -> dict[str, tuple[str, ...]]:
    """Map each word to the other words of its synonym sets, in the file's order."""
    found: dict[str, dict[str, None]] = {}
    for line in lines:
        if line.startswith("#") or line.count(";") >= MAX_SET:
            continue
        words = [w for w in map(entry_word, line.rstrip("\n").split(";")) if w]
        for word in words if len(words) > 1 else ():
            found.setdefault(word, {}).update(dict.fromkeys(w for w in words if w != word))
    return {word: tuple(others) for word, others in found.items()}


class Thesaurus:
    """The synonym sets, looked up by a word's normal form."""

    def __init__(self, sets: dict[str, tuple[str, ...]]) -> None:
        self._sets = sets

    def synonyms(self, word: str) -> tuple[str, ...]:
        """The word's synonyms, or those of its form without an inflection ending; () for none."""
        if word in self._sets:
            return self._sets[word]
        bare = (word[: -len(e)] for e in ENDINGS if word.endswith(e) and len(word) - len(e) >= MIN_STEM)
        return next((self._sets[b] for b in bare if b in self._sets), ())


_loaded: dict[Path, Thesaurus] = {}
_lock = threading.Lock()


def load(path: Path | None = None) -> Thesaurus | None:
    """The thesaurus at ``path`` (default ``PATH``; None when it is not there), parsed once per process."""
    path = path or PATH
    with _lock:
        if path not in _loaded:
            if not path.is_file():
                return None
            with path.open(encoding="utf-8", errors="replace") as handle:
                _loaded[path] = Thesaurus(parse(handle.readlines()))
        return _loaded[path]


def held(unknown: list[str], pool: set[str], thesaurus: Thesaurus | None,
         vectors: Callable[[Sequence[str]], np.ndarray], splitter: Compounds | None = None) -> dict[str, str]:
    """Map each unknown noun to the synonym the pool (the first candidates' words) holds that is most like it.

    Only nouns and synonyms of MIN_LETTERS or more count, and only where the word vectors (USE) put the
    two within SENSE_MIN: a set holds each sense of a word ("Wirtschaft" is an inn in one set, the
    economy in another), and the vectors tell which one a question means ("Restaurants" and
    "Wirtschaft" 0.17, "Ordner" and "Verzeichnis" 0.61). A compound the sets lack is tried with a synonym
    of one of its parts (``compound_synonyms``, with ``splitter``).
    """
    if thesaurus is None:
        return {}
    found = {}
    for word in (w for w in unknown if w[:1].isupper()):
        options = [s for s in [*thesaurus.synonyms(word), *compound_synonyms(word, thesaurus, splitter)]
                   if s[:1].isupper() and len(s) >= MIN_LETTERS and normal_form(s) in pool]
        if options:
            similarity = vectors(options) @ vectors([word])[0]
            best = int(np.argmax(similarity))
            if similarity[best] >= SENSE_MIN:
                found[word] = options[best]
    return found


def compound_synonyms(word: str, thesaurus: Thesaurus, splitter: Compounds | None) -> list[str]:
    """The compound with a synonym in place of its first part or of its head noun ("Büchereiausweis" ->
    "Bibliotheksausweis", "Fahrstuhltür" -> "Aufzugstür"), each linking element tried (``compounds.LINKS``);
    [] for a word that is not split. Only one-word noun synonyms count, and only compounds the stemmer does not
    fold onto their first part ("Wiederherstellen" + "test" stems to "wiederherstel", as "Wiederherstellung" does)."""
    def nouns(part: str) -> list[str]:
        return [s for s in thesaurus.synonyms(part.capitalize()) if s[:1].isupper() and s.isalpha()]

    parts = _parts(word, splitter, nouns) if splitter is not None else ()
    if not parts:
        return []
    first, head = parts
    modifier = word[: len(word) - len(head)]
    options = [*((s + link + head, s) for s in nouns(first) for link in LINKS),
               *((modifier + s.casefold(), first) for s in nouns(head))]
    return [option for option, part in options if normal_form(option) != normal_form(part)]


def _parts(word: str, splitter: Compounds, synonyms: Callable[[str], list[str]]) -> tuple[str, ...]:
    """The compound's first part and head noun, folded: the splitter's cut, else the cut whose first part (less a
    linking element) has synonyms and whose rest is a noun of the word list of HEAD_LETTERS or more ("Bücherei" is
    no word of the list, "Tür" too short for the splitter: "Büchereiausweis", "Fahrstuhltür")."""
    parts = splitter.split(word)
    if parts or not word[:1].isupper():
        return parts
    folded = word.casefold()
    for cut in range(MIN_LETTERS - 1, len(folded) - HEAD_LETTERS + 1):
        first, head = folded[:cut], folded[cut:]
        if head in splitter.nouns:
            stem = next((first[: len(first) - len(link)] for link in LINKS
                         if first.endswith(link) and synonyms(first[: len(first) - len(link)])), None)
            if stem:
                return stem, head
    return ()
