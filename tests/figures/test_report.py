"""The downloadable report: self-contained (no network), escaped, with what the view shows."""

from __future__ import annotations

import re
from functools import cache

from app_ui.samples import SAMPLE_DIR
from rse_core import extract, get_scorer, load_document
from rse_core.figures.html_report import ReportAnswer, build_report
from tests.support.pdf_factory import make_pdf


@cache
def _scorer():
    return get_scorer("minilm", bundled_embeddings=(SAMPLE_DIR / "embeddings",))


def test_report_is_self_contained_with_chart_pages_answers_and_link():
    result = extract(
        load_document(SAMPLE_DIR / "annual_report.pdf"),
        "Show me the consolidated financial statements",
        scorer=_scorer(),
    )
    report = build_report(
        result,
        link="http://127.0.0.1:8501/explore?docs=annual_report&q=x",
        answers={"rse": ReportAnswer("RSE", "Net income was 41,260.")},
        model="fake-model",
    )
    sources = re.findall(r"<(?:script|img|iframe)\b[^>]*\bsrc=['\"]?([^'\" >]*)", report, re.IGNORECASE)
    assert sources and all(source.startswith("data:") for source in sources)
    assert "<link" not in report
    assert "Content-Security-Policy" in report and "default-src 'none'" in report
    assert len(report) > 3_000_000 and "Plotly.newPlot" in report  # plotly.js inlined
    pages = sum(min(6, s.last_page - s.first_page + 1) for s in result.segments)
    assert report.count("src='data:image/png;base64,") == pages
    assert "Net income was 41,260." in report and "written by fake-model" in report
    assert "href='http://127.0.0.1:8501/explore?docs=annual_report&amp;q=x'" in report
    assert "irrelevant_chunk_penalty" in report


def test_document_text_and_answers_are_escaped_and_bad_links_dropped():
    pdf = make_pdf(["Intro. <script>alert('x')</script> The cooling loop uses water glycol."])
    result = extract(
        load_document(pdf, name="<b>evil</b>.pdf"), "What coolant does the cooling loop use?", scorer="bm25"
    )
    report = build_report(
        result,
        link="javascript:alert(1)",
        answers={"rse": ReportAnswer("RSE", "<img src=x onerror=alert(1)>")},
    )
    assert "<script>alert" not in report and "&lt;script&gt;alert" in report
    assert "<img src=x" not in report and "&lt;img src=x" in report
    assert "<b>evil</b>" not in report and "&lt;b&gt;evil&lt;/b&gt;.pdf" in report
    assert "href='javascript" not in report and "No link back" in report
