"""The Parameter sweep page's work: the axes, the sweep itself (memoised per session), the
golden queries that give recall, and moving the sidebar to a clicked cell.

Kept out of ``views/sweep.py`` so the page only draws; the sweep runs in
:func:`rse_core.evaluation.sweep.sweep` from this run's cached raw scores.
"""

from __future__ import annotations

import time

from rse_core import ExtractionResult, RSEError
from rse_core.evaluation.golden import GoldenQuery
from rse_core.evaluation.sweep import SweepParam, SweepParamBase, SweepResult, sweep
from rse_core.param_specs import MINIMUM_VALUE, PENALTY

from . import caching, corpora, state
from .page_state import evaluate as evaluate_state
from .samples import list_samples

PENALTY_AXIS = tuple(round(0.02 * i, 2) for i in range(26))  # 0 to 0.5 on the slider's 0.01 grid
MINIMUM_AXIS = tuple(round(0.1 * i, 1) for i in range(21))  # 0 to 2 on the slider's 0.05 grid
ON_SLIDER_GRID = {PENALTY.name: PENALTY_AXIS, MINIMUM_VALUE.name: MINIMUM_AXIS}
"""The axes the page sweeps instead of the spec's, whose steps fall between the slider's."""
X_PARAM = SweepParam(PENALTY.name)


def axes(result: ExtractionResult, y_param: SweepParamBase) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The penalty axis and the y axis, each including the current setting."""
    x_values, y_values = (_axis(param, getattr(result.params, param.value)) for param in (X_PARAM, y_param))
    return x_values, y_values


def _axis(param: SweepParamBase, current: float) -> tuple[float, ...]:
    values = ON_SLIDER_GRID.get(param.value, param.axis)
    return tuple(sorted({*(param.spec.kind(value) for value in values), current}))


def gold_for(result: ExtractionResult, inputs: state.Inputs) -> tuple[GoldenQuery, ...]:
    """The golden queries about the first active document: its sample's golden set, and the set
    made on Evaluate ("My golden set") when it is about this document. Recall needs one of them."""
    if not result.corpus.documents:
        return ()
    first = result.corpus.documents[0]
    queries: list[GoldenQuery] = []
    samples = list_samples()
    slug = inputs.samples[0] if inputs.samples else None
    if slug in samples:
        try:
            if corpora.sample_document(slug).doc_id == first.doc_id:
                queries += samples[slug].golden.queries
        except RSEError:
            pass
    built = evaluate_state.read().built
    if built is not None and built.document == first.name:
        taken = {query.id for query in queries}
        queries += [query for query in built.queries if query.id not in taken and query.end_char <= len(first.text)]
    return tuple(queries)


def run_sweep(
    result: ExtractionResult, y_param: SweepParamBase, gold: tuple[int, int] | None
) -> tuple[SweepResult, float]:
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
            x_param=X_PARAM,
            x_values=x_values,
            y_param=y_param,
            y_values=y_values,
            gold=gold,
            gold_document=0,
        )
        return swept, (time.perf_counter() - started) * 1000

    return caching.session_memo("sweep", (result.settings_key, y_param.value, gold), compute, 4)
