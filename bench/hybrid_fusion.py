"""Measure the hybrid scorer's fusion candidates on golden sets: how ``hybrid`` was chosen.

Run from the project root:

    python bench/hybrid_fusion.py                          # samples, external, financebench
    python bench/hybrid_fusion.py samples --headers both   # with and without headers

Each query's minilm and bm25 raw scores are computed once (embeddings come from the cache); every
candidate then only fuses, values and searches. For each set and candidate it prints, at
``RSEParams()`` (or ``--preset``): RSE recall, top-k recall at RSE's characters, characters per
query, the RSE - top-k margin on broad and gapped queries, and how many queries got nothing.
This is a measurement script, not a timing benchmark.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from rse_core import preset  # noqa: E402
from rse_core.evaluation.scored_sets import evaluate_scored, score_set  # noqa: E402
from rse_core.evaluation.sets import load_eval_set  # noqa: E402
from rse_core.scoring import Calibration  # noqa: E402
from rse_core.scoring.bm25 import BM25_CALIBRATION  # noqa: E402
from rse_core.scoring.hybrid import HybridScorer, fuse_per_document  # noqa: E402
from rse_core.scoring.minilm import MINILM_CALIBRATION  # noqa: E402

Fuser = Callable[[np.ndarray, np.ndarray, Sequence], np.ndarray]


@dataclass(frozen=True)
class Candidate:
    label: str
    fuser: Fuser
    calibration: Calibration
    name: str = "candidate"


def candidates() -> list[Candidate]:
    identity = Calibration("identity")
    rows = [
        Candidate("minilm alone", lambda d, lex, c: d, MINILM_CALIBRATION),
        Candidate("bm25 alone", lambda d, lex, c: lex, BM25_CALIBRATION),
        Candidate("max", lambda d, lex, c: fuse_per_document(d, lex, c, "max"), identity),
        Candidate("rrf (k=60)", lambda d, lex, c: fuse_per_document(d, lex, c, "rrf"), identity),
    ]
    for quantile in (0.75, 0.9):
        rows.append(
            Candidate(
                f"max -> q{quantile * 100:g}",
                lambda d, lex, c, q=quantile: fuse_per_document(d, lex, c, "max", quantile=q),
                identity,
            )
        )
    for weight in (0.3, 0.5, 0.7):
        rows.append(
            Candidate(
                f"mean w={weight:g}",
                lambda d, lex, c, w=weight: fuse_per_document(d, lex, c, "mean", w),
                identity,
            )
        )
    return rows


class Components:
    """Each (corpus, query)'s raw minilm and bm25 scores, computed once for every candidate."""

    def __init__(self, scorer: HybridScorer) -> None:
        self.scorer = scorer
        self.cache: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}

    def __call__(self, corpus, query: str) -> tuple[np.ndarray, np.ndarray]:
        key = (corpus.key, query)
        if key not in self.cache:
            self.cache[key] = self.scorer.components(query, corpus.chunks)
        return self.cache[key]


def measure(eval_set, candidate: Candidate, params, components: Components):
    def score_fn(corpus, query: str) -> np.ndarray:
        return candidate.fuser(*components(corpus, query), corpus.chunks)

    scored = score_set(eval_set, candidate, params.chunk_size, score_fn=score_fn, headers=params.chunk_headers)
    return evaluate_scored(scored, params)


def report(label: str, evaluation) -> str:
    rse, budget = evaluation.overall("rse"), evaluation.overall("top_k_equal_budget")
    margins = " ".join(f"{kind[:1]}{margin:+.2f}" for kind, margin in evaluation.margins().items())
    empty = sum(1 for q in evaluation.queries if not q.segments)
    hit = rse.get("first_hit")
    return (
        f"{label:<22}{rse['recall']:>7.2f}{budget['recall']:>8.2f}{rse['characters']:>8,.0f}"
        f"   {margins:<24}{empty:>6}{hit if hit is None else round(hit, 2)!s:>7}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "sets", nargs="*", default=["samples", "external", "financebench"], help="set names (default: all three)"
    )
    parser.add_argument("--preset", default="default")
    parser.add_argument("--headers", choices=("default", "on", "off", "both"), default="default")
    parser.add_argument("--only", action="append", help="candidates whose label starts with this (repeat)")
    parser.add_argument("--penalty", type=float, action="append", help="irrelevant chunk penalty (repeat to compare)")
    parser.add_argument("--limit", type=int, help="only the first N queries of each set (a quick run)")
    args = parser.parse_args(argv)
    base = preset(args.preset)
    settings = {"default": [base.chunk_headers], "on": [True], "off": [False], "both": [False, True]}[args.headers]
    components = Components(HybridScorer())
    eval_sets = {name: load_eval_set(name, args.limit) for name in args.sets}
    header = f"{'candidate':<22}{'RSE':>7}{'top-k$':>8}{'chars':>8}   {'margin per kind':<24}{'empty':>6}{'hit':>7}"
    for headers in settings:
        params = base.with_changes(chunk_headers=headers)
        for name, eval_set in eval_sets.items():
            print(
                f"\n{name}: {len(eval_set.cases)} queries (headers {'on' if headers else 'off'}, preset {args.preset})"
            )
            print(header)
            for penalty in args.penalty or [params.irrelevant_chunk_penalty]:
                setting = params.with_changes(irrelevant_chunk_penalty=penalty)
                for candidate in candidates():
                    if args.only and not any(candidate.label.startswith(prefix) for prefix in args.only):
                        continue
                    label = candidate.label if not args.penalty else f"{candidate.label} p={penalty:g}"
                    print(report(label, measure(eval_set, candidate, setting, components)), flush=True)
    print("\nRSE/top-k$ = recall of RSE / of top-k at RSE's characters; margin = RSE - top-k$ per kind (initial);")
    print("empty = queries with no segment; hit = share of first segments in the gold document")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
