"""Render helpers the pages share: escaped HTML for segments, sentences that explain a result,
exports, the share link, and a guard that turns a page's unexpected error into a short message.

Every string that comes from a document (titles, file names, chunk text) or from the user (the
query) goes through ``html.escape`` before it reaches ``st.html``, and through
:func:`app_ui.safe_text.md` before it reaches a Markdown message, caption or label.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from urllib.parse import urlencode

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from rse_core import ExtractedSegment, ExtractionResult, StopReason
from rse_core.context import ContextOrder
from rse_core.documents.reflow import reflow_pieces  # one reflow for the segment panel and the page view
from rse_core.figures.chunk_axis import shorten
from rse_core.params import portable_parameters

from . import keys, link_uploads
from .caching import session_memo
from .page_state import once, steps
from .run_state import current_outcome
from .widgets import guarded, guarded_fragment, show_messages  # noqa: F401  (pages use components.guarded*)


def page_start(title: str, intro: str) -> ExtractionResult | None:
    """Title (the intro in its tooltip), this run's messages and the query: what every result page opens with.

    Returns the result to draw, or ``None`` when there is none (the messages say why).
    """
    st.title(title, help=intro)  # the intro in the title's tooltip: the first screen is for the chart
    outcome = current_outcome()
    # A keyed container has the same identity in the browser whatever comes before it; unkeyed
    # elements are matched by position, so one message more or less rebuilt everything after it.
    with st.container(key=keys.MESSAGES_AREA):
        show_messages(outcome, once.take_url_notices())
        if outcome.missing_uploads:
            link_uploads.render_missing(outcome.missing_uploads, outcome.unmatched_link_files)
    if outcome.result is not None:
        st.html(query_html(outcome.result))
    return outcome.result


MINUS = "\u2212"
MAX_GAP_NOTES = 6  # per segment; more are summed up in one line


def chart_config(filename: str) -> dict[str, object]:
    """Plotly config for ``st.plotly_chart``: a PNG export at 2x for slides, no Plotly logo."""
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": "png", "filename": filename, "scale": 2},
        "modeBarButtonsToRemove": ["lasso2d", "select2d", "autoScale2d"],
    }


def signed(number: float, digits: int = 2) -> str:
    """``+0.42`` / ``−0.12`` with a real minus sign (readable on a projector)."""
    return f"{number:+.{digits}f}".replace("-", MINUS)


def plural(count: int, noun: str) -> str:
    """``1 chunk`` / ``3 chunks`` (the last word of ``noun`` takes the s)."""
    return f"{count:,} {noun}{'s' * (count != 1)}"


def passages_phrase(count: int) -> str:
    """``1 passage`` / ``3 separate passages`` ("separate" only when there is more than one)."""
    return "1 passage" if count == 1 else f"{count:,} separate passages"


def number(value: float, digits: int = 2) -> str:
    return f"{value:.{digits}f}".replace("-", MINUS)


def number_below(value: float, limit: float, most_digits: int = 6) -> str:
    """``value`` with as many decimals as it takes to read as below ``limit``.

    Why: a segment worth 0.2996 rejected by a minimum of 0.3 read "worth 0.30; the minimum is 0.3",
    which looks like a contradiction.
    """
    for digits in range(2, most_digits + 1):
        if float(f"{value:.{digits}f}") < limit:
            return number(value, digits)
    return f"just under {limit:g}"


def doc_title(result: ExtractionResult, doc_id: str, limit: int = 70) -> str:
    return shorten(result.corpus.documents_by_id[doc_id].title, limit)


def query_html(result: ExtractionResult) -> str:
    """The query (or queries) on one line each, escaped."""
    if len(result.queries) == 1:
        return f'<div class="rse-query">Query: <q>{html.escape(result.queries[0])}</q></div>'
    return "".join(
        f'<div class="rse-query">Q{number_}: <q>{html.escape(query)}</q></div>'
        for number_, query in enumerate(result.queries, 1)
    )


def stop_sentence(result: ExtractionResult) -> str:
    """Why the search stopped, with the numbers that made it stop (plain text)."""
    reason = result.stop_reason
    params = result.params
    detail = ""
    if reason is StopReason.BUDGET_SPENT:
        detail = f" ({result.search.chunks_used} of {params.overall_max_length} chunks used)"
    elif reason is StopReason.BELOW_MINIMUM:
        rejected = [step.best.score for step in result.search.steps if step.best is not None and not step.accepted]
        if rejected:
            best, minimum = max(rejected), params.minimum_value
            shown = number_below(best, minimum)
            if shown.startswith("just under"):
                detail = f" (the next best was worth {shown})"
            else:
                digits = len(shown.rpartition(".")[2])
                detail = f" (the next best was worth {shown}, below the minimum {number(minimum, digits)})"
    return f"The search stopped because {reason.explanation}{detail}."


def gap_reason(result: ExtractionResult, segment: ExtractedSegment, index: int) -> str:
    """Why a negative chunk is inside a segment, in one sentence with its numbers (plain text).

    An inner gap sits between two non-negative chunks of the segment: the chunks before and after
    it outweigh it, and the sentence gives both sums. Edge padding sits at an end (RSE's own
    segments never have any; other selections, e.g. the optimal search's, may): the sentence says
    what it costs.
    """
    values = result.values[segment.query].value
    chunk = result.corpus.chunks[index]
    own = signed(float(values[index]))
    if index in segment.edge_padding:
        return (
            f"Chunk {chunk.index} scores {own} on its own and sits at the end of {segment.label} (edge padding): "
            f"it adds text around the answer and costs the segment {number(-float(values[index]))}."
        )
    before = float(values[segment.start : index].sum())
    after = float(values[index + 1 : segment.end].sum())
    return (
        f"Chunk {chunk.index} scores {own} on its own; an inner gap, kept because the chunks on both "
        f"sides outweigh it ({signed(before)} before it, {signed(after)} after it in {segment.label}): "
        f"the segment is worth {number(segment.score)} with it."
    )


def segment_meta(result: ExtractionResult, segment: ExtractedSegment) -> str:
    """``chunks 3–9 · pp. 2–4 · score 1.38 · 4,812 characters`` (plain text)."""
    chunks = (
        f"chunk {segment.first_chunk}"
        if segment.first_chunk == segment.last_chunk
        else f"chunks {segment.first_chunk}–{segment.last_chunk}"
    )
    pages = (
        f"p. {segment.first_page}"
        if segment.first_page == segment.last_page
        else f"pp. {segment.first_page}–{segment.last_page}"
    )
    query = f" · Q{segment.query + 1}" if len(result.queries) > 1 else ""
    return (
        f"{chunks} · {pages} · score {number(segment.score)} · "
        f"{segment.end_char - segment.start_char:,} characters{query}"
    )


def segment_html(result: ExtractionResult, segment: ExtractedSegment, selected_chunk: int | None = None) -> str:
    """A segment's header, its exact text with a marker where each chunk starts, and its gaps.

    Inner gaps and edge padding are highlighted in the text (with the reason as a tooltip) and explained below it,
    so the reason is readable on a projector too.
    """
    gaps = set(segment.inner_gaps)
    padding = set(segment.edge_padding)
    chunks = result.corpus.chunks[segment.start : segment.end]
    # Reflowed whole, then cut at each chunk's start: the same text as the page view's.
    document_text = result.corpus.documents_by_id[chunks[0].doc_id].text
    pieces = session_memo(  # the same chunks reflow the same on every slider move that keeps the segment
        "reflowed_segments",
        (result.corpus.key, segment.start, segment.end),
        lambda: reflow_pieces(
            document_text[chunks[0].start : chunks[-1].end], [chunk.start - chunks[0].start for chunk in chunks[1:]]
        ),
        32,
    )
    parts = []
    for index, chunk, piece in zip(range(segment.start, segment.end), chunks, pieces, strict=True):
        text = html.escape(piece)
        marker = f'<span class="boundary" title="chunk {chunk.index} starts here">{chunk.index}</span>'
        classes = " ".join(
            name
            for name, on in (
                ("gap-chunk", index in gaps),
                ("padding-chunk", index in padding),
                ("selected-chunk", index == selected_chunk),
            )
            if on
        )
        if classes:
            negative = index in gaps or index in padding
            title = html.escape(gap_reason(result, segment, index), quote=True) if negative else ""
            text = f'<span class="{classes}" title="{title}">{text}</span>'
        parts.append(marker + text)
    head = (
        f'<div class="rse-segment-head"><span class="rse-chip segment">{segment.label}</span> '
        f"<b>{html.escape(doc_title(result, segment.doc_id))}</b> "
        f'<span class="meta">· {html.escape(segment_meta(result, segment))}</span></div>'
    )
    notes = [
        f'<div class="rse-gap-note">{_gap_chip(i in padding)} {html.escape(gap_reason(result, segment, i))}</div>'
        for i in segment.gap_chunks[:MAX_GAP_NOTES]
    ]
    if len(segment.gap_chunks) > MAX_GAP_NOTES:
        rest = segment.gap_chunks[MAX_GAP_NOTES:]
        listed = ", ".join(str(result.corpus.chunks[i].index) for i in rest)
        notes.append(
            f'<div class="rse-gap-note">{_gap_chip(False)} {len(rest)} more negative chunks '
            f"({html.escape(listed)}), kept for the same reasons.</div>"
        )
    return head + f'<div class="rse-text">{"".join(parts)}</div>' + "".join(notes)


def _gap_chip(padding: bool) -> str:
    if padding:
        return '<span class="rse-chip padding">edge padding</span>'
    return '<span class="rse-chip gap">inner gap</span>'


def segments_in_document_order(result: ExtractionResult) -> list[ExtractedSegment]:
    return sorted(result.segments, key=lambda segment: segment.start)


def context_ordered_segments(result: ExtractionResult) -> list[ExtractedSegment]:
    """The segments in the order ``result.rse_context()`` sends them (document order by default)."""
    if result.params.context_order is ContextOrder.DOCUMENT:
        return segments_in_document_order(result)
    return list(result.segments)


def runs(indices: Sequence[int], result: ExtractionResult) -> Iterator[tuple[int, int]]:
    """Contiguous runs ``(start, end)`` (end exclusive) of sorted corpus indices, split at documents."""
    splits = set(result.corpus.document_splits)
    ordered = sorted(indices)
    start = previous = None
    for index in ordered:
        if start is None:
            start = previous = index
        elif index == previous + 1 and index not in splits:
            previous = index
        else:
            yield start, previous + 1
            start = previous = index
    if start is not None:
        yield start, previous + 1


def chunk_runs_html(result: ExtractionResult, indices: Sequence[int], *, gap_chunks: Sequence[int] = ()) -> str:
    """A list of chunk runs as sources (``Title, pp. 3-4, chunks 5-9``), gap chunks flagged."""
    if not len(indices):
        return '<div class="rse-chunk-list">none</div>'
    gaps = set(gap_chunks)
    items = []
    for start, end in runs(indices, result):
        label = html.escape(result.corpus.source_label(start, end))
        flagged = [result.corpus.chunks[i].index for i in range(start, end) if i in gaps]
        flag = f' <span class="rse-chip gap">inner gap {", ".join(str(i) for i in flagged)}</span>' if flagged else ""
        items.append(f"<li>{label}{flag}</li>")
    return f'<ul class="rse-chunk-list">{"".join(items)}</ul>'


def passages(result: ExtractionResult, indices: Sequence[int]) -> int:
    """How many separate pieces of text a set of chunks makes (adjacent chunks join)."""
    return sum(1 for _ in runs(indices, result))


# --- exports and sharing ---


def result_json(result: ExtractionResult) -> str:
    """The result as JSON (``ExtractionResult.to_dict``): parameters, segments, top-k, every chunk.

    Holds no API key: the result never sees one (scorers keep theirs, and only the scorer's name
    and model are recorded).
    """
    extra = portable_parameters(
        result.params, scorer=result.scorer, model=result.model, calibration=result.calibration.describe()
    )
    return json.dumps(result.to_dict() | extra, indent=2, ensure_ascii=False)


def context_markdown(result: ExtractionResult) -> str:
    """The RSE context as Markdown: query, settings, then each segment's exact text in the order the
    context is sent (``params.context_order``: document order by default, as the lesson reads it)."""
    params = result.params
    lines = ["# RSE context", ""]
    for number_, query in enumerate(result.queries, 1):
        prefix = "Query" if len(result.queries) == 1 else f"Query {number_}"
        lines.append(f"**{prefix}:** {query}  ")
    lines += [
        f"**Documents:** {', '.join(document.title for document in result.corpus.documents)}  ",
        f"**Scorer:** {result.scorer}{f' ({result.model})' if result.model else ''}  ",
        "**Parameters:** " + ", ".join(f"{name} = {value}" for name, value in params.to_dict().items()) + "  ",
        f"**Generated:** {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        "",
    ]
    if not result.segments:
        lines += ["_No segment was extracted._", "", result.empty_reason() or ""]
        return "\n".join(lines) + "\n"
    for segment in context_ordered_segments(result):
        source = result.corpus.source_label(segment.start, segment.end)
        lines += [f"## [{segment.label}] {source} (score {segment.score:.2f})", "", segment.text.strip(), ""]
    return "\n".join(lines)


def share_url() -> str:
    """The link that reopens this view: the page's address plus the state in the query string.

    ``app.py`` writes the state into ``st.query_params`` before the page runs (never an API key or
    an upload), so this is what the address bar shows.
    """
    params = {key: st.query_params.get(key) for key in st.query_params}
    query = urlencode({key: value for key, value in params.items() if value is not None})
    try:
        base = st.context.url or ""
    except Exception:  # no browser context (tests, bare mode)
        base = ""
    return f"{base}?{query}" if query else base


def render_share_and_export(result: ExtractionResult, key_prefix: str, *, downloads: bool = True) -> None:
    """The share link (with a copy button) and, optionally, JSON and Markdown downloads."""
    st.caption(
        "Copy this link to share the view: it holds the documents, queries, scorer and every slider "
        "(an uploaded file is named by its content hash, never included, and API keys are never put in it). "
        "The copy button is at the right of the box."
    )
    st.code(share_url(), language=None, wrap_lines=True)
    if not downloads:
        return
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M")
    left, right = st.columns(2)
    json_file, markdown_file = f"rse-result-{stamp}.json", f"rse-context-{stamp}.md"
    download(left, "Download the result (JSON)", lambda: result_json(result), json_file, f"{key_prefix}_download_json")
    download(
        right,
        "Download the context (Markdown)",
        lambda: context_markdown(result),
        markdown_file,
        f"{key_prefix}_download_md",
    )


def download(column: DeltaGenerator, label: str, data: Callable[[], str], file_name: str, key: str) -> None:
    """A full-width download button whose file is made when it is clicked, without a rerun."""
    json_file = file_name.endswith(".json")
    column.download_button(
        label,
        data=data,
        file_name=file_name,
        mime="application/json" if json_file else "text/markdown",
        key=key,
        icon=":material/data_object:" if json_file else ":material/description:",
        on_click="ignore",
        width="stretch",
    )


def number_columns(formats: dict[str, str]) -> dict[str, object]:
    """A table's ``column_config`` showing each named column's numbers in its format ("%.2f")."""
    return {name: st.column_config.NumberColumn(name, format=number_format) for name, number_format in formats.items()}


def search_limit_inputs(
    keys: tuple[str, str, str], on_change: Callable[[], None], *, most_chunks: int, minimum_help: str | None = None
) -> None:
    """The greedy search's three limits in three columns: max chunks per segment, max chunks overall
    and the minimum segment value, under ``keys`` in that order (the teaching pages' number boxes)."""
    max_length, overall, minimum = keys
    per_segment, all_segments, value = st.columns(3)
    for column, label, key in (
        (per_segment, "Max chunks per segment", max_length),
        (all_segments, "Max chunks overall", overall),
    ):
        column.number_input(label, min_value=1, max_value=most_chunks, step=1, key=key, on_change=on_change)
    value.number_input(
        "Minimum segment value",
        min_value=0.0,
        max_value=100.0,
        step=0.1,
        format="%.2f",
        key=minimum,
        help=minimum_help,
        on_change=on_change,
    )


def back_next_buttons(
    columns: Sequence[DeltaGenerator],
    state_key: str,
    current: int,
    last: int,
    *,
    button_keys: tuple[str, str],
    next_label: str = "Next",
    icons: tuple[str, str] = (":material/arrow_back:", ":material/arrow_forward:"),
) -> None:
    """A step-through's Back and Next buttons in two ``columns``: they move the step under
    ``state_key`` from ``current`` by one, within 0..``last``."""
    back, forward = columns
    back.button(
        "Back",
        key=button_keys[0],
        icon=icons[0],
        disabled=current <= 0,
        on_click=steps.set_step,
        args=(state_key, current - 1),
        width="stretch",
    )
    forward.button(
        next_label,
        key=button_keys[1],
        icon=icons[1],
        type="primary",
        disabled=current >= last,
        on_click=steps.set_step,
        args=(state_key, current + 1),
        width="stretch",
    )


def stepper(total: int, state_key: str, *, noun: str, button_key: str, help: str | None = None, first: int = 1) -> int:
    """A "Next <noun>" button beside a slider over steps ``first``..``total``; returns the current step.

    One control for every step-through (the greedy search's turns, round-robin turns), so they
    clamp, advance and look the same. ``first=0``: step 0 is the class's prediction, nothing drawn yet.
    """
    current = steps.clamp_step(state_key, first, total)
    controls = st.columns([1, 5], vertical_alignment="bottom")
    controls[0].button(
        f"Next {noun}",
        key=button_key,
        icon=":material/skip_next:",
        on_click=steps.step_forward,
        args=(state_key, total),
        disabled=current >= total,
        width="stretch",
    )
    if total > first:
        controls[1].slider(noun.capitalize(), first, total, key=state_key, help=help)
        current = int(st.session_state[state_key])
    return current
