"""The app's bounded caches, in one place, all ``cachetools`` LRUs.

Two scopes, never mixed:
- shared by every session (``st.cache_resource``): raw scores and page images of the bundled
  samples, keyed by content hashes, so no session's private data can be in them;
- one session's own (in its ``st.session_state``): everything derived from its uploads
  (:class:`SessionCaches`), page images and memos. Streamlit drops them with the session, and
  no other session can reach them, even one that uploads the same bytes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
import streamlit as st
from cachetools import FIFOCache, LRUCache

from rse_core import Corpus, Document, Scorer

from . import keys

SCORE_CACHE_ENTRIES = 512
SESSION_SCORE_ENTRIES = 64
SESSION_CORPUS_ENTRIES = 4
T = TypeVar("T")
C = TypeVar("C", LRUCache, FIFOCache)


class ScoreStore:
    """A thread-safe LRU of raw score arrays (``cachetools.LRUCache`` is not thread-safe alone:
    the shared store is read and written by every session's script thread)."""

    def __init__(self, entries: int) -> None:
        self.entries = entries
        self._data: LRUCache[tuple, np.ndarray] = LRUCache(maxsize=entries)
        self._lock = threading.Lock()

    def get(self, key: tuple) -> np.ndarray | None:
        with self._lock:
            return self._data.get(key)  # a hit counts as a use

    def put(self, key: tuple, scores: np.ndarray) -> None:
        with self._lock:
            self._data[key] = scores

    def list_keys(self) -> list[tuple]:
        with self._lock:
            return list(self._data)

    def __len__(self) -> int:
        return len(self._data)


@st.cache_resource(show_spinner=False)
def score_store() -> ScoreStore:
    """Raw scores of the bundled samples, shared by all sessions."""
    return ScoreStore(SCORE_CACHE_ENTRIES)


class SharedLRU:
    """A thread-safe LRU that every session reads and writes (its keys and values come from the
    bundled samples only, never from an upload)."""

    def __init__(self, entries: int) -> None:
        self._data: LRUCache[Hashable, object] = LRUCache(maxsize=entries)
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> object | None:
        with self._lock:
            return self._data.get(key)  # a hit counts as a use

    def __setitem__(self, key: Hashable, value: object) -> None:
        with self._lock:
            self._data[key] = value


@st.cache_resource(show_spinner=False)
def shared_lru(name: str, entries: int) -> SharedLRU:
    """The process-wide :class:`SharedLRU` called ``name`` (e.g. the samples' page images: a class
    opening the same sample needs its pages drawn once, not once per student)."""
    return SharedLRU(entries)


@dataclass
class SessionCaches:
    """Everything derived from this session's uploads, held in its ``st.session_state`` only."""

    parsed: dict[str, Document] = field(default_factory=dict)  # upload file_id -> document
    corpora: LRUCache[Hashable, Corpus] = field(default_factory=lambda: LRUCache(maxsize=SESSION_CORPUS_ENTRIES))
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
    """This session's :class:`SessionCaches`, made on first use."""
    caches = st.session_state.get(keys.UPLOAD_CACHES)
    if not isinstance(caches, SessionCaches):
        caches = st.session_state[keys.UPLOAD_CACHES] = SessionCaches()
    return caches


def is_private(documents: Sequence[Document]) -> bool:
    """Whether any of ``documents`` came from this session's uploads (then nothing is shared)."""
    caches = st.session_state.get(keys.UPLOAD_CACHES)
    return isinstance(caches, SessionCaches) and any(caches.uploaded(document) for document in documents)


def remember(cache: LRUCache, key: Hashable, compute: Callable[[], T]) -> T:
    """``cache[key]``, computed and stored on a miss (a hit counts as a use)."""
    try:
        return cache[key]
    except KeyError:
        value = cache[key] = compute()
        return value


def session_lru(key: str, entries: int) -> LRUCache:
    """A per-session LRU of ``entries`` under ``key`` in ``st.session_state``."""
    return _session_cache(key, LRUCache, entries)


def session_fifo(key: str, entries: int) -> FIFOCache:
    """A per-session first-in-first-out cache of ``entries`` under ``key`` in ``st.session_state``:
    for results that are costly to make and cheap to look at, where use order does not matter."""
    return _session_cache(key, FIFOCache, entries)


def _session_cache(key: str, kind: type[C], entries: int) -> C:
    cache = st.session_state.get(key)
    if not isinstance(cache, kind):
        cache = st.session_state[key] = kind(maxsize=entries)
    return cache


def session_memo(name: str, key: Hashable, compute: Callable[[], T], entries: int) -> T:
    """``compute()``, remembered in this session under ``name`` for the last ``entries`` keys.

    For work that depends on this session's settings (an explanation, a sweep): reruns with the
    same settings reuse it, and nothing is shared with other sessions.
    """
    return remember(memo_store(name, entries), key, compute)


def memo_store(name: str, entries: int) -> FIFOCache:
    """The per-session memo ``name`` itself (for a page that fills it only on request)."""
    return session_fifo(keys.memo_key(name), entries)
