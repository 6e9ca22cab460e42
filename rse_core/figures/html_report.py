"""One self-contained HTML file of a result, to send to someone after a demo.

Everything is inside the file: plotly.js inlined (no CDN), page images as ``data:`` URIs, styles
inline; a Content-Security-Policy forbids any network load, so it opens the same offline, in a
mail client's preview or years later. All document text, names and answers are HTML-escaped.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlparse

from rse_core.documents import Document
from rse_core.errors import PageViewTooLargeError
from rse_core.figures.compare import compare_chart
from rse_core.figures.page_view import Mark, all_marks, pages_of, render_pages, segment_marks
from rse_core.figures.style import PALETTE
from rse_core.figures.values import value_chart
from rse_core.pipeline import ExtractionResult

MAX_PAGES_PER_SEGMENT = 6
REPORT_ZOOM = 1.0
CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
    "script-src 'unsafe-inline' 'unsafe-eval'; font-src data:"
)


@dataclass(frozen=True)
class ReportAnswer:
    """One answer to put in the report: which context, what it said (or the error), its grade."""

    label: str
    text: str
    error: str | None = None
    grade: str | None = None


def _e(text: object) -> str:
    return html.escape(str(text))


def _safe_link(link: str) -> str:
    """The link back to the view, only if it is a plain http(s) URL (never javascript: etc.)."""
    parsed = urlparse(link or "")
    return link if parsed.scheme in ("http", "https") and parsed.netloc else ""


PageDrawer = Callable[[Document, list[int], list[Mark], float], list[bytes]]


def build_report(
    result: ExtractionResult,
    *,
    link: str = "",
    answers: Mapping[str, ReportAnswer] | None = None,
    model: str = "",
    top_k: Sequence[int] | None = None,
    generated: datetime | None = None,
    draw_pages: PageDrawer = render_pages,
) -> str:
    """The report as one HTML string.

    Args:
        result: the view's result.
        link: the share link that reopens the view (shown only if it is http(s)).
        answers: context key -> answer, if an LLM was asked.
        model: the model that wrote the answers (quoted beside them).
        top_k: the top-k chunks compared (default ``result.top_k``).
        generated: timestamp (default now, UTC).
        draw_pages: draws the page images (:func:`~rse_core.figures.page_view.render_pages`'s
            arguments); an app passes one that draws in a worker process.
    """
    top_k = list(result.top_k if top_k is None else top_k)
    parts = [_head_html(result, link, generated or datetime.now(UTC)), _sizes_html(result, top_k), _charts_html(result)]
    if answers:
        parts.append(_answers_html(ordered_answers(answers), model))
    parts.append(_segments_html(result, top_k, draw_pages))
    parts.append(_top_k_html(result, top_k))
    parts.append(_params_html(result))
    parts.append("</body></html>")
    return "".join(parts)


def _head_html(result: ExtractionResult, link: str, generated: datetime) -> str:
    """The document head (with its CSP) and what the report is of: queries, documents, scorer, link."""
    safe_link = _safe_link(link)
    return "".join(
        [
            "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
            f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">",
            "<meta name='viewport' content='width=device-width, initial-scale=1'>",
            f"<title>RSE report: {_e(result.queries[0][:80])}</title>",
            f"<style>{_STYLE}</style></head><body>",
            "<h1>Relevant Segment Extraction: report</h1>",
            "".join(f"<p class='query'>Query: <q>{_e(query)}</q></p>" for query in result.queries),
            f"<p class='meta'>Documents: {_e(', '.join(d.name for d in result.corpus.documents))} · scorer "
            f"{_e(result.scorer)} ({_e(result.model)}) · generated {generated:%Y-%m-%d %H:%M} UTC</p>",
            (
                f"<p class='meta'>Reopen this view: <a href='{_e(safe_link)}'>{_e(safe_link)}</a></p>"
                if safe_link
                else "<p class='meta'>No link back: the view was not opened from a web address.</p>"
            ),
        ]
    )


def _charts_html(result: ExtractionResult) -> str:
    """The value and comparison charts, interactive offline: plotly.js is embedded once, in the first."""
    import plotly.io as pio

    config = {"displaylogo": False}
    chart = pio.to_html(value_chart(result, 0), include_plotlyjs=True, full_html=False, config=config)
    comparison = pio.to_html(compare_chart(result), include_plotlyjs=False, full_html=False, config=config)
    return (
        "<h2>Chunk values</h2><p class='meta'>Bars are chunk values in document order; shaded runs are "
        "segments, orange marks the top-k chunks. Hover and zoom work offline.</p>"
        f"<div class='chart'>{chart}</div>"
        "<h2>RSE vs top-k</h2>"
        f"<div class='chart'>{comparison}</div>"
    )


def _segments_html(result: ExtractionResult, top_k: Sequence[int], draw_pages: PageDrawer) -> str:
    """Each segment on its pages (at most :data:`MAX_PAGES_PER_SEGMENT`), then its exact text."""
    parts = ["<h2>Segments on their pages</h2>", _legend_html()]
    if not result.segments:
        parts.append(f"<p>{_e(result.empty_reason() or 'No segment.')}</p>")
    marks = all_marks(result, top_k)
    for segment in result.segments:
        document = result.corpus.documents_by_id[segment.doc_id]
        source = result.corpus.source_label(segment.start, segment.end)
        parts.append(f"<h3>{_e(segment.label)}: {_e(source)} · score {segment.score:.2f}</h3>")
        if document.layout is not None:
            pages = pages_of(document, segment_marks(result, segment))
            shown = pages[:MAX_PAGES_PER_SEGMENT]
            try:
                images = draw_pages(document, shown, marks, REPORT_ZOOM)
            except PageViewTooLargeError as error:  # over RSE_MAX_GLYPHS / RSE_MAX_PAGE_PIXELS: text only
                parts.append(f"<p class='meta'>{_e(str(error))}</p>")
                pages = shown = images = []
            parts.append("<div class='pages'>")
            for page, image in zip(shown, images, strict=True):
                data = base64.b64encode(image).decode("ascii")
                parts.append(
                    f"<figure><img alt='page {page}' src='data:image/png;base64,{data}'>"
                    f"<figcaption>Page {page}</figcaption></figure>"
                )
            parts.append("</div>")
            if len(pages) > len(shown):
                parts.append(f"<p class='meta'>{len(pages) - len(shown)} more page(s) in the app.</p>")
        parts.append(f"<details><summary>The exact text sent</summary><pre>{_e(segment.text)}</pre></details>")
    return "".join(parts)


def _top_k_html(result: ExtractionResult, top_k: Sequence[int]) -> str:
    """The top-k chunks in rank order, each with where it is and whether a segment holds it too."""
    parts = ["<h2>Top-k chunks</h2><ol class='topk'>"]
    for index in top_k:
        chunk = result.corpus.chunks[index]
        inside = any(s.start <= index < s.end for s in result.segments)
        parts.append(
            f"<li>{_e(result.corpus.source_label(index, index + 1))}{' · also in a segment' if inside else ''}"
            f"<pre>{_e(chunk.text)}</pre></li>"
        )
    parts.append("</ol>")
    return "".join(parts)


def _sizes_html(result: ExtractionResult, top_k: Sequence[int]) -> str:
    """Context sizes in the app's order: RSE, then top-k, then the fixed window (each also at RSE's characters)."""
    w = result.params.window
    rows = (
        ("RSE", len(result.rse_chunks), result.rse_characters, len(result.segments)),
        (f"Top-k (k={len(top_k)})", len(top_k), result.characters(top_k), len(top_k)),
        (
            "Top-k with RSE's characters",
            len(result.top_k_equal_budget),
            result.characters(result.top_k_equal_budget),
            len(result.top_k_equal_budget),
        ),
        (f"Window (±{w})", *_window_sizes(result, result.window)),
        (f"Window (±{w}) with RSE's characters", *_window_sizes(result, result.window_equal_budget)),
    )
    body = "".join(
        f"<tr><td>{_e(name)}</td><td>{chunks}</td><td>{characters:,}</td><td>{pieces}</td></tr>"
        for name, chunks, characters, pieces in rows
    )
    return (
        "<table><thead><tr><th>context</th><th>chunks</th><th>characters</th><th>passages</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )


def _window_sizes(result: ExtractionResult, windows: Sequence) -> tuple[int, int, int]:
    """(chunks, characters, passages) of a fixed-window context."""
    return sum(s.end - s.start for s in windows), result.window_characters(windows), len(windows)


ANSWER_ORDER = ("rse", "top_k", "top_k_budget", "window")
"""The order answers are shown in, as on the page: RSE first, then top-k, then the window."""


def ordered_answers(answers: Mapping[str, ReportAnswer]) -> dict[str, ReportAnswer]:
    """``answers`` in :data:`ANSWER_ORDER` (they are stored in the order they finished), others after."""
    rank = {key: number for number, key in enumerate(ANSWER_ORDER)}
    return dict(sorted(answers.items(), key=lambda item: rank.get(item[0], len(rank))))


def _answers_html(answers: Mapping[str, ReportAnswer], model: str) -> str:
    cells = []
    for answer in answers.values():
        body = f"<p class='error'>{_e(answer.error)}</p>" if answer.error else f"<p>{_e(answer.text)}</p>"
        grade = f"<p class='meta'>Grade: {_e(answer.grade)}</p>" if answer.grade else ""
        cells.append(f"<div class='answer'><h3>{_e(answer.label)}</h3>{body}{grade}</div>")
    who = f" (written by {_e(model)})" if model else ""
    return f"<h2>Answers{who}</h2><div class='answers'>{''.join(cells)}</div>"


def _legend_html() -> str:
    return (
        "<p class='legend'><span style='background:rgba(37,99,235,.25)'>segment</span> "
        f"<span style='background:{PALETTE.gap_fill}'>gap: below zero, kept inside</span> "
        "<span style='background:rgba(147,197,253,.35)'>edge padding</span> "
        f"<span style='border-bottom:2px solid {PALETTE.top_k}'>top-k chunk (underlined, with its rank)</span></p>"
    )


def _params_html(result: ExtractionResult) -> str:
    rows = "".join(
        f"<tr><td>{_e(name)}</td><td>{_e(value)}</td></tr>" for name, value in result.params.to_dict().items()
    )
    return f"<h2>Parameters</h2><table><tbody>{rows}</tbody></table>"


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1200px; color: #1f2937; padding: 0 1rem; }
h1 { font-size: 1.8rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #e5e7eb; }
.query { font-size: 1.2rem; } .meta { color: #64748b; overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 0.5rem 0; } td, th { border: 1px solid #e2e8f0; padding: 0.25rem 0.6rem; }
pre { white-space: pre-wrap; background: #f8fafc; padding: 0.6rem; border-left: 4px solid #2563eb; }
.pages { display: flex; flex-wrap: wrap; gap: 0.8rem; } figure { margin: 0; }
figure img { max-width: 560px; border: 1px solid #cbd5e1; } figcaption { color: #64748b; text-align: center; }
.answers { display: flex; gap: 1rem; } .answer { flex: 1; border: 1px solid #e2e8f0; padding: 0.5rem 1rem; }
.error { color: #b91c1c; } .legend span { padding: 0 0.3rem; margin-right: 0.6rem; }
"""
