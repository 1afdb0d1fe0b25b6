"""Real input documents: the Debian Reference (German PDF, English HTML pages, English text as Markdown).

Fetched with ``apt-get download debian-reference-de debian-reference-en`` into
``bench/data/`` (gitignored) and unpacked with ``dpkg-deb -x``. Nothing is committed.
"""
from __future__ import annotations

import gzip
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from bench.common import DATA, log

PACKAGES = ("debian-reference-de", "debian-reference-en")
EXTRACTED = DATA / "extract" / "usr" / "share" / "debian-reference"
INPUTS = DATA / "inputs"
QUICK_PDF_PAGES = 30
QUICK_HTML = ("pr01.en.html", "ch03.en.html", "ch08.en.html")
QUICK_MARKDOWN_CHARS = 150_000


class DataUnavailable(RuntimeError):
    """The Debian Reference could not be fetched; the message says what to do."""


@dataclass(frozen=True)
class InputSet:
    """One benchmark input: a kind label and the files imported as separate documents."""

    label: str
    kind: str  # the pipeline's extraction kind: pdf | html | text
    files: tuple[Path, ...]
    note: str


def fetch() -> None:
    """Download and unpack the two packages unless already there."""
    if (EXTRACTED / "debian-reference.de.pdf").is_file() and (EXTRACTED / "ch01.en.html").is_file():
        return
    DATA.mkdir(parents=True, exist_ok=True)
    debs = {p: sorted(DATA.glob(f"{p}_*.deb")) for p in PACKAGES}
    missing = [p for p, found in debs.items() if not found]
    if missing:
        if not shutil.which("apt-get"):
            raise DataUnavailable(_help("apt-get is not available on this machine"))
        log(f"downloading {' '.join(missing)} with apt-get download into {DATA}")
        result = subprocess.run(["apt-get", "download", *missing], cwd=DATA, capture_output=True, text=True)
        if result.returncode != 0:
            raise DataUnavailable(_help(f"`apt-get download {' '.join(missing)}` failed: "
                                        f"{(result.stderr or result.stdout).strip()[-500:]}"))
        debs = {p: sorted(DATA.glob(f"{p}_*.deb")) for p in PACKAGES}
    if not shutil.which("dpkg-deb"):
        raise DataUnavailable(_help("dpkg-deb is not available to unpack the packages"))
    for found in debs.values():
        subprocess.run(["dpkg-deb", "-x", str(found[-1]), str(DATA / "extract")], check=True)
    if not (EXTRACTED / "debian-reference.de.pdf").is_file():
        raise DataUnavailable(_help(f"the packages did not contain {EXTRACTED / 'debian-reference.de.pdf'}"))


def _help(reason: str) -> str:
    return (f"The import benchmark needs the Debian Reference documents, but {reason}.\n"
            f"Fix: on a Debian/Ubuntu machine with network access run\n"
            f"  cd {DATA} && apt-get download {' '.join(PACKAGES)}\n"
            f"(or copy the two .deb files there, or their unpacked usr/share/debian-reference/ files to "
            f"{EXTRACTED}/), then rerun. The context benchmark does not need them.")


def pdf_slice(source: Path, pages: int, target: Path) -> Path:
    """Write the first ``pages`` pages of a PDF to ``target``."""
    if target.is_file():
        return target
    from pypdf import PdfReader, PdfWriter

    reader, writer = PdfReader(str(source)), PdfWriter()
    for page in reader.pages[:pages]:
        writer.add_page(page)
    with open(target, "wb") as handle:
        writer.write(handle)
    return target


def _markdown(source_gz: Path, target: Path, limit: int | None) -> Path:
    """Turn the plain-text edition into a Markdown file (numbered headings become '#' headings)."""
    if target.is_file():
        return target
    import re

    text = gzip.decompress(source_gz.read_bytes()).decode("utf-8")
    if limit is not None and len(text) > limit:
        text = text[: text.rfind("\n", 0, limit)]
    heading = re.compile(r"^(\d+(?:\.\d+){0,3})\. (\S.*)$")
    lines = []
    for line in text.splitlines():
        found = heading.match(line)
        lines.append(f"{'#' * (found.group(1).count('.') + 1)} {found.group(1)}. {found.group(2)}" if found else line)
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def html_folder(folder: Path) -> InputSet:
    """Every ``.html`` file of a folder as the HTML input (one document each), for a machine without the packages."""
    files = tuple(sorted(Path(folder).glob("*.html")))
    if not files:
        raise DataUnavailable(f"{folder} holds no .html files")
    return InputSet("HTML", "html", files, f"{len(files)} HTML pages of {folder}")


def inputs(quick: bool) -> list[InputSet]:
    """Return the PDF, HTML and Markdown inputs (a slice of each with ``quick``)."""
    fetch()
    INPUTS.mkdir(parents=True, exist_ok=True)
    pdf_source = EXTRACTED / "debian-reference.de.pdf"
    html_all = sorted(EXTRACTED.glob("*.en.html"))
    if quick:
        pdf = pdf_slice(pdf_source, QUICK_PDF_PAGES, INPUTS / f"debian-reference.de.p1-{QUICK_PDF_PAGES}.pdf")
        html = tuple(EXTRACTED / name for name in QUICK_HTML)
        md = _markdown(EXTRACTED / "debian-reference.en.txt.gz", INPUTS / "debian-reference.en.quick.md",
                       QUICK_MARKDOWN_CHARS)
        return [
            InputSet("PDF", "pdf", (pdf,), f"German Debian Reference, pages 1–{QUICK_PDF_PAGES}"),
            InputSet("HTML", "html", html, f"{len(html)} English Debian Reference pages ({', '.join(QUICK_HTML)})"),
            InputSet("Markdown", "text", (md,), f"English Debian Reference text, first {QUICK_MARKDOWN_CHARS:,} chars"),
        ]
    md = _markdown(EXTRACTED / "debian-reference.en.txt.gz", INPUTS / "debian-reference.en.md", None)
    return [
        InputSet("PDF", "pdf", (pdf_source,), "German Debian Reference, whole PDF"),
        InputSet("HTML", "html", tuple(html_all), f"all {len(html_all)} English Debian Reference HTML pages"),
        InputSet("Markdown", "text", (md,), "English Debian Reference, whole text edition as .md"),
    ]
