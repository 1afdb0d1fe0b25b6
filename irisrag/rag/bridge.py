"""The term bridge: a question's words that the documents lack, mapped onto words they have.

A German question over English documents shares hardly a word with them, so the full-text
leg finds nothing, the fusion leans on the vector leg alone and the gate cannot tell the
right paragraph from an off-topic one by its words. The multilingual embedder knows that
"Verteidigung" and "defense" mean the same, word by word as well as sentence by sentence.

For each question (``TERM_BRIDGE=embedder``, the app's default; ``none`` turns it off):

1. *unknown* question terms are those no candidate chunk of either leg contains (the full-text
   leg searched the permitted areas for them and found none: another language's word, a
   word the collection spells differently);
2. the *words* to map onto are the distinct words of the first BRIDGE_CHUNKS (20) vector
   candidates, i.e. of passages the user may read and the embedding thinks relevant;
3. each unknown question word and each of those words is embedded alone with the built-in
   USE embedder (whatever EMBEDDER is: the threshold is calibrated for USE; the components'
   ``Components.word_vectors``, the app's own embedder when it is USE), case kept, and
   an unknown word is bridged to its most similar word if their cosine is at least
   BRIDGE_MIN_SIMILARITY (0.75) and that word is not a question word;
4. the full-text leg searches again with the bridged words added; the fusion's coverage, the
   lexical rule and the found sources count each bridged word *in place of* the question's
   word it came from (a word the candidates lack counts for nothing anyway), and the gate's
   evidence credits it with BRIDGE_EVIDENCE (0.5) of its weight (``gate.document_evidence``):
   a bridged word is in the first candidates by construction, so with whole credit an
   off-topic question in another language looked on-topic (README: the term bridge);
5. (BRIDGE_VECTOR_SEARCH) the question with each bridged word put in place of its own
   ("Wer gewann die Punkte?" -> "Wer gewann die points?") is embedded and searched once more,
   and the gate takes each first document's better cosine of the two: the embedder's cosine
   across languages is lower than within one (a German question's English paragraph: median
   0.37 against 0.43 for the same question in English), which made the gate call a third of
   the missed cross-lingual questions off-topic. The ranking keeps the question's own cosine.

With a German→English word list (BRIDGE_DICTIONARY, ``dictionary.py``) each unknown word is
also looked up, and the translation whose words the first BRIDGE_CHUNKS candidates hold most
of ("Lagerhaus" -> "warehouse") is added to the full-text search of step 4 (``Bridge.search_only``);
the fusion, the gate and the sources keep the embedder's words, because a translated off-topic
question looks on-topic to the gate (README: the word list). With BRIDGE_DICTIONARY_GATE the
translations take the embedder's place there too (the embedder bridges only the words the list
cannot), credited with BRIDGE_DICTIONARY_EVIDENCE. A question the list translated is another
language's (``Bridge.crosses``): the gate asks GATE_TRANSLATED_ALLOWANCE less evidence of it, and
adds GATE_AGREEMENT_BONUS to the evidence of a document that both legs rank first (``Bridge.agreed``:
the vector search's first document is the first of the full-text search with the list's words).

A question whose terms all occur somewhere is searched once, as before. Word vectors are
kept per app (``Components.word_vectors``) in an LRU of 50,000 words, so a word is embedded once.
No words from outside the permitted areas' candidates are ever looked at, so nothing about
other areas can leak into the search or the inspector.
"""
from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from irisrag import config as config_module
from irisrag.config import parse_bool
from irisrag.ingest.records import parse_records
from irisrag.rag import dictionary, thesaurus
from irisrag.rag.dictionary import Dictionary, cache_folder
from irisrag.rag.lexical import normal_form, tokens
from irisrag.vectors.searchtext import compounds_of

if TYPE_CHECKING:
    from irisrag.vectors.store import Hit

KINDS = ("embedder", "none")
MIN_WORD_LENGTH = 3
COMPOUND_LENGTH = 10   # an unknown word this long without a bridge is tried against two-word phrases
PHRASE_CHUNKS = 5      # ... of the first vector candidates (a phrase is rarely embedded twice: keep them few)


@dataclass(frozen=True)
class BridgeSettings:
    """Whether and how unknown question words are bridged (values: the retrieval profile, ``config.PROFILES``)."""

    kind: str
    chunks: int                # the first vector candidates whose words may be bridged to
    min_similarity: float      # the word cosine (USE) a bridge needs
    evidence: float            # the share of a bridged word's weight the gate's evidence credits (0 to 1)
    vector_search: bool        # search the vectors again with the question in the documents' words (the gate)
    dictionary: str            # a German→English word list (Debian's trans-de-en); "" for none
    dictionary_gate: bool      # the dictionary's words count for fusion, gate and sources (else: searched only)
    dictionary_evidence: float   # the share of a dictionary word's weight the gate's evidence credits
    dictionary_cache: str = field(default="", compare=False)   # the folder the parsed list is kept in ("": none)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown term bridge {self.kind!r}; one of {', '.join(KINDS)}")
        for credit in (self.evidence, self.dictionary_evidence):
            if not 0.0 <= credit <= 1.0:
                raise ValueError(f"the bridge's evidence credit must be between 0 and 1, got {credit}")

    @property
    def enabled(self) -> bool:
        return self.kind != "none"

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> BridgeSettings:
        """Build bridge settings from an app config mapping; missing keys from the profile in force."""
        values = config_module.defaults(config)
        return cls(kind=str(values["TERM_BRIDGE"]).strip().lower(),
                   chunks=int(values["BRIDGE_CHUNKS"]),
                   min_similarity=float(values["BRIDGE_MIN_SIMILARITY"]),
                   evidence=float(values["BRIDGE_EVIDENCE"]),
                   vector_search=parse_bool(values["BRIDGE_VECTOR_SEARCH"]),
                   dictionary=str(values["BRIDGE_DICTIONARY"]).strip(),
                   dictionary_gate=parse_bool(values["BRIDGE_DICTIONARY_GATE"]),
                   dictionary_evidence=float(values["BRIDGE_DICTIONARY_EVIDENCE"]),
                   dictionary_cache=cache_folder(values))

    @classmethod
    def plain(cls, *values: Any, **changes: Any) -> BridgeSettings:
        """The default profile's bridge, off and without a word list unless changed (fields in order, or named)."""
        changes.update(zip([f.name for f in fields(cls)], values, strict=False))
        return replace(cls.from_config({"TERM_BRIDGE": "none", "BRIDGE_DICTIONARY": ""}), dictionary_cache="",
                       **changes)

    def word_list(self) -> Dictionary | None:
        """The dictionary named by ``dictionary`` (None when none is set or the file is missing)."""
        if not self.enabled or not self.dictionary:
            return None
        return dictionary.load(Path(self.dictionary), Path(self.dictionary_cache) if self.dictionary_cache else None)


@dataclass(frozen=True)
class Bridge:
    """The bridged words of one question: ``words`` maps a question word to the document word.

    ``cosines`` (BRIDGE_VECTOR_SEARCH): each document's best cosine to the question asked in
    the documents' words (``translated``), for the gate's evidence.
    """

    words: dict[str, str] = field(default_factory=dict)
    cosines: dict[int, float] = field(default_factory=dict)
    translated_words: frozenset[str] = frozenset()   # the question words the dictionary bridged
    search_only: dict[str, str] = field(default_factory=dict)  # dictionary words for the full-text search alone
    crosses: bool = False   # the word list translated a question word into a word of the first candidates
    whole: frozenset[str] = frozenset()   # the question words one of whose translations the first candidates hold whole
    agreed: int | None = None   # such a question's document that both legs rank first (GATE_AGREEMENT_BONUS)

    def __bool__(self) -> bool:
        return bool(self.words or self.search_only)

    @property
    def search_words(self) -> str:
        """The document words to add to the full-text query."""
        return " ".join(dict.fromkeys([*self.words.values(), *self.search_only.values()]))

    def searched(self, text: str) -> str:
        """The full-text query: the text, with the bridged document words added."""
        return f"{text} {self.search_words}" if self else text

    def translated(self, question: str) -> str:
        """The question with each bridged word replaced by its document word ("Wer gewann die Punkte?"
        -> "Wer gewann die points?"): what the vector search asks once more for the gate."""
        if not self.words:
            return question
        pattern = "|".join(re.escape(w) for w in sorted(self.words, key=len, reverse=True))
        return re.sub(rf"(?<!\w)({pattern})(?!\w)", lambda m: self.words[m.group(1)], question)

    def _targets(self, sources: Iterable[str] | None = None) -> set[str]:
        chosen = self.words if sources is None else {w: self.words[w] for w in sources}
        forms = (normal_form(w) for target in chosen.values() for w in target.split())
        return {form for form in forms if form}

    def credit(self, question_terms: frozenset[str], share: float, dictionary_share: float = 1.0) -> dict[str, float]:
        """The gate's credit for the bridged terms that are not question terms themselves.

        A term both a dictionary word and an embedder word gets the larger share.
        """
        embedded = self._targets(w for w in self.words if w not in self.translated_words) - question_terms
        translated = self._targets(self.translated_words) - question_terms
        credit = dict.fromkeys(embedded, share)
        for term in translated:
            credit[term] = max(credit.get(term, 0.0), dictionary_share)
        return {term: value for term, value in credit.items() if value != 1.0}

    def terms(self, question_terms: frozenset[str]) -> frozenset[str]:
        """The question's terms with each bridged word's normal form(s) in place of its source's."""
        sources = {normal_form(w) for w in self.words}
        return frozenset((question_terms - sources) | self._targets())


class WordVectors:
    """Unit vectors of single words, embedded once per process (an LRU of ``capacity`` words)."""

    def __init__(self, embed: Callable[[list[str]], np.ndarray], capacity: int = 50_000) -> None:
        self._embed = embed
        self.capacity = capacity
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, words: Sequence[str]) -> np.ndarray:
        """Return a float32 (len(words), dim) matrix of unit rows."""
        with self._lock:
            missing = [w for w in dict.fromkeys(words) if w not in self._cache]
        fresh = self._embed(missing) if missing else []
        with self._lock:
            for word, vector in zip(missing, fresh, strict=True):
                self._cache[word] = np.asarray(vector, dtype=np.float16)
            rows = [self._row(w) for w in words]
            while len(self._cache) > self.capacity:
                self._cache.popitem(last=False)
        return np.asarray(rows, dtype=np.float32)

    def _row(self, word: str) -> np.ndarray:
        self._cache.move_to_end(word)
        return self._cache[word]


def content_words(text: str) -> dict[str, str]:
    """Map each content word of a text (3+ letters, no stop word, no digit) to its normal form.

    A word with a digit is a number, a version or an identifier ("stichwort5", "v3"): it must
    match as it is, never be bridged to its neighbour ("stichwort4").

    Words keep their case: USE reads a German noun as a noun ("Verteidigung" is 0.89 from
    "defense", "verteidigung" 0.67).
    """
    found: dict[str, str] = {}
    for m in tokens(text):
        word = m.group()
        if len(word) >= MIN_WORD_LENGTH and not _has_digit(word) and word not in found:
            form = normal_form(word)
            if form:
                found[word] = form
    return found


def _has_digit(word: str) -> bool:
    return any(ch.isdigit() for ch in word)


def unknown_words(question: str, known_terms: Iterable[frozenset[str]]) -> list[str]:
    """The question's content words whose normal form no candidate holds."""
    known = frozenset().union(*known_terms)
    return [w for w, form in content_words(question).items() if form not in known]


def _phrases(text: str) -> set[str]:
    """The text's pairs of adjacent content words ("national anthem"), case kept."""
    words = [m.group() for m in tokens(text)]
    return {f"{a} {b}" for a, b in zip(words, words[1:], strict=False)
            if all(len(w) >= MIN_WORD_LENGTH and not _has_digit(w) and normal_form(w) for w in (a, b))}


def _best(sources: Sequence[str], targets: Sequence[str], embed: Callable[[Sequence[str]], np.ndarray],
          least: float) -> dict[str, str]:
    """Map each source to its most similar target, where their cosine reaches ``least``."""
    if not sources or not targets:
        return {}
    similarity = embed(list(sources)) @ embed(list(targets)).T
    best = similarity.argmax(axis=1)
    return {source: targets[j] for source, j, row in zip(sources, best, similarity, strict=True) if row[j] >= least}


def bridge(question: str, unknown: Sequence[str], dense: Sequence[Hit], settings: BridgeSettings,
           vectors: Callable[[Sequence[str]], np.ndarray] | None = None) -> Bridge:
    """Bridge each unknown question word to its most similar word of the first vector candidates.

    A long word left without one (COMPOUND_LENGTH letters or more, a German compound such as
    "Nationalhymne") is then tried against the pairs of adjacent words ("national anthem") of
    the first PHRASE_CHUNKS candidates.
    """
    if not settings.enabled or not unknown or not dense:
        return Bridge()
    question_forms = set(content_words(question).values())
    pool: dict[str, str] = {}
    for hit in dense[: settings.chunks]:
        pool.update(content_words(hit.text))
    if vectors is None:
        raise ValueError("the term bridge needs word vectors (Components.word_vectors)")
    embed = vectors
    words = settings.word_list()
    translated = translate(unknown, set(pool.values()) - question_forms, words)
    whole = wholly_translated(translated, words)
    synonyms = thesaurus.held(unknown, set(pool.values()) - question_forms, thesaurus.load() if words else None, embed,
                              compounds_of(settings.dictionary, settings.dictionary_cache) if words else None)
    if not settings.dictionary_gate:
        found = _embedded(question_forms, [w for w in unknown if w not in synonyms], pool, dense, settings, embed)
        found.update(synonyms)
        fields = in_records(translated | found, dense[: settings.chunks])
        found.update(fields)
        return Bridge(found, search_only={w: t for w, t in translated.items() if found.get(w) != t},
                      translated_words=frozenset(fields), crosses=bool(translated), whole=whole)
    unknown = [w for w in unknown if w not in translated]
    return Bridge({**translated, **_embedded(question_forms, unknown, pool, dense, settings, embed)},
                  translated_words=frozenset(translated), crosses=bool(translated), whole=whole)


def in_records(bridged: Mapping[str, str], hits: Sequence[Hit]) -> dict[str, str]:
    """Return the bridged words whose every word is a field name or value word of a record among the hits.

    Records of structured data (``ingest.records``) have a short, closed vocabulary ("weight_kg",
    "city: Vienna"): a translation or a bridged word found there is evidence, so it counts for
    the gate like a word of the question (BRIDGE_DICTIONARY_EVIDENCE), also without
    BRIDGE_DICTIONARY_GATE. Words found only in prose keep their usual, smaller credit.
    """
    vocabulary = {normal_form(m.group()) for h in hits if parse_records(h.text) is not None
                  for m in tokens(h.text)}
    return {w: t for w, t in bridged.items()
            if t.split() and all(normal_form(part) in vocabulary for part in t.split())}


def _embedded(question_forms: set[str], unknown: Sequence[str], pool: dict[str, str], dense: Sequence[Hit],
              settings: BridgeSettings, embed: Callable[[Sequence[str]], np.ndarray]) -> dict[str, str]:
    words = [w for w, form in pool.items() if form not in question_forms]
    found = _best(unknown, words, embed, settings.min_similarity)
    compounds = [w for w in unknown if w not in found and len(w) >= COMPOUND_LENGTH]
    if compounds:
        first = dense[: min(settings.chunks, PHRASE_CHUNKS)]
        phrases = sorted(set().union(*(_phrases(hit.text) for hit in first)))
        phrases = [p for p in phrases if not {normal_form(w) for w in p.split()} & question_forms]
        found.update(_best(compounds, phrases, embed, settings.min_similarity))
    return {w: found[w] for w in unknown if w in found}


def translate(unknown: Sequence[str], pool: set[str], words: Dictionary | None) -> dict[str, str]:
    """Map each unknown word to the dictionary translation whose words the first candidates hold most of.

    Only the translation's words the candidates hold are kept ("main adversary" -> "adversary");
    a word none of whose translations the candidates hold gets none.
    """
    if words is None:
        return {}
    found = {}
    for word in unknown:
        best = max(((_held(phrase, pool), -place, phrase) for place, phrase in enumerate(words.translations(word))),
                   default=None)
        if best and best[0]:
            found[word] = " ".join(w for w in best[2].split() if normal_form(w) in pool)
    return found


def wholly_translated(translated: Mapping[str, str], words: Dictionary | None) -> frozenset[str]:
    """The translated words whose kept translation is one of the list's whole ("Bereich" -> "field"), not
    a part of one ("Vollmond" -> "full" of "full moon"): the question is read in another language."""
    if words is None:
        return frozenset()
    return frozenset(w for w, kept in translated.items() if kept in words.translations(w))


def _held(phrase: str, pool: set[str]) -> float:
    words = phrase.split()
    return sum(normal_form(w) in pool for w in words) / len(words)
