"""The knowledge base's dense calibration (``rse_core.kb.calibration.dense_calibration``: anchored
on the query's best hit in the base), measured against alternatives on every knowledge-base set:
the samples and the external set as one base each, and FinanceBench's 74 filings.

Each question is searched once at the default settings; every candidate map then re-scores the
same hits from their raw cosine (``ScoredHit.order``), re-selects the documents and is judged by
:func:`rse_core.evaluation.kb_eval.evaluate_kb` at ``RSEParams()``, curves included.

    python bench/kb_calibration.py                                   # samples-kb and external-kb
    python bench/kb_calibration.py --financebench-kb /work/kbdata/financebench
    python bench/kb_calibration.py --maps 0.25:0.55 best-0.2:best-0.0^0.45

A map is ``low:high`` of a clipped linear map of the cosine, either end a fixed cosine or
``best-X`` (X below the query's best cosine in the base); ``^C`` counts a best under C as C,
``@F`` keeps ``low`` at least F. The shipped map is ``best-0.2:best-0.0^0.45``; ``0.25:0.55`` is
the fixed map it replaced.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rse_core.evaluation import financebench_kb as fb  # noqa: E402
from rse_core.evaluation import golden_kb  # noqa: E402
from rse_core.evaluation.kb_eval import HitSpace, KBCase, evaluate_kb, prepare_cases  # noqa: E402
from rse_core.evaluation.reports import text_table  # noqa: E402
from rse_core.kb import DENSE_CEILING, DENSE_SPREAD, KBQueryParams, KnowledgeBase  # noqa: E402
from rse_core.kb.first_stage import ScoredHit  # noqa: E402
from rse_core.kb.query import select_documents  # noqa: E402
from rse_core.params import RSEParams  # noqa: E402
from rse_core.scoring import Calibration  # noqa: E402

SHIPPED = f"best-{DENSE_SPREAD}:best-0.0^{DENSE_CEILING}"
DEFAULT_MAPS = (
    SHIPPED,
    "0.25:0.55",
    "0.3:0.6",
    "0.35:0.65",
    "0.4:0.7",
    "best-0.15:best-0.0^0.45",
    "best-0.25:best-0.0^0.45",
    "best-0.2:best-0.05^0.45",
    "best-0.2:best-0.0",
    "best-0.2:best-0.0^0.5",
)


def linear(spec: str, best: float) -> Calibration:
    """``low:high`` fixed, or ``best-A:best-B`` relative to the query's best cosine in the base,
    optionally floored as ``best-A:best-B@F`` (low at least F) or with a ceiling as
    ``best-A:best-B^C`` (the query's best counts as at least C, so a weak best stays weak)."""
    floor = -1.0
    if "^" in spec:
        spec, ceiling_text = spec.split("^")
        best = max(best, float(ceiling_text))
    if "@" in spec:
        spec, floor_text = spec.split("@")
        floor = float(floor_text)
    low_text, high_text = spec.split(":")

    def value(text: str) -> float:
        return best - float(text.removeprefix("best-")) if text.startswith("best-") else float(text)

    low, high = max(value(low_text), floor), value(high_text)
    high = max(high, low + 0.01)
    return Calibration(kind="linear", low=low, high=high, note=f"linear {low}-{high}")


def remapped(kb: KnowledgeBase, case: KBCase, spec: str) -> KBCase:
    """The case's search with every hit scored by the map ``spec`` from its raw cosine."""
    first = case.first
    calibration = linear(spec, max(hit.order for hit in first.hits[0]))

    def rescore(hits: tuple[ScoredHit, ...]) -> tuple[ScoredHit, ...]:
        scores = calibration(np.array([hit.order for hit in hits])) if hits else []
        rescored = [dataclasses.replace(hit, score=float(s)) for hit, s in zip(hits, scores, strict=True)]
        rescored.sort(key=lambda hit: (-hit.score, -hit.order, hit.doc_id, hit.chunk_index))
        return tuple(rescored)

    hits = tuple(rescore(query_hits) for query_hits in first.hits)
    valued = tuple(rescore(query_hits) for query_hits in first.valued)
    selected = tuple(select_documents(hits, first.kb_params.documents_selected))
    first = dataclasses.replace(first, hits=hits, valued=valued, selected=selected)
    return dataclasses.replace(case, first=first, space=HitSpace.of(kb, hits[0]))


def open_sets(args: argparse.Namespace) -> list[tuple[str, KnowledgeBase, list]]:
    sets = []
    for name, set_name in golden_kb.SET_NAMES.items():
        if name in args.skip:
            continue
        kb, golden = golden_kb.ensure_golden_kb(set_name)
        sets.append((name, kb, golden_kb.case_items(kb, golden)))
    if args.financebench_kb:
        folder = fb.default_folder()
        kb = fb.ensure_kb(folder, args.financebench_kb)
        questions = fb.read_questions(folder)
        sets.append(("financebench-kb", kb, fb.case_items(questions, fb.locate_gold(questions, folder))))
    return sets


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--maps", nargs="+", default=DEFAULT_MAPS, help="linear maps as low:high")
    parser.add_argument("--financebench-kb", type=Path, help="FinanceBench's base (built there on first use)")
    parser.add_argument("--skip", nargs="*", default=(), help="knowledge-base sets to leave out")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    print(f"shipped map: {SHIPPED}", file=sys.stderr)
    kb_params = KBQueryParams()
    rows = []
    for name, kb, items in open_sets(args):
        params = RSEParams().with_changes(chunk_size=kb.catalog.chunk_size, chunk_headers=kb.catalog.headers)
        started = time.perf_counter()
        cases = prepare_cases(kb, items, kb_params)
        print(f"{name}: {len(cases)} questions searched in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        for spec in args.maps:
            started = time.perf_counter()
            evaluation = evaluate_kb(kb, [remapped(kb, case, spec) for case in cases], params, kb_params)
            for kind in [*evaluation.kinds(), "all"]:
                row = evaluation.summary(kind)
                rows.append(
                    [
                        name,
                        spec,
                        kind,
                        f"{row['rse_characters']:,.0f}",
                        f"{row['rse_page_hit']:.2f}",
                        f"{row['top_k_page_hit']:.2f}",
                        f"{row['rse_recall']:.2f}",
                        f"{row['top_k_recall']:.2f}",
                        f"{row['area_rse']:.3f}",
                        f"{row['area_top_k']:.3f}",
                    ]
                )
            print(f"  {spec}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
        kb.close()
    header = [
        "set",
        "map",
        "kind",
        "chars/query",
        "RSE page hit",
        "top-k page hit",
        "RSE recall",
        "top-k recall",
        "area RSE",
        "area top-k",
    ]
    print(text_table(header, rows, args.markdown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
