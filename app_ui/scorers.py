"""Scorers for the app: one per (name, options, API key) in the process, this session's own
where they would cache an upload's content, and the MiniLM model loaded in the background.

Models and clients live in ``st.cache_resource`` (loading one costs seconds); scorers that keep
content (MiniLM's embeddings, bm25's indexes) are per session for uploads, so no session can
reach another's text through them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time

import streamlit as st

from rse_core import RSEError, Scorer, ScorerName, ScorerUnavailableError, get_scorer
from rse_core.embedders import embedder_from_name

from . import keys, models, retrievers, worker_pool
from .caching import session_caches
from .samples import SAMPLE_DIR
from .state import Inputs

UPLOAD_DISK_CACHE_ENV = "RSE_UPLOAD_DISK_CACHE"
PRELOAD_ENV = "RSE_PRELOAD_MODEL"
PRELOAD_DELAY = 3.0  # seconds after the first screen is sent: about what a browser takes to draw it
OWN_CACHE_SCORERS = frozenset({ScorerName.MINILM, ScorerName.BM25})  # they keep content they have seen


@st.cache_resource(show_spinner=False)
def scorer_for(name: str, options: tuple[tuple[str, str], ...], key_digest: str = "") -> Scorer:
    """One scorer per (name, options, API key) in the process; the key itself is not a cache key.

    ``name`` is a :class:`ScorerName` or the label of an embedder the operator offers
    (:mod:`app_ui.retrievers`)."""
    kwargs: dict[str, object] = dict(options)
    offered = retrievers.offered_embedders().get(name)
    if offered is not None:
        return _offered_embedder(offered)
    if name == ScorerName.COHERE:
        kwargs["api_key"] = cohere_key()
    elif name in (ScorerName.MINILM, ScorerName.HYBRID):
        kwargs["bundled_embeddings"] = (SAMPLE_DIR / "embeddings",)  # the samples open without embedding
        kwargs["batch_encoder"] = worker_pool.batch_encoder()  # documents are embedded off the server's GIL
    elif name == ScorerName.CROSS_ENCODER:
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
        scorer = get_scorer(ScorerName.CROSS_ENCODER, model=str(path), **kwargs)
    except RSEError as error:
        raise ScorerUnavailableError(
            f"Could not load the offered cross-encoder {model!r}: " + str(error).replace(str(path), model)
        ) from None
    scorer.model = model  # results, exports and messages name the offered model, never its server path
    return scorer


def _offered_embedder(offered: retrievers.OfferedEmbedder) -> Scorer:
    """Cosine over an embedder the operator offers, at the operator's URL with the operator's key;
    the scorer is named by the offered label (results and exports never show the URL)."""
    embedder = embedder_from_name(offered.name, offered.base_url, bundled_embeddings=(SAMPLE_DIR / "embeddings",))
    scorer = get_scorer(ScorerName.EMBEDDER, embedder=embedder)
    scorer.model = offered.label
    return scorer


def cohere_key() -> str | None:
    """The Cohere key: typed in the sidebar, else ``CO_API_KEY`` from the environment or secrets."""
    typed = st.session_state.get(keys.COHERE_API_KEY) or ""
    if typed.strip():
        return typed.strip()
    if os.environ.get("CO_API_KEY"):
        return os.environ["CO_API_KEY"]
    try:
        return st.secrets.get("CO_API_KEY")
    except Exception:  # no secrets file: not an error
        return None


def key_digest(scorer: str) -> str:
    """A hash of the Cohere key and endpoint: a new key or ``CO_API_URL`` gets a new client,
    without the key itself becoming a cache key."""
    if scorer != ScorerName.COHERE:
        return ""
    identity = f"{cohere_key() or ''}\x1f{os.environ.get('CO_API_URL', '')}"
    return hashlib.sha256(identity.encode()).hexdigest()[:16]


def upload_disk_cache() -> bool:
    """Whether the operator allows MiniLM embeddings of uploads on disk (``RSE_UPLOAD_DISK_CACHE=1``)."""
    return os.environ.get(UPLOAD_DISK_CACHE_ENV, "").strip() == "1"


def scorer_of(inputs: Inputs, private: bool) -> Scorer:
    """The scorer for this run. For uploads, scorers that cache content (MiniLM's embeddings,
    bm25's indexes) are this session's own; the MiniLM model itself is still loaded once."""
    shared = scorer_for(inputs.scorer, inputs.scorer_options, key_digest(inputs.scorer))
    embedder = inputs.scorer in retrievers.offered_embedders()
    if not private or not (embedder or inputs.scorer in OWN_CACHE_SCORERS):
        return shared
    disk = upload_disk_cache()
    key = (inputs.scorer, inputs.scorer_options, disk)
    scorers = session_caches().scorers
    if key not in scorers:
        own = embedder or inputs.scorer == ScorerName.MINILM
        scorers[key] = shared.with_own_cache(disk_cache=disk) if own else get_scorer(ScorerName.BM25)
    return scorers[key]


def start_model_preload(inputs: Inputs) -> None:
    """Load the MiniLM model in a background thread, once per process, while the user looks at
    the first screen (which needs no model: the samples ship their chunk and query vectors).

    Started at the end of the first run that uses minilm, and only :data:`PRELOAD_DELAY` seconds
    later, so the import of torch (seconds of CPU) does not compete with the browser drawing the
    first chart (on two cores it cost 0.6 s of first-chart time). A new query that needs the model
    meanwhile loads it at once or waits for this load (its progress bar says so).
    ``RSE_PRELOAD_MODEL=0`` switches it off.
    """
    if inputs.scorer == ScorerName.MINILM and os.environ.get(PRELOAD_ENV, "1") != "0":
        _preload_thread()


@st.cache_resource(show_spinner=False)
def _preload_thread() -> threading.Thread:
    scorer = scorer_for(ScorerName.MINILM, (), "")
    thread = threading.Thread(target=_preload, args=(scorer,), name="rse-model-preload", daemon=True)
    thread.start()
    return thread


def _preload(scorer: Scorer) -> None:
    time.sleep(PRELOAD_DELAY)
    with contextlib.suppress(RSEError):  # reported where a query needs the model, with what to do
        scorer.preload()  # at once if a query has loaded it meanwhile; queries are embedded here
    with contextlib.suppress(RSEError):
        worker_pool.warm_up()  # and the worker's copy, which embeds documents
