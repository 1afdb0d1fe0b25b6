"""The real-document library (eval/real-de) is what its README promises: every expected string is in its document."""
from pathlib import Path

import pytest

from irisrag.evaluation import library
from irisrag.evaluation.answers import normalised
from irisrag.ingest.extract import extract

ROOT = Path(__file__).resolve().parents[2] / "eval" / "real-de"
KINDS = {"pdf-two-column", "csv", "json", "xml-code-list", "html-navigation", "markdown", "text-ascii-tables",
         "latin1-text"}


@pytest.fixture(scope="module")
def real_de():
    return library.load(ROOT)


@pytest.fixture(scope="module")
def texts(real_de):
    return {path.name: normalised(extract(path).text) for path in real_de.documents}


def test_library_real_de_has_the_promised_sizes_and_kinds(real_de):
    assert library.is_library(ROOT)
    assert len(real_de.documents) >= 15
    assert len(real_de.questions) >= 80 and len(real_de.offtopic) >= 30 and len(real_de.followups) >= 20
    assert KINDS <= {q.kind for q in real_de.questions}
    assert {d.name for d in real_de.documents} == {q.document for q in real_de.questions}  # every document asked
    assert sum(p.stat().st_size for p in real_de.documents) < 8 * 1024 * 1024
    ids = [q.id for q in real_de.questions + real_de.offtopic] + [f.id for f in real_de.followups]
    assert len(ids) == len(set(ids))


def test_library_real_de_expected_strings_are_in_their_documents(real_de, texts):
    asked = list(real_de.questions) + [q for f in real_de.followups for q in (f.first, f.follow_up)]
    missing = [(q.id, q.document, q.answers) for q in asked
               if not q.answers or not any(normalised(a) in texts[q.document] for a in q.answers)]
    assert not missing


def test_library_real_de_reads_the_latin1_text_as_latin1(texts):
    assert "ändert die information zum passwortverfall" in texts["man-chage-latin1.txt"]


def test_library_subset_keeps_only_the_named_questions(real_de):
    part = real_de.subset({"csv-01", "off-01", "fu-01"}).only_documents({"nordlicht-mitarbeiter.csv"})
    assert [q.id for q in part.questions] == ["csv-01"] and [q.id for q in part.offtopic] == ["off-01"]
    assert [f.id for f in part.followups] == ["fu-01"] and [d.name for d in part.documents] == ["nordlicht-mitarbeiter.csv"]
    assert part.followups[0].first.question == "Wann wurde die Niederlassung München eröffnet?"


@pytest.mark.parametrize("name", ["holdout-de", "holdout2-de", "holdout3-de", "holdout4-de", "holdout5-de", "holdout6-de", "holdout7-de",
                                  "holdout8-de", "holdout9-de"])
def test_held_out_libraries_expected_strings_are_in_their_documents(name):
    held = library.load(ROOT.parent / name)
    texts = {path.name: normalised(extract(path).text) for path in held.documents}
    asked = list(held.questions) + [q for f in held.followups for q in (f.first, f.follow_up)]
    missing = [(q.id, q.document, q.answers) for q in asked
               if not q.answers or not any(normalised(a) in texts[q.document] for a in q.answers)]
    assert not missing
    assert {d.name for d in held.documents} >= {q.document for q in held.questions}
    assert (ROOT.parent / name / "README.md").is_file()
