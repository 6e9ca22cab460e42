"""Is RSE's evidence-page hit on FinanceBench below top-k's, or level with it?

    RSE_FINANCEBENCH_DIR=../shared/financebench python bench/kb_rse_against_top_k.py --embedder mpnet-int8

Searches every question once (``--named-documents`` on unless ``--no-named-documents``), then
values the same hits under a grid of the dense map's spread, the beta shape (a = b), the penalty,
the decay, the maximum segment length and the minimum segment value (1,920 settings, about two
minutes), and for each setting judges RSE and top-k at RSE's characters question by question.

It prints:
- over the settings within ``--budget`` characters a question, how often RSE's page hit is at
  least top-k's, and the largest lead either way;
- at a few named settings, on how many questions RSE hits an evidence page top-k misses and the
  reverse, with a two-sided sign test (scipy's ``binomtest``): the two methods differ on only a
  handful of the 129 questions;
- a two-fold held-out pick over the whole grid (tuned on half the companies, scored on the other
  half, then swapped): the most page hits within the budget, as ``tune_kb`` picks.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from pathlib import Path

import numpy as np
from scipy.stats import binomtest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rse_core.evaluation import financebench_kb as fb  # noqa: E402
from rse_core.evaluation.fit_calibration import revalued  # noqa: E402
from rse_core.evaluation.kb_eval import KBCase, judge, prepare_cases, rse_pieces, top_k_pieces  # noqa: E402
from rse_core.evaluation.kb_tuning import split_by_company  # noqa: E402
from rse_core.kb import KBQueryParams, KnowledgeBase  # noqa: E402
from rse_core.kb.calibration import BUILTIN_DENSE, DenseCalibration  # noqa: E402
from rse_core.params import RSEParams  # noqa: E402

SPREADS = (0.15, 0.2)
BETA_SHAPES = (0.4, 0.7, 1.0, 1.5)
PENALTIES = (0.05, 0.1, 0.15, 0.2)
DECAY_RATES = (10.0, 15.0, 20.0, 30.0)
MAX_LENGTHS = (2, 3, 4, 5, 8)
MINIMUM_VALUES = (0.2, 0.3, 0.5)
NAMED_SETTINGS = {
    "held-out tune of bench/kb_named_documents.py": (0.2, 0.4, 0.1, 10.0, 5, 0.3),
    "the same at max length 3, minimum 0.2": (0.2, 0.4, 0.1, 10.0, 3, 0.2),
    "the same at max length 2, beta 1.5, minimum 0.2": (0.2, 1.5, 0.1, 10.0, 2, 0.2),
}


@dataclass(frozen=True)
class Setting:
    """One point of the grid with each question's RSE page hit, characters and recall, and
    top-k's page hit at RSE's characters."""

    key: tuple[float, float, float, float, int, float]
    rse_hits: np.ndarray
    characters: np.ndarray
    recall: np.ndarray
    top_k_hits: np.ndarray

    def label(self) -> str:
        spread, beta, penalty, decay, max_length, minimum = self.key
        return (
            f"spread {spread:g}, beta {beta:g}, penalty {penalty:g}, decay {decay:g}, "
            f"max length {max_length}, minimum {minimum:g}"
        )


def judge_grid(kb: KnowledgeBase, cases: Sequence[KBCase], base: RSEParams) -> list[Setting]:
    """Every setting of the grid on the same searches (the map is monotone in the cosine, so a new
    spread re-values the hits without a new search)."""
    settings = []
    for spread in SPREADS:
        dense = BUILTIN_DENSE if spread == BUILTIN_DENSE.spread else DenseCalibration(spread, BUILTIN_DENSE.ceiling)
        valued = [dataclasses.replace(case, first=revalued(case.first, dense)) for case in cases]
        for beta, penalty, decay, max_length, minimum in product(
            BETA_SHAPES, PENALTIES, DECAY_RATES, MAX_LENGTHS, MINIMUM_VALUES
        ):
            params = base.with_changes(
                beta_a=beta,
                beta_b=beta,
                irrelevant_chunk_penalty=penalty,
                decay_rate=decay,
                max_length=max_length,
                minimum_value=minimum,
            )
            rse = [judge(case, rse_pieces(kb, case, params)) for case in valued]
            top_k = [judge(case, top_k_pieces(case, budget=s.characters)) for case, s in zip(valued, rse, strict=True)]
            settings.append(
                Setting(
                    (spread, beta, penalty, decay, max_length, minimum),
                    np.array([s.page_hit for s in rse]),
                    np.array([s.characters for s in rse], dtype=float),
                    np.array([s.recall for s in rse]),
                    np.array([s.page_hit for s in top_k]),
                )
            )
    return settings


def paired_line(setting: Setting) -> str:
    better = int(np.sum(setting.rse_hits > setting.top_k_hits))
    worse = int(np.sum(setting.rse_hits < setting.top_k_hits))
    p = binomtest(better, better + worse).pvalue if better + worse else 1.0
    return (
        f"RSE {setting.rse_hits.mean():.3f} against top-k {setting.top_k_hits.mean():.3f} at "
        f"{setting.characters.mean():,.0f} characters; RSE ahead on {better} of the questions, behind on {worse} "
        f"(sign test p = {p:.2f}); recall {setting.recall.mean():.2f}"
    )


def held_out(settings: Sequence[Setting], halves: tuple[list[int], list[int]], budget: float) -> str:
    rse, top_k, characters, recall, picks = [], [], [], [], []
    for tune, held in (halves, halves[::-1]):
        fitting = [s for s in settings if s.characters[tune].mean() <= budget]
        best = max(fitting, key=lambda s: (s.rse_hits[tune].mean(), -s.characters[tune].mean()))
        picks.append(best.label())
        rse += list(best.rse_hits[held])
        top_k += list(best.top_k_hits[held])
        characters += list(best.characters[held])
        recall += list(best.recall[held])
    return (
        f"held out, both folds ({len(rse)} questions): RSE {np.mean(rse):.3f} against top-k {np.mean(top_k):.3f}, "
        f"recall {np.mean(recall):.2f}, {np.mean(characters):,.0f} characters; picked " + " | ".join(picks)
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedder", default=None, help="the base's embedder (default minilm)")
    parser.add_argument("--no-named-documents", action="store_true", help="the first stage's own selection")
    parser.add_argument("--budget", type=float, default=8000, help="characters a question")
    args = parser.parse_args()
    kb = fb.open_evaluation_base(args.embedder)
    questions = fb.read_questions(fb.default_folder())
    items = fb.case_items(questions, fb.locate_gold(questions, fb.default_folder()))
    kb_params = KBQueryParams(named_documents=not args.no_named_documents)
    cases = prepare_cases(kb, items, kb_params)
    base = RSEParams().with_changes(chunk_size=kb.catalog.chunk_size, chunk_headers=kb.catalog.headers)
    settings = judge_grid(kb, cases, base)
    fitting = [s for s in settings if s.characters.mean() <= args.budget]
    leads = np.array([s.rse_hits.mean() - s.top_k_hits.mean() for s in fitting])
    print(
        f"{len(cases)} questions, {kb.catalog.embedder.describe()}, "
        f"{'named documents' if kb_params.named_documents else 'first-stage selection'}: {len(settings)} settings, "
        f"{len(fitting)} within {args.budget:,.0f} characters; RSE's page hit >= top-k's in {int(np.sum(leads >= 0))}, "
        f"largest lead of RSE {leads.max():+.3f}, of top-k {-leads.min():+.3f}, mean {leads.mean():+.3f}"
    )
    by_key = {s.key: s for s in settings}
    for label, key in NAMED_SETTINGS.items():
        print(f"{label}: {paired_line(by_key[key])}")
    names = {doc_id: entry.name for doc_id, entry in kb.documents.items()}
    position = {id(case): n for n, case in enumerate(cases)}
    halves = tuple([position[id(case)] for case in half] for half in split_by_company(cases, names))
    print(held_out(settings, halves, args.budget))
    kb.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
