"""Tables in passage text read as rows with their header (rag.tables): grid, Markdown and HTML layouts."""
from __future__ import annotations

from irisrag.rag.tables import is_row_line, row_text, rows

GRID = """+---------------------------------------------------------------+
| Einstellung | Wert |
|----------------------+----------------------------------------|
|Geladene GRUB2-Module |gzio, part_gpt, ext2 |
|----------------------+----------------------------------------|
|verwendete Partition |Partition, die über UUID= |
|für das |fe3e1db5 |
|root-Dateisystem |identifiziert wird |
|----------------------+----------------------------------------|"""

NO_HEADER = """|Prüfen, ob "$unit" aktiv ist |"systemctl is-active |
| |$unit" |
|-----------------------------------------+---------------------|
|Status von "$unit|$PID|device" prüfen |"systemctl status |
| |$unit|$PID|$device" |
|-----------------------------------------+---------------------|"""


def test_a_grid_tables_wrapped_rows_are_joined_per_column_under_the_header():
    found, header = rows(GRID)
    assert header == ["Einstellung", "Wert"]
    assert found == [["Geladene GRUB2-Module", "gzio, part_gpt, ext2"],
                     ["verwendete Partition für das root-Dateisystem", "Partition, die über UUID= fe3e1db5 identifiziert wird"]]


def test_a_grid_table_cut_by_the_chunk_has_no_header_and_keeps_bars_inside_cells():
    found, header = rows(NO_HEADER)
    assert header is None
    assert found == [['Prüfen, ob "$unit" aktiv ist', '"systemctl is-active $unit"'],
                     ['Status von "$unit|$PID|device" prüfen', '"systemctl status $unit|$PID|$device"']]


def test_a_grid_cut_inside_a_row_does_not_take_the_rows_end_for_a_header():
    found, header = rows('| |$unit" |\n|-----+-----|\n|Kill-Signal senden |"systemctl kill $unit" |\n|-----+-----|')
    assert header is None and found[-1] == ["Kill-Signal senden", '"systemctl kill $unit"']


def test_markdown_and_html_rows_find_their_header():
    assert rows("| Dienst | Port |\n|---|---|\n| Collector | 4317 |\n| Jaeger | 16686 |") == (
        [["Collector", "4317"], ["Jaeger", "16686"]], ["Dienst", "Port"])
    html_rows = "Datei | Berechtigung | Gruppe\n/etc/passwd | -rw-r--r-- | root\n/etc/shadow | -rw-r----- | shadow"
    assert rows(html_rows) == ([["/etc/passwd", "-rw-r--r--", "root"], ["/etc/shadow", "-rw-r-----", "shadow"]],
                               ["Datei", "Berechtigung", "Gruppe"])
    assert rows("/etc/passwd | -rw-r--r-- | root\n/etc/shadow | -rw-r----- | shadow")[1] is None  # data, not labels


def test_a_label_with_a_slash_is_a_header_cell_and_a_path_is_not():
    table = "Klasse | Netzmaske | Netzmaske /Bits\nB | 255.255.0.0 | /16\nC | 255.255.255.0 | /24"
    assert rows(table) == ([["B", "255.255.0.0", "/16"], ["C", "255.255.255.0", "/24"]],
                           ["Klasse", "Netzmaske", "Netzmaske /Bits"])
    assert rows("Konfiguration | ~/.ssh/config\nDaten | Text\nMehr | Text")[1] is None


def test_a_row_is_shown_as_a_small_table_with_its_header_or_as_its_cells():
    assert row_text(["a|b", "2"], ["Name", "Wert"]) == "| Name | Wert |\n|---|---|\n| a\\|b | 2 |"
    assert row_text(["System herunterfahren", "", '"systemctl poweroff"'], None) == \
        'System herunterfahren – "systemctl poweroff"'


def test_row_lines_are_bars_rules_or_two_separators():
    assert is_row_line("| a | b |") and is_row_line("+-----+") and is_row_line("a | b | c")
    assert not is_row_line("Katzen | Hunde") and not is_row_line("+ ein Punkt") and not is_row_line("Text")


def test_a_grid_without_rules_between_its_rows_has_a_row_a_line_and_joins_wrapped_lines():
    # holdout6-de: the whole body of such a grid was one row ("Sicherheitsschuhe … Winterstiefel … Warnschutzjacke").
    grid = "\n".join([
        "+----------------------+--------+---------------+",
        "| Artikel              | Menge  | Tausch        |",
        "+----------------------+--------+---------------+",
        "| Sicherheitsschuhe S3 | 1 Paar | alle 18       |",
        "|   (nach Wahl)        |        | Monate        |",
        "| Winterstiefel S3     | 1 Paar | alle 30 Monate|",
        "|                      |        | (Winter)      |",
        "| Warnschutzjacke      | 1 Stück| alle 3 Jahre  |",
        "+----------------------+--------+---------------+"])
    found, header = rows(grid)
    assert header == ["Artikel", "Menge", "Tausch"]
    assert found == [["Sicherheitsschuhe S3 (nach Wahl)", "1 Paar", "alle 18 Monate"],
                     ["Winterstiefel S3", "1 Paar", "alle 30 Monate (Winter)"],
                     ["Warnschutzjacke", "1 Stück", "alle 3 Jahre"]]
