"""OCR with Debian's tesseract: PDF pages without a text layer, and PNG/JPEG/TIFF images.

tesseract runs as a program (``tesseract IMAGE stdout -l deu+eng``), one page at a time,
inside the worker, each page under its own time limit: a page past it is left out with a
warning, the rest of the document goes on. PDF pages are rendered by PDFium at 300 dpi.
Where tesseract is missing, an image fails at once and a PDF without any text layer fails
with a message naming the Debian packages; a PDF with text only loses its scanned pages.
"""
from __future__ import annotations

import logging
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from irisrag.errors import ExtractionError
from irisrag.i18n import N_
from irisrag.ingest.pages import Page

log = logging.getLogger(__name__)

MISSING = N_("Reading scanned pages and images needs the Debian package tesseract-ocr "
             "(with tesseract-ocr-deu and tesseract-ocr-eng); install it on the worker machines.")
TOO_LARGE = N_("The image is too large to read.")
UNREADABLE = N_("The image is damaged and cannot be read.")
RENDER_DPI = 300
MAX_PIXELS = 60_000_000  # an A4 page at 600 dpi is 35 M pixels
_LANGUAGES = re.compile(r"^[A-Za-z_]+(?:\+[A-Za-z_]+)*$")


@dataclass(frozen=True)
class OcrSettings:
    """Languages (tesseract's ``-l``) and the seconds one page may take."""

    languages: str = "deu+eng"
    page_timeout: float = 120.0


def tesseract() -> str | None:
    """Return the path of the tesseract program, or None when it is not installed."""
    return shutil.which("tesseract")


def require_tesseract() -> str:
    """Return the tesseract program or fail with the message naming the Debian packages."""
    program = tesseract()
    if program is None:
        raise ExtractionError(MISSING, "no `tesseract` on PATH; apt-get install tesseract-ocr tesseract-ocr-deu "
                                       "tesseract-ocr-eng")
    return program


def recognise(image, settings: OcrSettings, where: str) -> str:
    """Return the text tesseract reads from a PIL image; '' when the page takes too long."""
    program = require_tesseract()
    if not _LANGUAGES.match(settings.languages):
        raise ExtractionError(MISSING, f"OCR_LANGUAGES={settings.languages!r} is not a tesseract language list")
    with tempfile.TemporaryDirectory(prefix="irisrag-ocr-") as folder:
        source = Path(folder) / "page.png"
        image.save(source)
        try:
            done = subprocess.run([program, str(source), "stdout", "-l", settings.languages],
                                  capture_output=True, timeout=settings.page_timeout, check=False)
        except subprocess.TimeoutExpired:
            log.warning("ocr_page_timeout where=%s seconds=%s", where, settings.page_timeout)
            return ""
    if done.returncode != 0:
        raise ExtractionError(MISSING, f"{where}: tesseract exit {done.returncode}: "
                                       f"{done.stderr.decode(errors='replace')[-500:]}")
    return done.stdout.decode("utf-8", errors="replace").replace("\f", "").strip()


def pdf_page_reader(settings: OcrSettings):
    """Return the OCR callable for PDF pages without text (see ``extract_pdf.PageOcr``)."""
    def read(page, number: int) -> str:
        if not _has_image(page):
            return ""  # blank or drawn only: nothing a scanner put there
        if tesseract() is None:
            log.warning("ocr_unavailable page=%d", number)
            return ""
        scale = min(RENDER_DPI / 72, _fit(page.get_width(), page.get_height()))
        bitmap = page.render(scale=scale, grayscale=True)
        try:
            return recognise(bitmap.to_pil(), settings, f"page {number}")
        finally:
            bitmap.close()
    return read


def _fit(width_pt: float, height_pt: float) -> float:
    """Return the largest scale at which the page stays under MAX_PIXELS."""
    return (MAX_PIXELS / max(width_pt * height_pt, 1.0)) ** 0.5


def _has_image(page) -> bool:
    import pypdfium2.raw as pdfium_c

    return any(True for _ in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,), max_depth=3))


def image_pages(path: Path, settings: OcrSettings) -> Iterator[Page]:
    """Yield the OCR text of each frame of an image file (a multi-page TIFF has several)."""
    from PIL import Image, ImageSequence, UnidentifiedImageError

    require_tesseract()
    try:
        with Image.open(path) as image:
            for number, frame in enumerate(ImageSequence.Iterator(image), start=1):
                if frame.width * frame.height > MAX_PIXELS:
                    raise ExtractionError(TOO_LARGE, f"{path}: frame {number} is {frame.width}x{frame.height}")
                yield Page(number, recognise(frame.convert("L"), settings, f"{path.name} frame {number}"))
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as exc:
        raise ExtractionError(UNREADABLE, f"{path}: {type(exc).__name__}: {exc}") from exc


def pdf_missing_ocr_error(path: Path) -> ExtractionError:
    """Return the error for a PDF without any text layer on a machine without tesseract."""
    return ExtractionError(MISSING, f"{path}: no page has a text layer and `tesseract` is not on PATH")
