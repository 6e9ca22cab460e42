"""How far the first stage lets RSE go on FinanceBench's filings: where the question's own filing
and its evidence page rank, and RSE's page hit when an oracle selects the right filing.

    python bench/kb_first_stage_ceiling.py --kb /work/kbdata/financebench

Prints, for the default dense first stage (``KBQueryParams()``): how often the question's filing
is among the selected documents and first among them; within that filing, how often the best 1,
3, 5 and 10 of its hits include a chunk of an evidence page; and RSE's page hit, recall and
characters (``RSEParams()`` at penalties 0.1-0.3) when the selection is the question's own filing
alone, or it followed by the first stage's other picks. The last is the ceiling that better
document selection alone could reach with this model.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rse_core.evaluation import financebench_kb as fb  # noqa: E402
from rse_core.evaluation.kb_eval import KBCase, evaluate_kb, prepare_cases  # noqa: E402
from rse_core.kb import KBQueryParams, KnowledgeBase  # noqa: E402
from rse_core.params import RSEParams  # noqa: E402

CUTOFFS = (1, 3, 5, 10)


def evidence_rank(kb: KnowledgeBase, case: KBCase) -> int | None:
    """Rank of the first hit in the question's own filing that lies on an evidence page."""
    ends = kb.chunk_ends(case.doc_id)
    own = [hit for hit in case.first.valued[0] if hit.doc_id == case.doc_id]
    for rank, hit in enumerate(own):
        start = int(ends[hit.chunk_index - 1]) if hit.chunk_index else 0
        end = int(ends[hit.chunk_index])
        if any(g.doc_id == case.doc_id and start < g.page_end and end > g.page_start for g in case.gold):
            return rank
    return None


def oracle(case: KBCase, others: int) -> KBCase:
    """The case with its own filing selected first, then ``others`` of the first stage's picks."""
    rest = tuple(doc_id for doc_id in case.first.selected if doc_id != case.doc_id)[:others]
    return dataclasses.replace(case, first=dataclasses.replace(case.first, selected=(case.doc_id, *rest)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kb", type=Path, default=None, help="FinanceBench's base (built there on first use)")
    args = parser.parse_args()
    folder = fb.default_folder()
    kb = fb.ensure_kb(folder, args.kb or fb.default_kb_dir())
    questions = fb.read_questions(folder)
    kb_params = KBQueryParams()
    cases = prepare_cases(kb, fb.case_items(questions, fb.locate_gold(questions, folder)), kb_params)
    selected = np.mean([case.doc_id in case.first.selected for case in cases])
    first = np.mean([bool(case.first.selected) and case.first.selected[0] == case.doc_id for case in cases])
    print(f"{len(cases)} questions; own filing selected {selected:.2f}, selected first {first:.2f}")
    ranks = [evidence_rank(kb, case) for case in cases]
    shares = ", ".join(f"top {n}: {np.mean([r is not None and r < n for r in ranks]):.2f}" for n in CUTOFFS)
    print(f"within the own filing, an evidence page among its best hits: {shares}")
    params = RSEParams().with_changes(chunk_size=kb.catalog.chunk_size, chunk_headers=kb.catalog.headers)
    for others in (0, 1, 9):
        for penalty in (0.1, 0.15, params.irrelevant_chunk_penalty, 0.3):
            chosen = [oracle(case, others) for case in cases]
            row = evaluate_kb(kb, chosen, params.with_changes(irrelevant_chunk_penalty=penalty), kb_params, False)
            summary = row.summary()
            print(
                f"oracle: own filing first + {others} others, penalty {penalty:g}: page hit "
                f"{summary['rse_page_hit']:.2f}, recall {summary['rse_recall']:.2f}, "
                f"{summary['rse_characters']:,.0f} chars/question"
            )
    default = evaluate_kb(kb, cases, params, kb_params, False).summary()
    print(
        f"first stage's own selection, defaults: page hit {default['rse_page_hit']:.2f}, recall "
        f"{default['rse_recall']:.2f}, {default['rse_characters']:,.0f} chars/question"
    )
    kb.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
