"""Measure the hybrid scorer's fusion candidates on golden sets: how ``hybrid`` was chosen.

Run from the project root:

    python bench/hybrid_fusion.py                       # samples and external, headers as in RSEParams()
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

from rse_core import build_corpus, load_document, preset  # noqa: E402
from rse_core.eval_sets import golden_sets  # noqa: E402
from rse_core.evaluate import evaluate, summarize  # noqa: E402
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


@dataclass(frozen=True)
class SetScores:
    """One golden set with its corpus and each query's raw minilm and bm25 scores."""

    name: str
    golden: object
    corpus: object
    components: dict[str, tuple[np.ndarray, np.ndarray]]


def load_set(golden, scorer: HybridScorer, params) -> SetScores:
    document = load_document(golden.document_path)
    corpus = build_corpus(document, params.chunk_size, headers=params.chunk_headers)
    components = {q.query: scorer.components(q.query, corpus.chunks) for q in golden.queries}
    return SetScores(golden.document_name, golden, corpus, components)


def measure(sets: Sequence[SetScores], candidate: Candidate, params) -> list:
    queries = []
    for entry in sets:

        def score_fn(query: str, entry=entry) -> np.ndarray:
            dense, lexical = entry.components[query]
            return candidate.fuser(dense, lexical, entry.corpus.chunks)

        evaluation = evaluate(entry.golden, params, candidate, corpus=entry.corpus, score_fn=score_fn)
        queries.extend(evaluation.queries)
    return queries


def report(label: str, queries: Sequence) -> str:
    rows = {(row["kind"], row["method"]): row for row in summarize(queries)}
    rse, budget = rows[("all", "rse")], rows[("all", "top_k_equal_budget")]
    margins = []
    for kind in ("factoid", "broad", "gapped"):
        if (kind, "rse") in rows:
            margins.append(f"{rows[(kind, 'rse')]['recall'] - rows[(kind, 'top_k_equal_budget')]['recall']:+.2f}")
        else:
            margins.append("  -  ")
    empty = sum(1 for q in queries if not q.segments)
    return (
        f"{label:<22}{rse['recall']:>7.2f}{budget['recall']:>8.2f}{rse['characters']:>8,.0f}"
        f"{'':>3}{' '.join(margins):<20}{empty:>6}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="*", default=["samples", "external"], help="set names (samples, external)")
    parser.add_argument("--preset", default="default")
    parser.add_argument("--headers", choices=("default", "on", "off", "both"), default="default")
    parser.add_argument("--only", action="append", help="candidates whose label starts with this (repeat)")
    parser.add_argument("--penalty", type=float, action="append", help="irrelevant chunk penalty (repeat to compare)")
    args = parser.parse_args(argv)
    base = preset(args.preset)
    settings = {"default": [base.chunk_headers], "on": [True], "off": [False], "both": [False, True]}[args.headers]
    scorer = HybridScorer()
    header = f"{'candidate':<22}{'RSE':>7}{'top-k$':>8}{'chars':>8}   {'margin f / b / g':<20}{'empty':>6}"
    for headers in settings:
        params = base.with_changes(chunk_headers=headers)
        groups = {name: [load_set(golden, scorer, params) for golden in golden_sets(name)] for name in args.sets}
        if len(groups) > 1:
            groups["all sets (each query once)"] = [entry for members in groups.values() for entry in members]
        for group, members in groups.items():
            queries = sum(len(entry.golden.queries) for entry in members)
            print(f"\n{group}: {queries} queries (headers {'on' if headers else 'off'}, preset {args.preset})")
            print(header)
            for penalty in args.penalty or [params.irrelevant_chunk_penalty]:
                setting = params.with_changes(irrelevant_chunk_penalty=penalty)
                for candidate in candidates():
                    if args.only and not any(candidate.label.startswith(prefix) for prefix in args.only):
                        continue
                    label = candidate.label if not args.penalty else f"{candidate.label} p={penalty:g}"
                    print(report(label, measure(members, candidate, setting)), flush=True)
    print("\nRSE/top-k$ = recall of RSE / of top-k at RSE's characters; margin = RSE - top-k$ per kind")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
