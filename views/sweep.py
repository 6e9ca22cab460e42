"""Parameter sweep: what RSE returns over a grid of penalty × minimum value (or × max chunks).

Every cell is a full segment search at that setting, run from this run's cached raw scores
(:func:`rse_core.evaluation.sweep.sweep`, about half a second for 500 cells of a 1,000-chunk document).
Clicking a cell sets the sidebar sliders to it. When the first active document is a sample with a
golden set, the recall of the gold span of the current query is one of the metrics; picking a
golden query sets the sidebar query to it. Widget keys start with ``sw_``.
"""

from __future__ import annotations

import streamlit as st

from app_ui import components, state
from app_ui.page_state import sweep as sweep_state
from app_ui.safe_text import clean, md
from app_ui.sweeping import gold_for, run_sweep
from rse_core import RSEError
from rse_core.evaluation.sweep import SweepParam
from rse_core.figures.teaching import METRIC_LABELS, sweep_heatmap
from rse_core.param_specs import MAX_LENGTH, MINIMUM_VALUE

K = sweep_state.Keys

NO_GOLD = sweep_state.NO_GOLD

Y_PARAMS = (SweepParam(MINIMUM_VALUE.name), SweepParam(MAX_LENGTH.name))


@components.guarded
def render() -> None:
    result = components.page_start(
        "Parameter sweep",
        "How the answer changes across two parameters at once, from the scores already computed: "
        "each cell is a full RSE run. Click a cell to move the sidebar sliders there.",
    )
    if result is None:
        st.info("Pick a document and type a query in the sidebar to sweep its parameters.")
        return
    inputs = state.read_inputs()

    golden = gold_for(result, inputs)
    current_query = result.queries[0].strip()
    matching = next((q for q in golden if q.query.strip() == current_query), None)

    controls = st.columns([2, 3, 3], gap="large")
    with controls[0]:
        y_param = SweepParam(
            st.radio(
                "Y axis",
                options=[p.value for p in Y_PARAMS],
                format_func=lambda v: SweepParam(v).label,
                key=K.Y,
            )
        )
    with controls[2]:
        gold_span = _gold_control(golden, matching)
    metrics = ["segment_count", "chunks", "characters"] + (["recall"] if gold_span else [])
    with controls[1]:
        state.keep_choice(K.METRIC, metrics, "recall" if gold_span else "segment_count")
        metric = st.radio(
            "Colour by",
            options=metrics,
            format_func=lambda m: METRIC_LABELS[m],
            key=K.METRIC,
            horizontal=True,
        )

    try:
        swept, elapsed = run_sweep(result, y_param, gold_span)
    except RSEError as error:
        st.error(md(error), icon=":material/error:")
        return
    sweep_state.remember_sweep(swept)
    params = result.params
    current = (getattr(params, swept.x_param.value), getattr(params, y_param.value))
    _heatmap(swept, metric, current)
    _summary(swept, current, elapsed, matching if gold_span else None)


def _gold_control(golden, matching) -> tuple[int, int] | None:
    """The golden query to measure recall against; returns its gold span (``None``: no recall)."""
    gold_span = None
    if golden:
        sweep_state.show_gold(golden, matching)
        by_id = {q.id: q for q in golden}
        st.selectbox(
            "Golden query (for recall)",
            options=[NO_GOLD, *by_id],
            format_func=lambda i: (
                "(the current query is not in the golden set)"
                if i == NO_GOLD
                else f"{i} ({by_id[i].kind}): {clean(by_id[i].query, 70)}"
            ),
            key=K.GOLD,
            on_change=sweep_state.on_gold_change,
            help="Picking one sets the sidebar query to it; recall is measured against its gold span.",
        )
        if matching is not None:
            gold_span = matching.span
    else:
        st.caption(
            "Recall needs golden queries about the first active document: a sample's golden set, or one you "
            "make on Evaluate by selecting the answer's text."
        )
    return gold_span


def _heatmap(swept, metric: str, current: tuple[float, float]) -> None:
    """The swept grid, coloured by ``metric``; a click moves the sidebar there."""
    chart_key = sweep_state.read().chart_key
    st.plotly_chart(
        sweep_heatmap(swept, metric, current=current),
        key=chart_key,
        theme=None,
        on_select=lambda: sweep_state.on_cell_click(chart_key),
        selection_mode="points",
        config={"displaylogo": False, "modeBarButtonsToRemove": ["lasso2d", "select2d", "autoScale2d"]},
    )


def _summary(swept, current: tuple[float, float], elapsed: float, matching) -> None:
    """What the current setting gives, and how long the sweep took."""
    here = swept.cell(*current)
    recall = f", recall {here.recall:.0%}" if here.recall is not None else ""
    st.caption(
        f"**Click a cell to set the sidebar sliders to it.** Current setting (red square): "
        f"{components.plural(here.segment_count, 'segment')}, {components.plural(here.chunks, 'chunk')}, "
        f"{here.characters:,} characters{recall}. "
        f"{len(swept.x_values) * len(swept.y_values)} settings swept in {elapsed:,.0f} ms from cached scores"
        + (f"; recall against golden query {md(matching.id)}." if matching else ".")
    )
