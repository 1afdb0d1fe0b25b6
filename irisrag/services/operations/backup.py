"""Backup and restore of the database, LanceDB and the staged files, taken while the app runs.

A backup is a directory::

    manifest.json        format, time, schema version, embedder, table versions, every file's sha256
    database.sqlite3     SQLite: sqlite3's online backup API (one consistent snapshot, writers go on)
    database.sql         PostgreSQL: pg_dump (one snapshot; --clean --if-exists), restored with psql
    lancedb/             each table at one version
    staging/             the upload root (uploads and fetched pages)

LanceDB (a local directory or an ``s3://`` prefix, read with the app's own object-store
settings through ``irisrag.vectors.objectstore``): a table version never changes once committed; its manifest names data, deletion and
index files that are never rewritten. So each table's current version is read first, every
file but the version manifests is copied, and then only that version's manifest (not the
``latest_version_hint.json``, not ``_refs``): the copy opens at exactly that version, with
history trimmed. Files of newer versions written meanwhile are copied too but referenced by
nothing. The copy is opened and counted before the backup is called complete.

Order: database, then LanceDB, then staged files. A document imported meanwhile may have
chunks without a row (never shown: sources need a document row) and a document deleted
meanwhile a row without chunks (``flask rag coverage`` lists it; rebuild it). Imports that
were running are marked failed on restore (retry them). The source volume
(``IRISRAG_SRC_VOLUME_PATH``) is not ours and is not copied. The backup is written to
``DEST.partial`` and renamed when complete, so a broken run never looks like a backup.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse, urlunparse

from irisrag import components
from irisrag.errors import ConfigurationError, Conflict, IrisRagError, NotFound
from irisrag.extensions import db
from irisrag.i18n import N_
from irisrag.models import Document, User
from irisrag.models.base import utcnow
from irisrag.models.documents import RUNNING
from irisrag.services.documents.documents import upload_root
from irisrag.services.operations.system import sqlite_path
from irisrag.vectors import tables as vectortables
from irisrag.vectors.objectstore import Location, location
from irisrag.vectors.store import connect

log = logging.getLogger(__name__)
FORMAT = 1
MANIFEST = "manifest.json"
_MAX_U64 = 2**64 - 1


class BackupError(IrisRagError):
    code = "backup_failed"
    status = 500


@dataclass(frozen=True)
class Summary:
    """What a backup or restore covered."""

    path: Path
    database: str
    tables: dict[str, dict[str, int]]
    staged_files: int
    documents: int
    warnings: tuple[str, ...] = ()


# --- helpers -------------------------------------------------------------------------

def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _files(root: Path) -> Iterator[Path]:
    for directory, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            yield Path(directory) / name


def _lancedb_location() -> Location:
    comps = components.get()
    try:
        return location(comps.lancedb_uri(), comps.config["LANCEDB_STORAGE_OPTIONS"])
    except ValueError as exc:
        raise ConfigurationError(N_("LanceDB is in a place that cannot be backed up here"), str(exc)) from exc


def _postgres_command(url: str) -> tuple[str, dict[str, str], str | None]:
    """Return (URL without password, environment with PGPASSWORD, schema of the search_path option)."""
    parsed = urlparse(url)
    env = dict(os.environ)
    if parsed.password:
        env["PGPASSWORD"] = parsed.password
        host = parsed.hostname or ""
        netloc = f"{parsed.username}@{host}" if parsed.username else host
        parsed = parsed._replace(netloc=netloc + (f":{parsed.port}" if parsed.port else ""))
    options = parse_qs(parsed.query).get("options", [""])[0]
    schema = options.split("search_path=", 1)[1].split(",")[0].strip() if "search_path=" in options else None
    return urlunparse(parsed._replace(scheme="postgresql")), env, schema


def _run(tool: str, args: list[str], env: dict[str, str]) -> None:
    if shutil.which(tool) is None:
        raise ConfigurationError(N_("%(tool)s was not found, so the PostgreSQL database cannot be backed up or restored"),
                                 "install the PostgreSQL client tools (pg_dump, psql) of the server's version",
                                 params={"tool": tool})
    done = subprocess.run([tool, *args], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise BackupError(N_("%(tool)s failed"), done.stderr.strip()[-2000:], params={"tool": tool})


def _version_of(manifest: str) -> int:
    number = int(manifest.rsplit("/", 1)[-1].split(".")[0])
    return _MAX_U64 - number if number > 2**63 else number  # V2 naming counts down from u64::MAX


# --- backup ----------------------------------------------------------------------------

def _backup_database(dest: Path) -> dict[str, Any]:
    path = sqlite_path()
    if path is not None:
        target = dest / "database.sqlite3"
        source = sqlite3.connect(str(path), timeout=30)
        copy = sqlite3.connect(str(target))
        try:
            with copy:
                source.backup(copy)  # all pages in one step: one consistent snapshot
        finally:
            copy.close()
            source.close()
        return {"kind": "sqlite", "file": target.name}
    url, env, schema = _postgres_command(components.get().config["DATABASE_URL"])
    target = dest / "database.sql"
    _run("pg_dump", ["--dbname", url, "--no-owner", "--no-privileges", "--clean", "--if-exists",
                     *(["--schema", schema] if schema else []), "--file", str(target)], env)
    return {"kind": "postgresql", "file": target.name, "schema": schema}


def _copy_table(source: Location, table_dir: str, target: Path, version: int) -> None:
    """Copy one table directory at one version (see the module docstring)."""
    manifest = None
    for rel, _size in source.files(f"{source.root}/{table_dir}"):
        top = rel.split("/", 1)[0]
        if top == "_refs":
            continue
        if top == "_versions":
            if rel.endswith(".manifest") and _version_of(rel) == version:
                manifest = rel
            continue
        try:
            source.download(f"{table_dir}/{rel}", target / rel)
        except FileNotFoundError:  # an old version's file removed by a cleanup meanwhile
            continue
    if manifest is None:
        raise BackupError(N_("A LanceDB table version could not be found"),
                          f"{source.uri}/{table_dir}: no manifest of version {version}")
    source.download(f"{table_dir}/{manifest}", target / manifest)


def _backup_lancedb(dest: Path) -> dict[str, dict[str, int]]:
    source = _lancedb_location()
    if source.is_empty():
        return {}
    tables = vectortables.pinned_versions(components.get().lancedb_connection())  # rows of the version copied
    for name, pinned in tables.items():
        _copy_table(source, f"{name}.lance", dest / "lancedb" / f"{name}.lance", pinned["version"])
    _verify_lancedb(connect(str(dest / "lancedb")), tables)
    return tables


def _verify_lancedb(connection: Any, tables: dict[str, dict[str, int]]) -> None:
    differences = vectortables.mismatches(connection, tables)
    if differences:
        raise BackupError(N_("The copied LanceDB table does not match the original"), "; ".join(differences))


def _backup_staging(dest: Path) -> int:
    source, count = upload_root(), 0
    if not source.is_dir():
        return 0
    for path in _files(source):
        if path.name.startswith(".staging-"):  # a write in progress
            continue
        target = dest / "staging" / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            shutil.copy2(path, target)
        except FileNotFoundError:  # its document was deleted meanwhile
            continue
        count += 1
    return count


def backup(dest: Path | str) -> Summary:
    """Write a backup of the database, LanceDB and the staged files to DEST (new or empty)."""
    from irisrag.models.schema import current_version

    dest = Path(dest).expanduser().resolve()
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise Conflict(N_("%(path)s already exists and is not empty; choose a new directory."), params={"path": str(dest)})
    partial = dest.with_name(f"{dest.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        database = _backup_database(partial)
        tables = _backup_lancedb(partial)
        staged = _backup_staging(partial)
        documents = Document.select().count()
        files = {str(p.relative_to(partial)): {"bytes": p.stat().st_size, "sha256": _sha256(p)}
                 for p in _files(partial)}
        manifest = {
            "format": FORMAT, "created_at": utcnow().isoformat(timespec="seconds") + "Z",
            "schema_version": current_version(), "embedder_key": components.get().embedder.key,
            "database": database, "lancedb": tables, "upload_root": str(upload_root()),
            "staged_files": staged, "documents": documents, "files": files,
        }
        (partial / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True))
        if dest.exists():
            dest.rmdir()
        partial.rename(dest)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    log.info("backup_done path=%s tables=%d staged=%d documents=%d", dest, len(tables), staged, documents)
    return Summary(dest, database["kind"], tables, staged, documents)


# --- restore ----------------------------------------------------------------------------

def read_manifest(source: Path) -> dict[str, Any]:
    """Read a backup's manifest and check every file against its checksum."""
    path = source / MANIFEST
    if not path.is_file():
        raise NotFound(N_("%(path)s is not a backup (no %(manifest)s)."), params={"path": str(source), "manifest": MANIFEST})
    manifest = json.loads(path.read_text())
    if manifest.get("format") != FORMAT:
        raise BackupError(N_("This backup has an unknown format"), f"format {manifest.get('format')!r}")
    for rel, expected in manifest["files"].items():
        file = source / rel
        if not file.is_file() or _sha256(file) != expected["sha256"]:
            raise BackupError(N_("The backup is damaged: a file is missing or changed"), rel)
    return manifest


def _in_use() -> list[str]:
    used = []
    if db.table_exists(User._meta.table_name) and (User.select().exists() or Document.select().exists()):
        used.append("the database has accounts or documents")
    lance = _lancedb_location()
    if not lance.is_empty():
        used.append(f"{lance.uri} is not empty")
    staging = upload_root()
    if staging.is_dir() and any(staging.iterdir()):
        used.append(f"{staging} is not empty")
    return used


def _restore_database(source: Path, manifest: dict[str, Any]) -> None:
    database = manifest["database"]
    target = sqlite_path()
    if (database["kind"] == "sqlite") != (target is not None):
        raise ConfigurationError(N_("The backup is of another database kind than the configured one"),
                                 f"backup {database['kind']}, IRISRAG_DATABASE_URL is {'SQLite' if target else 'PostgreSQL'}")
    # The app's own connection stays open but idle: it holds no lock, so the copy can replace everything.
    if target is not None:
        backup_file = sqlite3.connect(str(source / database["file"]))
        live = sqlite3.connect(str(target), timeout=30)
        try:
            with live:
                backup_file.backup(live)
        finally:
            live.close()
            backup_file.close()
        return
    url, env, _schema = _postgres_command(components.get().config["DATABASE_URL"])
    _run("psql", ["--dbname", url, "--quiet", "--no-psqlrc", "-v", "ON_ERROR_STOP=1", "--single-transaction",
                  "--file", str(source / database["file"])], env)


def _replace_dir(source: Path, target: Path) -> None:
    if target.exists():
        shutil.rmtree(target)
    if source.is_dir():
        shutil.copytree(source, target)
    else:
        target.mkdir(parents=True, exist_ok=True)


def _fix_rows(manifest: dict[str, Any]) -> int:
    """Point staged documents at the new upload root; fail imports that were running at backup time."""
    old, new = manifest["upload_root"].rstrip("/"), str(upload_root())
    moved = 0
    if old != new:
        with db.atomic():
            for doc in Document.select().where(Document.directory.startswith(old)):
                rest = doc.directory[len(old):]
                if rest == "" or rest.startswith("/"):
                    Document.update(directory=new + rest).where(Document.id == doc.id).execute()
                    moved += 1
    Document.fail_where(Document.status.in_(RUNNING), "The import was running when the backup was taken. Retry it.",
                        "restored from a backup")
    return moved


def restore(source: Path | str, *, force: bool = False) -> Summary:
    """Restore a backup into the configured database, LanceDB directory and upload root (app stopped)."""
    from irisrag.models.schema import current_version, upgrade

    source = Path(source).expanduser().resolve()
    manifest = read_manifest(source)
    in_use = _in_use()
    if in_use and not force:
        raise Conflict(N_("The target is not empty: %(found)s. Use --force to replace it."), params={"found": "; ".join(in_use)})
    _restore_database(source, manifest)
    upgrade()  # an older backup is brought to this version's schema
    _lancedb_location().replace_with(source / "lancedb")
    _verify_lancedb(components.get().lancedb_connection(), manifest["lancedb"])
    _replace_dir(source / "staging", upload_root())
    _fix_rows(manifest)
    warnings = []
    key = components.get().embedder.key
    if manifest["embedder_key"] != key:
        warnings.append(f"The backup was made with the embedder {manifest['embedder_key']}, this installation "
                        f"uses {key}: configure the same one, or run `flask rag rebuild --all`.")
    log.info("restore_done path=%s schema=%s", source, current_version())
    return Summary(source, manifest["database"]["kind"], manifest["lancedb"], manifest["staged_files"],
                   Document.select().count(), tuple(warnings))
