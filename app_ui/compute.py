"""The app's bridge to ``rse_core``: scores (cached) and one result per run.

Caching lives at the app boundary (the core stays pure; see :mod:`app_ui.caching`). Raw scores
of the samples go in a process-wide LRU (in ``st.cache_resource``, not ``st.cache_data``:
scoring reports progress to a bar made outside the cached call, which ``st.cache_data`` would
try to replay); scores of uploads in this session's own. Every slider except chunk size, query,
scorer and documents only reruns :func:`rse_core.run_rse`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import numpy as np
import streamlit as st

from rse_core import (
    Corpus,
    Document,
    ExtractionResult,
    RSEError,
    Scorer,
    ScorerError,
    ScorerName,
    chunk_document,
    normalize_queries,
    run_rse,
)
from rse_core.evaluation.golden import GoldenSet
from rse_core.evaluation.runs import Evaluation, evaluate
from rse_core.evaluation.scored_sets import ScoredSet, score_set
from rse_core.evaluation.sets import EvalSet, golden_group
from rse_core.search.optimal import GreedyVsOptimal, compare_with_greedy

from . import keys, link_uploads, messages, run_state
from .caching import is_private, score_store, session_caches, session_memo
from .corpora import active_documents, corpus_of, current_uploads, parse_upload, shown_name, stored_name
from .run_state import RunOutcome
from .scorers import scorer_of
from .state import Inputs
from .widgets import progress_bar

LOGGER = logging.getLogger(__name__)


def compute(inputs: Inputs) -> RunOutcome:
    """Documents -> corpus -> scores (cached) -> RSE, keeping the last good result on failure.

    Any exception (not only ``RSEError``: a backend can raise anything, e.g. a Cohere key with a
    character an HTTP header cannot carry) becomes one line, and the offline scorer is offered.

    A scoring progress bar is drawn inside a keyed container that every run draws, scoring or
    not: the browser keys unkeyed elements by their position, so a bar present in one run and
    not the next shifted every later element, and the page (the live chart's frame included)
    was built anew on the first slider move after a new query.
    """
    outcome = RunOutcome()
    with st.container(key=keys.PROGRESS_AREA):
        try:
            documents = active_documents(inputs, outcome)
            _note_link_uploads(documents, outcome)
            if not documents and outcome.missing_uploads:
                return outcome  # the page asks for the link's files: no error, no old result
            if not documents:
                raise RSEError(messages.NO_DOCUMENT)
            outcome.result = result_for(documents, inputs.queries, inputs)
            run_state.remember_good_result(outcome.result)
        except Exception as error:  # RSEError and anything a backend raises: one line, never a traceback
            outcome.errors.append(messages.failure_message(error, inputs.scorer))
            outcome.scorer_failed = isinstance(error, ScorerError) or not isinstance(error, RSEError)
            previous = run_state.last_good_result()
            if previous is not None:
                outcome.result, outcome.stale = previous, True
    return outcome


def _note_link_uploads(documents: Sequence[Document], outcome: RunOutcome) -> None:
    """Which of the link's uploads are missing, which files given for it are not its, and what the
    share link names."""
    private = [document for document in documents if is_private((document,))]
    outcome.missing_uploads = link_uploads.missing(documents)
    outcome.url_uploads = link_uploads.url_uploads(documents, private)
    wanted = {upload.doc_id for upload in link_uploads.wanted()}
    parsed = session_caches().parsed
    for upload in current_uploads():
        document = parsed.get(upload.file_id)
        if document is not None and document.doc_id in wanted and document.name != stored_name(upload):
            outcome.warnings.append(messages.renamed_for_link(shown_name(upload), document.name))
    given = {upload.file_id for upload in link_uploads.kept_files()}
    if wanted and given:
        outcome.unmatched_link_files = tuple(
            parsed[file_id].name for file_id in given if file_id in parsed and parsed[file_id].doc_id not in wanted
        )


def embed_new_uploads(inputs: Inputs, progress: Callable[[float, str], None]) -> None:
    """Parse this session's uploads and embed their chunks that are not embedded yet.

    Runs at the end of the reading run (:mod:`app_ui.upload_flow`), under the page's "being
    read" note, before the rerun that computes the result; that run then finds every chunk in
    this session's embedding cache. Only for minilm, whose cache is per document
    (``embed_chunks``); problems are left for the normal run, which shows them.
    """
    if inputs.scorer != ScorerName.MINILM:
        return
    scorer = scorer_of(inputs, private=True)
    for upload in current_uploads():
        try:
            document = parse_upload(upload)
            # Its chunks as the run's corpus will hold them (the cache is keyed by their texts);
            # not through corpus_of, whose few session entries the run's own corpus needs.
            chunks = chunk_document(document, inputs.params.chunk_size, inputs.params.chunk_headers)
            scorer.embed_chunks(chunks, progress)
        except Exception:  # the full run reports every problem with its own message
            LOGGER.debug("embedding an upload ahead of the run failed", exc_info=True)


def scores_for(corpus: Corpus, query: str, scorer: Scorer, inputs: Inputs, private: bool) -> np.ndarray:
    """Raw scores, from the cache if seen before: the shared one for samples, this session's for uploads."""
    key = (corpus.key, query, scorer.name, scorer.model, inputs.scorer_options)
    store = session_caches().scores if private else score_store()
    cached = store.get(key)
    if cached is not None:
        return cached
    with progress_bar(f"Scoring {len(corpus.chunks)} chunks with {scorer.name}...") as progress:
        scores = scorer.score(query, corpus.chunks, progress=progress)
    store.put(key, scores)
    return scores


def result_for(documents: Sequence[Document], queries: Sequence[str], inputs: Inputs) -> ExtractionResult:
    """RSE on these documents and queries at the sidebar's scorer and parameters (scores cached).

    :func:`compute` runs it on the sidebar's documents and queries; pages that run a fixed case
    (the Lesson page's golden query on the annual report) call it directly. Raises RSEError for
    the page to show.
    """
    private = is_private(documents)
    scorer = scorer_of(inputs, private)
    corpus = corpus_of(documents, inputs.params.chunk_size, inputs.params.chunk_headers)
    cleaned, notes = normalize_queries(list(queries))
    raw_scores = [scores_for(corpus, query, scorer, inputs, private) for query in cleaned]
    return run_rse(
        corpus,
        cleaned,
        raw_scores,
        inputs.params,
        scorer.calibration,
        scorer=scorer.name,
        model=scorer.model,
        notes=notes,
    )


def evaluation_for(golden: GoldenSet, document: Document, inputs: Inputs) -> Evaluation:
    """Evaluate ``golden`` on ``document`` alone at the sidebar's scorer and parameters.

    Scores come from the score cache (and go into it), so a query already seen is not rescored,
    and the numbers equal ``rse_core.evaluation.runs.evaluate`` run with the same scorer and parameters.
    Raises RSEError (e.g. GoldenSetError) for the page to show.
    """
    private = is_private((document,))
    scorer = scorer_of(inputs, private)
    corpus = corpus_of((document,), inputs.params.chunk_size, inputs.params.chunk_headers)
    return evaluate(
        golden,
        inputs.params,
        scorer,
        corpus=corpus,
        score_fn=lambda query: scores_for(corpus, query, scorer, inputs, private),
    )


def scored_for(golden: GoldenSet, document: Document, inputs: Inputs) -> ScoredSet:
    """``golden`` on ``document`` alone, scored from the score cache (for curves and auto-tune)."""
    private = is_private((document,))
    scorer = scorer_of(inputs, private)
    eval_set = EvalSet(golden.document_name, (golden_group(golden, document),))
    return score_set(
        eval_set,
        scorer,
        inputs.params.chunk_size,
        score_fn=lambda corpus, query: scores_for(corpus, query, scorer, inputs, private),
        headers=inputs.params.chunk_headers,
    )


def greedy_vs_optimal(result: ExtractionResult) -> GreedyVsOptimal:
    """The greedy answer (the result's) against the exact search's, remembered per settings."""
    params = result.params
    return session_memo(
        "optimal",
        result.settings_key,
        lambda: compare_with_greedy(
            [values.value for values in result.values],
            max_length=params.max_length,
            overall_max_length=params.overall_max_length,
            minimum_value=params.minimum_value,
            document_splits=result.corpus.document_splits,
        ),
        4,
    )
