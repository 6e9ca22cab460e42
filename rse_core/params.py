"""RSE parameters, validated on creation, and named presets."""

from __future__ import annotations

import numbers
from dataclasses import asdict, dataclass, fields, replace
from enum import StrEnum

from rse_core.chunking import DEFAULT_CHUNK_HEADERS, DEFAULT_CHUNK_SIZE
from rse_core.context import ContextOrder
from rse_core.errors import ParameterError
from rse_core.param_specs import PARAM_SPECS, preset_independent, problems
from rse_core.topk import DEFAULT_WINDOW
from rse_core.validation import parse_choice

REFERENCE_CHUNK_LENGTH = 700
"""Chunk length (characters) at which the length adjustment is neutral; dsRAG's value, the
average chunk length when chunks are cut at 800 characters."""


DSRAG_DOCUMENT_SELECTION = 10
"""dsRAG's default ``top_k_for_document_selection``: how many documents its search keeps."""


@dataclass(frozen=True)
class RSEParams:
    """Everything that turns chunk scores into segments.

    The defaults are what the app opens with, measured with the default ``minilm`` scorer on the
    samples, the external golden set and FinanceBench (``python -m rse_core.evaluate``): penalty
    0.2 and decay 30 as in the course, segments of up to 20 chunks within a 30-chunk budget, a
    minimum segment value of 0.5 (dsRAG's ``balanced``), which keeps one-chunk factoid answers
    worth 0.5-0.7 that a minimum of 0.7 would drop, and contextual chunk headers on.

    Attributes:
        irrelevant_chunk_penalty: subtracted from every chunk's value; higher -> shorter segments
            (dsRAG: 0.05 gives segments of 20-50 chunks, 0.4 of 1-3).
        decay_rate: chunk values are multiplied by ``exp(-rank / decay_rate)``; lower -> only the
            top-ranked chunks keep a high value.
        beta_a, beta_b: shape of the beta CDF applied to calibrated scores (0.4 / 0.4, the RSE
            authors' choice for Cohere's reranker: it spreads out scores bunched near 0 and 1).
        max_length: most chunks in one segment.
        overall_max_length: most chunks in all segments together.
        minimum_value: a segment worth less than this is not returned; one worth exactly this
            is (dsRAG's ``>=``).
        chunk_length_adjustment: scale values by ``max(len, 700) / 700`` so long chunks count more.
        top_k: chunks in the top-k baseline shown next to RSE (and hits of the window baseline).
        chunk_size: most characters per chunk.
        chunk_headers: score each chunk with its contextual header (document title and section
            heading, see :mod:`rse_core.documents.headings`) in front of its text; segments are unchanged
            text either way. Like ``chunk_size``, changing it rescores. On by default: measured
            on the three evaluation sets it lifts the external set and FinanceBench (``docs/evaluation.md``).
        per_document_calibration: calibrate scores and rank chunks within each document (the
            default), so a document's values never change when another document is loaded beside
            it; ``False`` calibrates and ranks over every loaded chunk, which separates relevant
            from irrelevant documents better in a collection of many small ones (FinanceBench's
            pages) but lets one document's values move with the others. See ``docs/evaluation.md``.
        window: neighbouring chunks the fixed-window baseline adds on each side of a top-k hit.
        context_order: ``"document"`` (the lesson's: segments as they stand in the documents)
            or ``"score"`` (most relevant first); how every context is sent.
    """

    irrelevant_chunk_penalty: float = 0.2
    decay_rate: float = 30.0
    beta_a: float = 0.4
    beta_b: float = 0.4
    max_length: int = 20
    overall_max_length: int = 30
    minimum_value: float = 0.5
    chunk_length_adjustment: bool = False
    top_k: int = 5
    chunk_size: int = DEFAULT_CHUNK_SIZE
    chunk_headers: bool = DEFAULT_CHUNK_HEADERS
    per_document_calibration: bool = True
    window: int = DEFAULT_WINDOW
    context_order: ContextOrder = ContextOrder.DOCUMENT

    def __post_init__(self) -> None:
        """Validate every field by its spec (:mod:`rse_core.param_specs`) and store one type per field."""
        for spec in PARAM_SPECS:  # numpy integers (a slider, an array element) are whole numbers too
            value = getattr(self, spec.name)
            if spec.kind is int and isinstance(value, numbers.Integral) and not isinstance(value, (bool, int)):
                object.__setattr__(self, spec.name, int(value))
        refused = list(problems(self))
        if refused:
            raise ParameterError("Invalid RSE parameters: " + "; ".join(refused) + ".")
        for spec in PARAM_SPECS:  # 30 and 30.0 are the same setting, "score" and ContextOrder.SCORE too
            if spec.kind is float or spec.choices:
                object.__setattr__(self, spec.name, spec.kind(getattr(self, spec.name)))

    def with_changes(self, **changes: object) -> RSEParams:
        """A copy with some fields changed (validated like a new instance)."""
        unknown = set(changes) - {field.name for field in fields(self)}
        if unknown:
            raise ParameterError(f"Unknown RSE parameter(s): {', '.join(sorted(unknown))}.")
        return replace(self, **changes)

    def to_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["context_order"] = self.context_order.value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> RSEParams:
        """Build from a mapping, refusing unknown keys (a typo should not pass silently)."""
        return cls().with_changes(**data)

    def to_dsrag(self, *, top_k_for_document_selection: int = DSRAG_DOCUMENT_SELECTION) -> dict[str, object]:
        """These parameters as dsRAG's own ``rse_params`` dict, exactly its eight keys.

        Why a mapping and not ``to_dict``: tuned values are meant to be carried to RAG code, and
        dsRAG rejects nothing but silently ignores a misspelt key. Two keys have no slider here:
        ``overall_max_length_extension`` is 0 because this app never grows the budget for extra
        queries (dsRAG adds it per query after the first), and ``top_k_for_document_selection``
        is dsRAG's default because this app searches every loaded document. The beta shape, top-k,
        window, chunking and calibration are not RSE parameters in dsRAG (its reranker owns the
        transform): see :func:`tuning_note`.
        """
        own = {spec.name: getattr(self, spec.name) for spec in PARAM_SPECS if spec.dsrag}
        return own | {"overall_max_length_extension": 0, "top_k_for_document_selection": top_k_for_document_selection}


PRESET_INDEPENDENT_FIELDS = preset_independent()
"""Fields no preset sets: how text is chunked and scored, what RSE is compared with and how it is sent."""


def _check_specs_name_the_fields() -> None:
    """The spec table and the dataclass must list the same fields in the same order (a new field needs both)."""
    names = tuple(field.name for field in fields(RSEParams))
    described = tuple(spec.name for spec in PARAM_SPECS)
    if names != described:
        raise RuntimeError(f"rse_core.param_specs describes {described}, but RSEParams has {names}.")


_check_specs_name_the_fields()


class Preset(StrEnum):
    """Named parameter sets. ``balanced``, ``precision`` and ``find_all`` are dsRAG's numbers."""

    DEFAULT = "default"
    BALANCED = "balanced"
    PRECISION = "precision"
    FIND_ALL = "find_all"
    COURSE = "course"

    @classmethod
    def parse(cls, name: str | Preset) -> Preset:
        return parse_choice(cls, name, "preset", ParameterError)


def _preset(*, penalty: float, decay: float, max_length: int, overall: int, minimum: float, adjust: bool) -> RSEParams:
    """A preset's six numbers, in dsRAG's order; the other fields keep their defaults."""
    return RSEParams(
        irrelevant_chunk_penalty=penalty,
        decay_rate=decay,
        max_length=max_length,
        overall_max_length=overall,
        minimum_value=minimum,
        chunk_length_adjustment=adjust,
    )


PRESETS: dict[Preset, RSEParams] = {
    Preset.DEFAULT: RSEParams(),
    Preset.BALANCED: _preset(penalty=0.18, decay=30, max_length=15, overall=30, minimum=0.5, adjust=True),
    Preset.PRECISION: _preset(penalty=0.2, decay=30, max_length=15, overall=30, minimum=0.7, adjust=True),
    Preset.FIND_ALL: _preset(penalty=0.18, decay=200, max_length=40, overall=200, minimum=0.4, adjust=True),
    Preset.COURSE: _preset(penalty=0.2, decay=30, max_length=20, overall=30, minimum=0.7, adjust=False),
}


def preset(name: str | Preset) -> RSEParams:
    """The parameters of a named preset; the error lists the valid names."""
    return PRESETS[Preset.parse(name)]


def tuning_note(scorer: str, model: str, calibration: str) -> str:
    """What the values were tuned with, and what to check again when production scores otherwise.

    Why: the penalty and the minimum value are in units of calibrated, beta-transformed scores, so
    they carry over only to a scorer whose scores are spread the same way.
    """
    named = f"{scorer} ({model})" if model and model != scorer else scorer
    return (
        f"Tuned with the {named} scorer, calibrated as: {calibration} The penalty and the minimum value are "
        "in units of these calibrated, beta-transformed scores. If production scores differently (Cohere's "
        "reranker in dsRAG, another embedding model), re-check on your golden set: the minimum value (a "
        "scorer with lower or bunched scores drops segments), the penalty (it moves segment length), and the "
        "decay rate (it depends on how many chunks score high). dsRAG's beta transform is its reranker's, "
        "not these beta_a/beta_b; chunk size and contextual headers change every score."
    )


def portable_parameters(params: RSEParams, *, scorer: str, model: str, calibration: str) -> dict[str, object]:
    """What a JSON export adds for RAG code: dsRAG's ``rse_params`` and the note on how they were tuned."""
    return {
        "dsrag_rse_params": params.to_dsrag(),
        "tuned_with": {
            "scorer": scorer,
            "model": model,
            "calibration": calibration,
            "note": tuning_note(scorer, model, calibration),
        },
    }
