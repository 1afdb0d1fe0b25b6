"""Normalised terms and the lexical match score used by the context and source filters.

Normal form of a text
    1. Tokens are runs of letters and digits (``[^\\W_]+``); hyphens, apostrophes,
       punctuation and underscores split words.
    2. Each token is put in Unicode NFKC and casefolded ("ß" -> "ss", full-width
       letters fold). Tokens of one character are dropped; numbers are kept ("2024", "v3").
    3. German and English stop words (hand-written lists below, compared with accents
       folded) are dropped.
    4. Each remaining token gets ONE normal form: accents other than the umlauts folded,
       the German Snowball stem, accents folded, "-iert" participles cut to the stem of
       their "-ieren" verb ("konfiguriert" -> "konfiguri", as "konfigurieren"), then the
       English Snowball stem of that.
       German first because the German stemmer needs the umlauts: it folds ä/ö/ü to
       a/o/u itself and reads "ae"/"oe"/"ue" as umlauts (Snowball 3), so "Häuser",
       "Haeuser" and "Haus" all become "haus". The English stemmer then merges English
       inflections the German one leaves alone ("studies"/"study", "running"/"run").
       One canonical form per token (rather than a German and an English stem side by
       side) keeps the count honest: one shared word is one matched term.
       Known gaps (Snowball's): other German "-t" verb forms ("zeigt"/"zeigen"), English
       "-ed" of verbs ending in "-se" ("released"/"release").

Lexical score of a chunk for a question (the README copies this)::

    score = sum over the question terms t found in the chunk of
            min(occurrences of t in the chunk, 4) * (1.5 if len(t) >= 7 else 1.0)

``count`` is the number of distinct question terms found. A specific term (normal form
of 7+ characters, e.g. "opentelemetri", "berechtigung") is worth 1.5 per occurrence,
any other term 1.0; repetitions count up to four times. So 5 means "strong": one specific
question term mentioned four times (6.0), or several terms repeated.
"""
from __future__ import annotations

import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

OCCURRENCE_CAP = 4
SPECIFIC_TERM_LENGTH = 7
SPECIFIC_TERM_WEIGHT = 1.5

_TOKEN = re.compile(r"[^\W_]+")

_GERMAN_STOP_WORDS = """
aber alle allem allen aller alles als also am an ander andere anderem anderen anderer
anderes anders auch auf aus bei beim bin bis bist bitte da dabei dadurch daher damit dann
dar daran darauf daraus darf darfst darin darum das dass dasselbe dazu dein deine deinem
deinen deiner deines dem demselben den denn denselben der derer derselbe derselben des
deshalb desselben dessen dich die dies diese dieselbe dieselben diesem diesen dieser
dieses dir doch dort du durch ein eine einem einen einer eines einig einige einigem
einigen einiger einiges einmal er es etwa etwas euch euer eure eurem euren eurer eures
für gegen gewesen gibt hab habe haben hat hatte hatten hier hin hinter ich ihm ihn ihnen
ihr ihre ihrem ihren ihrer ihres im in indem ins ist ja jede jedem jeden jeder jedes
jene jenem jenen jener jenes jetzt kann kannst kein keine keinem keinen keiner keines
können könnte machen man manche manchem manchen mancher manches mein meine meinem
meinen meiner meines mich mir mit muss musste nach nicht nichts noch nun nur ob oder
ohne sehr sein seine seinem seinen seiner seines selbst sich sie sind so solche solchem
solchen solcher solches soll sollte sondern sonst über um und uns unser unsere unserem
unseren unserer unseres unter viel vom von vor wann war waren warst warum was weg weil
weiter welche welchem welchen welcher welches wenn wer werde werden wessen wie wieder
will wir wird wirst wo wobei woher wohin wollen wollte worden wurde wurden während zu
zum zur zwar zwischen
"""

_ENGLISH_STOP_WORDS = """
a about above after again against all also am an and any are aren as at be because been
before being below between both but by can cannot could couldn did didn do does doesn
doing don down during each either else even ever every few for from further get gets got
had hadn has hasn have haven having he her here hers herself him himself his how however
if in into is isn it its itself just least less let like ll may me might more most much
must mustn my myself neither no nor not now of off often on once only or other ought our
ours ourselves out over own please rather re same shall shan she should shouldn since so
some such than that the their theirs them themselves then there these they this those
though through thus to too under until up upon us very was wasn we were weren what when
where whether which while who whom whose why will with within without won would wouldn
yet you your yours yourself yourselves ve
"""


def fold_accents(text: str) -> str:
    """Strip combining marks (é -> e, ä -> a) after a canonical decomposition."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _fold_except_umlauts(text: str) -> str:
    # The German stemmer reads ä/ö/ü itself; other accents would hide suffixes ("café").
    decomposed = unicodedata.normalize("NFD", text)
    kept = []
    for ch in decomposed:
        if not unicodedata.combining(ch) or (ch == "\u0308" and kept and kept[-1] in "aou"):
            kept.append(ch)
    return unicodedata.normalize("NFC", "".join(kept))


def _word_set(words: str) -> frozenset[str]:
    return frozenset(fold_accents(w.casefold()) for w in words.split())


GERMAN_STOP_WORDS = _word_set(_GERMAN_STOP_WORDS)
ENGLISH_STOP_WORDS = _word_set(_ENGLISH_STOP_WORDS)
STOP_WORDS = GERMAN_STOP_WORDS | ENGLISH_STOP_WORDS
# Words that read as a stop word once their umlaut is folded, and are none: "Wie ändere ich ...?" lost its verb
# to the stop word "andere". ("würde", "hätte", "müsste" fold into stop words and are function words too.)
_NOT_STOP_WORDS = frozenset({"ändere"})


def stop_word(token: str) -> bool:
    """Tell whether a casefolded token is a stop word (compared with its accents folded, but ``_NOT_STOP_WORDS``)."""
    return fold_accents(token) in STOP_WORDS and token not in _NOT_STOP_WORDS

class _Stemmers(threading.local):
    """One pair of Snowball stemmers per thread: a stemmer object keeps its state between calls,
    so threads sharing one (32 per web worker) got wrong stems or IndexError under load."""

    def __init__(self) -> None:
        self.german = snowballstemmer.stemmer("german")
        self.english = snowballstemmer.stemmer("english")


_STEMMERS = _Stemmers()


@dataclass(frozen=True)
class LexicalMatch:
    """Question terms found in a chunk, how many, and the lexical score."""

    terms: frozenset[str]
    count: int
    score: float


@lru_cache(maxsize=100_000)
def normal_form(raw: str) -> str | None:
    """Return the normal form of one token, or None for a stop word or a single character."""
    token = unicodedata.normalize("NFKC", raw).casefold()
    if len(token) < 2 or stop_word(token):
        return None
    if token.isdigit():
        return token
    stemmers = _STEMMERS
    german = fold_accents(stemmers.german.stemWord(_fold_except_umlauts(token)))
    if german.endswith("iert") and len(german) > 6:
        german = german[:-3]
    return fold_accents(stemmers.english.stemWord(german))


def tokens(text: str) -> Iterator[re.Match[str]]:
    """Yield the word tokens of the text as regex matches (offsets into the text itself)."""
    return _TOKEN.finditer(text)


def term_list(text: str) -> list[str]:
    """Return the normal forms of the text's tokens in order, repeats included."""
    return list(_term_tuple(text))


@lru_cache(maxsize=4096)
def _term_tuple(text: str) -> tuple[str, ...]:
    # One question reads the same candidate texts three times (term bridge, fusion coverage, gate).
    forms = (normal_form(m.group()) for m in tokens(text))
    return tuple(form for form in forms if form)


def terms(text: str) -> frozenset[str]:
    """Return the set of normalised terms of a text."""
    return frozenset(term_list(text))


def term_weight(term: str) -> float:
    """Return the per-occurrence weight of a term (specific terms weigh more)."""
    return SPECIFIC_TERM_WEIGHT if len(term) >= SPECIFIC_TERM_LENGTH else 1.0


def score(occurrences: Counter[str] | dict[str, int]) -> float:
    """Return the lexical score for matched terms and their occurrence counts."""
    return sum(min(n, OCCURRENCE_CAP) * term_weight(t) for t, n in occurrences.items() if n > 0)


def match(question_terms: Iterable[str], chunk_text: str) -> LexicalMatch:
    """Match the question's normalised terms against a chunk's text."""
    wanted = question_terms if isinstance(question_terms, frozenset) else frozenset(question_terms)
    if not wanted:
        return LexicalMatch(frozenset(), 0, 0.0)
    found = Counter(t for t in term_list(chunk_text) if t in wanted)
    return LexicalMatch(frozenset(found), len(found), score(found))
