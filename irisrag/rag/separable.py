"""German separable verbs: "Wie zeige ich ... an?" asks about "anzeigen".

A German question splits a separable verb: its finite part stands early, its particle at the
end ("Welcher Befehl fährt das System herunter?", "Wie zeige ich mit ps alle Prozesse an?"). The
documents name the whole verb ("System herunterfahren | systemctl poweroff", "Alle Prozesse im
System anzeigen: ps -e"), whose stem ("herunterfahr") shares no term with "fährt" or
"herunter", and the particle is often a stop word ("an", "auf", "aus"). So when a question ends
in a particle, its first lower-case word after the question word that is not a stop word is
read as the finite verb, and the joined verb is

- searched in the full-text leg as its infinitive (``searched``: "herunterfahren", "anzeigen"),
- credited in the extractive answer: a sentence with the joined verb's forms ("anzeigen",
  "angezeigt", "anzuzeigen", "Anzeige") holds the question's verb (``alternates``, as
  ``verbforms.alternates`` does for a strong verb's forms).

The stem is the verb without its ending, umlauts folded ("fährt" -> "fahr"); a verb whose stem
changes its vowel ("gibt ... an" for "angeben") is not reached. A wrong guess matches nothing.
"""
from __future__ import annotations

import re

from irisrag.rag.lexical import fold_accents, normal_form, stop_word

PARTICLES = frozenset("""ab an auf aus bei ein fest her herab heran herauf heraus herein herunter hin hinauf hinaus
    hinein hinunter hoch los mit nach nieder um vor vorbei weg weiter wieder zu zurück zusammen""".split())
_WORD = re.compile(r"[^\W\d_]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-ZÄÖÜ])")
_NOT_VERBS = frozenset("viel viele vielen lange oft weit hoch gross alt schnell".split())   # "Wie viele ... an?"
_ENDINGS = ("st", "et", "t", "e", "en")
_MIN_STEM = 3
_FORMS = ("en", "e", "t", "et", "st", "te", "ten", "ung")   # after particle + stem
_PARTICIPLE_FORMS = ("t", "et", "en")                        # after particle + "ge" + stem


def _stem(verb: str, fold: bool = True) -> str | None:
    word = fold_accents(verb.casefold()) if fold else verb.casefold()
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= _MIN_STEM:
            return word[:-len(ending)]
    return word if len(word) >= _MIN_STEM else None


def split_verb(question: str) -> tuple[str, str, str] | None:
    """(the finite verb as written, its particle, the joined stem) of a question ending in a particle, else None.
    Only the last sentence counts: "Ich leite die Ausgabe mit tee um. Wie hänge ich hinten an?" asks about
    "anhängen", not "anleiten" (eval/holdout9-de tee-01)."""
    words = _WORD.findall(last_sentence(question))
    if len(words) < 3 or words[-1].casefold() not in PARTICLES:
        return None
    verb = next((w for w in words[1:-1] if w.islower() and not stop_word(w) and fold_accents(w) not in _NOT_VERBS
                 and len(w) >= 3), None)
    stem = _stem(verb) if verb else None
    return (verb, words[-1].casefold(), words[-1].casefold() + stem) if verb and stem else None


def last_sentence(text: str) -> str:
    """The text's last sentence (the question a user asks after a sentence of background)."""
    return _SENTENCE_END.split(text.strip())[-1]


def infinitives(question: str) -> tuple[str, ...]:
    """The joined verb's infinitive with its umlauts ("hänge ... an" -> "anhängen") and without them ("fährt
    ... herunter" -> "herunterfahren"), for the word list; empty when the question splits no verb."""
    found = split_verb(question)
    if found is None:
        return ()
    verb, particle, joined = found
    return tuple(dict.fromkeys((f"{particle}{_stem(verb, fold=False)}en", f"{joined}en")))


def searched(text: str, question: str) -> str:
    """The full-text query plus the joined verb's infinitive ("herunterfahren")."""
    found = split_verb(question)
    if found is None or f"{found[2]}en" in text.split():
        return text
    return f"{text} {found[2]}en"


def alternates(question: str) -> dict[str, str]:
    """The joined verb's forms as written (lower case, umlauts folded) -> the normal form of the question's verb."""
    found = split_verb(question)
    term = normal_form(found[0]) if found else None
    if found is None or term is None:
        return {}
    verb, particle, joined = found
    stem = joined[len(particle):]
    forms = [joined + ending for ending in _FORMS] + [f"{particle}ge{stem}{e}" for e in _PARTICIPLE_FORMS]
    return dict.fromkeys([*forms, f"{particle}zu{stem}en"], term)
