"""Whether an answer reads cleanly: the text a user sees, and what makes it unreadable.

``shown_text`` turns the answer's HTML (what the dashboard shows) into the text a reader
sees: tags removed, entities decoded, one line per block. ``problems`` names what is wrong
with that text:

``markup``      raw Markdown left visible: headings (``## ``), code fences, ``**bold**``,
                table rows (``| a | b |``, ``+---+``), links written as ``[text](url)``; manual
                page section headings (``ÜBERSICHT free [Optionen]``)
``table``       raw table or CSV rows: three cell separators ``|`` in a line, or four ``;``
``tags``        HTML or XML tags shown as text (``<setting name="port">``, a cut ``<code``)
``json``        JSON syntax: ``"key": value`` pairs, lines of only braces or brackets
``navigation``  tables of contents and site navigation: dot leaders (``Urlaub ..... 4``),
                runs of section numbers (``4.1. … 4.2. … 4.3.``), "Zurück"/"Weiter" bars,
                breadcrumbs, "Inhaltsverzeichnis"
``long``        more than ``MAX_CHARS`` characters
"""
from __future__ import annotations

import html
import re

MAX_CHARS = 500

_BLOCK_END = re.compile(r"<(?:br\s*/?|/(?:p|li|h[1-6]|tr|div|pre|blockquote|ul|ol|table|section))>", re.I)
_TAG = re.compile(r"<[^>]+>")
_CHECKS: dict[str, re.Pattern[str]] = {
    "markup": re.compile(r"^\s{0,3}#{1,6}\s+\S|^\s*```|\*\*[^*\n]+\*\*|__[^_\n]+__|^\s*\|.*\|\s*$|^\s*\+-{3,}"
                         r"|\[[^\]\n]+\]\((?:https?://|/|#)[^)\s]*\)"
                         r"|^(?:NAME|BEZEICHNUNG|ÜBERSICHT|BESCHREIBUNG|OPTIONEN|BEISPIELE?|ANMERKUNGEN|DATEIEN|AUTOR"
                         r"|AUTOREN|ÜBERSETZUNG|FEHLER|SIEHE AUCH|RÜCKGABEWERT|EXIT-STATUS|SYNOPSIS|DESCRIPTION"
                         r"|OPTIONS|SEE ALSO)\s+\S", re.M),
    "table": re.compile(r"^[^\n|]*(?:\|[^\n|]*){3,}$|^[^\n;]*(?:;[^\n;]*){4,}$", re.M),
    "tags": re.compile(r"</?[A-Za-z][\w:.-]*(?:\s+[\w:.-]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*\s*/?>"
                       r"|</?[A-Za-z][\w:-]*(?=\s*(?:…|$))", re.M),
    "json": re.compile(r"\"[\w .-]+\"\s*:\s*(?:\"|-?\d|\{|\[|true\b|false\b|null\b)|^\s*[{}\[\]],?\s*$", re.M),
    "navigation": re.compile(r"(?:\.\s?){5,}|(?:^|[|«‹]\s*)(?:Zurück|Weiter|Nach oben|Zum Anfang|Startseite)\b"
                             r"|\b(?:Zurück|Weiter)\s*(?:[:|»›]|$)|Sie sind hier|Inhaltsverzeichnis|\bInhalt\s+\d+\s+[A-ZÄÖÜ]"
                             r"|(?:\b\d+(?:\.\d+)*\.\s+[A-ZÄÖÜ„\"]\S*(?:\s+\S+){0,6}?\s+){3}", re.M),
}


def shown_text(answer_html: str) -> str:
    """Return the text a reader sees of an answer's HTML: tags removed, entities decoded, one line per block."""
    text = html.unescape(_TAG.sub("", _BLOCK_END.sub("\n", answer_html or "")))
    lines = (re.sub(r"[ \t\u00a0]+", " ", line).strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def problems(text: str) -> tuple[str, ...]:
    """Return what makes the shown text unclean (the kinds in the module docstring); () when it is clean."""
    found = [kind for kind, pattern in _CHECKS.items() if pattern.search(text)]
    return tuple(found + (["long"] if len(text) > MAX_CHARS else []))


def is_clean(text: str) -> bool:
    """Tell whether the shown text has none of the problems."""
    return not problems(text)
