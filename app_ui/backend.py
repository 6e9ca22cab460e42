"""The app's bridge to ``rse_core``: cached documents, models and scores, and one result per run.

Caching lives here, at the app boundary (the core stays pure):
- models and clients: ``st.cache_resource`` (one per process);
- the bundled samples: their documents, corpora and raw scores in process-wide caches (a
  bounded LRU keyed by (document contents, chunk size, query, scorer), in ``st.cache_resource``;
  not ``st.cache_data``, because scoring reports progress to a bar made outside the cached call,
  which ``st.cache_data`` would try to replay);
- anything derived from an upload (its parsed text, corpora, raw scores, MiniLM embeddings and
  bm25 indexes): :class:`SessionCaches` in this session's state, so no other session can reach
  it and it goes when the session does. MiniLM embeddings of uploads stay in memory unless the
  operator sets ``RSE_UPLOAD_DISK_CACHE=1``.
Every slider except chunk size, query, scorer and documents only reruns :func:`run_rse`.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

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
    ScorerUnavailableError,
    build_corpus,
    chunk_document,
    get_scorer,
    load_document,
    normalize_queries,
    run_rse,
)
from rse_core.evaluation.golden import GoldenSet
from rse_core.evaluation.runs import Evaluation, evaluate
from rse_core.evaluation.scored_sets import ScoredSet, score_set
from rse_core.evaluation.sets import EvalSet, SetName, golden_group, golden_sets

from . import models, state
from .safe_text import clean, md
from .samples import SAMPLE_DIR, list_samples, load_sample_document

LOGGER = logging.getLogger(__name__)
SCORE_CACHE_ENTRIES = 512
SESSION_SCORE_ENTRIES = 64
SESSION_CORPUS_ENTRIES = 4
UPLOAD_DISK_CACHE_ENV = "RSE_UPLOAD_DISK_CACHE"
SESSION_CACHES_KEY = "_upload_caches"
PROGRESS_AREA_KEY = "rse_scoring_progress"  # the keyed container a scoring progress bar is drawn in
T = TypeVar("T")


@st.cache_resource(show_spinner=False)
def sample_document(slug: str) -> Document:
    return load_sample_document(list_samples()[slug].path)


@st.cache_resource(show_spinner=False)
def external_golden_sets() -> dict[str, GoldenSet]:
    """The external golden sets by document file name (bundled files only; raises RSEError if the
    corpus folder is missing or a set is malformed)."""
    return {golden.document_name: golden for golden in golden_sets(SetName.EXTERNAL)}


@st.cache_resource(show_spinner=False)
def external_document(name: str) -> Document:
    """A third-party document of the external set, by file name (never a path from the user)."""
    return load_document(external_golden_sets()[name].document_path)


def parse_upload(upload) -> Document:
    """Parse an upload once per session; errors propagate (and are not kept) so the UI shows them.

    Keyed by the upload's ``file_id`` in this session's :class:`SessionCaches`, so a slider move
    neither re-parses nor re-hashes the file's bytes, and no other session can reach it. Size
    and page limits come from ``RSE_MAX_FILE_MB`` / ``RSE_MAX_PAGES`` (50 MB, 2,000 pages).
    """
    parsed = session_caches().parsed
    if upload.file_id not in parsed:
        parsed[upload.file_id] = load_document(
            upload.getvalue(), name=upload.name, limits=LoadLimits.from_environment()
        )
    return parsed[upload.file_id]


@st.cache_resource(show_spinner=False)
def corpus_for(key: tuple[tuple[str, ...], int, bool], _documents: tuple[Document, ...]) -> Corpus:
    """A corpus of bundled samples, shared by every session (call :func:`corpus_of`);
    ``key`` = (document ids, chunk size, chunk headers)."""
    return build_corpus(list(_documents), key[1], headers=key[2])


def corpus_of(documents: Sequence[Document], chunk_size: int, headers: bool) -> Corpus:
    """The corpus of these documents: shared if they are all samples, else this session's own.

    A corpus carries its documents' names, so one built from an upload is never shared: another
    session uploading the same bytes under another name gets its own, with its own name.
    """
    documents = tuple(documents)
    if not is_private(documents):
        return corpus_for((tuple(document.doc_id for document in documents), chunk_size, headers), documents)
    key = (tuple((document.doc_id, document.name) for document in documents), chunk_size, headers)
    return _remember(
        session_caches().corpora,
        key,
        lambda: build_corpus(list(documents), chunk_size, headers=headers),
        SESSION_CORPUS_ENTRIES,
    )


@st.cache_resource(show_spinner=False)
def scorer_for(name: str, options: tuple[tuple[str, str], ...], key_digest: str = "") -> Scorer:
    """One scorer per (name, options, API key) in the process; the key itself is not a cache key."""
    kwargs: dict[str, object] = dict(options)
    if name == "cohere":
        kwargs["api_key"] = _cohere_key()
    elif name in ("minilm", "hybrid"):
        kwargs["bundled_embeddings"] = (SAMPLE_DIR / "embeddings",)  # the samples open without embedding
    elif name == "cross-encoder":
        return _offered_cross_encoder(str(kwargs.pop("model", "") or ""), kwargs)
    return get_scorer(name, **kwargs)


def _offered_cross_encoder(model: str, kwargs: dict[str, object]) -> Scorer:
    """Load a cross-encoder only from a folder the operator offers (see :mod:`app_ui.models`).

    Any other name gets the same message whatever it is (a path that exists or not, a Hub name),
    and a load failure names the model by its offered name, never by its server path.
    """
    offered = models.offered_cross_encoders()
    if model not in offered:
        raise ScorerUnavailableError(models.not_offered_message())
    path = offered[model]
    try:
        scorer = get_scorer("cross-encoder", model=str(path), **kwargs)
    except RSEError as error:
        raise ScorerUnavailableError(
            f"Could not load the offered cross-encoder {model!r}: " + str(error).replace(str(path), model)
        ) from None
    scorer.model = model  # results, exports and messages name the offered model, never its server path
    return scorer


PRELOAD_ENV = "RSE_PRELOAD_MODEL"
PRELOAD_DELAY = 3.0  # seconds after the first screen is sent: about what a browser takes to draw it


def start_model_preload(inputs: state.Inputs) -> None:
    """Load the MiniLM model in a background thread, once per process, while the user looks at
    the first screen (which needs no model: the samples ship their chunk and query vectors).

    Started at the end of the first run that uses minilm, and only :data:`PRELOAD_DELAY` seconds
    later, so the import of torch (seconds of CPU) does not compete with the browser drawing the
    first chart (on two cores it cost 0.6 s of first-chart time). A new query that needs the model
    meanwhile loads it at once or waits for this load (its progress bar says so).
    ``RSE_PRELOAD_MODEL=0`` switches it off.
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
    time.sleep(PRELOAD_DELAY)
    with contextlib.suppress(RSEError):  # reported where a query needs the model, with what to do
        scorer.preload()  # at once if a query has loaded it meanwhile


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
    """Raw scores of the bundled samples, shared by all sessions."""
    return ScoreStore(SCORE_CACHE_ENTRIES)


@dataclass
class SessionCaches:
    """Everything derived from this session's uploads, held in its ``st.session_state`` only.

    Streamlit drops a session's state when the session ends, and these caches with it; nothing
    here is reachable from another session, even one that uploads the same bytes.
    """

    parsed: dict[str, Document] = field(default_factory=dict)  # upload file_id -> document
    corpora: OrderedDict[Hashable, Corpus] = field(default_factory=OrderedDict)
    scores: ScoreStore = field(default_factory=lambda: ScoreStore(SESSION_SCORE_ENTRIES))
    scorers: dict[Hashable, Scorer] = field(default_factory=dict)

    def forget_derived(self) -> None:
        """Drop corpora, scores and scorers (rebuilt from the remaining uploads when needed)."""
        self.corpora.clear()
        self.scores = ScoreStore(SESSION_SCORE_ENTRIES)
        self.scorers.clear()

    def uploaded(self, document: Document) -> bool:
        return any(document is parsed for parsed in self.parsed.values())


def session_caches() -> SessionCaches:
    caches = st.session_state.get(SESSION_CACHES_KEY)
    if not isinstance(caches, SessionCaches):
        caches = st.session_state[SESSION_CACHES_KEY] = SessionCaches()
    return caches


def is_private(documents: Sequence[Document]) -> bool:
    """Whether any of ``documents`` came from this session's uploads (then nothing is shared)."""
    caches = st.session_state.get(SESSION_CACHES_KEY)
    return isinstance(caches, SessionCaches) and any(caches.uploaded(document) for document in documents)


def upload_disk_cache() -> bool:
    """Whether the operator allows MiniLM embeddings of uploads on disk (``RSE_UPLOAD_DISK_CACHE=1``)."""
    return os.environ.get(UPLOAD_DISK_CACHE_ENV, "").strip() == "1"


def scorer_of(inputs: state.Inputs, private: bool) -> Scorer:
    """The scorer for this run. For uploads, scorers that cache content (MiniLM's embeddings,
    bm25's indexes) are this session's own; the MiniLM model itself is still loaded once."""
    shared = scorer_for(inputs.scorer, inputs.scorer_options, _key_digest(inputs.scorer))
    if not private or inputs.scorer not in ("minilm", "bm25"):
        return shared
    disk = upload_disk_cache()
    key = (inputs.scorer, inputs.scorer_options, disk)
    scorers = session_caches().scorers
    if key not in scorers:
        scorers[key] = shared.with_own_cache(disk_cache=disk) if inputs.scorer == "minilm" else get_scorer("bm25")
    return scorers[key]


def _remember(memo: OrderedDict, key: Hashable, compute: Callable[[], T], entries: int) -> T:
    if key in memo:
        memo.move_to_end(key)
        return memo[key]
    value = memo[key] = compute()
    while len(memo) > entries:
        memo.popitem(last=False)
    return value


@dataclass
class RunOutcome:
    """What a page needs: the result (maybe the last good one), and what to tell the user."""

    result: ExtractionResult | None
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    stale: bool = False
    scorer_failed: bool = False


def active_documents(inputs: state.Inputs, outcome: RunOutcome) -> list[Document]:
    """The sidebar's samples and this session's uploads, parsed; problems go into ``outcome``.

    Files with the same bytes are one document: the first is kept and a warning says so.
    """
    documents = []
    for slug in inputs.samples:
        try:
            documents.append(sample_document(slug))
        except RSEError as error:
            outcome.errors.append(str(error))
    uploads = list(st.session_state.get(state.UPLOADS_KEY) or [])
    caches = session_caches()
    removed = set(caches.parsed) - {upload.file_id for upload in uploads}
    if removed:  # a removed upload's text and everything made from it go now, not at the session's end
        for file_id in removed:
            del caches.parsed[file_id]
        caches.forget_derived()
    for upload in uploads:
        try:
            documents.append(parse_upload(upload))
        except RSEError as error:
            outcome.errors.append(str(error))
        except Exception as error:  # a parser bug must not take the page down
            LOGGER.exception("parsing an upload failed")
            outcome.errors.append(f"Could not read {clean(upload.name, 80)!r} ({_one_line(error)}).")
    kept: dict[str, Document] = {}
    for document in documents:
        first = kept.setdefault(document.doc_id, document)
        if first is not document:
            outcome.warnings.append(
                f"{clean(document.name, 80)!r} has the same contents as {clean(first.name, 80)!r}; "
                f"kept one copy ({clean(first.name, 80)!r})."
            )
    return list(kept.values())


def compute(inputs: state.Inputs) -> RunOutcome:
    """Documents -> corpus -> scores (cached) -> RSE, keeping the last good result on failure.

    Any exception (not only ``RSEError``: a backend can raise anything, e.g. a Cohere key with a
    character an HTTP header cannot carry) becomes one line, and the offline scorer is offered.

    A scoring progress bar is drawn inside a keyed container that every run draws, scoring or
    not: the browser keys unkeyed elements by their position, so a bar present in one run and
    not the next shifted every later element, and the page (the live chart's frame included)
    was built anew on the first slider move after a new query.
    """
    outcome = RunOutcome(result=None)
    with st.container(key=PROGRESS_AREA_KEY):
        try:
            documents = active_documents(inputs, outcome)
            if not documents:
                raise RSEError("No document selected: pick a sample document or upload a file.")
            outcome.result = result_for(documents, inputs.queries, inputs)
            st.session_state["_last_good_result"] = outcome.result
        except Exception as error:  # RSEError and anything a backend raises: one line, never a traceback
            outcome.errors.append(failure_message(error, inputs.scorer))
            outcome.scorer_failed = isinstance(error, ScorerError) or not isinstance(error, RSEError)
            previous = st.session_state.get("_last_good_result")
            if previous is not None:
                outcome.result, outcome.stale = previous, True
    return outcome


def failure_message(error: Exception, scorer: str) -> str:
    """One line for the user (plain text; shown escaped); unexpected errors go to the log in full."""
    if isinstance(error, RSEError):
        message = _one_line(error, limit=600)
        if isinstance(error, AuthenticationError):
            message += " In the app, type the key into the sidebar's Cohere API key field."
        return message
    LOGGER.exception("scoring with %s failed", scorer)
    hint = ""
    if isinstance(error, UnicodeError) and scorer == "cohere":
        hint = (
            " The Cohere API key seems to hold a character a key cannot have (an invisible or no-break "
            "space, or a letter such as É): retype or paste it again."
        )
    return f"The {scorer} scorer failed ({type(error).__name__}: {_one_line(error)}).{hint}"


def _one_line(error: BaseException, limit: int = 200) -> str:
    return clean(str(error) or type(error).__name__, limit)


@contextlib.contextmanager
def progress_bar(text: str) -> Iterator[Callable[[float, str], None]]:
    """A progress bar for a scorer's ``progress`` callback (fraction done, what is happening),
    removed when the work ends or fails."""
    bar = st.progress(0.0, text=text)
    try:
        yield lambda done, label: bar.progress(min(done, 1.0), text=label)
    finally:
        bar.empty()


def embed_new_uploads(inputs: state.Inputs, progress: Callable[[float, str], None]) -> None:
    """Parse this session's uploads and embed their chunks that are not embedded yet.

    Runs in the upload box's fragment, before the full rerun that computes the result: while the
    model embeds, the browser redraws only that fragment instead of dimming and re-rendering the
    whole page on the same cores (an upload took 1.3x the library's time that way). The full run
    then finds every chunk in this session's embedding cache. Only for minilm, whose cache is per
    document (``embed_chunks``); problems are left for the full run, which shows them.
    """
    if inputs.scorer != "minilm":
        return
    scorer = scorer_of(inputs, private=True)
    for upload in list(st.session_state.get(state.UPLOADS_KEY) or []):
        try:
            document = parse_upload(upload)
            # Its chunks as the run's corpus will hold them (the cache is keyed by their texts);
            # not through corpus_of, whose few session entries the run's own corpus needs.
            chunks = chunk_document(document, inputs.params.chunk_size, inputs.params.chunk_headers)
            scorer.embed_chunks(chunks, progress)
        except Exception:  # the full run reports every problem with its own message
            LOGGER.debug("embedding an upload ahead of the run failed", exc_info=True)


def scores_for(corpus: Corpus, query: str, scorer: Scorer, inputs: state.Inputs, private: bool) -> np.ndarray:
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


def result_for(documents: Sequence[Document], queries: Sequence[str], inputs: state.Inputs) -> ExtractionResult:
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


def evaluation_for(golden: GoldenSet, document: Document, inputs: state.Inputs) -> Evaluation:
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


def scored_for(golden: GoldenSet, document: Document, inputs: state.Inputs) -> ScoredSet:
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
    """Errors, warnings and notes above a page's content: short, escaped, never a traceback.

    Every text here may quote a link, a file name or a backend's answer, so each goes through
    :func:`app_ui.safe_text.md`.
    """
    for error in outcome.errors:
        st.error(md(error), icon=":material/error:")
    if outcome.scorer_failed and st.session_state.get(state.SCORER_KEY) != "minilm":
        st.button(
            "Switch to the offline minilm scorer",
            icon=":material/wifi_off:",
            key="messages_switch_to_offline",
            on_click=lambda: st.session_state.update({state.SCORER_KEY: "minilm"}),
        )
    if outcome.stale:
        st.warning("Showing the last good result until the problem above is fixed.", icon=":material/history:")
    for warning in outcome.warnings:
        st.warning(md(warning), icon=":material/content_copy:")
    for notice in notices:
        st.info(md(notice), icon=":material/link:")
    if outcome.result is not None:
        for note in outcome.result.notes:
            st.info(md(note), icon=":material/info:")
