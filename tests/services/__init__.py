"""Helpers for the asking tests: two areas with their own documents, groups and users.

``seed_library(app)`` creates

* area ``Alpha`` (group ``team-a``: alice, carol) with ``otel-guide.md`` (a web page) and
  ``policy.txt`` (imported by path);
* area ``Beta`` (group ``team-b``: bob, carol) with ``beta-secret.md``, which answers the same
  question and carries the marker ``BETA_SECRET``, so any leak of area Beta is visible;

and stores their chunks in LanceDB with the app's (fake) embedder, as the import pipeline would.
"""
from __future__ import annotations

from dataclasses import dataclass

from irisrag import components
from irisrag.extensions import db
from irisrag.models import Area, Document, Group
from irisrag.services.admin import admin as admin_service
from irisrag.vectors.store import ChunkIn

QUESTION = "Wie wird OpenTelemetry konfiguriert?"
BETA_SECRET = "BETA-SECRET-7731"
PASSWORD = "password123"

ALPHA_TEXTS = [
    "OpenTelemetry wird über die Datei otel.yaml konfiguriert. Der Collector wird dort konfiguriert.",
    "Die Kantine öffnet um elf Uhr.",
]
BETA_TEXTS = [f"OpenTelemetry wird in Beta über beta.yaml konfiguriert. Geheimer Schlüssel {BETA_SECRET}."]


@dataclass(frozen=True)
class Library:
    alpha: int
    beta: int
    alpha_doc: int
    alpha_policy: int
    beta_doc: int
    users: dict[str, int]


def add_document(area_id: int, name: str, texts: list[str], **fields) -> int:
    """Create a Document row and store its chunks (needs an app context and a connection)."""
    document = Document.create(area=area_id, name=name, directory=f"area-{area_id}", status="done",
                               chunk_count=len(texts), **fields)
    comps = components.get()
    chunks = [ChunkIn(i, text) for i, text in enumerate(texts)]
    comps.store.replace_document(document.id, area_id, chunks, comps.embedder.embed_documents(texts))
    return document.id


def seed_library(app) -> Library:
    """Create the two areas, their groups, users and documents (see the module docstring)."""
    with app.app_context(), db.connection_context():
        alpha = admin_service.create_named(Area, "Alpha")
        beta = admin_service.create_named(Area, "Beta")
        for group in ("team-a", "team-b"):
            admin_service.create_named(Group, group)
        admin_service.link_area("Alpha", "team-a")
        admin_service.link_area("Beta", "team-b")
        users = {}
        for name, groups in {"alice": ["team-a"], "bob": ["team-b"], "carol": ["team-a", "team-b"],
                             "dave": []}.items():
            users[name] = admin_service.create_user(name, PASSWORD).id
            for group in groups:
                admin_service.link_user(name, group)
        alpha_doc = add_document(alpha.id, "otel-guide.md", ALPHA_TEXTS[:1],
                                 source_url="https://docs.example.org/otel")
        alpha_policy = add_document(alpha.id, "policy.txt", ALPHA_TEXTS[1:], original_path="/srv/docs/policy.txt")
        beta_doc = add_document(beta.id, "beta-secret.md", BETA_TEXTS, original_path="/srv/beta/beta-secret.md")
        return Library(alpha.id, beta.id, alpha_doc, alpha_policy, beta_doc, users)
