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
"""
from __future__ import annotations

import re

from irisrag.rag.lexical import STOP_WORDS, fold_accents
from irisrag.rag.span_kinds import QUESTIONS

_VERB_LIKE = re.compile(r"(?<![\w-])([a-zäöüß]{3,}?)(e|en|n)(?![\w-])")
_MIN_STEM = 4   # "gebe" -> "geb" is left alone: short stems are strong verbs ("gibt") or noise


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


def searched(text: str, question: str) -> str:
    """The full-text query: the text plus the question's third-person verb forms."""
    extra = [form for form in forms(question) if form not in text.split()]
    return f"{text} {' '.join(extra)}" if extra else text
