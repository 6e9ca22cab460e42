"""Knowledge base: ask a whole collection, see which documents the first stage hit, which RSE
ran over and why, one value strip per selected document with its segments, their text and the
top-k list beside.

Only draws: bases, answers and settings come from ``app_ui.knowledge_bases`` and
``app_ui.page_state.knowledge_base``. The first stage is cached per session, so the RSE sliders
only redo values and the segment search.
"""

from __future__ import annotations

import html
import logging
from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from app_ui import components, state, widgets
from app_ui import knowledge_bases as kbs
from app_ui.page_state import knowledge_base as kb_state
from app_ui.safe_text import md
from rse_core import ExtractedSegment, RSEParams
from rse_core.documents.reflow import reflow
from rse_core.errors import RSEError
from rse_core.figures.knowledge_base import document_strip, top_k_chunks_of
from rse_core.kb import FirstStage

K = kb_state.Keys

LOGGER = logging.getLogger(__name__)
TOP_K_SHOWN = 20
PREVIEW_CHARS = 220
SEGMENT_TEXT_HEIGHT = 420  # pixels: a long segment scrolls inside its box


INTRO = (
    "RSE over a whole collection: the first stage finds the best chunks of every document, the documents of the "
    "best hits are selected, and RSE values every chunk of each selected document and picks segments across them "
    "under one budget. Moving an RSE slider reuses the first stage's hits."
)


@dataclass(frozen=True)
class AskRow:
    """The one row of controls above the answer: the base, the two questions, and three popovers (the
    base's documents, the first stage's knobs, RSE's knobs), so the chart starts on the first screen."""

    base: DeltaGenerator
    question: DeltaGenerator
    second_question: DeltaGenerator
    knobs: DeltaGenerator  # the popovers, side by side

    @classmethod
    def draw(cls) -> AskRow:
        base, question, second_question, knobs = st.columns([1.6, 2.9, 1.7, 4.0], vertical_alignment="bottom")
        return cls(
            base, question, second_question, knobs.container(horizontal=True, horizontal_alignment="right", wrap=False)
        )


@components.guarded
def render() -> None:
    st.title("Knowledge base", help=INTRO)
    kb_state.init()
    try:
        row = AskRow.draw()
        base = _choose_base(row)
        if base is None:
            return
        _render_ask(row, base)
        queries = kb_state.read_queries()
        if not queries:
            st.info("Type a question to ask the knowledge base.", icon=":material/edit:")
            return
        params = kbs.rse_params_for(base, kb_state.read_params())
        kb_params = kb_state.read_kb_params()
        try:
            reranker = kbs.reranker_for(st.session_state.get(kbs.RERANK_KEY, kbs.NO_RERANK))
            answer = kbs.answer(base, queries, params, kb_params, reranker, kb_state.read_within())
        except RSEError as error:
            st.error(md(kbs.public_message(base, error), 400), icon=":material/error:")
            return
        _render_answer(base, answer, params)
    finally:
        kb_state.save()


# ------------------------------------------------------------------------------ the base


def _choose_base(row: AskRow) -> kbs.OpenBase | None:
    session = kbs.session_base()
    labels = kbs.sources(session is not None and bool(session.kb.documents))
    state.keep_choice(K.SOURCE, list(labels), kbs.BUNDLED)
    source = row.base.selectbox(
        "Knowledge base",
        list(labels),
        format_func=lambda key: labels.get(key, key),
        key=K.SOURCE,
        help="The bundled samples, a base the server's operator listed (RSE_KB_DIRS), or one built from your "
        "uploads for this session only.",
    )
    base: kbs.OpenBase | None = None
    if source == kbs.BUNDLED:
        with widgets.progress_bar("Preparing the sample knowledge base (once per machine)...") as bar:
            base = kbs.ensure_bundled(lambda p: bar(p.files_done / max(p.files_total, 1), p.line()))
    elif source.startswith(kbs.FOLDER_PREFIX):
        name = source.removeprefix(kbs.FOLDER_PREFIX)
        try:
            base = kbs.open_folder(name)
        except (KeyError, RSEError, OSError):
            LOGGER.exception("knowledge base %s could not be opened", name)
            st.error(
                f"The knowledge base {md(name, 80)} could not be opened (the server log says why).",
                icon=":material/error:",
            )
    else:
        base = _render_uploads()
    if base is not None:
        with row.knobs:
            _render_info(base)
    return base


def _render_uploads() -> kbs.OpenBase | None:
    limits = kbs.UploadLimits.from_env()
    files = st.file_uploader(
        "Files for this session's knowledge base",
        type=["pdf", "txt", "md"],
        accept_multiple_files=True,
        key=K.UPLOADS,
        help=f"Built in a temporary folder on the server and removed when your session ends; at most "
        f"{limits.files} files and {limits.bytes / 1e6:.0f} MB.",
    )
    if st.button("Add to my knowledge base", key=K.BUILD, icon=":material/build:", disabled=not files):
        with widgets.progress_bar("Building your knowledge base...") as bar:
            refused = kbs.add_uploads(
                [(file.name, file.getvalue()) for file in files or []],
                lambda p: bar(p.files_done / max(p.files_total, 1), p.line()),
            )
        for problem in refused:
            st.warning(md(problem, 300), icon=":material/block:")
    session = kbs.session_base()
    if session is None or not session.kb.documents:
        st.info("Upload files and add them to build a knowledge base for this session.", icon=":material/upload:")
        return None
    st.button("Discard my knowledge base", key=K.DISCARD, on_click=kbs.discard_session_base)
    return session.base


def _render_info(base: kbs.OpenBase) -> None:
    catalog = base.kb.catalog
    with st.popover("Documents", help="The documents in this base."):
        st.caption(
            f"{components.plural(len(catalog.documents), 'document')} · {catalog.chunk_total:,} chunks of at most "
            f"{catalog.chunk_size} characters ({'with' if catalog.headers else 'without'} contextual headers"
            f"{', titled by file name first' if catalog.headers and catalog.name_in_title else ''}) · "
            f"embedded with {md(catalog.model, 80)}"
        )
        for entry in sorted(catalog.documents.values(), key=lambda entry: base.shown(entry.name)):
            st.markdown(f"- {md(base.shown(entry.name), 120)}: {entry.pages} pages, {entry.chunks} chunks")


# ------------------------------------------------------------------------------ the question and knobs


def _render_ask(row: AskRow, base: kbs.OpenBase) -> None:
    row.question.text_input("Question", key=K.QUERY, max_chars=2000)
    row.second_question.text_input(
        "Second question",
        key=K.QUERY_2,
        max_chars=2000,
        help="Optional: asked alongside the first; each segment then says which question it answers.",
    )
    with row.knobs.popover("First stage", help="A new search when these change."):
        _render_first_stage(base)
    with row.knobs.popover("RSE", help="Recomputed from the cached first stage."):
        _render_rse()


def _render_first_stage(base: kbs.OpenBase) -> None:
    documents = base.kb.documents
    kb_state.keep_within(documents)
    st.multiselect(
        "Search within",
        sorted(documents, key=lambda doc_id: base.shown(documents[doc_id].name)),
        format_func=lambda doc_id: base.shown(documents[doc_id].name),
        key=K.WITHIN,
        placeholder="the whole base",
        help="Only these documents are searched, selected and listed in top-k, as a metadata filter narrows a "
        "query to documents you know hold the answer (a filing's company and year). Empty: the whole base.",
    )
    st.toggle(
        "Only documents the question names",
        key=K.NAMED,
        help="When the question shares words with file names (a company, a year: 3M_2018_10K.pdf), search only "
        "the documents whose names share its rarest words. One shared word ('report') counts only if the "
        "document's content scores near the base's best; otherwise the whole base is searched, and a note says why.",
    )
    stage = st.selectbox(
        "First stage",
        [stage.value for stage in FirstStage],
        key=K.FIRST_STAGE,
        help="dense: MiniLM vectors; bm25: full-text; hybrid: both, fused by the weight.",
    )
    reranks = kbs.rerank_choices()
    state.keep_choice(kbs.RERANK_KEY, list(reranks), kbs.NO_RERANK)
    st.selectbox(
        "Rerank",
        list(reranks),
        format_func=lambda key: reranks.get(key, key),
        key=kbs.RERANK_KEY,
        help="A second stage: the reranker reads the question with each of the first stage's best candidates, "
        "the documents are selected from its order, and its relevance becomes what the values start from. The "
        "base's embedder stays the one it was built with.",
    )
    for spec in kb_state.KB_SLIDERS:
        disabled = spec.field == "fusion_weight" and stage != FirstStage.HYBRID
        st.slider(
            spec.label, spec.low, spec.high, step=spec.step, key=K.param(spec.field), help=spec.help, disabled=disabled
        )


def _render_rse() -> None:
    st.toggle(
        "Rank across documents",
        key=K.RANK_ACROSS,
        help=(
            "On (dsRAG's way): a chunk's rank in exp(-rank / decay) is its place among all the selected "
            "documents' chunks, so a weak document's best chunk stays weak. Off: ranked within its own "
            "document, as Explore does for one document."
        ),
    )
    st.selectbox(
        "Preset",
        kb_state.PRESETS,
        key=K.PRESET,
        on_change=kb_state.apply_preset,
        help="Sets the sliders.",
    )
    for field_name in K.PARAM_FIELDS:
        spec = state.SLIDER_BY_FIELD[field_name]
        st.slider(
            spec.label,
            spec.low,
            spec.high,
            step=spec.step,
            key=K.param(field_name),
            help=spec.help,
            on_change=kb_state.on_slider_change,
        )


# ------------------------------------------------------------------------------ the answer


def _render_answer(base: kbs.OpenBase, answer: kbs.KBAnswer, params: RSEParams) -> None:
    result = answer.result
    for note in result.notes:
        st.info(md(note, 300), icon=":material/info:")
    columns = st.columns(5)
    columns[0].metric("Segments", len(result.segments))
    columns[1].metric("Characters", f"{result.characters:,}")
    columns[2].metric("Documents selected", f"{len(result.selected_documents)} of {len(answer.documents)} hit")
    columns[3].metric(
        "First stage",
        "cached" if answer.first_stage_cached else f"{answer.first.timings.get('first_stage', 0) * 1000:.0f} ms",
        help="Cached: the same base, questions and first-stage settings were asked before in this session.",
    )
    columns[4].metric("RSE", f"{answer.rse_seconds * 1000:.0f} ms", help="Values, segment search and text reads.")
    with st.container(key=K.BODY):
        left, right = st.columns([3, 2], gap="medium")
        with left:
            narrowed, total = answer.first.searched, len(base.kb.documents)
            counted = f"{components.plural(len(narrowed), 'document')} of {total}"
            searched = ""
            if answer.first.named:
                searched = f" · searched only the {counted} the question names"
            elif narrowed:
                searched = f" · searched within {counted}"
            st.caption(
                f"Values from the {md(result.values_from, 160)} · "
                f"the base was built with {md(kbs.built_with(base), 120)}{searched}"
            )
            _render_selected(base, answer, params)
        with right:
            _render_top_k(base, answer)
    if result.stop_reason is not None:
        chunks = sum(segment.last_chunk - segment.first_chunk + 1 for segment in result.segments)
        st.html(
            f'<div class="rse-stop">The search stopped because {html.escape(result.stop_reason.explanation)} '
            f"({chunks} of {params.overall_max_length} chunks used).</div>"
        )
    _render_documents(base, answer)
    with st.expander("Parameters of this answer"):
        st.code(f"{answer.first.kb_params!r}\n{params!r}", language="python", wrap_lines=True)


def _render_documents(base: kbs.OpenBase, answer: kbs.KBAnswer) -> None:
    st.subheader("Documents the first stage hit")
    selected_count = answer.first.kb_params.documents_selected
    rows = []
    for entry in answer.documents:
        name = base.shown(base.kb.documents[entry.doc_id].name)
        why = (
            f"selected: its best hit is #{entry.best_rank}, within each query's first {selected_count}"
            if entry.selected
            else f"not selected: its best hit is #{entry.best_rank}, after each query's first {selected_count}"
        )
        rows.append({"Document": name, "Hits": entry.hits, "Best score": round(entry.best_score, 3), "Selected": why})
    st.dataframe(rows, hide_index=True, width="stretch")


def _render_selected(base: kbs.OpenBase, answer: kbs.KBAnswer, params: RSEParams) -> None:
    result = answer.result
    for doc_id in result.selected_documents:
        entry = base.kb.documents[doc_id]
        own = [segment for segment in result.segments if segment.doc_id == doc_id]
        figure = document_strip(
            base.shown(entry.name), result.values.get(doc_id, ()), own, top_k_chunks_of(doc_id, result.top_k)
        )
        st.plotly_chart(
            figure, key=K.strip(doc_id), theme=None, width="stretch", config=components.chart_config(f"kb_{doc_id}")
        )
        if own:
            with st.container(height=SEGMENT_TEXT_HEIGHT, key=f"{K.strip(doc_id)}_text"):
                for segment in own:
                    st.html(_segment_html(segment, base.shown(segment.doc_name), len(result.queries)))
        else:
            st.caption("No segment here: no run of its chunks is worth the minimum value.")
        slug = base.samples.get(doc_id)
        if slug is not None:
            st.button(
                f"Open {md(entry.name, 60)} in Explore",
                key=K.open_explore(doc_id),
                icon=":material/bar_chart:",
                on_click=kb_state.open_in_explore,
                args=(slug, result.queries, params, result.first_stage.value),
                help="Explore this document alone with the same questions and RSE settings; its values differ "
                "from these for the reasons under the strips.",
            )
    # Under the strips, not above: the first screen keeps the chart and the segment text (issue 31).
    st.caption(why_values_differ(answer.first.kb_params.rank_across_documents, len(result.selected_documents)))


def why_values_differ(rank_across_documents: bool, selected: int) -> str:
    """Why a segment's score here is not the one Explore gives the same chunks, as the code computes
    them (rse_core/kb/calibration.py, rse_core/kb/query.py; docs/knowledge_base.md)."""
    if selected > 1 and rank_across_documents:
        rank = (
            f"the rank in exp(−rank / decay) counts the chunks of all {selected} selected documents, so a chunk "
            "ranks lower and weighs less than in its document alone"
        )
    else:
        rank = "the rank in exp(−rank / decay) counts within the document, as in Explore"
    return (
        "**Why the same segment is worth a different score in Explore:** here scores are calibrated on one "
        "scale for the whole base (dense first stage: the query's best hit in any document maps to 1, 0.2 of "
        "cosine below it to 0) where Explore maps each document's scores by their own quantiles; chunks the "
        f"first stage did not return count as 0; {rank}. See docs/knowledge_base.md, “What a query does” and "
        "“The dense calibration”, where the calibration is measured."
    )


def _segment_html(segment: ExtractedSegment, name: str, queries: int) -> str:
    pages = _pages(segment.first_page, segment.last_page)
    query = f" · Q{segment.query + 1}" if queries > 1 else ""
    meta = (
        f"chunks {segment.first_chunk}–{segment.last_chunk} · {pages} · score {segment.score:.2f} · "
        f"{segment.characters:,} characters{query}"
    )
    return (
        f'<div class="rse-segment-head"><span class="rse-chip segment">{segment.label}</span> '
        f'<b>{html.escape(name)}</b> <span class="meta">· {html.escape(meta)}</span></div>'
        f'<div class="rse-text">{html.escape(reflow(segment.text))}</div>'
    )


def _render_top_k(base: kbs.OpenBase, answer: kbs.KBAnswer) -> None:
    top_k = answer.result.top_k
    st.subheader("Top-k beside")
    where = "the documents searched within" if answer.first.searched else "the whole base"
    st.caption(
        f"The first stage's best chunks over {where}, best first ({len(top_k)} listed, as many as hold "
        "twice RSE's characters): what a top-k pipeline would send instead."
    )
    parts = []
    for rank, item in enumerate(kbs.top_k_entries(base, top_k, TOP_K_SHOWN), start=1):
        hit = item.hit
        pages = _pages(item.first_page, item.last_page)
        preview = " ".join(item.preview.split())
        preview = preview if len(preview) <= PREVIEW_CHARS else preview[: PREVIEW_CHARS - 1] + "…"
        parts.append(
            f'<div class="rse-segment-head"><span class="rse-chip topk">{rank}</span> '
            f'<b>{html.escape(base.shown(hit.document))}</b> <span class="meta">· chunk {hit.chunk_index} · {pages} · '
            f'score {hit.score:.3f}</span></div><div class="rse-text">{html.escape(preview)}</div>'
        )
    if len(top_k) > TOP_K_SHOWN:
        parts.append(f"<p>… and {len(top_k) - TOP_K_SHOWN} more.</p>")
    st.html("".join(parts))


def _pages(first: int, last: int) -> str:
    return f"p. {first}" if first == last else f"pp. {first}–{last}"
