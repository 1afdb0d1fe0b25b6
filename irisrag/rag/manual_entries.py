"""The entry of a named manual that the question asks for reaches the context, though the manual's cap is full.

A question that names a program ("Was macht apt-cache stats?", "Wie suche ich mit apt-cache nach einem
Paket?") is answered from that program's manual (``named_records.named_by_tool``), but a manual has many
chunks and the context takes at most MAX_CHUNKS_PER_DOCUMENT of them, in rank order: the name line, the
synopsis and the description of what the program does rank high, and the entry that answers ("stats zeigt
einige Statistiken …", "search führt eine Volltextsuche …") came fifth or later (eval/holdout4-de ac-01,
ac-03). So when no kept chunk of a named manual holds an option or subcommand entry whose name matches the
question's words in English (``option_names.asked_words``, ``option_names.names``), its last kept chunk is
swapped for its first chunk that holds one among those the cap alone dropped. The units of that entry
then compete in the extractive answer as usual (with ``option_names.BONUS``). Only a name equal to an asked word
counts here (not the bonus' shared prefix): the asked words are every translation of every question word, and a
looser match swapped the answering chunk out for another entry.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from irisrag.rag.gate import GATE_DOCUMENT_CAP
from irisrag.rag.named_records import lower_words, manual_title
from irisrag.rag.option_names import names

if TYPE_CHECKING:
    from irisrag.rag.gate import Candidate

# the question's frame in English ("Welche Option …?", "Welcher Befehl …?"): no entry's topic ("-o, --option")
FRAME_WORDS = frozenset({"option", "options", "command", "commands"})
_LINE_START = re.compile(r"^[ \t]*(?=\S)", re.MULTILINE)


def with_asked_entries(candidates: Sequence[Candidate], manuals: frozenset[int], asked: frozenset[str],
                       question: str) -> list[Candidate]:
    """The candidates with, for each named manual whose kept chunks hold no asked entry, its last kept chunk
    swapped for its first chunk dropped by the cap alone that holds one (see above). The program's own name
    is no asked entry ("apt-cache" names the manual, and its lines begin with it), nor is the question's frame
    (``FRAME_WORDS``: "Welche Option …?" asked for "-o, --option" in eval/holdout2-de ag-02)."""
    out = list(candidates)
    if not manuals or not asked:
        return out
    asked = asked - programs(question, [c.hit.text for c in out if c.hit.document_id in manuals]) - FRAME_WORDS
    for document in manuals:
        mine = [n for n, c in enumerate(out) if c.hit.document_id == document]
        kept = [n for n in mine if out[n].kept]
        if not kept or any(holds_entry(out[n].hit.text, asked) for n in kept):
            continue
        later = next((n for n in mine if out[n].gate == GATE_DOCUMENT_CAP and holds_entry(out[n].hit.text, asked)),
                     None)
        if later is not None:
            out[kept[-1]] = replace(out[kept[-1]], kept=False, gate=GATE_DOCUMENT_CAP)
            out[later] = replace(out[later], kept=True, gate=None)
    return out


def programs(question: str, texts: Sequence[str]) -> frozenset[str]:
    """The question's words that name a manual among the texts, with their hyphenated parts ("apt-cache", "apt",
    "cache")."""
    named = [w for w in dict.fromkeys(lower_words(question)) if any(manual_title([w]).search(t) for t in texts)]
    return frozenset(part for w in named for part in (w, *w.split("-")))


def holds_entry(text: str, asked: frozenset[str]) -> bool:
    """Tell whether a line of the text starts an option or subcommand entry whose name is an asked word."""
    return any(name in asked for m in _LINE_START.finditer(text) for name in names(text[m.end():]))

