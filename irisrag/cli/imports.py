"""Import commands: folders, files, URLs, volume paths, staging, rebuilds, coverage, listing."""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import click

from irisrag.cli import ID, command
from irisrag.services.documents import documents
from irisrag.services.documents import imports as service
from irisrag.services.documents.coverage import chunk_coverage
from irisrag.services.documents.imports import OUTCOMES, QUEUE, SYNC, WAIT, Item, Report

_AREA = click.option("--area", required=True, help="Area (name or id) the documents belong to.")
_RUN_OPTIONS = (
    click.option("--wait", is_flag=True, help="Follow the queued jobs until they have ended."),
    click.option("--sync", is_flag=True, help="Run the import in this process, without queue or worker."),
    click.option("--timeout", type=click.FloatRange(min=0), default=None,
                 help="With --wait: stop waiting after this many seconds (the jobs go on)."),
    click.option("--json", "as_json", is_flag=True, help="Print JSON."),
)


def run_options(fn):
    """Add --wait, --sync, --timeout and --json to an import command."""
    for option in reversed(_RUN_OPTIONS):
        fn = option(fn)
    return fn


def _plain(text: object) -> str:
    return "".join(ch if ch.isprintable() else "?" for ch in str(text))


def _bar(length: int, label: str, as_json: bool):
    """Return a progress bar (on stderr with --json, so stdout stays JSON)."""
    return click.progressbar(length=length, label=label, file=click.get_text_stream("stderr" if as_json else "stdout"))


def _echo_report(report: Report, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
        return
    for e in report.entries:
        detail = e.error or (f"{e.status}, {e.chunks} chunks" if e.status in ("done", "unchanged") else e.status)
        click.echo(f"{e.outcome:<9} {'#' + str(e.id) if e.id else '-':>6}  {_plain(e.name)}  [{_plain(e.area)}]  "
                   f"{_plain(detail)}")
    for path in report.skipped:
        click.echo(f"{'skipped':<9} {'-':>6}  {_plain(path)}  (unsupported file type)")
    summary = report.summary
    click.echo(", ".join(f"{summary[key]} {key}" for key in OUTCOMES)
               + (f", {len(report.skipped)} skipped" if report.skipped else ""))


def _run(items: Sequence[Item], *, wait: bool, sync: bool, timeout: float | None, as_json: bool,
         force: bool = False, skipped: Sequence[Path] = ()) -> None:
    """Start the items, follow them with --wait, print the result; exit 1 when any failed."""
    if wait and sync:
        raise click.UsageError("Use either --wait or --sync, not both.")
    mode = SYNC if sync else WAIT if wait else QUEUE
    with _bar(len(items), "Importing" if sync else "Queueing", as_json) as bar:
        report = service.start(items, mode, force=force, progress=bar.update)
    report = Report(report.entries, tuple(str(p) for p in skipped))
    pending = sum(e.running for e in report.entries)
    if mode == WAIT and pending:
        if not service.workers_listening():
            click.echo("Note: no worker listens on the queue yet; the jobs wait until one starts.", err=True)
        with _bar(pending, "Waiting for the jobs", as_json) as bar:
            report = service.follow(report, timeout=timeout, progress=bar.update)
    _echo_report(report, as_json)
    if report.failed:
        raise click.ClickException(f"{report.failed} of {len(report.entries)} imports failed.")


@command("import-folder")
@click.argument("folder")
@_AREA
@run_options
def import_folder(folder: str, area: str, **run) -> None:
    """Import every supported file below FOLDER (recursive; hidden files are left out)."""
    found, skipped = service.folder_files(folder)
    _run(service.file_items(area, found), skipped=skipped, **run)


@command("import-file")
@click.argument("paths", nargs=-1, required=True)
@_AREA
@run_options
def import_file(paths: tuple[str, ...], area: str, **run) -> None:
    """Import files from this machine by their paths."""
    _run(service.file_items(area, paths), **run)


@command("import-url")
@click.argument("urls", nargs=-1)
@_AREA
@click.option("--from-file", type=click.File("r", encoding="utf-8"),
              help="Read URLs from a file ('-': standard input), one a line; '#' starts a comment.")
@run_options
def import_url(urls: tuple[str, ...], area: str, from_file, **run) -> None:
    """Import web pages or PDFs by URL (fetched server-side, saved under the staging folder url/)."""
    urls = urls + tuple(service.read_url_list(from_file) if from_file else ())
    if not urls:
        raise click.UsageError("Give at least one URL, or --from-file.")
    _run(service.url_items(area, urls), **run)


@command("import-path")
@click.argument("paths", nargs=-1, required=True)
@_AREA
@run_options
def import_path(paths: tuple[str, ...], area: str, **run) -> None:
    """Import files by a path relative to the source volume, or by an original absolute path (see `stage`)."""
    _run(service.path_items(area, paths), **run)


@command("stage")
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def stage_command(file: str, as_json: bool) -> None:
    """Copy FILE into the source volume and print its original path for "import by path"."""
    copy, original = service.stage_file(file)
    if as_json:
        click.echo(json.dumps({"copy": str(copy), "original_path": original}, ensure_ascii=False))
        return
    click.echo(f"Copied to {copy}. Paste this path into the admin's import by path, "
               f"or run: flask rag import-path '{original}' --area AREA", err=True)
    click.echo(original)


@command("rebuild")
@click.argument("document_id", type=ID, required=False)
@click.option("--all", "rebuild_all", is_flag=True, help="Rebuild every document not being imported now.")
@run_options
def rebuild(document_id: int | None, rebuild_all: bool, **run) -> None:
    """Re-chunk and re-embed one document (by id) or all of them, even when unchanged."""
    if (document_id is None) == (not rebuild_all):
        raise click.UsageError("Give a DOCUMENT_ID or --all (not both).")
    _run(service.rebuild_items(None if rebuild_all else document_id), force=True, **run)


@command("cancel")
@click.argument("document_id", type=ID)
def cancel(document_id: int) -> None:
    """Cancel a queued or running import (the job stops, the old chunks stay)."""
    doc = documents.cancel_import(document_id)
    click.echo(f"Cancelled the import of document {document_id} ({_plain(doc.name)}); its old chunks stay.")


@command("delete-document")
@click.argument("document_id", type=ID)
def delete_document(document_id: int) -> None:
    """Delete a document with its chunks and its staged file (a running import is cancelled first)."""
    name = documents.delete_document(document_id)
    click.echo(f"Deleted document {document_id} ({_plain(name)}).")


@command("documents")
@click.option("--area", default=None, help="Only documents of this area (name or id).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_documents(area: str | None, as_json: bool) -> None:
    """List documents, newest first: id, name, area, status, chunks, source."""
    docs = documents.list_documents(documents.area_of(area).id if area else None)
    rows = [{"id": d.id, "name": d.name, "area": d.area.name, "status": d.status, "chunks": d.chunk_count,
             "source": service.source_of(d)} for d in docs]
    if as_json:
        click.echo(json.dumps({"documents": rows}, indent=2, ensure_ascii=False))
        return
    for r in rows:
        click.echo(f"{'#' + str(r['id']):>6}  {_plain(r['name'])}  [{_plain(r['area'])}]  {r['status']}, "
                   f"{r['chunks']} chunks  {_plain(r['source'])}")
    click.echo(f"{len(rows)} documents")


@command("coverage")
@click.option("--area", default=None, help="Only documents of this area (name or id).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def coverage(area: str | None, as_json: bool) -> None:
    """Show the chunks per document in the vector store against the count on record; flag empty ones."""
    rows = chunk_coverage(documents.area_of(area).id if area else None)
    zero = [r.document_id for r in rows if r.is_empty]
    if as_json:
        click.echo(json.dumps({"documents": [{"id": r.document_id, "name": r.name, "area": r.area, "status": r.status,
                                              "chunks": r.stored, "expected": r.recorded} for r in rows],
                               "total_chunks": sum(r.stored for r in rows), "zero_chunks": zero},
                              indent=2, ensure_ascii=False))
        return
    for r in rows:
        flag = "NO CHUNKS" if r.is_empty else f"expected {r.recorded}" if r.mismatch else ""
        line = f"{'#' + str(r.document_id):>6}  {r.stored:>6}  {_plain(r.name)}  [{_plain(r.area)}]  {r.status}  {flag}"
        click.echo(click.style(line.rstrip(), fg="red" if r.is_empty else None))
    click.echo(f"{len(rows)} documents, {sum(r.stored for r in rows)} chunks, {len(zero)} without chunks")
