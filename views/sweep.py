"""Parameter sweep: what RSE returns over a grid of penalty × minimum value (or × max chunks).

Every cell is a full segment search at that setting, run from this run's cached raw scores
(:func:`rse_core.evaluation.sweep.sweep`, about half a second for 500 cells of a 1,000-chunk document).
Clicking a cell sets the sidebar sliders to it. When the first active document is a sample with a
golden set, the recall of the gold span of the current query is one of the metrics; picking a
golden query sets the sidebar query to it. Widget keys start with ``sw_``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import streamlit as st

from app_ui import caching, components, corpora, keys, state
from app_ui.safe_text import clean, md
from app_ui.samples import list_samples
from rse_core import ExtractionResult, RSEError
from rse_core.evaluation.golden import GoldenQuery
from rse_core.evaluation.sweep import SweepParam, SweepResult, default_axis, sweep
from rse_core.figures.teaching import METRIC_LABELS, sweep_heatmap

NO_GOLD = ""

PENALTY_AXIS = tuple(round(0.02 * i, 2) for i in range(26))  # 0 to 0.5 on the slider's 0.01 grid
MINIMUM_AXIS = tuple(round(0.1 * i, 1) for i in range(21))  # 0 to 2 on the slider's 0.05 grid
Y_PARAMS = (SweepParam.MINIMUM_VALUE, SweepParam.MAX_LENGTH)


def axes(result: ExtractionResult, y_param: SweepParam) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The penalty axis and the y axis, each including the current setting."""
    params = result.params
    x_values = tuple(sorted({*PENALTY_AXIS, params.irrelevant_chunk_penalty}))
    if y_param is SweepParam.MINIMUM_VALUE:
        y_values = tuple(sorted({*MINIMUM_AXIS, params.minimum_value}))
    else:
        y_values = tuple(int(v) for v in default_axis(y_param, params.max_length))
    return x_values, y_values


def gold_for(result: ExtractionResult, inputs: state.Inputs) -> tuple[str | None, Sequence[GoldenQuery]]:
    """(slug, golden queries) of the first active document when it is a sample with a golden set."""
    if not inputs.samples:
        return None, ()
    slug = inputs.samples[0]
    samples = list_samples()
    if slug not in samples:
        return None, ()
    try:
        document = corpora.sample_document(slug)
    except RSEError:
        return None, ()
    if not result.corpus.documents or result.corpus.documents[0].doc_id != document.doc_id:
        return None, ()
    return slug, samples[slug].golden.queries


def run_sweep(result: ExtractionResult, y_param: SweepParam, gold: tuple[int, int] | None) -> tuple[SweepResult, float]:
    """The sweep for this result (cached per session for the last few settings) and its time in ms."""
    x_values, y_values = axes(result, y_param)

    def compute() -> tuple[SweepResult, float]:
        started = time.perf_counter()
        swept = sweep(
            result.corpus,
            result.queries,
            [values.raw for values in result.values],
            result.calibration,
            result.params,
            x_param=SweepParam.PENALTY,
            x_values=x_values,
            y_param=y_param,
            y_values=y_values,
            gold=gold,
            gold_document=0,
        )
        return swept, (time.perf_counter() - started) * 1000

    return caching.session_memo("sweep", (result.settings_key, y_param.value, gold), compute, 4)


def cell_from_selection(selection: dict, x_values: Sequence[float], y_values: Sequence[float]):
    """The (x, y) setting of the clicked cell from a plotly_chart selection, or ``None``.

    Points carry the cell's integer position as x and y (see ``sweep_heatmap``).
    """
    points = (selection or {}).get("selection", {}).get("points", []) if isinstance(selection, dict) else []
    if not points and hasattr(selection, "selection"):
        points = selection.selection.get("points", [])
    for point in points:
        try:
            column, row = round(float(point["x"])), round(float(point["y"]))
        except (KeyError, TypeError, ValueError):
            continue
        if 0 <= column < len(x_values) and 0 <= row < len(y_values):
            return x_values[column], y_values[row]
    return None


def apply_setting(x_param: SweepParam, x: float, y_param: SweepParam, y: float) -> None:
    """Set the sidebar sliders to one cell and mark the preset as matching (or custom)."""
    for param, value in ((x_param, x), (y_param, y)):
        key = keys.PARAM_KEYS[param.value]
        st.session_state[key] = (
            int(value) if param in (SweepParam.MAX_LENGTH, SweepParam.OVERALL_MAX_LENGTH) else float(value)
        )
    st.session_state[keys.PRESET] = state.matching_preset(state.read_params())


def _on_cell_click(chart_key: str) -> None:
    last = st.session_state.get(keys.Sweep.LAST)
    if last is None:
        return
    x_param, x_values, y_param, y_values = last
    cell = cell_from_selection(st.session_state.get(chart_key), x_values, y_values)
    if cell is None:
        return
    apply_setting(x_param, cell[0], y_param, cell[1])
    st.session_state[keys.Sweep.NONCE] = (
        st.session_state.get(keys.Sweep.NONCE, 0) + 1
    )  # a fresh chart: no stale selection


def _on_gold_change() -> None:
    slug = st.session_state.get(keys.Sweep.GOLD_SLUG)
    chosen = st.session_state.get(keys.Sweep.GOLD)
    if not slug or not chosen:
        return
    for query in list_samples()[slug].golden.queries:
        if query.id == chosen:
            st.session_state[keys.QUERY] = query.query


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

    slug, golden = gold_for(result, inputs)
    current_query = result.queries[0].strip()
    matching = next((q for q in golden if q.query.strip() == current_query), None)

    controls = st.columns([2, 3, 3], gap="large")
    with controls[0]:
        y_param = SweepParam(
            st.radio(
                "Y axis",
                options=[p.value for p in Y_PARAMS],
                format_func=lambda v: SweepParam(v).label,
                key=keys.Sweep.Y,
            )
        )
    with controls[2]:
        gold_span = _gold_control(slug, golden, matching)
    metrics = ["segment_count", "chunks", "characters"] + (["recall"] if gold_span else [])
    with controls[1]:
        state.keep_choice(keys.Sweep.METRIC, metrics, "recall" if gold_span else "segment_count")
        metric = st.radio(
            "Colour by",
            options=metrics,
            format_func=lambda m: METRIC_LABELS[m],
            key=keys.Sweep.METRIC,
            horizontal=True,
        )

    try:
        swept, elapsed = run_sweep(result, y_param, gold_span)
    except RSEError as error:
        st.error(md(error), icon=":material/error:")
        return
    st.session_state[keys.Sweep.LAST] = (swept.x_param, swept.x_values, swept.y_param, swept.y_values)
    params = result.params
    current = (params.irrelevant_chunk_penalty, getattr(params, y_param.value))
    _heatmap(swept, metric, current)
    _summary(swept, current, elapsed, matching if gold_span else None)


def _gold_control(slug: str | None, golden: list, matching) -> tuple[int, int] | None:
    """The golden query to measure recall against; returns its gold span (``None``: no recall)."""
    gold_span = None
    if golden:
        st.session_state[keys.Sweep.GOLD_SLUG] = slug
        st.session_state[keys.Sweep.GOLD] = matching.id if matching else NO_GOLD
        by_id = {q.id: q for q in golden}
        st.selectbox(
            "Golden query (for recall)",
            options=[NO_GOLD, *by_id],
            format_func=lambda i: (
                "(the current query is not in the golden set)"
                if i == NO_GOLD
                else f"{i} ({by_id[i].kind}): {clean(by_id[i].query, 70)}"
            ),
            key=keys.Sweep.GOLD,
            on_change=_on_gold_change,
            help="Picking one sets the sidebar query to it; recall is measured against its gold span.",
        )
        if matching is not None:
            gold_span = matching.span
    else:
        st.caption("Recall needs a sample document with a golden set as the first active document.")
    return gold_span


def _heatmap(swept, metric: str, current: tuple[float, float]) -> None:
    """The swept grid, coloured by ``metric``; a click moves the sidebar there."""
    chart_key = keys.Sweep.heatmap(st.session_state.get(keys.Sweep.NONCE, 0))
    st.plotly_chart(
        sweep_heatmap(swept, metric, current=current),
        key=chart_key,
        theme=None,
        on_select=lambda: _on_cell_click(chart_key),
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
