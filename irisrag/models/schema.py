"""Schema creation and upgrades, run by ``flask rag init-db`` (no hand-run SQL).

Each entry of ``MIGRATIONS`` upgrades the schema by one version; ``upgrade`` creates
missing tables, then applies the migrations the database has not seen yet, each in a
transaction. Append new migrations, never edit old ones.
"""
from __future__ import annotations

from collections.abc import Callable

from peewee import (
    BooleanField,
    CharField,
    DateTimeField,
    ForeignKeyField,
    IntegerField,
    PostgresqlDatabase,
    TextField,
)
from playhouse.migrate import SchemaMigrator, migrate

from irisrag.extensions import db
from irisrag.models.base import BaseModel, utcnow  # noqa: F401 - utcnow used by migrations


class SchemaVersion(BaseModel):
    version = IntegerField()


Migration = Callable[[SchemaMigrator], None]


def _document_identity_per_area(migrator: SchemaMigrator) -> None:
    """Version 2: a document is identified by (area, directory, name), so no import reaches another area's."""
    db.execute_sql("DROP INDEX IF EXISTS document_directory_name")
    db.execute_sql("CREATE UNIQUE INDEX IF NOT EXISTS document_area_id_directory_name "
                   "ON document (area_id, directory, name)")


def _external_accounts(migrator: SchemaMigrator) -> None:
    """Version 3: accounts created by LDAP/OIDC sign-in, memberships set by the directory."""
    columns = {column.name for column in db.get_columns("user")}  # a new database has them already
    steps = []
    if "auth_source" not in columns:
        steps.append(migrator.add_column("user", "auth_source", CharField(max_length=16, default="local")))
    if "external_id" not in columns:
        steps.append(migrator.add_column("user", "external_id", CharField(max_length=300, null=True)))
    if "via_directory" not in {column.name for column in db.get_columns("user_group")}:
        steps.append(migrator.add_column("user_group", "via_directory", BooleanField(default=False)))
    migrate(*steps)
    if "user_external_id" not in {index.name for index in db.get_indexes("user")}:
        migrate(migrator.add_index("user", ("external_id",), False))


def _document_title(migrator: SchemaMigrator) -> None:
    """Version 4: documents fetched from a URL keep the page's title to show."""
    if "title" not in {column.name for column in db.get_columns("document")}:
        migrate(migrator.add_column("document", "title", CharField(max_length=255, default="")))


def _conversations(migrator: SchemaMigrator) -> None:
    """Version 5: every question belongs to a conversation; each earlier question becomes one of its own.

    The model declares no index on ``conversation_id``: ``create_tables`` runs before this and
    would index a column an old table lacks; the index is made here. The conversation table is
    new (created just before), so each old question's conversation
    takes the question's id: one INSERT ... SELECT keeps every row and its feedback, on both
    databases, without a loop.
    """
    from irisrag.models.history import Conversation

    columns = {column.name for column in db.get_columns("question_log")}
    steps = []
    if "conversation_id" not in columns:
        field = ForeignKeyField(Conversation, null=True, field=Conversation.id, on_delete="CASCADE", index=False)
        steps.append(migrator.add_column("question_log", "conversation_id", field))
    # NOT NULL with a DDL default in one statement: the migrator's two steps rebuild an SQLite
    # table, and dropping the old question_log would cascade to its feedback.
    if "search_query" not in columns:
        db.execute_sql("ALTER TABLE question_log ADD COLUMN search_query TEXT NOT NULL DEFAULT ''")
    if "sources" not in columns:
        db.execute_sql("ALTER TABLE question_log ADD COLUMN sources TEXT NOT NULL DEFAULT '[]'")
    if "question_log_conversation_id" not in {index.name for index in db.get_indexes("question_log")}:
        steps.append(migrator.add_index("question_log", ("conversation_id",), False))
    migrate(*steps)
    db.execute_sql("INSERT INTO conversation (id, user_id, title, created_at, updated_at) "
                   "SELECT id, user_id, substr(question, 1, 200), created_at, created_at FROM question_log "
                   "WHERE conversation_id IS NULL")
    db.execute_sql("UPDATE question_log SET conversation_id = id WHERE conversation_id IS NULL")
    if isinstance(db.obj, PostgresqlDatabase):  # the ids were given: move the sequence past them
        db.execute_sql("SELECT setval(pg_get_serial_sequence('conversation', 'id'), "
                       "COALESCE((SELECT MAX(id) FROM conversation), 0) + 1, false)")


def _sources(migrator: SchemaMigrator) -> None:
    """Version 6: documents name the source a sync keeps them current from (the tables are new, made just before).

    As in version 5, the new foreign key has no index of its own in the model (``create_tables``
    would index a column an old table lacks); it is made here.
    """
    from irisrag.models.sources import Source

    columns = {column.name for column in db.get_columns("document")}
    steps = []
    if "source_id" not in columns:
        field = ForeignKeyField(Source, null=True, field=Source.id, on_delete="SET NULL", index=False)
        steps.append(migrator.add_column("document", "source_id", field))
    for name in ("etag", "last_modified", "links"):
        if name not in columns:
            steps.append(migrator.add_column("document", name, TextField(null=True)))
    if "removed_at" not in columns:
        steps.append(migrator.add_column("document", "removed_at", DateTimeField(null=True)))
    migrate(*steps)
    if "document_source_id" not in {index.name for index in db.get_indexes("document")}:
        migrate(migrator.add_index("document", ("source_id",), False))


# version 1 is the initial create_tables; later versions go here as (version, function).
MIGRATIONS: list[tuple[int, Migration]] = [(2, _document_identity_per_area), (3, _external_accounts),
                                           (4, _document_title), (5, _conversations),
                                           (6, _sources)]


def current_version() -> int:
    """Return the schema version recorded in the database (0 when new)."""
    if not db.table_exists("schema_version"):
        return 0
    row = SchemaVersion.select().order_by(SchemaVersion.version.desc()).first()
    return row.version if row else 0


def upgrade() -> tuple[int, int]:
    """Create or upgrade the schema; return (version before, version after)."""
    from irisrag.models import ALL_MODELS

    before = current_version()
    with db.atomic():
        db.create_tables(ALL_MODELS, safe=True)
        if before == 0:
            SchemaVersion.create(version=1)
    migrator = SchemaMigrator.from_database(db.obj)
    version = max(before, 1)
    for number, migration in MIGRATIONS:
        if number > version:
            with db.atomic():
                migration(migrator)
                SchemaVersion.create(version=number)
            version = number
    return before, version
