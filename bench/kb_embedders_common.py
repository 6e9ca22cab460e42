"""FinanceBench's bases of two or more embedders compared on the filings they all hold, even while
one is still being built (a base is readable between its builder's commits).

    RSE_FINANCEBENCH_DIR=../shared/financebench python bench/kb_embedders_common.py --embedders minilm mpnet-int8
    ... --embedders minilm minilm+names mpnet-int8 mpnet-int8+names   # +names: the base built --name-in-title

Why: a full base of 49,696 chunks takes an hour or more per embedder here; the filings built so
far already allow a fair comparison if every base is cut to the same ones. Each base is opened
read-only (``financebench-kb`` of ``python -m rse_core.evaluate`` builds them), its catalog cut in
memory to the filings every base holds (nothing is written), and the questions kept are those
whose evidence filings are all among them. Prints per embedder: characters a question, RSE's
page hit and recall, top-k's page hit at RSE's characters, the question's filing first, and every
method's best page hit / recall within 4,000, 8,000 and 16,000 characters. On part of the filings
(the first in alphabetical order) this is a hint, not the full set's figure.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rse_core.embedders import embedder_from_name  # noqa: E402
from rse_core.evaluation import financebench_kb as fb  # noqa: E402
from rse_core.evaluation import golden_kb  # noqa: E402
from rse_core.evaluation.kb_eval import BUDGETS, METHOD_LABELS, budget_cell, evaluate_kb, prepare_cases  # noqa: E402
from rse_core.kb import KBQueryParams, KnowledgeBase  # noqa: E402
from rse_core.params import RSEParams  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--embedders",
        nargs="+",
        default=["minilm", "mpnet-int8"],
        help="NAME, or NAME+names for its --name-in-title base",
    )
    args = parser.parse_args(argv)
    folder = fb.default_folder()
    missing = fb.missing_message(folder)
    if missing:
        print(missing, file=sys.stderr)
        return 2
    bases = {}
    for spec in args.embedders:
        name, _, variant = spec.partition("+")
        if variant not in ("", "names"):
            print(f"{spec!r}: give an embedder's name, or NAME+names", file=sys.stderr)
            return 2
        kb_dir = golden_kb.variant_dir(fb.default_kb_dir(), name, variant == "names")
        if not (kb_dir / "kb.json").is_file():
            command = f"python -m rse_core.evaluate financebench-kb --embedder {name}"
            print(f"no {spec} base at {kb_dir}: run {command}{' --name-in-title' if variant else ''}")
            return 2
        bases[spec] = KnowledgeBase.open(kb_dir, embedder_from_name(name))
    try:
        common = set.intersection(*(set(kb.documents) for kb in bases.values()))
        for kb in bases.values():  # in memory only: nothing here writes a catalog
            for doc_id in [doc_id for doc_id in kb.documents if doc_id not in common]:
                del kb.catalog.documents[doc_id]
        questions = fb.read_questions(folder)
        items = [
            item
            for item in fb.case_items(questions, fb.locate_gold(questions, folder))
            if item[3] in common and all(gold.doc_id in common for gold in item[4])
        ]
        print(f"{len(common)} filings held by every base; {len(items)} questions whose evidence is all in them")
        for name, kb in bases.items():
            evaluation = evaluate_kb(kb, prepare_cases(kb, items, KBQueryParams()), RSEParams(), KBQueryParams())
            row = evaluation.summary()
            print(
                f"{name}: {row['rse_characters']:,.0f} chars, RSE page hit {row['rse_page_hit']:.2f} recall "
                f"{row['rse_recall']:.2f}, top-k page hit {row['top_k_page_hit']:.2f} at RSE's chars, "
                f"filing first {row['rse_first_in_document']:.2f}"
            )
            for cell in evaluation.at_budgets():
                cells = (f"<= {n:,}: {budget_cell(cell, n)}" for n in BUDGETS)
                print(f"    {METHOD_LABELS[str(cell['method'])]:<18} " + "   ".join(cells))
    finally:
        for kb in bases.values():
            kb.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
