"""The document viewer shows navigation and tables of contents, marked as such (issue 37 item 2)."""
from __future__ import annotations

from irisrag import components
from irisrag.extensions import db
from irisrag.vectors.store import ChunkIn
from tests.services import seed_library
from tests.web.test_dashboard import logged_in
from tests.web.test_viewer import staged

TEXTS = ["1 Über uns ........ 2\n2 Urlaub ........ 4\n3 Kantine <b>neu</b> ........ 9",
         "Alle Beschäftigten haben Anspruch auf 30 Tage Urlaub."]


def test_the_viewer_shows_a_marked_table_of_contents_labelled_and_escaped(app, tmp_path):
    library = seed_library(app)
    doc = staged(app, tmp_path, library.alpha, "handbuch.txt", TEXTS, kind="text")
    with app.app_context(), db.connection_context():
        comps = components.get()
        chunks = [ChunkIn(0, TEXTS[0], None, "", True), ChunkIn(1, TEXTS[1])]
        comps.store.replace_document(doc, library.alpha, chunks, comps.embedder.embed_documents(TEXTS))
    page = logged_in(app).get(f"/documents/{doc}").get_data(as_text=True)
    assert '<span class="chunk boilerplate" id="chunk-0">' in page and '<span class="chunk" id="chunk-1">' in page
    assert page.count('class="boilerplate-label muted"') == 1
    assert "Navigation or table of contents: not used as answer text" in page
    assert "2 Urlaub ........ 4" in page and "&lt;b&gt;neu&lt;/b&gt;" in page
    german = logged_in(app).get(f"/documents/{doc}", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Navigation oder Inhaltsverzeichnis: wird nicht als Antworttext verwendet" in german
