"""Content with the same SHA-256 in the user's areas appears once per answer (issue 37 item 8)."""
from __future__ import annotations

from irisrag.services.asking import asking
from tests.services import QUESTION, add_document

SHA = "ab" * 32
COPY = ["OpenTelemetry wird über die Datei collector.yaml konfiguriert; der Export geht an Port 4318."]


def _documents(result) -> set[int]:
    return ({s.document_id for s in result.sources} | {c.document_id for c in result.context}
            | {c.document_id for c in result.citations})


def test_the_same_file_in_two_searched_areas_is_shown_once(library, ctx):
    by_url = add_document(library.alpha, "collector.html", COPY, sha256=SHA, source_url="https://example.org/c")
    uploaded = add_document(library.beta, "collector-upload.html", COPY, sha256=SHA)
    result = asking.ask(library.users["carol"], QUESTION, None)
    shown = _documents(result)
    assert len(shown & {by_url, uploaded}) == 1
    assert [c.position for c in result.context] == list(range(1, len(result.context) + 1))
    assert sum("collector.yaml" in c.text for c in result.citations) <= 1
    assert {library.alpha_doc, library.beta_doc} <= shown   # other content is untouched


def test_each_user_sees_the_copy_of_an_area_they_may_search(library, ctx):
    by_url = add_document(library.alpha, "collector.html", COPY, sha256=SHA)
    uploaded = add_document(library.beta, "collector-upload.html", COPY, sha256=SHA)
    assert by_url in _documents(asking.ask(library.users["alice"], QUESTION, None))
    bob = _documents(asking.ask(library.users["bob"], QUESTION, None))
    assert uploaded in bob and by_url not in bob


def test_documents_without_a_hash_yet_are_never_merged(library, ctx):
    first = add_document(library.alpha, "a.md", COPY)
    second = add_document(library.alpha, "b.md", COPY)
    shown = _documents(asking.ask(library.users["alice"], QUESTION, None))
    assert {first, second} <= shown
