"""Demo: three stories on the samples, one step at a time, for a projector.

Large type, no sidebar (a menu and an exit at the top instead, :func:`app_ui.presenter.toolbar`),
one sentence of narration per step, every number computed live from the
samples at the default parameters with the offline scorer (the sidebar's settings are left
alone). With an LLM configured (see RSE vs top-k), the last step asks it with RSE's and top-k's
contexts.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import streamlit as st

from app_ui import components, compute, corpora, hotkeys, presenter, state
from app_ui.gold import chunk_range
from app_ui.page_state import demo as demo_state
from app_ui.panels import answers_panel
from app_ui.panels.page_images import PAGES_KEPT, THUMBS_KEPT, page_images
from app_ui.panels.page_view_panel import CSS as PAGE_VIEW_CSS
from app_ui.panels.page_view_panel import legend_html, thumbnail_strip_html
from app_ui.samples import list_samples
from rse_core import ExtractionResult
from rse_core.evaluation.golden import GoldenQuery
from rse_core.figures.compare import compare_chart
from rse_core.figures.focus import ChunkWindow, overview_strip, story_window, zoom_to
from rse_core.figures.page_view import THUMBNAIL_ZOOM, all_marks, pages_of, thumbnail_pages
from rse_core.figures.values import value_chart
from rse_core.llm.answers import answer_contexts
from rse_core.numerals import num
from rse_core.teaching.demo_stories import (
    STEP_TITLES,
    STEPS,
    STORIES,
    STORY_BY_KEY,
    Story,
    StoryFacts,
    narration,
    story_facts,
)

K = demo_state.Keys

MAX_DEMO_PAGES = 3
# Heights (px) by presenter mode: at 1280x720 the zoomed chart fits in the first screen below the
# narration and the buttons (the compact CSS below, at 760 px or less), and in presenter mode the
# overview under it too.
CHART_HEIGHT = {False: 440, True: 320}
COMPARE_HEIGHT = {False: 430, True: 316}
OVERVIEW_HEIGHT = {False: 120, True: 104}

DEMO_CSS = """
<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"]
  { display: none !important; }
[data-testid="stMainBlockContainer"] { max-width: 1500px; font-size: 1.3rem; }
.rse-narration { font-size: 2.0rem; line-height: 1.35; font-weight: 500; color: #0f172a;
                 border-left: 8px solid #2563eb; padding: 0.3em 0.8em; margin: 0.4em 0 0.8em 0;
                 background: #f8fafc; }
.rse-narration-compact { font-size: 1.35rem; line-height: 1.3; padding: 0.15em 0.6em; margin: 0.2em 0 0.4em 0; }
.rse-demo-step { font-size: 1.1rem; color: #475569; letter-spacing: 0.02em; }
.rse-demo-point { font-size: 1.3rem; color: #334155; }
.rse-demo-figures { display: flex; gap: 2.5rem; font-size: 1.4rem; margin: 0.5em 0; }
.rse-demo-figures b { font-size: 2.4rem; display: block; }
.rse-demo-figures-compact { font-size: 1.05rem; gap: 1.6rem; margin: 0.1em 0; line-height: 1.25; }
.rse-demo-figures-compact b { font-size: 1.6rem; display: inline; margin-right: 0.3em; }
.rse-demo-question { font-size: 1.45rem; font-weight: 600; color: #0f172a; margin: 0.2em 0; }
[data-testid="stElementContainer"]:has(iframe[title*="hotkeys"]) { display: none !important; }
/* A laptop or projector at 720 px: the compact layout without asking, so each step's chart or page
   stays in the first screen (no round trip: the browser applies it at its own height). */
@media (max-height: 760px) {
  [data-testid="stHeader"] { display: none !important; }
  [data-testid="stMainBlockContainer"] { padding-top: 0.5rem !important; padding-bottom: 1rem !important; }
  [data-testid="stMainBlockContainer"] [data-testid="stVerticalBlock"] { gap: 0.5rem !important; }
  .rse-narration { font-size: 1.3rem; line-height: 1.3; padding: 0.15em 0.6em; margin: 0.1em 0 0.2em 0; }
  .rse-demo-step { font-size: 0.95rem; }
  .rse-demo-point { font-size: 1.1rem; }
  .rse-demo-question { font-size: 1.15rem; }
  .rse-demo-figures { font-size: 1.05rem; gap: 1.6rem; margin: 0.1em 0; line-height: 1.25; }
  .rse-demo-figures b { font-size: 1.6rem; display: inline; margin-right: 0.3em; }
  .rse-demo-figures br { display: none; }
  /* the pages themselves, not the strip of all of them, whole in the first screen */
  [data-testid="stMain"] .rse-thumbs { display: none; }
  [data-testid="stMain"] .rse-legend { font-size: 0.95rem; }
  [data-testid="stMain"] [data-testid="stImage"] img { max-height: calc(100vh - 330px); width: auto !important; }
}
</style>
"""


def _golden(story: Story) -> GoldenQuery:
    sample = list_samples()[story.sample]
    return next(query for query in sample.golden.queries if query.id == story.query_id)


def _story_result(story: Story) -> tuple[ExtractionResult, tuple[int, int]]:
    """The story's result with its own scorer and parameters (minilm at the defaults but for the factoid
    story, see :mod:`rse_core.teaching.demo_stories`), through the app's caches."""
    golden = _golden(story)
    document = corpora.sample_document(story.sample)
    inputs = state.Inputs((story.sample,), (golden.query,), story.scorer, (), story.params)
    return compute.result_for((document,), (golden.query,), inputs), golden.span


@components.guarded
def render() -> None:
    st.html(DEMO_CSS + PAGE_VIEW_CSS)
    demo_state.init()
    st.segmented_control(
        "Story",
        [story.key for story in STORIES],
        format_func=lambda key: STORY_BY_KEY[key].title,
        key=K.STORY,
        on_change=demo_state.on_story_change,
        label_visibility="collapsed",
    )
    hotkeys.step_keys(K.HOTKEYS, K.STEP, 0, len(STEPS) - 1, default=0, all_keys=True)
    page = demo_state.read()
    story, step_number = page.story, page.step
    step = STEPS[step_number]
    with st.spinner("Scoring the sample..."):
        result, gold = _story_result(story)
    facts = story_facts(result, gold)

    present = presenter.is_on()
    st.html(
        f'<div class="rse-demo-step">{html.escape(story.title)} · step {step_number + 1} of {len(STEPS)}: '
        f"{html.escape(STEP_TITLES[step])} · keys: ← → space PageDown</div>"
        f'<div class="rse-narration{" rse-narration-compact" if present else ""}">'
        f"{html.escape(narration(step, facts))}</div>"
    )
    back, forward, _ = st.columns([1, 1, 6])
    components.back_next_buttons((back, forward), K.STEP, step_number, len(STEPS) - 1, button_keys=(K.BACK, K.NEXT))
    DRAW[step](result, story, facts)


def _question(result: ExtractionResult, story: Story, facts) -> None:
    document = result.corpus.documents[0]
    st.html(
        f'<div class="rse-demo-point">{html.escape(story.point)}</div>'
        f'<div class="rse-demo-figures"><div><b>{document.page_count}</b>pages</div>'
        f"<div><b>{len(result.corpus.chunks)}</b>chunks of about {result.params.chunk_size} characters</div>"
        f"<div><b>{html.escape(components.doc_title(result, document.doc_id, 40))}</b>the document</div>"
        f"<div><b>{html.escape(story.scorer)}</b>scorer, penalty {num(result.params.irrelevant_chunk_penalty)}</div>"
        "</div>"
    )


def _window(result: ExtractionResult, story: Story) -> ChunkWindow:
    """The chunks the story is about: its segments, its gold answer, the top-k chunks beside them."""
    document = result.corpus.documents[0]
    return story_window(result, gold=chunk_range(result.corpus, document.doc_id, _golden(story).span))


def _zoomed(figure, result: ExtractionResult, story: Story, step: str, key: str) -> None:
    """``figure`` (under ``key``) zoomed to the story's chunks, the whole document small beneath it."""
    window = _window(result, story)
    present = presenter.is_on()
    zoom_to(figure, window, top_k=result.top_k)
    st.plotly_chart(
        figure,
        key=key,
        config=components.chart_config(f"demo-{story.key}"),
        theme=None,
        width="stretch",
    )
    st.plotly_chart(
        overview_strip(result, window, height=OVERVIEW_HEIGHT[present]),
        key=K.overview_chart(story.key, step),
        config={"displayModeBar": False},
        theme=None,
        width="stretch",
    )


def _values(result: ExtractionResult, story: Story, facts) -> None:
    figure = value_chart(result, 0, height=CHART_HEIGHT[presenter.is_on()], range_slider=False)
    _zoomed(figure, result, story, "values", K.values_chart(story.key))


def _page(result: ExtractionResult, story: Story, facts) -> None:
    document = result.corpus.documents[0]
    marks = all_marks(result)
    segment_pages = pages_of(document, [m for m in marks if m.style != "top_k"])
    strip = thumbnail_pages(document.layout.page_count, pages_of(document, marks))
    # The samples' shared page images, as the page view draws them (the same marks on the same pages).
    thumbs = list(zip(strip, page_images(document, strip, marks, THUMBNAIL_ZOOM, THUMBS_KEPT), strict=True))
    st.html(thumbnail_strip_html(thumbs, set(segment_pages), set(segment_pages[:MAX_DEMO_PAGES])))
    st.html(legend_html())
    shown = segment_pages[:MAX_DEMO_PAGES]
    images = page_images(document, shown, marks, 1.1, PAGES_KEPT)
    columns = st.columns(max(1, len(images)))
    for column, page, image in zip(columns, shown, images, strict=True):
        column.image(image, caption=f"Page {page}", width="stretch")
    if len(segment_pages) > len(shown):
        st.caption(f"The segment runs on to page {segment_pages[-1]}; Explore shows every page.")


def _method_figures(result: ExtractionResult, facts: StoryFacts) -> tuple[tuple[str, float, int], ...]:
    """Each context's name, the share of the answer it covers and its characters."""
    return (
        ("RSE", facts.rse_recall, facts.rse_characters),
        (f"Top-k (k={facts.k})", facts.top_k_recall, facts.top_k_characters),
        ("Top-k, RSE's characters", facts.budget_recall, result.characters(result.top_k_equal_budget)),
    )


def _figures_html(figures: Sequence[tuple[str, float, int]], compact: bool) -> str:
    if compact:  # one line, so the chart under it stays in the first screen
        return (
            '<div class="rse-demo-figures rse-demo-figures-compact"><div>Of the answer, sent by</div>'
            + "".join(
                f"<div><b>{recall:.0%}</b>{html.escape(name)} ({characters:,} characters)</div>"
                for name, recall, characters in figures
            )
            + "</div>"
        )
    return (
        '<div class="rse-demo-figures">'
        + "".join(
            f"<div><b>{recall:.0%}</b>of the answer sent by {html.escape(name)}<br> ({characters:,} characters)</div>"
            for name, recall, characters in figures
        )
        + "</div>"
    )


def _compare(result: ExtractionResult, story: Story, facts: StoryFacts) -> None:
    present = presenter.is_on()
    st.html(_figures_html(_method_figures(result, facts), present))
    figure = compare_chart(result, height=COMPARE_HEIGHT[present], compact=present)
    _zoomed(figure, result, story, "compare", K.compare_chart(story.key))


def _answers(result: ExtractionResult, story: Story, facts: StoryFacts) -> None:
    """The question and what each of the two contexts holds, then the answer each gets."""
    st.html(
        f'<div class="rse-demo-question">Question: {html.escape(_golden(story).query)}</div>'
        + _figures_html(_method_figures(result, facts)[:2], compact=True)
    )
    contexts = [context for context in answer_contexts(result) if context.key in ("rse", "top_k")]
    answers_panel.render_settings(K.PREFIX, compact=True)
    answers_panel.render_answers(result, K.PREFIX, contexts, auto_ask=True, show_prompt=False)


DRAW = {"question": _question, "values": _values, "page": _page, "compare": _compare, "answers": _answers}
