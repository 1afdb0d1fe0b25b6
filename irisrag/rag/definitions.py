"""Questions that ask what a thing is or does, and the units that define it.

"Was macht apt-get clean?", "Was bedeutet Storage=volatile?", "What does --keep do?" ask for
the entry that starts with the thing named: a manual's option or command entry ("clean
bereinigt das lokale Depot …"), a glossary line. Sentences that merely mention it ("Wie clean
bereinigt autoclean …", "Die Konfigurationsoption APT::Clean-Installed …") share as many terms
and came first (eval/holdout2-de ag-04). The thing is the question's last term (German and
English name it last: "apt-get clean", "die Option --keep"); a unit whose first word (an article
aside) it is gets
``BONUS`` in the extractive answer's score.

A manual page's NAME line ("usermod - verändert ein Benutzerkonto") and its synopsis ("usermod
[Optionen] ANMELDENAME") name the command and what it is for: they share the command's name and
its topic with every question about it, and came before the option a how-to question asks for
("Wie sperre ich ein Benutzerkonto mit usermod?": `-L, --lock` fourth, seen in the browser). For a
how-to or command question (``span_kinds``) such an overview unit loses ``OVERVIEW_PENALTY``, as
much as ``extractive.FAR_GAP``: it is shown only when nothing scores near it. Asked what the
command is, it stays first.
"""
from __future__ import annotations

import re

from irisrag.rag.lexical import normal_form, term_list

BONUS = 0.2
OVERVIEW_PENALTY = 1.0
_NAME_LINE = re.compile(r"^[\w.+@-]+(?:,\s*[\w.+@-]+)*\s+[-\u2013\u2014]\s+\S")   # "pstree - Prozesse …"
_SYNOPSIS = re.compile(r"^[\w.+@-]+\s+[\[{]")                                        # "fuser [-fuv] …"
_ARTICLES = frozenset("der die das ein eine the a an".split())
_WORD = re.compile(r"[^\W_]+")
_ASKS = re.compile(r"^\s*(?:was|wof(?:ü|ue)r|wozu)\s+(?:macht|machen|ist|sind|bedeutet|bedeuten|bewirkt|bewirken|tut|"
                   r"heißt|steht)\b|^\s*what\s+(?:does|do|is|are)\b", re.IGNORECASE)


def defined_term(question: str) -> str | None:
    """The normal form of the thing a definition question asks about, else None."""
    if not _ASKS.search(question):
        return None
    found = term_list(_ASKS.sub("", question))
    return found[-1] if found else None


def bonus(term: str | None, text: str) -> float:
    """``BONUS`` when the unit's first word (an article aside) is the asked thing."""
    if term is None:
        return 0.0
    words = _WORD.findall(text[:80])
    first = next((w for w in words if w.casefold() not in _ARTICLES), None)
    return BONUS if first is not None and normal_form(first) == term else 0.0


def overview(kinds: frozenset[str], text: str) -> float:
    """Minus ``OVERVIEW_PENALTY`` for a manual's NAME line or synopsis when the question asks how (``kinds``, the
    question's ``span_kinds.asked_kinds``, holds "command")."""
    if "command" not in kinds:
        return 0.0
    return -OVERVIEW_PENALTY if overview_line(text) else 0.0


def overview_line(text: str) -> bool:
    """Tell whether a unit is a manual's NAME line ("pstree - Prozesse …") or its synopsis ("fuser [-fuv] …")."""
    head = text.lstrip()
    return bool(_NAME_LINE.match(head) or _SYNOPSIS.match(head))
