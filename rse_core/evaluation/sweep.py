"""Parameter sweeps: run RSE over a grid of two parameters from cached raw scores.

A tuning page shows, for every pair of (x, y) settings, how many segments RSE returns, how many
chunks and characters it sends and, given a gold span, how much of it it recovers. Each cell is
one segment search; what the swept parameters do not change is computed once:

- the calibration, the beta transform and the ranks depend on none of them;
- ``exp(-rank / decay_rate)`` depends only on the decay rate (computed once per distinct rate);
- the penalty costs one multiplication and one subtraction per cell (and one multiplication
  with the length factor);
- ``max_length``, ``overall_max_length`` and ``minimum_value`` only reach the search.

The values are built by :func:`rse_core.values.values_from_parts`, the last step of
:func:`rse_core.values.chunk_values` itself, so every cell is bit-for-bit what
:func:`rse_core.pipeline.run_rse` would return at that setting (the tests check this).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Self

import numpy as np

from rse_core.errors import ParameterError, RSEError
from rse_core.evaluation.metrics import chunk_pieces, score_sent
from rse_core.param_specs import (
    DECAY_RATE,
    MAX_LENGTH,
    MINIMUM_VALUE,
    OVERALL_MAX_LENGTH,
    PARAM_SPECS,
    PENALTY,
    ParamSpec,
)
from rse_core.params import RSEParams
from rse_core.pipeline import Corpus
from rse_core.scoring import Calibration
from rse_core.search import SearchResult, Segment, StopReason, find_best_segments
from rse_core.validation import parse_choice
from rse_core.values import ChunkValues, chunk_values, rank_decay, values_from_parts


class SweepParamBase(StrEnum):
    """What every sweep parameter can say about itself (the members come from :func:`sweep_params`)."""

    spec: ParamSpec  # set on each member when the enum is made

    @classmethod
    def parse(cls, name: str | SweepParamBase) -> Self:
        return parse_choice(cls, name, "sweep parameter", ParameterError)

    @property
    def label(self) -> str:
        return self.spec.label.lower()

    @property
    def axis(self) -> tuple[float, ...]:
        """The settings a sweep tries by default."""
        return self.spec.sweep_axis


def sweep_params(specs: Iterable[ParamSpec] = PARAM_SPECS) -> type[SweepParamBase]:
    """The parameters a sweep can vary, as an enum named by their fields (``IRRELEVANT_CHUNK_PENALTY``...):
    those whose spec has a sweep axis. They act after scoring, so a sweep never rescores."""
    swept = [spec for spec in specs if spec.sweep_axis]
    enum = SweepParamBase("SweepParam", [(spec.name.upper(), spec.name) for spec in swept], module=__name__)
    for member, spec in zip(enum, swept, strict=True):
        member.spec = spec
    return enum


SweepParam = sweep_params()
"""The parameters a sweep can vary: those whose spec has a sweep axis (they act after scoring)."""


def _member(param: str | SweepParamBase) -> SweepParamBase:
    """A sweep parameter by name (a member of any :func:`sweep_params` enum is taken as it is)."""
    return param if isinstance(param, SweepParamBase) else SweepParam.parse(param)


class ValueBasis:
    """Chunk values of one query for any penalty and decay rate, without redoing the rest.

    Holds the stages that do not depend on the penalty or the decay rate (calibrated scores,
    beta transform, ranks, length factors) and the decay of every rate asked for, and builds
    values from them with :func:`~rse_core.values.values_from_parts`, the last step of
    :func:`~rse_core.values.chunk_values` itself, so they are bit-for-bit ``run_rse``'s.
    """

    def __init__(self, base: ChunkValues, chunk_length_adjustment: bool) -> None:
        self.base = base
        self.adjust = chunk_length_adjustment
        self._decay: dict[float, np.ndarray] = {}

    @classmethod
    def from_raw(
        cls,
        raw: np.ndarray,
        params: RSEParams,
        calibration: Calibration,
        lengths: np.ndarray,
        document_splits: Sequence[int] = (),
    ) -> ValueBasis:
        scope = document_splits if params.per_document_calibration else ()  # as run_rse does
        base = chunk_values(
            calibration.per_document(raw, scope),
            params,
            chunk_lengths=lengths,
            raw=raw,
            document_splits=scope,
        )
        return cls(base, params.chunk_length_adjustment)

    def values(self, penalty: float, decay_rate: float) -> np.ndarray:
        decay = self._decay.get(decay_rate)
        if decay is None:
            decay = rank_decay(self.base.rank, decay_rate)
            self._decay[decay_rate] = decay
        length_factor = self.base.length_factor if self.adjust else None
        return values_from_parts(self.base.transformed, decay, penalty, length_factor)


@dataclass(frozen=True)
class SweepCell:
    """RSE's answer at one (x, y) setting.

    Attributes:
        x, y: the parameter values of this cell.
        segments: the picked segments, in pick order (corpus chunk indices, end exclusive).
        chunks: chunks in all segments.
        characters: characters sent (what an LLM would read).
        recall: share of the gold span's characters sent (``None`` without a gold span).
        precision: share of the characters sent that are gold (``None`` without a gold span).
        stop_reason: why the search ended.
    """

    x: float
    y: float
    segments: tuple[Segment, ...]
    chunks: int
    characters: int
    recall: float | None
    precision: float | None
    stop_reason: StopReason

    @property
    def segment_count(self) -> int:
        return len(self.segments)


METRICS = ("segment_count", "chunks", "characters", "recall", "precision")


@dataclass(frozen=True)
class SweepResult:
    """All cells of a sweep; ``cells[i][j]`` is at ``y_values[i]``, ``x_values[j]`` (heatmap order)."""

    x_param: SweepParamBase
    x_values: tuple[float, ...]
    y_param: SweepParamBase
    y_values: tuple[float, ...]
    base_params: RSEParams
    cells: tuple[tuple[SweepCell, ...], ...]

    def cell(self, x: float, y: float) -> SweepCell:
        """The cell at exactly these axis values."""
        try:
            return self.cells[self.y_values.index(y)][self.x_values.index(x)]
        except ValueError:
            raise KeyError(f"({x!r}, {y!r}) is not a cell of this sweep.") from None

    def grid(self, metric: str) -> np.ndarray:
        """One metric as a (len(y_values), len(x_values)) float array (NaN where undefined)."""
        if metric not in METRICS:
            raise ParameterError(f"Unknown metric {metric!r}; choose one of: {', '.join(METRICS)}.")
        return np.array(
            [[np.nan if (value := getattr(cell, metric)) is None else value for cell in row] for row in self.cells],
            dtype=np.float64,
        )

    def params_at(self, x: float, y: float) -> RSEParams:
        """The full parameter set of one cell (e.g. to apply a clicked cell)."""
        return self.base_params.with_changes(**{self.x_param.value: x, self.y_param.value: y})


def sweep(
    corpus: Corpus,
    queries: Sequence[str],
    raw_scores: Sequence[np.ndarray],
    calibration: Calibration,
    params: RSEParams,
    *,
    x_param: str | SweepParamBase,
    x_values: Sequence[float],
    y_param: str | SweepParamBase,
    y_values: Sequence[float],
    gold: tuple[int, int] | None = None,
    gold_document: int = 0,
) -> SweepResult:
    """Run RSE at every (x, y) setting, all other parameters as in ``params``.

    Args:
        corpus: the chunked documents the scores belong to.
        queries: the queries (only their number matters here; kept for symmetry with ``run_rse``).
        raw_scores: cached raw scores, one array per query.
        calibration: the scorer's calibration.
        params: every parameter that is not swept.
        x_param, y_param: two different :class:`SweepParam` names.
        x_values, y_values: the settings to try (each validated as an :class:`RSEParams` field).
        gold: a gold character span (start, end) in document ``gold_document``; adds recall and
            precision per cell, computed with :func:`rse_core.evaluation.metrics.score_sent`.
        gold_document: index in ``corpus.documents`` of the document ``gold`` refers to.

    Raises:
        ParameterError: an unknown or repeated parameter, an empty axis, or a value out of range.
        RSEError: the scores do not fit the corpus.
    """
    x_param, x_values, y_param, y_values = _parse_axes(x_param, x_values, y_param, y_values)
    _check_scores(corpus, queries, raw_scores, params)
    lengths, splits = corpus.lengths, corpus.document_splits
    bases = [ValueBasis.from_raw(np.asarray(raw, float), params, calibration, lengths, splits) for raw in raw_scores]
    _check_axis_values(params, ((x_param, x_values), (y_param, y_values)))
    gold_doc_id = _gold_document_id(corpus, gold_document) if gold is not None else None
    value_cache: dict[tuple[float, float], list[np.ndarray]] = {}

    def search_at(x: float, y: float) -> SearchResult:
        """The segment search at one cell; values are shared by the cells of one (penalty, decay)."""
        setting = {x_param.value: x, y_param.value: y}

        def at(spec: ParamSpec):
            return setting.get(spec.name, getattr(params, spec.name))

        key = (at(PENALTY), at(DECAY_RATE))
        values = value_cache.get(key)
        if values is None:
            values = [basis.values(*key) for basis in bases]
            value_cache[key] = values
        return find_best_segments(
            values,
            max_length=at(MAX_LENGTH),
            overall_max_length=at(OVERALL_MAX_LENGTH),
            minimum_value=at(MINIMUM_VALUE),
            document_splits=corpus.document_splits,
        )

    rows = tuple(tuple(_cell(x, y, search_at(x, y), corpus, gold, gold_doc_id) for x in x_values) for y in y_values)
    return SweepResult(x_param, x_values, y_param, y_values, params, rows)


def _parse_axes(
    x_param: str | SweepParamBase, x_values: Sequence[float], y_param: str | SweepParamBase, y_values: Sequence[float]
) -> tuple[SweepParamBase, tuple[float, ...], SweepParamBase, tuple[float, ...]]:
    """Two different parameters, each with at least one value (the values are checked later)."""
    x_param, y_param = _member(x_param), _member(y_param)
    if x_param is y_param:
        raise ParameterError(f"x and y both sweep {x_param.value}; choose two different parameters.")
    x_values, y_values = tuple(x_values), tuple(y_values)
    if not x_values or not y_values:
        raise ParameterError("Each axis needs at least one value.")
    return x_param, x_values, y_param, y_values


def _check_axis_values(params: RSEParams, axes: Sequence[tuple[SweepParamBase, Sequence[float]]]) -> None:
    """Every axis value checked once, as a whole parameter set would check it."""
    for param, values in axes:
        for value in values:
            params.with_changes(**{param.value: value})


def _check_scores(corpus: Corpus, queries: Sequence[str], raw_scores: Sequence[np.ndarray], params: RSEParams) -> None:
    """Cached scores fit the corpus only at its chunk size, and one array per query."""
    if params.chunk_size != corpus.chunk_size:
        raise RSEError(
            f"The scores were computed for chunk size {corpus.chunk_size}, not {params.chunk_size}; rescore first."
        )
    if len(raw_scores) != len(queries) or not raw_scores:
        raise RSEError(f"{len(raw_scores)} score arrays for {len(queries)} queries.")


def _gold_document_id(corpus: Corpus, gold_document: int) -> str:
    if not 0 <= gold_document < len(corpus.documents):
        raise ParameterError(f"gold_document must index one of the {len(corpus.documents)} documents.")
    return corpus.documents[gold_document].doc_id


def _cell(
    x: float,
    y: float,
    search: SearchResult,
    corpus: Corpus,
    gold: tuple[int, int] | None,
    gold_doc_id: str | None,
) -> SweepCell:
    """One cell from its search; judged by :func:`~rse_core.evaluation.metrics.score_sent` like every evaluation."""
    segments = tuple(search)
    pieces = chunk_pieces(corpus, ((s.start, s.end) for s in segments))
    score = score_sent(pieces, gold, gold_doc_id) if gold is not None else None
    return SweepCell(
        x=x,
        y=y,
        segments=segments,
        chunks=sum(len(s) for s in segments),
        characters=sum(end - start for _, start, end in pieces),
        recall=None if score is None else score.recall,
        precision=None if score is None else score.precision,
        stop_reason=search.stop_reason,
    )


def default_axis(param: str | SweepParamBase, current: float | None = None) -> tuple[float, ...]:
    """Sensible settings to sweep for ``param`` (its spec's axis, :mod:`rse_core.param_specs`), always
    including ``current``.

    Ranges: penalty 0-0.5 in steps of 0.025 (dsRAG's presets use 0.05-0.4); minimum segment
    value 0-2 in steps of 0.1; max chunks per segment 1-40; max chunks overall 5-250; decay
    rate 5-500 (15 values each for the last three). Whole-number parameters get whole numbers.
    """
    values = set(_member(param).axis)
    if current is not None:
        values.add(current)
    return tuple(sorted(values))
