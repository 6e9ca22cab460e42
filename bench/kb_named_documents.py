"""FinanceBench's filings searched within the documents each question names (``--named-documents``).

    RSE_FINANCEBENCH_DIR=../shared/financebench python bench/kb_named_documents.py --embedder mpnet-int8

Prints how often the question's own filing is among the documents searched (named, or the first
stage's selection when a question names none) against the first stage's own selection; then RSE
and top-k at RSE's characters, at the defaults and at each fold's tuned setting of a two-fold
auto-tune (``tune_kb``: tuned on half the companies, scored on the other half, then the halves
swapped), so the figure for all questions is held out. Uses the base ``rse-evaluate
financebench-kb --embedder NAME`` builds (built on first use).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rse_core.evaluation import financebench_kb as fb  # noqa: E402
from rse_core.evaluation.kb_eval import evaluate_kb, prepare_cases  # noqa: E402
from rse_core.evaluation.kb_tuning import split_by_company, tune_kb, with_selection  # noqa: E402
from rse_core.kb import KBQueryParams  # noqa: E402
from rse_core.params import RSEParams  # noqa: E402


def _line(label: str, summary: dict[str, object]) -> str:
    return (
        f"{label}: RSE page hit {summary['rse_page_hit']:.3f}, recall {summary['rse_recall']:.2f}, "
        f"{summary['rse_characters']:,.0f} chars/question; top-k at RSE's characters {summary['top_k_page_hit']:.3f}, "
        f"recall {summary['top_k_recall']:.2f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedder", default=None, help="the base's embedder (default minilm)")
    parser.add_argument("--name-in-title", action="store_true", help="the base built with --name-in-title")
    parser.add_argument("--budget", type=float, default=8000, help="characters a question for the tune")
    args = parser.parse_args()
    kb = fb.open_evaluation_base(args.embedder, args.name_in_title)
    questions = fb.read_questions(fb.default_folder())
    items = fb.case_items(questions, fb.locate_gold(questions, fb.default_folder()))
    plain = prepare_cases(kb, items, KBQueryParams())
    named_params = KBQueryParams(named_documents=True)
    named = prepare_cases(kb, items, named_params)
    searched = [case.doc_id in (case.first.named or case.first.selected) for case in named]
    sizes = [len(case.first.named) for case in named if case.first.named]
    print(
        f"{len(named)} questions over {len(kb.documents)} documents ({kb.catalog.embedder.describe()}): "
        f"own filing among those searched {np.mean(searched):.2f} (the first stage's selection: "
        f"{np.mean([case.doc_id in case.first.selected for case in plain]):.2f}); a question names "
        f"{np.mean(sizes):.1f} documents on average (median {np.median(sizes):.0f}), "
        f"{len(named) - len(sizes)} name none"
    )
    params = RSEParams().with_changes(chunk_size=kb.catalog.chunk_size, chunk_headers=kb.catalog.headers)
    print(_line("first stage's selection, defaults", evaluate_kb(kb, plain, params, KBQueryParams(), False).summary()))
    print(_line("named documents, defaults", evaluate_kb(kb, named, params, named_params, False).summary()))
    names = {doc_id: entry.name for doc_id, entry in kb.documents.items()}
    halves = split_by_company(named, names)
    held_scores = []
    for fold, held in enumerate(reversed(halves)):
        tuned = tune_kb(kb, named, params, args.budget, swap_halves=bool(fold))
        print(f"\nfold {fold + 1}: {tuned.report()}")
        if tuned.best is None:
            continue
        chosen = [with_selection(case, tuned.best.documents_selected) for case in held]
        held_scores.append(evaluate_kb(kb, chosen, tuned.best.params, named_params, False).scores)
    if len(held_scores) == 2:
        rse = [score for scores in held_scores for score in scores["rse"]]
        top_k = [score for scores in held_scores for score in scores["top_k"]]
        print(
            f"\nheld out, both folds ({len(rse)} questions): RSE page hit {np.mean([s.page_hit for s in rse]):.3f}, "
            f"recall {np.mean([s.recall for s in rse]):.2f}, {np.mean([s.characters for s in rse]):,.0f} "
            f"chars/question; top-k at RSE's characters {np.mean([s.page_hit for s in top_k]):.3f}, recall "
            f"{np.mean([s.recall for s in top_k]):.2f}"
        )
    kb.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
