"""What each RSE parameter is, said once: its label, bounds, slider, URL name, CLI flag, help and role.

Why one table: validation, the app's sliders, the link parser, both command lines, the sweep and
the tuner all describe the same fields. Written in each, a bound and a slider drifted apart and a
new field needed ten edits; now each reads :data:`PARAM_SPECS` (or a tuple of specs passed in, so a
test can add a field and watch it appear everywhere). :class:`rse_core.params.RSEParams` holds the
values and defaults; its fields and this table are checked to name the same fields in the same order.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import Enum, StrEnum

from rse_core.chunking import MIN_CHUNK_SIZE
from rse_core.context import ContextOrder


class ParamGroup(StrEnum):
    """What part of the method a parameter shapes (the sidebar groups its controls by this)."""

    VALUES = "values"  # how scores become chunk values
    SEARCH = "search"  # the segment search's limits
    BASELINE = "baseline"  # what RSE is compared with
    CHUNKING = "chunking"  # how text is cut and scored: changing it rescores
    OUTPUT = "output"  # how the context is sent


@dataclass(frozen=True)
class Bounds:
    """The values a number may take; ``reason`` ends the message when one is refused."""

    low: float
    high: float | None = None
    low_inclusive: bool = True
    reason: str = ""

    def contains(self, value: float) -> bool:
        above = value >= self.low if self.low_inclusive else value > self.low
        return above and (self.high is None or value <= self.high)

    def describe(self, whole: bool) -> str:
        """The rule in words: ``between 0 and 1``, ``above 0``, ``a whole number of at least 1``."""
        if whole:
            most = "" if self.high is None else f" and at most {self.high:g}"
            return f"a whole number of at least {self.low:g}{most}"
        if self.high is not None:
            return f"between {self.low:g} and {self.high:g}"
        return f"{self.low:g} or more" if self.low_inclusive else f"above {self.low:g}"


@dataclass(frozen=True)
class SliderRange:
    """A slider's ends and step; it must lie inside the parameter's bounds (a test checks)."""

    low: float
    high: float
    step: float

    def clamp(self, value: float) -> float:
        return min(max(value, self.low), self.high)


@dataclass(frozen=True)
class ParamSpec:
    """One parameter, described for every place that shows, reads or varies it.

    Attributes:
        name: the :class:`~rse_core.params.RSEParams` field.
        kind: the value's type: ``float``, ``int``, ``bool`` or a ``StrEnum`` of the choices.
        label: how the app names it.
        help: one line on what it does (slider help and CLI help).
        group: the part of the method it shapes.
        url: its name in a shared link: a public contract, never renamed.
        cli: the command-line flag (for a switch, the one that turns it on); ``None``: no flag.
        cli_off: a switch's flag that turns it off.
        bounds: the numbers validation accepts (numbers only).
        slider: the app's slider, inside ``bounds``.
        options: the values the app offers instead of a slider (chunk sizes), inside ``bounds``.
        option_labels: how the app shows a choice's options (same order as the choice's members).
        unit: what a number counts, shown after the label.
        preset: a preset sets it (the others are kept when a preset is picked).
        sweep_axis: the settings a sweep tries by default; empty: sweeps never vary it.
        tuned: the auto-tuner searches it.
        knowledge_base: the knowledge-base page and command line let a user set it per query.
        dsrag: a key of dsRAG's ``rse_params`` under the same name.
    """

    name: str
    kind: type
    label: str
    help: str
    group: ParamGroup
    url: str
    cli: str | None = None
    cli_off: str | None = None
    bounds: Bounds | None = None
    slider: SliderRange | None = None
    options: tuple[int, ...] = ()
    option_labels: tuple[str, ...] = ()
    unit: str = ""
    preset: bool = False
    sweep_axis: tuple[float, ...] = ()
    tuned: bool = False
    knowledge_base: bool = False
    dsrag: bool = False

    @property
    def display_label(self) -> str:
        return f"{self.label} ({self.unit})" if self.unit else self.label

    @functools.cached_property
    def choices(self) -> tuple[str, ...]:
        """A choice's allowed words (its enum's values); empty for numbers and switches."""
        return tuple(member.value for member in self.kind) if issubclass(self.kind, Enum) else ()

    @property
    def widget_range(self) -> tuple[float, float] | None:
        """The lowest and highest value the app's widget offers (``None``: a switch or a choice)."""
        if self.slider is not None:
            return self.slider.low, self.slider.high
        return (min(self.options), max(self.options)) if self.options else None

    def fit_to_widget(self, value: object) -> object:
        """``value`` moved into the widget's range (the nearest offered option), else unchanged."""
        if self.slider is not None:
            return self.kind(self.slider.clamp(value))
        if self.options:
            return min(self.options, key=lambda option: abs(option - value))
        return value

    def problem(self, value: object) -> str | None:
        """Why ``value`` is refused, in the words the errors use, or ``None`` when it is valid."""
        if self.kind is bool:
            return None if isinstance(value, bool) else f"{self.name} must be True or False (got {value!r})"
        if self.choices:
            if isinstance(value, str) and value in self.choices:
                return None
            return f"{self.name} must be one of {', '.join(self.choices)} (got {value!r})"
        whole = self.kind is int
        number = _whole(value) if whole else _finite(value)
        if number is not None and (self.bounds is None or self.bounds.contains(number)):
            return None
        rule = self.bounds.describe(whole) if self.bounds else ("a whole number" if whole else "a finite number")
        reason = f"; {self.bounds.reason}" if self.bounds and self.bounds.reason else ""
        return f"{self.name} must be {rule} (got {shown(value)}){reason}"


def _whole(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _finite(value: object) -> float | None:
    """``value`` as a finite float, or ``None`` for a bool, a non-number, NaN, an infinity or a huge int."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int beyond 1e308
        return None
    return number if math.isfinite(number) else None


def shown(value: object) -> str:
    """``repr`` for a message; a huge int (whose repr Python may refuse) by its size instead."""
    if isinstance(value, int) and value.bit_length() > 128:
        return f"an integer of about {int(value.bit_length() * 0.30103):,} digits"
    return repr(value)[:60]


# ------------------------------------------------------------------------------ the parameters

PENALTY = ParamSpec(
    "irrelevant_chunk_penalty", float, "Irrelevant chunk penalty",
    "Subtracted from every chunk: higher penalty -> shorter segments.",
    ParamGroup.VALUES, url="penalty", cli="--penalty", bounds=Bounds(0, 1), slider=SliderRange(0.0, 1.0, 0.01),
    preset=True, sweep_axis=tuple(round(0.025 * i, 3) for i in range(21)), tuned=True, knowledge_base=True, dsrag=True,
)  # fmt: skip
DECAY_RATE = ParamSpec(
    "decay_rate", float, "Decay rate", "Value x exp(-rank / decay): lower -> only the top-ranked chunks count.",
    ParamGroup.VALUES, url="decay", cli="--decay-rate",
    bounds=Bounds(0, low_inclusive=False, reason="it divides the rank"), slider=SliderRange(1.0, 500.0, 1.0),
    preset=True, sweep_axis=(5, 10, 15, 20, 25, 30, 40, 50, 75, 100, 150, 200, 300, 400, 500),
    tuned=True, knowledge_base=True, dsrag=True,
)  # fmt: skip
_BETA = Bounds(0, low_inclusive=False, reason="a beta shape of 0 is undefined")
BETA_A = ParamSpec(
    "beta_a", float, "Beta a", "Beta CDF shape: a = b = 0.4 spreads scores bunched near 0 and 1.",
    ParamGroup.VALUES, url="a", cli="--beta-a", bounds=_BETA, slider=SliderRange(0.1, 3.0, 0.05), preset=True,
)  # fmt: skip
BETA_B = ParamSpec(
    "beta_b", float, "Beta b", "Beta CDF shape: b > a lifts low scores, a > b pushes them down.",
    ParamGroup.VALUES, url="b", cli="--beta-b", bounds=_BETA, slider=SliderRange(0.1, 3.0, 0.05), preset=True,
)  # fmt: skip
MAX_LENGTH = ParamSpec(
    "max_length", int, "Max chunks per segment",
    "Caps one segment's length: lower -> whole sections get cut into pieces.",
    ParamGroup.SEARCH, url="maxlen", cli="--max-length", bounds=Bounds(1), slider=SliderRange(1, 60, 1),
    preset=True, sweep_axis=(1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 35, 40), tuned=True,
    knowledge_base=True, dsrag=True,
)  # fmt: skip
OVERALL_MAX_LENGTH = ParamSpec(
    "overall_max_length", int, "Max chunks overall", "Total budget for all segments: lower -> fewer segments.",
    ParamGroup.SEARCH, url="overall", cli="--overall-max-length", bounds=Bounds(1), slider=SliderRange(1, 300, 1),
    preset=True, sweep_axis=(5, 10, 15, 20, 25, 30, 40, 50, 60, 80, 100, 120, 150, 200, 250),
    knowledge_base=True, dsrag=True,
)  # fmt: skip
MINIMUM_VALUE = ParamSpec(
    "minimum_value", float, "Minimum segment value",
    "Segments worth less are dropped: higher -> fewer, surer segments. One worth exactly this is kept (dsRAG's >=).",
    ParamGroup.SEARCH, url="minval", cli="--minimum-value", bounds=Bounds(0), slider=SliderRange(0.0, 3.0, 0.05),
    preset=True, sweep_axis=tuple(round(0.1 * i, 1) for i in range(21)), tuned=True, knowledge_base=True, dsrag=True,
)  # fmt: skip
CHUNK_LENGTH_ADJUSTMENT = ParamSpec(
    "chunk_length_adjustment", bool, "Chunk-length adjustment",
    "Scale values by max(length, 700) / 700: long chunks count more.",
    ParamGroup.VALUES, url="adjust", cli="--length-adjustment", cli_off="--no-length-adjustment", preset=True,
    dsrag=True,
)  # fmt: skip
TOP_K = ParamSpec(
    "top_k", int, "Top-k (baseline)", "How many best-scored chunks the top-k baseline keeps.",
    ParamGroup.BASELINE, url="topk", cli="--top-k", bounds=Bounds(1), slider=SliderRange(1, 30, 1),
)  # fmt: skip
CHUNK_SIZE = ParamSpec(
    "chunk_size", int, "Chunk size", "Longer chunks -> fewer, coarser bars. Changing it rescores the documents.",
    ParamGroup.CHUNKING, url="chunk", cli="--chunk-size", bounds=Bounds(MIN_CHUNK_SIZE),
    options=(200, 300, 400, 500, 600, 800, 1000, 1200, 1600, 2000), unit="characters",
)  # fmt: skip
CHUNK_HEADERS = ParamSpec(
    "chunk_headers", bool, "Contextual chunk headers",
    "Score each chunk with its document title and section heading in front (segments keep the exact text). "
    "Changing it rescores the documents.",
    ParamGroup.CHUNKING, url="headers", cli="--headers", cli_off="--no-headers",
)  # fmt: skip
PER_DOCUMENT_CALIBRATION = ParamSpec(
    "per_document_calibration", bool, "Calibrate each document alone",
    "On: scores are calibrated and ranked within each document, so a document's values never change when you "
    "load another beside it. Off: over every loaded chunk, which tells relevant from irrelevant documents apart "
    "better in a collection of many small ones (see docs/evaluation.md).",
    ParamGroup.CHUNKING, url="perdoc", cli_off="--calibrate-over-collection",
)  # fmt: skip
WINDOW = ParamSpec(
    "window", int, "Window (baseline)",
    "The lesson's fixed window: each top-k hit grown by this many neighbouring chunks on both sides.",
    ParamGroup.BASELINE, url="window", cli="--window", bounds=Bounds(0), slider=SliderRange(0, 10, 1),
)  # fmt: skip
CONTEXT_ORDER = ParamSpec(
    "context_order", ContextOrder, "Context order",
    "How the context reaches the LLM: segments (and the baselines' chunks) as they stand in the documents, as "
    "the lesson sends them, or most relevant first.",
    ParamGroup.OUTPUT, url="order", cli="--context-order",
    option_labels=("document order (the lesson's)", "best first"),
)  # fmt: skip

PARAM_SPECS: tuple[ParamSpec, ...] = (
    PENALTY,
    DECAY_RATE,
    BETA_A,
    BETA_B,
    MAX_LENGTH,
    OVERALL_MAX_LENGTH,
    MINIMUM_VALUE,
    CHUNK_LENGTH_ADJUSTMENT,
    TOP_K,
    CHUNK_SIZE,
    CHUNK_HEADERS,
    PER_DOCUMENT_CALIBRATION,
    WINDOW,
    CONTEXT_ORDER,
)
"""Every RSE parameter, in the order of :class:`~rse_core.params.RSEParams`'s fields."""


def spec_of(name: str, specs: Iterable[ParamSpec] = PARAM_SPECS) -> ParamSpec:
    """The spec of the field ``name`` (``KeyError`` for a name no spec has)."""
    for spec in specs:
        if spec.name == name:
            return spec
    raise KeyError(name)


def problems(values: object, specs: Iterable[ParamSpec] = PARAM_SPECS) -> Iterator[str]:
    """Every field of ``values`` (read by attribute) that its spec refuses, in words."""
    for spec in specs:
        problem = spec.problem(getattr(values, spec.name))
        if problem is not None:
            yield problem


def url_names(specs: Iterable[ParamSpec] = PARAM_SPECS) -> dict[str, str]:
    """Field -> its name in a link."""
    return {spec.name: spec.url for spec in specs}


def preset_independent(specs: Iterable[ParamSpec] = PARAM_SPECS) -> tuple[str, ...]:
    """The fields no preset sets: how text is chunked and scored, the baselines and how the context is sent."""
    return tuple(spec.name for spec in specs if not spec.preset)
