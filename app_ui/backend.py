"""The app's bridge to ``rse_core``: cached documents, models and scores, and one result per run.

Caching lives here, at the app boundary (the core stays pure):
- models and clients: ``st.cache_resource`` (one per process);
- parsed uploads: this session's state, keyed by the upload's id (never shared);
- raw scores: a process-wide LRU keyed by (document contents, chunk size, query, scorer), held
  in ``st.cache_resource``. Not ``st.cache_data``, because scoring reports progress to a bar made
  outside the cached call, which ``st.cache_data`` would try to replay.
Every slider except chunk size, query, scorer and documents only reruns :func:`run_rse`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import streamlit as st

from rse_core import (
    AuthenticationError,
    Corpus,
    Document,
    ExtractionResult,
    LoadLimits,
    RSEError,
    Scorer,
    ScorerError,
    build_corpus,
    get_scorer,
    load_document,
    normalize_queries,
    run_rse,
)
from rse_core.evaluate import Evaluation, evaluate
from rse_core.golden import GoldenSet

from . import state
from .samples import SAMPLE_DIR, list_samples, load_sample_document

SCORE_CACHE_ENTRIES = 512


@st.cache_resource(show_spinner=False)
def sample_document(slug: str) -> Document:
    return load_sample_document(list_samples()[slug].path)


def parse_upload(upload) -> Document:
    """Parse an upload once per session; errors propagate (and are not kept) so the UI shows them.

    Keyed by the upload's ``file_id`` in this session's state, so a slider move neither re-parses
    nor re-hashes the file's bytes, and no other session can reach it. Size and page limits come
    from ``RSE_MAX_FILE_MB`` / ``RSE_MAX_PAGES`` (50 MB, 2,000 pages).
    """
    parsed: dict[str, Document] = st.session_state.setdefault("_parsed_uploads", {})
    if upload.file_id not in parsed:
        parsed[upload.file_id] = load_document(
            upload.getvalue(), name=upload.name, limits=LoadLimits.from_environment()
        )
    return parsed[upload.file_id]


@st.cache_resource(show_spinner=False)
def corpus_for(key: tuple[tuple[str, ...], int], _documents: tuple[Document, ...]) -> Corpus:
    return build_corpus(list(_documents), key[1])


@st.cache_resource(show_spinner=False)
def scorer_for(name: str, options: tuple[tuple[str, str], ...], key_digest: str = "") -> Scorer:
    """One scorer per (name, options, API key) in the process; the key itself is not a cache key."""
    kwargs: dict[str, object] = dict(options)
    if name == "cohere":
        kwargs["api_key"] = _cohere_key()
    elif name == "minilm":
        kwargs["bundled_embeddings"] = (SAMPLE_DIR / "embeddings",)  # the samples open without embedding
    return get_scorer(name, **kwargs)


PRELOAD_ENV = "RSE_PRELOAD_MODEL"


def start_model_preload(inputs: state.Inputs) -> None:
    """Load the MiniLM model in a background thread, once per process, while the user looks at
    the first screen (which needs no model: the samples ship their chunk and query vectors).

    Started at the end of the first run that uses minilm, not before it, so the import of torch
    does not compete with drawing the first chart. A new query that needs the model meanwhile
    waits for this load (its progress bar says so). ``RSE_PRELOAD_MODEL=0`` switches it off.
    """
    if inputs.scorer == "minilm" and os.environ.get(PRELOAD_ENV, "1") != "0":
        _preload_thread()


@st.cache_resource(show_spinner=False)
def _preload_thread() -> threading.Thread:
    scorer = scorer_for("minilm", (), "")
    thread = threading.Thread(target=_preload, args=(scorer,), name="rse-model-preload", daemon=True)
    thread.start()
    return thread


def _preload(scorer: Scorer) -> None:
    with contextlib.suppress(RSEError):  # reported where a query needs the model, with what to do
        scorer.preload()


def _cohere_key() -> str | None:
    typed = st.session_state.get(state.COHERE_KEY_KEY) or ""
    if typed.strip():
        return typed.strip()
    if os.environ.get("CO_API_KEY"):
        return os.environ["CO_API_KEY"]
    try:
        return st.secrets.get("CO_API_KEY")
    except Exception:  # no secrets file: not an error
        return None


class ScoreStore:
    """A thread-safe LRU of raw score arrays shared by all sessions (keys hold content hashes)."""

    def __init__(self, entries: int) -> None:
        self.entries = entries
        self._data: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> np.ndarray | None:
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
        return None

    def put(self, key: tuple, scores: np.ndarray) -> None:
        with self._lock:
            self._data[key] = scores
            while len(self._data) > self.entries:
                self._data.popitem(last=False)


@st.cache_resource(show_spinner=False)
def score_store() -> ScoreStore:
    return ScoreStore(SCORE_CACHE_ENTRIES)


@dataclass
class RunOutcome:
    """What a page needs: the result (maybe the last good one), and what to tell the user."""

    result: ExtractionResult | None
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    stale: bool = False
    scorer_failed: bool = False


def active_documents(inputs: state.Inputs, outcome: RunOutcome) -> list[Document]:
    documents = []
    for slug in inputs.samples:
        try:
            documents.append(sample_document(slug))
        except RSEError as error:
            outcome.errors.append(str(error))
    for upload in st.session_state.get(state.UPLOADS_KEY) or []:
        try:
            documents.append(parse_upload(upload))
        except RSEError as error:
            outcome.errors.append(f"{error}")
    return documents


def compute(inputs: state.Inputs) -> RunOutcome:
    """Documents -> corpus -> scores (cached) -> RSE, keeping the last good result on failure."""
    outcome = RunOutcome(result=None)
    try:
        documents = active_documents(inputs, outcome)
        if not documents:
            raise RSEError("No document selected: pick a sample document or upload a file.")
        queries, notes = normalize_queries(inputs.queries)
        scorer = scorer_for(inputs.scorer, inputs.scorer_options, _key_digest(inputs.scorer))
        corpus = corpus_for((tuple(d.doc_id for d in documents), inputs.params.chunk_size), tuple(documents))
        raw_scores = [scores_for(corpus, query, scorer, inputs) for query in queries]
        outcome.result = run_rse(
            corpus,
            queries,
            raw_scores,
            inputs.params,
            scorer.calibration,
            scorer=scorer.name,
            model=scorer.model,
            notes=notes,
        )
        st.session_state["_last_good_result"] = outcome.result
    except RSEError as error:
        message = str(error)
        if isinstance(error, AuthenticationError):
            message += " In the app, type the key into the sidebar's Cohere API key field."
        outcome.errors.append(message)
        outcome.scorer_failed = isinstance(error, ScorerError)
        previous = st.session_state.get("_last_good_result")
        if previous is not None:
            outcome.result, outcome.stale = previous, True
    return outcome


def scores_for(corpus: Corpus, query: str, scorer: Scorer, inputs: state.Inputs) -> np.ndarray:
    key = (corpus.key, query, scorer.name, scorer.model, inputs.scorer_options)
    store = score_store()
    cached = store.get(key)
    if cached is not None:
        return cached
    bar = st.progress(0.0, text=f"Scoring {len(corpus.chunks)} chunks with {scorer.name}...")
    try:
        scores = scorer.score(
            query, corpus.chunks, progress=lambda done, label: bar.progress(min(done, 1.0), text=label)
        )
    finally:
        bar.empty()
    store.put(key, scores)
    return scores


def evaluation_for(golden: GoldenSet, document: Document, inputs: state.Inputs) -> Evaluation:
    """Evaluate ``golden`` on ``document`` alone at the sidebar's scorer and parameters.

    Scores come from the score cache (and go into it), so a query already seen is not rescored,
    and the numbers equal ``rse_core.evaluate.evaluate`` run with the same scorer and parameters.
    Raises RSEError (e.g. GoldenSetError) for the page to show.
    """
    scorer = scorer_for(inputs.scorer, inputs.scorer_options, _key_digest(inputs.scorer))
    corpus = corpus_for(((document.doc_id,), inputs.params.chunk_size), (document,))
    return evaluate(
        golden,
        inputs.params,
        scorer,
        corpus=corpus,
        score_fn=lambda query: scores_for(corpus, query, scorer, inputs),
    )


def _key_digest(scorer: str) -> str:
    """A hash of the Cohere key and endpoint: a new key or ``CO_API_URL`` gets a new client,
    without the key itself becoming a cache key."""
    if scorer != "cohere":
        return ""
    identity = f"{_cohere_key() or ''}\x1f{os.environ.get('CO_API_URL', '')}"
    return hashlib.sha256(identity.encode()).hexdigest()[:16]


def current_outcome() -> RunOutcome:
    """The outcome computed by ``app.py`` for this run (pages call this, never ``compute``)."""
    return st.session_state["_outcome"]


def show_messages(outcome: RunOutcome, notices: Sequence[str] = ()) -> None:
    """Errors, warnings and notes above a page's content: short, escaped, never a traceback."""
    for error in outcome.errors:
        st.error(error, icon=":material/error:")
    if outcome.scorer_failed and st.session_state.get(state.SCORER_KEY) != "minilm":
        st.button(
            "Switch to the offline minilm scorer",
            icon=":material/wifi_off:",
            key="messages_switch_to_offline",
            on_click=lambda: st.session_state.update({state.SCORER_KEY: "minilm"}),
        )
    if outcome.stale:
        st.warning("Showing the last good result until the problem above is fixed.", icon=":material/history:")
    for notice in notices:
        st.info(notice, icon=":material/link:")
    if outcome.result is not None:
        for note in outcome.result.notes:
            st.info(note, icon=":material/info:")
