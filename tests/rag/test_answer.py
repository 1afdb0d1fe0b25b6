from __future__ import annotations

from irisrag.errors import LLMUnavailable
from irisrag.rag.answer import (
    NO_CONTEXT_MESSAGE,
    SYSTEM_PROMPT,
    answer,
    build_messages,
)
from irisrag.rag.lexical import LexicalMatch
from irisrag.rag.render import to_html, to_terminal, urls_in
from irisrag.rag.retrieve import Context, ContextChunk
from irisrag.vectors.store import Hit

QUESTION = "Wie wird OpenTelemetry konfiguriert?"


def make_context(*texts: str) -> Context:
    chunks = tuple(
        ContextChunk(Hit(7, 1, i + 2, 3 if i == 0 else None, text, 0.8, i), LexicalMatch(frozenset(), 2, 2.0), i + 1)
        for i, text in enumerate(texts)
    )
    return Context(QUESTION, (1,), chunks, (), (), {})


class RecordingLLM:
    name = "fake-llm"

    def __init__(self, reply="Über otel.yaml [1].", error: Exception | None = None) -> None:
        self.reply, self.error, self.calls = reply, error, []

    def chat(self, messages, max_tokens=None):
        self.calls.append(messages)
        if self.error:
            raise self.error
        return self.reply


def test_answer_prompt_has_system_prompt_numbered_context_and_question():
    messages = build_messages(QUESTION, make_context("Erster Text.", "Zweiter Text."))
    assert messages[0] == {"role": "system", "content": SYSTEM_PROMPT}
    user = messages[1]["content"]
    assert messages[1]["role"] == "user"
    assert "[1]\nErster Text." in user and "(document" not in user
    assert "[2]\nZweiter Text." in user
    assert user.rstrip().endswith(f"Question: {QUESTION}")
    assert "[n]" not in SYSTEM_PROMPT and "language of the question" in SYSTEM_PROMPT


def test_answer_calls_llm_and_returns_its_text():
    llm = RecordingLLM()
    result = answer(QUESTION, make_context("Text."), llm)
    assert (result.text, result.llm, result.extractive, result.error) == ("Über otel.yaml [1].", "fake-llm", False, None)
    assert len(llm.calls) == 1 and "llm" in result.timings


def test_answer_empty_context_skips_llm():
    llm = RecordingLLM()
    result = answer(QUESTION, make_context(), llm)
    assert result.text == NO_CONTEXT_MESSAGE
    assert llm.calls == [] and not result.extractive


def test_answer_llm_unavailable_gives_extractive_answer():
    llm = RecordingLLM(error=LLMUnavailable("The language model is not reachable.", "connection refused"))
    result = answer(QUESTION, make_context("Erster Text.", "Zweiter Text."), llm)
    assert result.extractive and "connection refused" in result.error
    assert result.text == "Erster Text. [1]\n\nZweiter Text. [2]"  # the chosen sentences, each cited


def test_answer_unexpected_error_and_no_llm_never_raise():
    assert answer(QUESTION, make_context("Text."), RecordingLLM(error=RuntimeError("boom"))).extractive
    result = answer(QUESTION, make_context("Text."), None)
    assert result.extractive and result.llm == "none"


def test_answer_to_html_makes_markup_inert_and_keeps_formatting():
    html = to_html("**wichtig** <script>alert(1)</script> <img src=x onerror=alert(1)>\n\n"
                   "[bad](javascript:alert(1)) [good](https://example.org)\n\n- eins\n- zwei",
                   links={"https://example.org"})
    assert "<script" not in html and "onerror" not in html and "<img" not in html
    assert 'href="javascript' not in html
    assert "<strong>wichtig</strong>" in html
    assert '<a href="https://example.org" rel="noopener noreferrer">good</a>' in html
    assert "<li>eins</li>" in html


def test_answer_to_terminal_strips_markup_and_escapes():
    text = to_terminal("# Titel\n\n**fett** und *kursiv* \x1b[31mrot\x1b[0m\x07\r\n* eins [1]\n- zwei\n`code`")
    assert text == "Titel\n\nfett und kursiv rot\n- eins [1]\n- zwei\ncode"
    assert "\x1b" not in to_terminal("\x1b]0;title\x07ok")


def test_answer_links_stay_links_only_for_urls_of_the_passages():
    html = to_html("[Handbuch](https://evil.example/a) <https://evil.example/b> [ok](https://docs.example.org/x) "
                   '<a href="https://evil.example/c">roh</a>', urls_in(["Siehe https://docs.example.org/x."]))
    assert "evil.example/a\"" not in html and "Handbuch (https://evil.example/a)" in html
    assert 'href="https://evil.example' not in html and "https://evil.example/b" in html
    assert '<a href="https://docs.example.org/x" rel="noopener noreferrer">ok</a>' in html


def test_answer_passages_reach_the_model_without_markdown_escapes():
    user = build_messages(QUESTION, make_context(r"Setze SLAPD\_CONF auf \*.conf \[alt\]."))[1]["content"]
    assert "Setze SLAPD_CONF auf *.conf [alt]." in user


def test_terminal_shows_a_record_as_field_value_lines_and_a_table_row_with_its_header():
    record = to_terminal("| besprechungsraeume | |\n|---|---|\n| raum | Ems |\n| plaetze | 40 |\n\n[1]")
    assert record == "besprechungsraeume\nraum: Ems\nplaetze: 40\n\n[1]"
    trimmed = to_terminal("| standorte | |\n|---|---|\n| kuerzel | HM |\n| … |  |\n\n[1]")   # fields left out
    assert trimmed == "standorte\nkuerzel: HM\n…\n\n[1]"
    rows = to_terminal("| Gericht | Preis |\n|---|---|\n| Tagesgericht | 4,20 € |\n| Salat \\| Suppe | |")
    assert rows == "Gericht: Tagesgericht · Preis: 4,20 €\nGericht: Salat | Suppe"
    assert to_terminal("a | b\nkein | Rahmen") == "a | b\nkein | Rahmen"   # bars without a rule: no table
