"""A date written in digits carries its month's name for the search: "im Juli" finds ``2027-07-03``.

Records and tables write dates as digits (``termin.datum: 2027-07-03``, ``Beginn: 13.04.2027``),
people ask with the month's name ("Wo wird der DTZ im Juli geschrieben?", "Bis wann muss ich mich
für den Einbürgerungstest im Mai angemeldet haben?": eval/holdout8-de pt-03 was refused, pt-01
answered from the July record). A chunk's search text (``vectors/searchtext.py``) gets the German
and English names of the months its dates name, and an answer unit's terms count them
(``extractive.lexical_share``). The shown text is unchanged.
"""
from __future__ import annotations

import re
from functools import lru_cache

from irisrag.rag.lexical import terms

NAMES = ("Januar January", "Februar February", "März March", "April", "Mai May", "Juni June", "Juli July",
         "August", "September", "Oktober October", "November", "Dezember December")
_ISO = re.compile(r"(?<![\d-])(?:19|20)\d{2}-(\d{2})-\d{2}(?!\d)")
_GERMAN = re.compile(r"(?<![\d.])\d{1,2}\.(\d{1,2})\.(?:(?:19|20)?\d{2}(?![\d.]))?")


def month_words(text: str) -> str:
    """The names of the months the text's dates name, once each, in the order they first appear ("" for none)."""
    found = dict.fromkeys(int(m.group(1)) for pattern in (_ISO, _GERMAN) for m in pattern.finditer(text))
    return " ".join(NAMES[month - 1] for month in found if 1 <= month <= 12)


@lru_cache(maxsize=4096)
def month_terms(text: str) -> frozenset[str]:
    """The normal forms of ``month_words``."""
    return terms(month_words(text))
