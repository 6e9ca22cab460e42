"""The knowledge-base evaluation sets the Evaluate page offers: each a base with questions whose
answers are known, opened once per process, each question searched once per process.

A fixed list of the server's own sets, never named by a path from the user:

- ``samples``: the bundled base (:mod:`app_ui.knowledge_bases`) and the samples' golden sets,
  always there;
- ``external``: the external golden set's documents in one base, offered once
  ``python -m rse_core.evaluate external-kb`` has built it (the app does not build it: minutes
  of CPU on a shared server);
- ``financebench``: FinanceBench's 74 filings and 129 questions, offered when its folder
  (``$RSE_FINANCEBENCH_DIR``) and its built base (``$RSE_FINANCEBENCH_KB``) are on the server.

Their questions and gold come from the server's files, not from any session, so the first
stages are shared by every session (a class running the same evaluation searches once).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from rse_core import RSEParams
from rse_core.evaluation import financebench_kb as fb
from rse_core.evaluation import golden_kb
from rse_core.evaluation.kb_eval import KBCase, KBEvaluation, evaluate_kb, prepare_cases
from rse_core.evaluation.sets import SetName, corpus_missing_message, golden_sets
from rse_core.kb import KBQueryParams, KnowledgeBase
from rse_core.kb.catalog import CATALOG_FILE

from . import caching
from . import knowledge_bases as kbs

SAMPLES, EXTERNAL, FINANCEBENCH = "samples", "external", "financebench"
LABELS = {
    SAMPLES: "Samples (3 PDFs, 36 queries)",
    EXTERNAL: "External set (6 documents, 48 queries)",
    FINANCEBENCH: "FinanceBench (74 filings, 129 questions)",
}
CASE_SETS_KEPT = 6  # (set, first-stage settings) pairs searched and kept per process
EVALUATIONS_KEPT = 8  # (set, settings) evaluations kept per process

Progress = Callable[[float, str], None]
_ONE_AT_A_TIME = threading.Lock()
"""One evaluation computes at a time in a process: a class pressing Run together costs the server
one set's searches and scores, and the sessions after the first read them from the caches."""


@dataclass(frozen=True)
class KBEvalSet:
    """A base and its questions as ``kb_eval`` takes them; ``name`` is one of :data:`LABELS`."""

    name: str
    base: kbs.OpenBase
    items: tuple[golden_kb.CaseItem, ...]


def _built(path: Path) -> bool:
    return (path / CATALOG_FILE).is_file()


def offered() -> dict[str, str]:
    """The sets this server can run now, name -> label."""
    names = [SAMPLES]
    if corpus_missing_message() is None and _built(golden_kb.default_kb_dir(SetName.EXTERNAL)):
        names.append(EXTERNAL)
    if fb.missing_message(fb.default_folder()) is None and _built(fb.default_kb_dir()):
        names.append(FINANCEBENCH)
    return {name: LABELS[name] for name in names}


def not_offered() -> list[str]:
    """What an operator would do to offer the sets that are missing (for a caption)."""
    notes = []
    if corpus_missing_message() is None and not _built(golden_kb.default_kb_dir(SetName.EXTERNAL)):
        notes.append("the external set (`python -m rse_core.evaluate external-kb`)")
    if fb.missing_message(fb.default_folder()) is None and not _built(fb.default_kb_dir()):
        notes.append("FinanceBench (`python -m rse_core.evaluate financebench-kb`, about an hour)")
    return notes


@st.cache_resource(show_spinner=False, max_entries=4)
def _golden_items(name: str, base_key: str, _kb: KnowledgeBase) -> tuple[golden_kb.CaseItem, ...]:
    """The golden sets' cases for the base ``base_key`` names (``_kb``, not hashed)."""
    return tuple(golden_kb.case_items(_kb, golden_sets(SetName(name))))


@st.cache_resource(show_spinner=False, max_entries=2)
def _financebench_items(folder: str) -> tuple[golden_kb.CaseItem, ...]:
    """FinanceBench's questions with their gold located (read from the gold cache once located)."""
    questions = fb.read_questions(Path(folder))
    return tuple(fb.case_items(questions, fb.locate_gold(questions, Path(folder))))


def open_set(name: str, progress: Progress | None = None) -> KBEvalSet:
    """The set's base (the bundled one built first if this machine has none) and its questions.

    Raises:
        KeyError: ``name`` is not offered here.
        RSEError: a base or a golden set cannot be read.
    """
    if name not in offered():
        raise KeyError(name)
    if name == FINANCEBENCH:
        return KBEvalSet(name, kbs.open_shared(fb.default_kb_dir()), _financebench_items(str(fb.default_folder())))
    if name == SAMPLES:
        base = kbs.ensure_bundled(
            None if progress is None else lambda p: progress(p.files_done / max(p.files_total, 1), p.line())
        )
        set_name = SetName.SAMPLES
    else:
        base = kbs.open_shared(golden_kb.default_kb_dir(SetName.EXTERNAL))
        set_name = SetName.EXTERNAL
    return KBEvalSet(name, base, _golden_items(set_name.value, base.key, base.kb))


def cases(chosen: KBEvalSet, kb_params: KBQueryParams, progress: Progress | None = None) -> list[KBCase]:
    """Every question's first stage at ``kb_params``, searched once per process and one set at a
    time (each search holds the base's lock alone, so other sessions' queries interleave)."""
    store = caching.shared_lru("kb_evaluation_cases", CASE_SETS_KEPT)
    key = (chosen.base.key, chosen.name, kb_params.search_key)
    with _ONE_AT_A_TIME:
        found = store.get(key)
        if found is None:
            found = store[key] = tuple(_search_all(chosen, kb_params, progress))
    return [dataclasses.replace(case, first=case.first.reused_with(kb_params)) for case in found]


def _search_all(chosen: KBEvalSet, kb_params: KBQueryParams, progress: Progress | None) -> list[KBCase]:
    searched: list[KBCase] = []
    for number, item in enumerate(chosen.items):
        with chosen.base.lock:
            searched += prepare_cases(chosen.base.kb, [item], kb_params)
        if progress:
            progress(
                (number + 1) / len(chosen.items), f"Searching the base: question {number + 1} of {len(chosen.items)}"
            )
    return searched


def evaluation(chosen: KBEvalSet, found: list[KBCase], params: RSEParams, kb_params: KBQueryParams) -> KBEvaluation:
    """:func:`~rse_core.evaluation.kb_eval.evaluate_kb` with its curves, kept per process: the
    same set at the same settings is scored once for every session (a class pressing Run)."""
    store = caching.shared_lru("kb_evaluations", EVALUATIONS_KEPT)
    key = (chosen.base.key, chosen.name, params, kb_params)
    with _ONE_AT_A_TIME:
        found_evaluation = store.get(key)
        if found_evaluation is None:
            found_evaluation = store[key] = evaluate_kb(chosen.base.kb, found, params, kb_params)
    return found_evaluation
