"""The retrieval inspector page and CLI: admins only, the right gates, ask-as-user reach."""
import json

import pytest

from tests.conftest import login
from tests.services import BETA_SECRET, PASSWORD, QUESTION, seed_library


@pytest.fixture
def library(app):
    return seed_library(app)


def test_inspector_is_for_admins_only(app, library, client):
    assert client.get("/admin/inspector").status_code == 302
    assert login(client, "alice", PASSWORD).status_code == 302
    resp = client.get(f"/admin/inspector?question=x&document={library.beta_doc}&user={library.users['alice']}")
    assert resp.status_code == 302 and BETA_SECRET not in resp.get_data(as_text=True)


def test_inspector_traces_a_document_and_a_users_reach(admin_client, library):
    url = f"/admin/inspector?question={QUESTION}&document={library.beta_doc}&user={library.users['alice']}"
    html = admin_client.get(url).get_data(as_text=True)
    assert 'data-gate="area_filter"' in html  # alice's question never searches Beta
    assert "What alice can reach" in html and "otel-guide.md" in html
    reach = html.split('id="reach"')[1].split("</section>")[0]
    assert "beta-secret.md" not in reach and "Beta" not in reach
    html = admin_client.get(f"/admin/inspector?question={QUESTION}&document={library.alpha_doc}"
                            f"&user={library.users['alice']}").get_data(as_text=True)
    assert 'data-gate="context"' in html and "in context [1]" in html
    assert "full-text weight" in html and "document share: 0.70" in html  # how the fused rank came about


def test_inspector_without_user_needs_areas(admin_client, library):
    resp = admin_client.get(f"/admin/inspector?question={QUESTION}&document={library.alpha_doc}")
    assert resp.status_code == 400 and "Choose a user or at least one area" in resp.get_data(as_text=True)
    resp = admin_client.get(f"/admin/inspector?question={QUESTION}&document={library.alpha_policy}&areas={library.alpha}")
    assert resp.status_code == 200 and 'data-gate="lexical"' in resp.get_data(as_text=True)


def test_inspector_cli_prints_the_trace(app, library):
    runner = app.test_cli_runner()
    result = runner.invoke(args=["rag", "inspect", QUESTION, "--document", str(library.beta_doc), "--user", "carol",
                                 "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["chunks"][0]["gate"] is None and data["chunks"][0]["position"] >= 1
    assert data["mode"] == "hybrid" and data["document_share"] == 0.7 and 0 <= data["fulltext_weight"] <= 0.65
    result = runner.invoke(args=["rag", "inspect", QUESTION, "--document", str(library.beta_doc), "--user", "carol"])
    assert result.exit_code == 0 and "fusion: full-text weight" in result.output and "document share 0.70" in result.output
    result = runner.invoke(args=["rag", "inspect", QUESTION, "--document", str(library.beta_doc), "--user", "alice"])
    assert result.exit_code == 0 and "area_filter" in result.output
    result = runner.invoke(args=["rag", "inspect", QUESTION, "--document", "999", "--user", "alice"])
    assert result.exit_code == 1 and "There is no document with id 999" in result.output


def test_inspector_shows_what_a_follow_up_is_searched_for(app, admin_client, library):
    from urllib.parse import urlencode

    from irisrag import components
    from irisrag.llm.clients import FakeLLM

    follow_up = {"question": "Und wo genau?", "previous": QUESTION, "document": library.alpha_doc,
                 "user": library.users["alice"]}
    html = admin_client.get("/admin/inspector?" + urlencode(follow_up)).get_data(as_text=True)
    assert "Searched for: Und wo genau? OpenTelemetry konfiguriert" in html and "key terms added" in html
    assert "in context [1]" in html  # the follow-up alone would find nothing
    app.config["LLM"] = "fake"
    with app.app_context():
        components.get().__dict__["llm"] = FakeLLM("Wo wird OpenTelemetry konfiguriert?")
    html = admin_client.get("/admin/inspector?" + urlencode(follow_up)).get_data(as_text=True)
    assert "Searched for: Wo wird OpenTelemetry konfiguriert?" in html and "rewritten by the language model" in html
    assert "rewrite: " in html and "in context [1]" in html
    result = app.test_cli_runner().invoke(args=["rag", "inspect", "Und wo genau?", "--previous", QUESTION,
                                                "--document", str(library.alpha_doc), "--user", "alice"])
    assert result.exit_code == 0 and "searched for: Wo wird OpenTelemetry konfiguriert? (rewritten" in result.output


PANTHERS = ("The Panthers defense gave up just 308 points, ranking sixth in the league, while also leading the NFL "
            "in interceptions with 24 and boasting four Pro Bowl selections.")
GERMAN_QUESTION = "Wie viele Punkte gab die Verteidigung der Panthers ab?"


def _with_english_paragraph(app, area_id: int) -> int:
    from irisrag import components
    from irisrag.extensions import db
    from tests.services import add_document

    with app.app_context(), db.connection_context():
        document = add_document(area_id, "panthers.md", [PANTHERS])
        components.get().store.refresh_indexes()
        return document


def test_inspector_names_the_bridged_words(app, admin_client, library):
    app.config["BRIDGE_DICTIONARY"] = ""             # the embedder's bridge alone
    document = _with_english_paragraph(app, library.alpha)
    html = admin_client.get(f"/admin/inspector?question={GERMAN_QUESTION}&document={document}"
                            f"&user={library.users['alice']}").get_data(as_text=True)
    line = html.split('id="trace-bridge"')[1].split("</p>")[0]
    assert "Verteidigung → defense" in line and "Punkte → points" in line
    assert "<q>Wie viele points gab die defense der Panthers ab?</q>" in line    # what the gate's cosine was asked
    assert "cosine to this document" in line
    result = app.test_cli_runner().invoke(args=["rag", "inspect", GERMAN_QUESTION, "--document", str(document),
                                                "--user", "alice"])
    assert result.exit_code == 0 and "term bridge: Punkte -> points, Verteidigung -> defense" in result.output
    assert "asked in the documents' words: Wie viele points gab die defense der Panthers ab?" in result.output
    needed = html.split('id="trace-evidence-needed"')[1].split("</span>")[0]
    assert "0.45" in needed and "lowered" not in needed      # the embedder's bridge: no sign of another language
    assert "evidence needed: 0.45\n" in result.output


def test_inspector_names_the_word_list_s_translations(app, admin_client, library, word_list):
    from irisrag.rag import dictionary

    app.config["BRIDGE_DICTIONARY"] = str(dictionary.DEFAULT_PATH)
    document = _with_english_paragraph(app, library.alpha)
    html = admin_client.get(f"/admin/inspector?question={GERMAN_QUESTION}&document={document}"
                            f"&user={library.users['alice']}").get_data(as_text=True)
    line = html.split('id="trace-word-list"')[1].split("</p>")[0]
    assert "gab → gave" in line                              # the embedder left "gab" unbridged
    result = app.test_cli_runner().invoke(args=["rag", "inspect", GERMAN_QUESTION, "--document", str(document),
                                                "--user", "alice"])
    assert result.exit_code == 0 and "word list: gab -> gave" in result.output
    needed = html.split('id="trace-evidence-needed"')[1].split("</span>")[0]
    assert "0.44" in needed and "lowered: the word list translated the question" in needed
    assert "evidence needed: 0.44 (lowered by GATE_TRANSLATED_ALLOWANCE" in result.output


def test_the_bridge_never_takes_words_from_an_area_the_user_cannot_search(app, admin_client, library):
    _with_english_paragraph(app, library.beta)                       # only bob and carol reach Beta
    html = admin_client.get(f"/admin/inspector?question={GERMAN_QUESTION}&document={library.alpha_doc}"
                            f"&user={library.users['alice']}").get_data(as_text=True)
    assert "defense" not in html and "points" not in html and "Panthers defense" not in html
    html = admin_client.get(f"/admin/inspector?question={GERMAN_QUESTION}&document={library.alpha_doc}"
                            f"&user={library.users['carol']}").get_data(as_text=True)
    assert "Verteidigung → defense" in html                          # carol reaches Beta: the same question bridges


def test_inspector_page_has_the_admin_tab_bar_with_itself_current(admin_client, library):
    html = admin_client.get("/admin/inspector").get_data(as_text=True)
    assert '<a id="tab-inspector" href="/admin/inspector" aria-current="page" class="active">' in html
    for tab in ("users", "documents", "feedback", "system"):
        assert f'id="tab-{tab}"' in html  # the way back to every other admin page
    assert '<a id="tab-inspector" href="/admin/inspector"' in admin_client.get("/admin?tab=users").get_data(as_text=True)
