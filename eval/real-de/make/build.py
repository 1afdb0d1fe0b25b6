"""Build the self-written documents of eval/real-de/docs (run from eval/real-de: python make/build.py).

Needs groff (Debian package ``groff``, for gropdf) and openpyxl. The output is deterministic
apart from the PDF creation date.
"""
import html
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import data  # noqa: E402
import handbuch  # noqa: E402
import kurzreferenz  # noqa: E402

DOCS = Path(__file__).resolve().parent.parent / "docs"


def roff(text: str) -> str:
    """Escape a line for groff."""
    text = text.replace("\\", "\\e")
    return ("\\&" + text) if text.startswith((".", "'")) else text


def groff_pdf(source: str, target: Path) -> None:
    result = subprocess.run(["groff", "-ms", "-Tpdf", "-k", "-dpaper=a4", "-P-pa4"], input=source.encode("utf-8"),
                            capture_output=True, check=True)
    target.write_bytes(result.stdout)


def handbook_pdf() -> None:
    lines = [".nr PS 10", ".nr VS 12", ".nr HM 2c", ".nr FM 2c", ".TL", roff(handbuch.TITLE), ".AU",
             roff(handbuch.VERSION), ".LP", ".B Inhalt", ".LP", ".ta 12cR"]
    page = 2
    for number, title, paragraphs in handbuch.SECTIONS:
        lines.append(roff(f"{number}  {title} " + "." * (60 - len(title)) + f" {page}"))
        lines.append(".br")
        page += 1 if len(paragraphs) > 2 else 0
    lines += [".bp", ".2C"]
    for _number, title, paragraphs in handbuch.SECTIONS:
        lines += [".NH", roff(f"{title}"), ".PP"]
        for paragraph in paragraphs:
            lines += [roff(paragraph), ".PP"]
    lines += [".1C", ".LP", roff("Nordlicht Logistik GmbH, Hafenstraße 12, 28217 Bremen. Fragen zu diesem Handbuch: "
                                  "personal@nordlicht-logistik.example")]
    groff_pdf("\n".join(lines) + "\n", DOCS / "nordlicht-handbuch.pdf")


def card_pdf() -> None:
    lines = [".nr PS 9", ".nr VS 11", ".nr HM 1.5c", ".nr FM 1.5c", ".TL", roff(kurzreferenz.TITLE), ".AU",
             roff(kurzreferenz.SUBTITLE), ".2C"]
    for heading, rows in kurzreferenz.BLOCKS:
        lines += [".SH", roff(heading)]
        for command, meaning in rows:
            lines += [".IP", "\\f(CW" + roff(command) + "\\fP", ".br", roff(meaning)]
    lines += [".SH", "Hinweise"]
    for note in kurzreferenz.NOTES:
        lines += [".IP \\(bu", roff(note)]
    groff_pdf("\n".join(lines) + "\n", DOCS / "kurzreferenz-paketverwaltung.pdf")


def handbook_html() -> None:
    e = html.escape
    nav = ('<header><nav class="top"><a href="/">Startseite</a> | <a href="/intranet">Intranet</a> | '
           '<a href="/handbuch">Handbuch</a> | <a href="/formulare">Formulare</a> | <a href="/kontakt">Kontakt</a>'
           '</nav><nav class="breadcrumbs">Sie sind hier: <a href="/">Startseite</a> &gt; <a href="/intranet">'
           'Intranet</a> &gt; <a href="/handbuch">Handbuch</a> &gt; Mitarbeiterhandbuch 2024</nav></header>')
    toc = "".join(f'<li><a href="#s{n}">{n}. {e(t)}</a></li>' for n, t, _ in handbuch.SECTIONS)
    body = "".join(f'<section id="s{n}"><h2>{n}. {e(t)}</h2>' + "".join(f"<p>{e(p)}</p>" for p in ps)
                   + "</section>" for n, t, ps in handbuch.SECTIONS)
    pager = ('<nav class="pager"><a href="/handbuch/organigramm">« Zurück: Organigramm</a> | '
             '<a href="/handbuch">Nach oben</a> | <a href="/handbuch/formulare">Weiter: Formulare »</a></nav>')
    footer = ('<footer><p>© 2024 Nordlicht Logistik GmbH · Hafenstraße 12 · 28217 Bremen</p><p>'
              '<a href="/impressum">Impressum</a> | <a href="/datenschutz">Datenschutz</a> | '
              '<a href="/barrierefreiheit">Barrierefreiheit</a> | <a href="/sitemap">Sitemap</a></p></footer>')
    page = (f'<!DOCTYPE html>\n<html lang="de"><head><meta charset="utf-8"><title>{e(handbuch.TITLE)} – Intranet'
            f'</title></head><body>{nav}{pager}<main><h1>{e(handbuch.TITLE)}</h1><p class="version">'
            f'{e(handbuch.VERSION)}</p><aside class="toc"><h2>Inhalt</h2><ol>{toc}</ol></aside>{body}</main>'
            f'{pager}{footer}</body></html>\n')
    (DOCS / "nordlicht-handbuch.html").write_text(page.replace("</section>", "</section>\n"), encoding="utf-8")


if __name__ == "__main__":
    handbook_pdf()
    card_pdf()
    handbook_html()
    data.write_all(DOCS)
