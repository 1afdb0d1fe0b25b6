"""Staging: URL file names, safe names, atomic writes with a size cap, source-volume lookups."""
from __future__ import annotations

import hashlib
import io
import os
import re
import unicodedata
from pathlib import Path

import pytest

from irisrag.errors import (
    ConfigurationError,
    FileTooLarge,
    InvalidFileName,
    NotFound,
    PathOutsideVolume,
    ValidationError,
)
from irisrag.ingest.stage import (
    find_by_original_path,
    resolve_in_volume,
    safe_file_name,
    stage_bytes,
    stage_into_volume,
    url_file_name,
)

DOCBOOK = "https://docs.intersystems.com/irislatest/csp/docbook/DocBook.UI.Page.cls?KEY=GSQL_intro"


def short_hash(url: str) -> str:
    return hashlib.sha256(url.encode("utf-8")).hexdigest()[:8]


# --- url_file_name ------------------------------------------------------------

def test_url_file_name_has_spec_shape():
    name = url_file_name(DOCBOOK)
    assert re.fullmatch(r"DocBook\.UI\.Page_[0-9a-f]{8}\.md", name)
    assert name == f"DocBook.UI.Page_{short_hash(DOCBOOK)}.md"


def test_url_file_name_differs_by_query_only():
    other = DOCBOOK.replace("GSQL_intro", "GSQL_select")
    assert url_file_name(DOCBOOK) != url_file_name(other)
    assert url_file_name(DOCBOOK).split("_")[0] == url_file_name(other).split("_")[0]


@pytest.mark.parametrize(("url", "kind", "stem", "suffix"), [
    ("https://example.org/", "html", "index", ".md"),
    ("https://example.org", "text", "index", ".md"),
    ("https://example.org/handbuch/kapitel-2/", "html", "kapitel-2", ".md"),
    ("https://example.org/files/debian-reference.de.pdf", "pdf", "debian-reference.de", ".pdf"),
    ("https://example.org/%C3%BCber%20uns.html", "html", "_ber_uns", ".md"),
    ("https://example.org/a/..%2F..%2Fetc%2Fpasswd", "html", "_.._etc_passwd", ".md"),
    ("https://example.org/.htaccess", "text", "htaccess", ".md"),
    ("https://example.org/" + "x" * 400 + ".html", "html", "x" * 120, ".md"),
])
def test_url_file_name_cases(url, kind, stem, suffix):
    name = url_file_name(url, kind)
    assert name == f"{stem}_{short_hash(url)}{suffix}"
    assert safe_file_name(name) == name


def test_url_file_name_rejects_unknown_kind():
    with pytest.raises(ValidationError):
        url_file_name(DOCBOOK, "exe")


# --- safe_file_name -----------------------------------------------------------

def test_safe_file_name_keeps_umlauts_and_normalises_to_nfc():
    decomposed = unicodedata.normalize("NFD", "Bericht_März.pdf")
    assert decomposed != "Bericht_März.pdf"
    assert safe_file_name(decomposed) == "Bericht_März.pdf"
    assert safe_file_name("  Handbuch v2.pdf ") == "Handbuch v2.pdf"


@pytest.mark.parametrize("name", [
    "", "   ", "../x", "a/b.pdf", "/etc/passwd", "..\\boot.ini", "C:\\x\\y.pdf", "..", ".", "...",
    "a\x00b.txt", "zeile\numbruch.txt", "tab\tname.txt", "\x1b[31mrot.txt", "rechnung\u202efdp.exe",
    "x" * 256, "ä" * 128 + ".md",
])
def test_safe_file_name_refuses(name):
    with pytest.raises(InvalidFileName):
        safe_file_name(name)


# --- stage_bytes ----------------------------------------------------------------

def test_stage_bytes_writes_into_subdir(tmp_path):
    path = stage_bytes(tmp_path / "staging", "upload", "Bericht.pdf", b"%PDF-1.7 test")
    assert path == tmp_path / "staging" / "upload" / "Bericht.pdf"
    assert path.read_bytes() == b"%PDF-1.7 test"


def test_stage_bytes_accepts_streams_and_iterables_and_replaces(tmp_path):
    stage_bytes(tmp_path, "url", "seite.md", b"alt")
    path = stage_bytes(tmp_path, "url", "seite.md", io.BytesIO(b"neu " * 1000))
    assert path.read_bytes() == b"neu " * 1000
    path = stage_bytes(tmp_path, "url", "seite.md", iter([b"a", b"b", b"c"]))
    assert path.read_bytes() == b"abc"
    assert sorted(p.name for p in (tmp_path / "url").iterdir()) == ["seite.md"]


def test_stage_bytes_over_limit_leaves_nothing_behind(tmp_path):
    stage_bytes(tmp_path, "upload", "alt.txt", b"bleibt")
    with pytest.raises(FileTooLarge):
        stage_bytes(tmp_path, "upload", "gross.txt", iter([b"x" * 600, b"x" * 600]), max_bytes=1000)
    with pytest.raises(FileTooLarge):
        stage_bytes(tmp_path, "upload", "alt.txt", b"y" * 2000, max_bytes=1000)
    assert sorted(p.name for p in (tmp_path / "upload").iterdir()) == ["alt.txt"]
    assert (tmp_path / "upload" / "alt.txt").read_bytes() == b"bleibt"


@pytest.mark.parametrize("name", ["../boese.txt", "sub/datei.txt", ".."])
def test_stage_bytes_refuses_path_names(tmp_path, name):
    with pytest.raises(InvalidFileName):
        stage_bytes(tmp_path, "upload", name, b"x")
    assert not (tmp_path / "boese.txt").exists()


def test_stage_bytes_refuses_unknown_subdir(tmp_path):
    with pytest.raises(ValidationError):
        stage_bytes(tmp_path, "../etc", "x.txt", b"x")


def test_stage_bytes_unwritable_root_is_configuration_error(tmp_path):
    blocker = tmp_path / "kein-ordner"
    blocker.write_text("eine Datei, kein Ordner")
    with pytest.raises(ConfigurationError) as info:
        stage_bytes(blocker, "upload", "x.txt", b"x")
    assert "staging folder" in info.value.message


# --- source volume --------------------------------------------------------------

@pytest.fixture
def volume(tmp_path):
    root = tmp_path / "volume"
    (root / "handbuch").mkdir(parents=True)
    (root / "handbuch" / "kapitel1.md").write_text("# Kapitel 1", encoding="utf-8")
    (root / "Bericht.pdf").write_bytes(b"%PDF-1.7")
    outside = tmp_path / "geheim.txt"
    outside.write_text("geheim")
    (root / "link-raus.txt").symlink_to(outside)
    (root / "ordner-raus").symlink_to(tmp_path)
    (root / "link-rein.md").symlink_to(root / "handbuch" / "kapitel1.md")
    return root


@pytest.mark.parametrize("setting", [None, "", "   "])
def test_unconfigured_volume_is_explained(setting):
    with pytest.raises(ValidationError) as info:
        resolve_in_volume(setting, "x.pdf")
    assert info.value.message == "The source volume is not configured (IRISRAG_SRC_VOLUME_PATH)"


def test_missing_volume_folder_is_explained(tmp_path):
    with pytest.raises(ValidationError, match="does not exist"):
        resolve_in_volume(tmp_path / "fehlt", "x.pdf")


def test_resolve_in_volume_finds_files(volume):
    assert resolve_in_volume(volume, "handbuch/kapitel1.md") == (volume / "handbuch" / "kapitel1.md").resolve()
    assert resolve_in_volume(str(volume), "handbuch\\kapitel1.md").name == "kapitel1.md"
    assert resolve_in_volume(volume, "link-rein.md").name == "kapitel1.md"


@pytest.mark.parametrize("relpath", [
    "../geheim.txt", "/etc/passwd", "handbuch/../../geheim.txt", "a/../../b", "link-raus.txt",
    "ordner-raus/geheim.txt", "C:\\Windows\\win.ini", "..\\geheim.txt",
])
def test_resolve_in_volume_refuses_leaving_the_volume(volume, relpath):
    with pytest.raises(PathOutsideVolume):
        resolve_in_volume(volume, relpath)


def test_resolve_in_volume_missing_and_directory(volume):
    with pytest.raises(NotFound):
        resolve_in_volume(volume, "handbuch/fehlt.md")
    with pytest.raises(ValidationError, match="not a regular file"):
        resolve_in_volume(volume, "handbuch")
    with pytest.raises(ValidationError):
        resolve_in_volume(volume, "  ")


@pytest.mark.parametrize("original", [
    "C:\\Users\\anna\\Dokumente\\Bericht.pdf", "/home/anna/Bericht.pdf", "Bericht.pdf", "\\\\server\\share\\Bericht.pdf",
])
def test_find_by_original_path_uses_the_file_name(volume, original):
    assert find_by_original_path(volume, original) == (volume / "Bericht.pdf").resolve()


def test_find_by_original_path_names_expected_location(volume):
    with pytest.raises(NotFound) as info:
        find_by_original_path(volume, "C:\\Users\\anna\\Fehlt.pdf")
    assert str(volume / "Fehlt.pdf") in info.value.message
    assert "Fehlt.pdf" in info.value.message


def test_find_by_original_path_refuses_symlink_out_and_bad_names(volume):
    with pytest.raises(PathOutsideVolume):
        find_by_original_path(volume, "/tmp/link-raus.txt")
    with pytest.raises(ValidationError):
        find_by_original_path(volume, "C:\\Users\\anna\\")
    with pytest.raises(InvalidFileName):
        find_by_original_path(volume, "/home/anna/..")
    with pytest.raises(ValidationError, match="not configured"):
        find_by_original_path("", "/home/anna/Bericht.pdf")


def test_stage_into_volume_round_trip(volume, tmp_path):
    source_dir = tmp_path / "desktop"
    source_dir.mkdir()
    source = source_dir / "Protokoll März.txt"
    source.write_text("Protokoll", encoding="utf-8")
    dest, original = stage_into_volume(volume, source)
    assert dest == volume.resolve() / "Protokoll März.txt"
    assert dest.read_text(encoding="utf-8") == "Protokoll"
    assert original == os.path.abspath(source)
    assert find_by_original_path(volume, original) == dest
    assert not [p for p in volume.iterdir() if p.name.startswith(".staging-")]


def test_stage_into_volume_missing_source(volume, tmp_path):
    with pytest.raises(NotFound):
        stage_into_volume(volume, tmp_path / "gibt-es-nicht.pdf")


def test_paths_are_returned_as_path_objects(volume):
    assert isinstance(resolve_in_volume(volume, "Bericht.pdf"), Path)


def test_url_file_name_keeps_the_extension_of_binary_kinds():
    assert url_file_name("https://example.org/a/bericht", "docx").endswith(".docx")
    assert url_file_name("https://example.org/scan", "image", ".jpg").endswith(".jpg")
    assert url_file_name("https://example.org/t.csv", "csv").endswith(".csv")
