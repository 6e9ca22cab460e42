"""The knowledge bases the app offers, opened once, and the answers it gives over them.

Three kinds, none named by a path from a URL or a widget:

- ``bundled``: the three sample PDFs, built once per machine into
  ``default_cache_dir() / "kb" / "samples"`` (their MiniLM vectors ship in
  ``sample_docs/embeddings``, so the build mostly loads the model) and opened once per process
  (``st.cache_resource``), read-only, shared by every session.
- operator folders: the bases listed in ``$RSE_KB_DIRS`` (``os.pathsep``-separated). The page
  offers them by folder name only; a name is looked up in that list, never turned into a path.
- ``uploads``: one base per session, built from its uploads in a temporary folder that is removed
  when the session's state is dropped (and at exit), bounded by ``$RSE_KB_UPLOAD_MAX_FILES`` and
  ``$RSE_KB_UPLOAD_MAX_BYTES``.

A first stage is cached per session, keyed by the base and everything it depends on (queries,
first stage, ``top_n``, documents selected, fusion ...): moving an RSE slider reruns only values,
segment search and the text read (:func:`rse_core.kb.rse_from_first_stage`).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st
from cachetools import LRUCache

from rse_core import RSEParams, ScorerName
from rse_core.documents.loading import SUPPORTED_SUFFIXES
from rse_core.documents.upload_names import upload_name
from rse_core.kb import (
    BuildProgress,
    DocumentHits,
    Embedder,
    FirstStageResult,
    KBHit,
    KBQueryParams,
    KBResult,
    KnowledgeBase,
    MiniLMEmbedder,
    add_paths,
    document_hits,
    rse_from_first_stage,
    search_first_stage,
)
from rse_core.kb.build import content_id
from rse_core.kb.catalog import CATALOG_FILE
from rse_core.kb.rerank import Reranker
from rse_core.scoring.embedding_cache import default_cache_dir

from . import models, scorers, session_folders
from .page_state import knowledge_base as knowledge_base_state
from .page_state.knowledge_base import BUNDLED
from .samples import SAMPLE_DIR, list_samples
from .state import DEFAULT_COHERE_MODEL

LOGGER = logging.getLogger(__name__)
KB_DIRS_ENV = "RSE_KB_DIRS"
UPLOAD_MAX_FILES_ENV = "RSE_KB_UPLOAD_MAX_FILES"
UPLOAD_MAX_BYTES_ENV = "RSE_KB_UPLOAD_MAX_BYTES"
DEFAULT_UPLOAD_MAX_FILES = 20
DEFAULT_UPLOAD_MAX_BYTES = 50_000_000
FIRST_STAGE_ENTRIES = 16  # per session: a few queries x a few first-stage settings
UPLOADED = "uploads"
FOLDER_PREFIX = "folder:"
SAMPLE_EMBEDDINGS = SAMPLE_DIR / "embeddings"

Progress = Callable[[BuildProgress], None]
_BUILD_LOCK = threading.Lock()  # one bundled build per process at a time


@dataclass(frozen=True)
class OpenBase:
    """A base as the page uses it: ``key`` names it in caches (never a path from the user);
    ``lock`` serialises queries on a base shared by sessions; ``samples`` maps the doc ids of
    bundled samples to their slugs (those documents open in Explore); ``shown_names`` maps the
    stored name of an upload to the name its uploader gave (what the page shows)."""

    key: str
    label: str
    kb: KnowledgeBase
    lock: threading.Lock = field(default_factory=threading.Lock, compare=False)
    samples: Mapping[str, str] = field(default_factory=dict)
    shown_names: Mapping[str, str] = field(default_factory=dict)

    def shown(self, name: str) -> str:
        """A document's name as its uploader gave it (bounded), else the name the base records."""
        return self.shown_names.get(name, name)


@dataclass(frozen=True)
class KBAnswer:
    """One answer on the page: the (cached) first stage, RSE's result over it, and the hit documents."""

    first: FirstStageResult
    result: KBResult
    documents: tuple[DocumentHits, ...]
    first_stage_cached: bool
    rse_seconds: float


# ------------------------------------------------------------------------------ the sources


def operator_folders() -> dict[str, Path]:
    """Name -> folder for each base in ``$RSE_KB_DIRS``; a repeated name gets `` (2)`` etc."""
    folders: dict[str, Path] = {}
    for raw in os.environ.get(KB_DIRS_ENV, "").split(os.pathsep):
        if not raw.strip():
            continue
        path = Path(raw.strip()).expanduser()
        name = path.name or str(path)
        unique, number = name, 2
        while unique in folders:
            unique, number = f"{name} ({number})", number + 1
        folders[unique] = path
    return folders


def sources(has_session_base: bool) -> dict[str, str]:
    """Source key -> label, in the order the page lists them."""
    listed = {BUNDLED: "Samples (bundled)"}
    listed.update({f"{FOLDER_PREFIX}{name}": f"{name} (server folder)" for name in operator_folders()})
    listed[UPLOADED] = "Built from my uploads" if has_session_base else "Build one from uploads"
    return listed


@functools.cache
def sample_ids() -> dict[str, str]:
    """Content id -> sample slug, for every bundled sample."""
    return {content_id(sample.path): slug for slug, sample in list_samples().items()}


# ------------------------------------------------------------------------------ the bundled base


def bundled_dir() -> Path:
    return default_cache_dir() / "kb" / "samples"


def bundled_is_current(path: Path | None = None) -> bool:
    """Whether the bundled base exists and holds exactly the samples as they are now."""
    path = path or bundled_dir()
    if not (path / CATALOG_FILE).is_file():
        return False
    try:
        kb = KnowledgeBase.open(path)
    except Exception:  # a damaged base is rebuilt
        return False
    try:
        return set(kb.documents) == set(sample_ids())
    finally:
        kb.close()


def build_bundled(progress: Progress | None = None) -> Path:
    """Build the bundled base if it is missing or stale: into a new folder beside it, which then
    replaces it, so a reader never opens a half-built base."""
    target = bundled_dir()
    with _BUILD_LOCK:
        if bundled_is_current(target):
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix="samples.building.", dir=target.parent))
        try:
            kb = KnowledgeBase.create(staging / "kb", MiniLMEmbedder(bundled_embeddings=[SAMPLE_EMBEDDINGS]))
            try:
                add_paths(kb, [sample.path for sample in list_samples().values()], progress)
            finally:
                kb.close()
            if target.exists():
                shutil.rmtree(target)
            os.replace(staging / "kb", target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return target


@st.cache_resource(show_spinner=False, max_entries=8)
def _shared_base(path: str, stamp: float, bundled: bool) -> OpenBase:
    """A base opened once per process for every session (``stamp``: its catalog's mtime, so a
    rebuilt base is opened again)."""
    embedder = MiniLMEmbedder(bundled_embeddings=[SAMPLE_EMBEDDINGS]) if bundled else None
    kb = KnowledgeBase.open(path, embedder)
    key = BUNDLED if bundled else f"{FOLDER_PREFIX}{path}"
    ids = sample_ids() if bundled else {}
    return OpenBase(f"{key}@{stamp}", "Samples" if bundled else Path(path).name, kb, samples=ids)


def open_bundled() -> OpenBase:
    """The bundled base (call :func:`build_bundled` first)."""
    path = bundled_dir()
    return _shared_base(str(path), (path / CATALOG_FILE).stat().st_mtime, True)


def open_shared(path: Path) -> OpenBase:
    """A server-side base by its path (never a path from a user), opened once per process."""
    return _shared_base(str(path), (path / CATALOG_FILE).stat().st_mtime, False)


def open_folder(name: str) -> OpenBase:
    """An operator's base by the name :func:`operator_folders` gave it.

    Raises:
        KeyError: no such name in ``$RSE_KB_DIRS``.
        KnowledgeBaseError: the folder is not a knowledge base.
    """
    path = operator_folders()[name]
    catalog = path / CATALOG_FILE
    stamp = catalog.stat().st_mtime if catalog.is_file() else 0.0
    base = _shared_base(str(path), stamp, False)
    return OpenBase(base.key, name, base.kb, base.lock, base.samples)


# ------------------------------------------------------------------------------ a session's own base


@dataclass(frozen=True)
class UploadLimits:
    files: int
    bytes: int

    @classmethod
    def from_env(cls) -> UploadLimits:
        files = _env_int(UPLOAD_MAX_FILES_ENV, DEFAULT_UPLOAD_MAX_FILES)
        return cls(files, _env_int(UPLOAD_MAX_BYTES_ENV, DEFAULT_UPLOAD_MAX_BYTES))


def _env_int(name: str, default: int) -> int:
    try:
        return max(int(os.environ.get(name, default)), 0)
    except ValueError:
        return default


class SessionBase:
    """This session's base from its uploads, in a temporary folder removed with the object
    (Streamlit drops a session's state when the session ends), at exit, or, after a killed
    server, at the next start (:mod:`app_ui.session_folders`)."""

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.folder = session_folders.new_session_folder("rse-kb-session-")
        self._cleanup = weakref.finalize(self, shutil.rmtree, str(self.folder), True)
        self.kb = KnowledgeBase.create(self.folder / "kb", embedder)
        self.files: dict[str, int] = {}  # stored file name -> bytes
        self.shown_names: dict[str, str] = {}  # stored file name -> the name the user gave, bounded
        self._contents: dict[str, str] = {}  # SHA-256 of a file's bytes -> its stored name
        self.base = self._open_base()

    @property
    def bytes(self) -> int:
        return sum(self.files.values())

    def add(self, uploads: Sequence[tuple[str, bytes]], limits: UploadLimits, progress: Progress | None) -> list[str]:
        """Write the uploads into the folder and add them to the base; returns what was refused.

        Each name is made safe (:func:`~rse_core.documents.upload_names.upload_name`) before it is
        recorded or written; messages name a file as the user named it, never by a server path."""
        refused: list[str] = []
        paths: list[Path] = []
        files = self.folder / "files"
        files.mkdir(exist_ok=True)
        for raw_name, data in uploads:
            name = upload_name(raw_name, data, taken=self.files)
            digest = hashlib.sha256(data).hexdigest()
            refusal = self._refusal(name.stored, digest, len(data), limits)
            if refusal is not None:
                refused.append(f"{name.shown}: {refusal}")
                continue
            try:
                (files / name.stored).write_bytes(data)
            except OSError:
                LOGGER.exception("an upload could not be written to the session's knowledge base")
                refused.append(f"{name.shown}: could not be stored on the server (the server log says why)")
                continue
            self.files[name.stored] = len(data)
            self.shown_names[name.stored] = name.shown
            self._contents[digest] = name.stored
            paths.append(files / name.stored)
        if paths:
            report = add_paths(self.kb, paths, progress)
            for where, why in report.failed:
                refused.append(self._failure(Path(where).name, why))
                self._forget(Path(where).name)
        self.base = self._open_base()
        return refused

    def _refusal(self, stored: str, digest: str, size: int, limits: UploadLimits) -> str | None:
        """Why a file is not added, in words, or ``None``."""
        if Path(stored).suffix.lower() not in SUPPORTED_SUFFIXES:
            return "not a PDF, TXT or MD file"
        if digest in self._contents:
            return f"already added (the same contents as {self.shown_names[self._contents[digest]]})"
        if len(self.files) + 1 > limits.files:
            return f"this session's base holds at most {limits.files} files"
        if self.bytes + size > limits.bytes:
            return f"this session's base holds at most {limits.bytes:,} bytes"
        return None

    def _failure(self, stored: str, why: str) -> str:
        """A file the build refused, in words: its shown name, and the reason without the folder."""
        why = why.replace(f"{self.folder / 'files'}{os.sep}", "").replace(str(self.folder), "the session's folder")
        return f"{self.shown_names.get(stored, stored)}: {why}"

    def _forget(self, stored: str) -> None:
        """A file the build refused leaves no trace: it takes no room and may be given again."""
        (self.folder / "files" / stored).unlink(missing_ok=True)
        self.files.pop(stored, None)
        self.shown_names.pop(stored, None)
        self._contents = {digest: name for digest, name in self._contents.items() if name != stored}

    def _open_base(self) -> OpenBase:
        key = f"{UPLOADED}:{id(self)}:{len(self.kb.documents)}"
        return OpenBase(key, "My uploads", self.kb, shown_names=dict(self.shown_names))

    def discard(self) -> None:
        self.kb.close()
        self._cleanup()


def session_base() -> SessionBase | None:
    return st.session_state.get(knowledge_base_state.Keys.SESSION_BASE)


def add_uploads(uploads: Sequence[tuple[str, bytes]], progress: Progress | None) -> list[str]:
    """Add uploads to this session's base (made on first use); returns the refused ones, in words."""
    base = session_base()
    if base is None:
        base = SessionBase()
        st.session_state[knowledge_base_state.Keys.SESSION_BASE] = base
    return base.add(uploads, UploadLimits.from_env(), progress)


def discard_session_base() -> None:
    base = st.session_state.pop(knowledge_base_state.Keys.SESSION_BASE, None)
    if base is not None:
        base.discard()


# ------------------------------------------------------------------------------ answers


def _first_stage_cache() -> LRUCache:
    cache = st.session_state.get(knowledge_base_state.Keys.FIRST_STAGE_CACHE)
    if cache is None:
        cache = st.session_state[knowledge_base_state.Keys.FIRST_STAGE_CACHE] = LRUCache(maxsize=FIRST_STAGE_ENTRIES)
    return cache


def answer(
    base: OpenBase,
    queries: Sequence[str],
    params: RSEParams,
    kb_params: KBQueryParams,
    reranker: Reranker | None = None,
    within: Sequence[str] = (),
) -> KBAnswer:
    """RSE over ``base`` for the queries (over the documents ``within`` only, hashes, when any are
    given): the first stage (and its rerank) from this session's cache when the same base,
    queries, documents, first-stage settings and reranker were asked before."""
    cache = _first_stage_cache()
    rerank_key = None if reranker is None else (reranker.name, reranker.scorer.model)
    # The rank switch reuses the search; the documents searched within do not.
    cache_key = (base.key, tuple(queries), kb_params.search_key, rerank_key, tuple(within))
    first = cache.get(cache_key)
    cached = first is not None
    with base.lock:
        if first is None:
            only = list(within) or None
            first = cache[cache_key] = search_first_stage(base.kb, list(queries), kb_params, reranker, within=only)
        first = first.reused_with(kb_params)
        clock = time.perf_counter()
        result = rse_from_first_stage(base.kb, first, params)
        seconds = time.perf_counter() - clock
    return KBAnswer(first, result, document_hits(first), cached, seconds)


# ------------------------------------------------------------------------------ rerank

RERANK_KEY = knowledge_base_state.Keys.RERANK  # kept with the page's other settings across page switches
NO_RERANK = knowledge_base_state.NO_RERANK
COHERE_RERANK = ScorerName.COHERE.value
CROSS_ENCODER_PREFIX = "cross-encoder:"


def rerank_choices() -> dict[str, str]:
    """The second stages this server offers, value -> label: none, Cohere rerank when a key is
    configured (or typed in Explore's sidebar), each cross-encoder the operator offers by name."""
    choices = {NO_RERANK: "none (the first stage's values)"}
    if scorers.cohere_key():
        choices[COHERE_RERANK] = f"Cohere rerank ({DEFAULT_COHERE_MODEL})"
    for name in models.offered_cross_encoders():
        choices[CROSS_ENCODER_PREFIX + name] = name
    return choices


def reranker_for(choice: str) -> Reranker | None:
    """The reranker a choice of :func:`rerank_choices` stands for, its scorer shared with Explore
    (one model or client per process); named by what the user picked, never a server path.

    Raises:
        ScorerUnavailableError: the choice is not offered (any other name gets the same words).
    """
    if choice == COHERE_RERANK:
        options = (("model", DEFAULT_COHERE_MODEL),)
        scorer = scorers.scorer_for(ScorerName.COHERE, options, scorers.key_digest(ScorerName.COHERE))
        return Reranker(f"cohere:{DEFAULT_COHERE_MODEL}", scorer)
    if choice.startswith(CROSS_ENCODER_PREFIX):
        name = choice.removeprefix(CROSS_ENCODER_PREFIX)
        return Reranker(name, scorers.scorer_for(ScorerName.CROSS_ENCODER, (("model", name),)))
    return None


def built_with(base: OpenBase) -> str:
    """The embedder a base was built with, as the page names it: its model id and size, never a folder path."""
    identity = base.kb.catalog.embedder
    return f"{identity.model} (dim {identity.dimension})"


def public_message(base: OpenBase, error: Exception) -> str:
    """An error about ``base`` as a user may read it: the base's name instead of its server path."""
    return str(error).replace(str(base.kb.path), base.label)


def rse_params_for(base: OpenBase, params: RSEParams) -> RSEParams:
    """``params`` with the base's chunking (a base is queried at the chunk size it was built with)."""
    return params.with_changes(chunk_size=base.kb.catalog.chunk_size, chunk_headers=base.kb.catalog.headers)


_READY: set[str] = set()  # bundled folders checked (or built) in this process


def ensure_bundled(progress: Progress | None = None) -> OpenBase:
    """The bundled base, built first if this machine has none (checked once per process)."""
    path = str(bundled_dir())
    if path not in _READY:
        build_bundled(progress)
        _READY.add(path)
    return open_bundled()


@dataclass(frozen=True)
class TopKEntry:
    """A top-k line on the page: the hit, its pages and the start of its text."""

    hit: KBHit
    first_page: int
    last_page: int
    preview: str


def top_k_entries(base: OpenBase, hits: Sequence[KBHit], limit: int) -> list[TopKEntry]:
    """The best ``limit`` top-k hits with pages and text (one store read per document)."""
    chosen = list(hits[:limit])
    with base.lock:
        chunks = base.kb.read_chunks((hit.doc_id, hit.chunk_index, hit.chunk_index) for hit in chosen)
    entries = []
    for hit in chosen:
        chunk = chunks[hit.doc_id].get(hit.chunk_index)
        if chunk is not None:
            entries.append(TopKEntry(hit, chunk.first_page, chunk.last_page, chunk.text))
    return entries
