"""Render known text as a scanned page: an image, or a PDF page with that image and no text layer."""
from __future__ import annotations

from pathlib import Path

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
KNOWN_TEXT = (
    "Die Zeitzone des Systems wird mit timedatectl eingestellt.\n"
    "Der Dienst systemd-timesyncd gleicht die Uhr über das Netz ab.\n"
    "Ältere Systeme nutzen dafür ntpdate oder chrony; beide\n"
    "lesen ihre Server aus der Datei /etc/chrony/chrony.conf.\n"
    "Scanned pages are read with tesseract in German and English."
)


def render_page(text: str = KNOWN_TEXT, dpi: int = 300):
    """Return a grey A4 page image with ``text`` in 12 pt, as a scanner would deliver it."""
    from PIL import Image, ImageDraw, ImageFont

    width, height = int(8.27 * dpi), int(11.69 * dpi)
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, int(12 * dpi / 72))
    y = dpi
    for line in text.split("\n"):
        draw.text((dpi, y), line, font=font, fill=0)
        y += int(20 * dpi / 72)
    return image


def write_scan_png(path: Path, text: str = KNOWN_TEXT) -> Path:
    render_page(text).save(path)
    return path


def write_scan_pdf(path: Path, texts: list[str]) -> Path:
    """Write an image-only PDF, one scanned page per text (no text layer at all)."""
    pages = [render_page(text, dpi=200) for text in texts]
    pages[0].save(path, "PDF", resolution=200.0, save_all=True, append_images=pages[1:])
    return path


def cer(expected: str, found: str) -> float:
    """Return the character error rate: edit distance / expected length, whitespace runs as one space."""
    a, b = " ".join(expected.split()), " ".join(found.split())
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1] / max(len(a), 1)
