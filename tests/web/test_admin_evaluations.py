import json

from irisrag.extensions import db
from irisrag.models import EvalRun


def _run(app, ndcg: float, mode: str = "hybrid"):
    with app.app_context(), db.connection_context():
        return EvalRun.create(dataset="xquad-de", split="test", mode=mode, embedder_key="use-m3-512", queries=40,
                              metrics_json=json.dumps({"ndcg@10": ndcg, "recall@10": 0.9, "mrr@10": 0.8}))


def test_admin_evaluations_list_runs_with_their_change(admin_client, app):
    _run(app, 0.900)
    latest = _run(app, 0.925)
    _run(app, 0.500, mode="vector")
    html = admin_client.get("/admin/evaluations").get_data(as_text=True)
    row = html.split(f'id="eval-{latest.id}"')[1].split("</tr>")[0]
    assert "0.925" in row and "(+0.025)" in row
    assert "xquad-de" in html and "0.500" in html


def test_admin_evaluations_need_an_admin(client):
    assert client.get("/admin/evaluations").status_code == 302
