"""Measure the minilm calibration's candidates on the three evaluation sets: how it was chosen.

Run from the project root (needs ``RSE_CORPUS_DIR``, e.g. ``../shared/corpus``, for the external set and FinanceBench):

    python bench/minilm_calibration.py                 # headers on (the default)
    python bench/minilm_calibration.py --no-headers

Each query's raw cosines are computed once (embeddings come from the cache); every candidate then
only calibrates, values and searches, at ``RSEParams()`` with per-document calibration. A
candidate is a :class:`~rse_core.scoring.Calibration` of kind ``quantile``: the document's
``low`` percentile maps to 0, ``max(best, high)`` to 1, both pulled towards ``prior_floor`` and
``high`` as if the document held ``prior_chunks`` more chunks. The last rows keep the chosen
calibration and lower the search's overall budget instead, or calibrate over the collection.

Each cell: RSE recall / top-k recall at RSE's characters / characters per query, then RSE minus
top-k at RSE's characters per kind (initials), and how many queries got no segment. This is a
measurement script, not a timing benchmark.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rse_core import RSEParams  # noqa: E402
from rse_core.evaluation.scored_sets import ScoredSet, SetEvaluation, evaluate_scored, score_set  # noqa: E402
from rse_core.evaluation.sets import SAMPLE_DIR, load_eval_set  # noqa: E402
from rse_core.scoring import Calibration  # noqa: E402
from rse_core.scoring.minilm import MINILM_CALIBRATION, MiniLMScorer  # noqa: E402

SETS = ("samples", "external", "financebench")


@dataclass(frozen=True)
class Candidate:
    label: str
    calibration: Calibration
    changes: tuple[tuple[str, object], ...] = ()


def quantile(low: float, high: float, floor: float = 0.0, chunks: float = 0.0) -> Calibration:
    return Calibration("quantile", low=low, high=high, prior_floor=floor, prior_chunks=chunks)


def candidates() -> list[Candidate]:
    chosen = MINILM_CALIBRATION
    rows = [
        Candidate("before: q75, max(best, 0.5), no pull", quantile(0.75, 0.5)),
        Candidate("chosen: q70, 0.45, pull 0.3 x 5", chosen),
        Candidate("q70, 0.45, no pull", quantile(0.7, 0.45)),
    ]
    for low in (0.6, 0.65, 0.75):
        rows.append(Candidate(f"q{low * 100:g}, 0.45, pull 0.3 x 5", quantile(low, 0.45, 0.3, 5)))
    rows += [
        Candidate("q70, 0.5, pull 0.3 x 5", quantile(0.7, 0.5, 0.3, 5)),
        Candidate("q70, 0.45, pull 0.25 x 5", quantile(0.7, 0.45, 0.25, 5)),
        Candidate("q70, 0.45, pull 0.3 x 10", quantile(0.7, 0.45, 0.3, 10)),
        Candidate("q70, 0.45, pull 0.3 x 20", quantile(0.7, 0.45, 0.3, 20)),
    ]
    for budget in (20, 16, 12):
        rows.append(Candidate(f"chosen, {budget} chunks overall", chosen, (("overall_max_length", budget),)))
    rows.append(Candidate("chosen, over the collection", chosen, (("per_document_calibration", False),)))
    return rows


def cell(evaluation: SetEvaluation) -> str:
    rse, budget = evaluation.overall("rse"), evaluation.overall("top_k_equal_budget")
    margins = " ".join(f"{kind[:1]}{margin:+.2f}" for kind, margin in evaluation.margins().items())
    empty = sum(1 for query in evaluation.queries if not query.segments)
    return f"{rse['recall']:.2f}/{budget['recall']:.2f}/{rse['characters']:>6,.0f} {margins} e{empty}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="*", default=list(SETS), help="set names (default: all three)")
    parser.add_argument("--no-headers", dest="headers", action="store_false", help="score without chunk headers")
    args = parser.parse_args(argv)
    scorer = MiniLMScorer(bundled_embeddings=(SAMPLE_DIR / "embeddings",))
    base = RSEParams(chunk_headers=args.headers)
    scored = {name: score_set(load_eval_set(name), scorer, base.chunk_size, headers=args.headers) for name in args.sets}
    print(f"headers {'on' if args.headers else 'off'}; each cell: RSE / top-k at RSE's chars / chars, margins, empty")
    print(f"{'candidate':<40} | " + " | ".join(f"{name:<40}" for name in args.sets))
    for candidate in candidates():
        params = base.with_changes(**dict(candidate.changes))
        cells = []
        for raw in scored.values():
            recalibrated = ScoredSet(raw.name, raw.scorer, candidate.calibration, raw.chunk_size, raw.cases)
            cells.append(cell(evaluate_scored(recalibrated, params)))
        print(f"{candidate.label:<40} | " + " | ".join(f"{c:<40}" for c in cells), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
