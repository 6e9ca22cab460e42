"""Maps from first-stage scores to [0, 1] that put every document of a base on one scale.

The core calibrates MiniLM per document (a quantile of the document's own scores); over a
knowledge base that would be circular (only hits are scored) and would give every document's
best chunk full weight, however weak. A bi-encoder's cosine has no fixed scale either: one fixed
map (0.25 -> 0, 0.55 -> 1, read off the samples) sent 7,900 characters a question on the samples'
base but 14,900 on the external set's and 15,300 on FinanceBench's, where headed chunks of a
relevant document score high all through.

So the dense map is anchored on the query's **best hit in the whole base**: that cosine maps to
1 and 0.2 below it to 0, the same line for every document, so a document whose best chunk is far
below the base's best stays near 0. A best under 0.45 counts as 0.45, so a query nothing in the
base answers stays weak (as the core's minilm ceiling does). Adding documents changes a query's
values only when a new document holds a better chunk than any before. Measured on the three
knowledge-base sets (``python bench/kb_calibration.py``, docs/knowledge_base.md has the table).

Those two constants are MiniLM's. A base may carry its own fit for its embedder
(:class:`CalibrationFit` in ``calibration.json``, made by ``rse-kb calibrate``:
:mod:`rse_core.evaluation.fit_calibration`); :func:`choose_calibration` takes it only for the
vectors it was fitted on, and the built-in constants otherwise or when asked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from rse_core.embedders.identity import EmbedderIdentity
from rse_core.errors import ParameterError
from rse_core.kb.catalog import CALIBRATION_FILE, KnowledgeBaseError, replace_file
from rse_core.scoring import Calibration
from rse_core.validation import parse_choice

DENSE_SPREAD = 0.2
"""Cosine below the query's best hit at which a chunk's calibrated score reaches 0 (fitted on MiniLM)."""
DENSE_CEILING = 0.45
"""The anchor is at least this cosine: a query's weak best hit maps below 1 (fitted on MiniLM)."""
BUILTIN_SOURCE = "built-in (fitted on MiniLM)"
"""How a result names the constants above."""
BM25_SOURCE = "BM25's fixed map (built-in)"
"""How a result of the bm25 first stage names its calibration (:data:`BM25_CALIBRATION`)."""


def dense_calibration(best: float, spread: float = DENSE_SPREAD, ceiling: float = DENSE_CEILING) -> Calibration:
    """The dense map for a query whose best cosine in the base is ``best``: ``max(best, ceiling)``
    -> 1, ``spread`` below that -> 0, clipped linear between."""
    high = max(float(best), ceiling)
    return Calibration(
        kind="linear",
        low=high - spread,
        high=high,
        note=(
            f"Cosine, anchored on the query's best hit in the base "
            f"({float(best):.2f}; at least {ceiling:g}): {high:.2f} -> 1, {high - spread:.2f} -> 0."
        ),
    )


@dataclass(frozen=True)
class DenseCalibration:
    """The two constants of the dense map (:func:`dense_calibration`)."""

    spread: float = DENSE_SPREAD
    ceiling: float = DENSE_CEILING

    def map(self, best: float) -> Calibration:
        return dense_calibration(best, self.spread, self.ceiling)


BUILTIN_DENSE = DenseCalibration()


class CalibrationChoice(StrEnum):
    """``fitted``: a base's own fit when it was made for the base's embedder, else the built-in
    constants (the default); ``builtin``: the built-in constants always (the lesson's one click)."""

    FITTED = "fitted"
    BUILTIN = "builtin"

    @classmethod
    def parse(cls, name: str | CalibrationChoice) -> CalibrationChoice:
        return parse_choice(cls, name, "calibration", ParameterError)


@dataclass(frozen=True)
class CalibrationFit:
    """A dense calibration fitted for one embedder on golden queries (``calibration.json`` beside
    ``kb.json``): what was fitted, for which vectors, on what, by which objective, when."""

    spread: float
    ceiling: float
    embedder: EmbedderIdentity
    golden: tuple[str, ...]
    """The golden sets by name (a named set, or a golden file's name)."""
    queries: int
    objective: str
    value: float
    builtin_value: float
    """The objective at the built-in constants, on the same queries (what the fit gained)."""
    fitted_at: str
    """ISO date and time (UTC)."""

    @property
    def dense(self) -> DenseCalibration:
        return DenseCalibration(self.spread, self.ceiling)

    def describe(self) -> str:
        """``calibrated for minilm on 36 queries of samples-kb``: what a result shows."""
        return f"calibrated for {self.embedder.name} on {self.queries} queries of {', '.join(self.golden)}"

    def to_dict(self) -> dict[str, object]:
        return {
            "format": FIT_FORMAT,
            "kind": "dense",
            "spread": self.spread,
            "ceiling": self.ceiling,
            "embedder": self.embedder.to_dict(),
            "golden": list(self.golden),
            "queries": self.queries,
            "objective": self.objective,
            "value": self.value,
            "builtin_value": self.builtin_value,
            "fitted_at": self.fitted_at,
        }

    @classmethod
    def from_dict(cls, data: dict) -> CalibrationFit:
        """Raises: KeyError, TypeError, ValueError on a malformed record."""
        if data.get("format") != FIT_FORMAT:
            raise ValueError(f"not a calibration of format {FIT_FORMAT}")
        spread, ceiling = float(data["spread"]), float(data["ceiling"])
        if not (0 < spread <= 2 and -1 <= ceiling <= 1):
            raise ValueError(f"spread {spread} or ceiling {ceiling} out of range")
        golden = data["golden"]
        if not isinstance(golden, list) or not all(isinstance(name, str) for name in golden):
            raise TypeError("golden is not a list of names")
        return cls(
            spread,
            ceiling,
            EmbedderIdentity.from_dict(data["embedder"]),
            tuple(golden),
            int(data["queries"]),
            str(data["objective"]),
            float(data["value"]),
            float(data["builtin_value"]),
            str(data["fitted_at"]),
        )


FIT_FORMAT = "rse-kb-calibration/1"


def write_fit(kb_dir: Path, fit: CalibrationFit) -> None:
    """Replace the base's calibration atomically (as ``kb.json``)."""
    with replace_file(kb_dir / CALIBRATION_FILE) as handle:
        handle.write(json.dumps(fit.to_dict(), ensure_ascii=False, indent=1).encode("utf-8"))


def read_fit(kb_dir: Path) -> CalibrationFit | None:
    """The base's fitted calibration, ``None`` when it has none.

    Raises:
        KnowledgeBaseError: the file is there but unreadable or malformed (refit, or delete it).
    """
    path = kb_dir / CALIBRATION_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise TypeError("not an object")
        return CalibrationFit.from_dict(data)
    except (OSError, KeyError, TypeError, ValueError) as error:
        raise KnowledgeBaseError(
            f"{path} is damaged ({type(error).__name__}: {error}); run 'calibrate' again or delete it."
        ) from None


@dataclass(frozen=True)
class ChosenCalibration:
    """The dense constants a query uses and why: ``source`` is what a result shows."""

    dense: DenseCalibration
    source: str
    fit: CalibrationFit | None = None


def choose_calibration(
    embedder: EmbedderIdentity, fit: CalibrationFit | None, choice: str | CalibrationChoice = CalibrationChoice.FITTED
) -> ChosenCalibration:
    """The base's fit when asked for and made for ``embedder``'s vectors; otherwise the built-in
    constants, saying why the fit was not used."""
    if fit is None:
        return ChosenCalibration(BUILTIN_DENSE, BUILTIN_SOURCE)
    if CalibrationChoice.parse(choice) is CalibrationChoice.BUILTIN:
        return ChosenCalibration(BUILTIN_DENSE, f"{BUILTIN_SOURCE}; the base's fit ({fit.describe()}) set aside")
    if not fit.embedder.same_vectors_as(embedder):
        return ChosenCalibration(
            BUILTIN_DENSE,
            f"{BUILTIN_SOURCE}; the base's fit is for {fit.embedder.describe()}, not {embedder.describe()}",
        )
    return ChosenCalibration(fit.dense, f"{fit.describe()} (spread {fit.spread:g}, ceiling {fit.ceiling:g})", fit)


BM25_CALIBRATION = Calibration(
    kind="logistic",
    low=6.0,
    high=2.0,
    note=(
        "BM25 (LanceDB's or Milvus' full-text index), logistic with midpoint 6 and scale 2. Over the three "
        "sample PDFs a golden query's median matching chunk scores 1.6-3.6 (-> 0.1-0.25), the 90th "
        "percentile 3.3-7.1 and the best 5-21 (-> 0.4-1). On the 36 golden queries at RSEParams() it "
        "recalls 0.52 of the gold characters with 8,200 characters a query; midpoints 7-9 send 3,200-5,000 "
        "characters but recall 0.42-0.46 (BM25 misses the paraphrased questions either way). Fixed, but "
        "BM25's term weights (IDF) are taken over the whole base, so it drifts as any document is added "
        "(the dense map moves only when a better-matching one is), and in a base of a few chunks every word "
        "is common and scores stay low."
    ),
)
"""For the bm25 first stage, and BM25's half of the hybrid fusion."""
