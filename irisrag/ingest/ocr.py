"""OCR with Debian's tesseract: PDF pages without a text layer, and PNG/JPEG/TIFF images.

tesseract runs as a program (``tesseract IMAGE stdout -l deu+eng``), one page at a time,
inside the worker, each page under its own time limit: a page past it is left out with a
warning, the rest of the document goes on. PDF pages are rendered by PDFium at 300 dpi.
Where tesseract is missing, an image fails at once and a PDF without any text layer fails
with a message naming the Debian packages; a PDF with text only loses its scanned pages.

One document may give OCR at most MAX_OCR_PAGES pages (image frames, scanned PDF pages)
and MAX_OCR_PIXELS pixels in all (``OcrBudget``): a 21 KB TIFF with 150 tiny frames held
the only worker for 27 s. An image file is measured before its first frame is read; a
PDF's scanned pages are counted as they come.
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
TOO_MANY_PAGES = N_("The document has more than %(num)d pages to read with OCR (scanned pages or image frames). "
                    "Split it into smaller files.")
TOO_MANY_PIXELS = N_("The scanned pages of the document have more than %(num)d million pixels in all, too many to "
                     "read with OCR. Split it into smaller files or scan at a lower resolution.")
RENDER_DPI = 300
MAX_PIXELS = 60_000_000  # one page or frame; an A4 page at 600 dpi is 35 M pixels
MAX_OCR_PAGES = 100  # per document: at 2-5 s an A4 scan (0.2 s a tiny frame), minutes of a worker, not hours
MAX_OCR_PIXELS = 1_000_000_000  # per document: about 115 A4 pages at 300 dpi (8.7 M pixels each)
_LANGUAGES = re.compile(r"^[A-Za-z_]+(?:\+[A-Za-z_]+)*$")


@dataclass(frozen=True)
class OcrSettings:
    """Languages (tesseract's ``-l``) and the seconds one page may take."""

    languages: str = "deu+eng"
    page_timeout: float = 120.0


@dataclass
class OcrBudget:
    """What OCR may still read of one document: pages and pixels (MAX_OCR_PAGES, MAX_OCR_PIXELS)."""

    pages: int = MAX_OCR_PAGES
    pixels: int = MAX_OCR_PIXELS

    def spend(self, width: int, height: int, where: str) -> None:
        """Take one page of width x height pixels from the budget, or raise "too large" when it is spent."""
        if width * height > MAX_PIXELS:
            raise ExtractionError(TOO_LARGE, f"{where} is {width}x{height} pixels (at most {MAX_PIXELS})")
        if self.pages < 1:
            raise ExtractionError(TOO_MANY_PAGES, f"{where}: more than {MAX_OCR_PAGES} pages for OCR",
                                  params={"num": MAX_OCR_PAGES})
        if width * height > self.pixels:
            raise ExtractionError(TOO_MANY_PIXELS, f"{where}: more than {MAX_OCR_PIXELS} pixels for OCR",
                                  params={"num": MAX_OCR_PIXELS // 1_000_000})
        self.pages, self.pixels = self.pages - 1, self.pixels - width * height


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
    """Return the OCR callable for the pages without text of one PDF (see ``extract_pdf.PageOcr``)."""
    budget = OcrBudget()

    def read(page, number: int) -> str:
        if not _has_image(page):
            return ""  # blank or drawn only: nothing a scanner put there
        if tesseract() is None:
            log.warning("ocr_unavailable page=%d", number)
            return ""
        scale = min(RENDER_DPI / 72, _fit(page.get_width(), page.get_height()))
        budget.spend(round(page.get_width() * scale), round(page.get_height() * scale), f"page {number}")
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
            _measure_frames(image, path)
            for number, frame in enumerate(ImageSequence.Iterator(image), start=1):
                yield Page(number, recognise(frame.convert("L"), settings, f"{path.name} frame {number}"))
    except Image.DecompressionBombError as exc:  # a size bomb is too large, not damaged
        raise ExtractionError(TOO_LARGE, f"{path}: {exc}") from exc
    except (UnidentifiedImageError, OSError) as exc:
        raise ExtractionError(UNREADABLE, f"{path}: {type(exc).__name__}: {exc}") from exc


def _measure_frames(image, path: Path) -> None:
    """Refuse an image whose frames exceed the OCR budget, from their headers, before OCR reads any."""
    budget = OcrBudget()
    frames = getattr(image, "n_frames", 1)
    if frames > MAX_OCR_PAGES:
        raise ExtractionError(TOO_MANY_PAGES, f"{path}: {frames} frames (at most {MAX_OCR_PAGES})",
                              params={"num": MAX_OCR_PAGES})
    for number in range(frames):
        image.seek(number)
        budget.spend(image.width, image.height, f"{path.name} frame {number + 1}")
    image.seek(0)


def pdf_missing_ocr_error(path: Path) -> ExtractionError:
    """Return the error for a PDF without any text layer on a machine without tesseract."""
    return ExtractionError(MISSING, f"{path}: no page has a text layer and `tesseract` is not on PATH")
