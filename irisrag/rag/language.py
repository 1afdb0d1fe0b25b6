"""Which language the documents are written in: a stop-word count, enough to tell the languages apart.

``detect(text)`` names the language (as the full-text settings name them: ``German``,
``English``, ...) whose most frequent function words make up the largest share of the text,
or None when no language stands out (short or mixed text). ``CorpusLanguages`` samples the
stored passages and says which languages the documents are in (query expansion translates
toward them, not blindly toward FTS_LANGUAGE).
"""
from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable

STOP_WORDS = {
    "German": "der die das und ist nicht ein eine zu den mit von auf für sich im dem des wird werden oder auch "
              "es wie bei aus nach wenn kann sind einer über",
    "English": "the and is of to in that it for not with as be are this by on or from an can which if have "
               "you will at when",
    "French": "le la les et est des une un pour pas que dans du sur avec ce qui par sont au il elle ou",
    "Spanish": "el la los las y es de que en un una para por con no se del al como más o su",
    "Italian": "il la di che è e per un una non con sono del della le gli al come anche si",
    "Dutch": "de het een en is van dat niet te op met voor zijn er aan als ook bij of",
}
_WORDS = {language: frozenset(words.split()) for language, words in STOP_WORDS.items()}
_TOKEN = re.compile(r"[^\W\d_]+")
MIN_HITS = 3
MIN_SHARE = 0.2  # a language is "in the corpus" when at least this share of the sampled passages is in it


def detect(text: str) -> str | None:
    """Return the language whose function words are most frequent in ``text``, or None when unclear."""
    counts = Counter()
    for word in _TOKEN.findall((text or "").lower()):
        for language, words in _WORDS.items():
            if word in words:
                counts[language] += 1
    if not counts:
        return None
    (best, hits), *rest = counts.most_common(2)
    if hits < MIN_HITS or (rest and rest[0][1] * 1.5 > hits):
        return None
    return best


def dominant(texts: Iterable[str], min_share: float = MIN_SHARE) -> list[str]:
    """Return the languages of at least ``min_share`` of the texts whose language is clear, most common first."""
    found = Counter(language for language in map(detect, texts) if language)
    total = sum(found.values())
    return [language for language, n in found.most_common() if total and n / total >= min_share]


class CorpusLanguages:
    """The languages of the stored passages (a sample, re-read every ``ttl`` seconds); ``fallback`` when unclear."""

    def __init__(self, sample: Callable[[], list[str]], fallback: str, ttl: float = 600.0) -> None:
        self.sample, self.fallback, self.ttl = sample, fallback, ttl
        self._lock = threading.Lock()
        self._cached: tuple[float, list[str]] | None = None

    def __call__(self) -> list[str]:
        with self._lock:
            if self._cached is None or time.monotonic() - self._cached[0] > self.ttl:
                self._cached = (time.monotonic(), dominant(self.sample()) or [self.fallback])
            return self._cached[1]


def store_sample(store, documents: int = 25, chunks: int = 3) -> Callable[[], list[str]]:
    """Return a function that reads the first passages of up to ``documents`` stored documents."""
    def sample() -> list[str]:
        texts: list[str] = []
        for document_id in list(store.count_by_document())[:documents]:
            texts.extend(hit.text for hit in store.chunks_of(document_id)[:chunks])
        return texts
    return sample
