"""Chunk embeddings cached in memory and on disk, keyed by content.

Embedding a document is the slow step of the offline pipeline (seconds per hundred chunks on a
CPU), while a new query or a slider move needs no new chunk embeddings. The key is a hash of the
model name and the exact chunk texts, so a changed document, chunk size or model never reuses a
stale entry. Files are written to a temporary name and renamed, so a crash mid-write leaves no
half file; a file that cannot be read back is deleted and rebuilt, never trusted.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from cachetools import LRUCache

CACHE_ENV = "RSE_CACHE_DIR"


def default_cache_dir() -> Path:
    """``$RSE_CACHE_DIR``, else ``~/.cache/rse-explorer``."""
    configured = os.environ.get(CACHE_ENV)
    return Path(configured) if configured else Path.home() / ".cache" / "rse-explorer"


def embedding_key(model: str, texts: Sequence[str]) -> str:
    digest = hashlib.sha256(model.encode("utf-8"))
    for text in texts:
        digest.update(b"\x1f")
        digest.update(text.encode("utf-8", errors="surrogatepass"))
    return digest.hexdigest()[:32]


class EmbeddingCache:
    """A small in-memory LRU in front of an optional folder of ``.npy`` files.

    ``read_only`` folders are looked in last and never written or cleaned: an app can ship
    embeddings of its bundled documents there, so its first page opens without embedding them.
    One cache may serve several app sessions at once, so the memory part is behind a lock
    (``cachetools`` caches are not thread-safe); the files need none, as they are replaced whole.
    """

    def __init__(
        self, directory: Path | str | None = None, memory_entries: int = 64, read_only: tuple[Path, ...] = ()
    ) -> None:
        self.directory = Path(directory) if directory is not None else None
        self.read_only = tuple(Path(folder) for folder in read_only)
        self.memory_entries = memory_entries
        self._memory: LRUCache[str, np.ndarray] = LRUCache(maxsize=max(memory_entries, 0))
        self._lock = threading.Lock()

    def get(self, key: str, rows: int) -> np.ndarray | None:
        """The cached matrix for ``key`` if it exists and has ``rows`` finite rows."""
        with self._lock:
            array = self._memory.get(key)
        if array is not None:
            return array
        path = self._path(key)
        array = _load(path, rows, discard_if_bad=True) if path is not None else None
        for folder in self.read_only:
            if array is None:
                array = _load(folder / f"{key}.npy", rows, discard_if_bad=False)
        if array is not None:
            self._remember(key, array)
        return array

    def put(self, key: str, array: np.ndarray) -> None:
        self._remember(key, array)
        path = self._path(key)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".npy")
            try:
                with os.fdopen(handle, "wb") as file:
                    np.save(file, array, allow_pickle=False)
                os.replace(temporary, path)
            finally:
                if os.path.exists(temporary):
                    os.unlink(temporary)
        except OSError:
            pass  # a read-only or full disk only costs a recompute next time

    def _remember(self, key: str, array: np.ndarray) -> None:
        if self._memory.maxsize < 1:
            return  # memory_entries=0: disk only (an LRUCache of size 0 refuses every entry)
        with self._lock:
            self._memory[key] = array

    def _path(self, key: str) -> Path | None:
        return None if self.directory is None else self.directory / "embeddings" / f"{key}.npy"


def _load(path: Path, rows: int, discard_if_bad: bool) -> np.ndarray | None:
    """The matrix in ``path`` if it has ``rows`` finite rows; a bad file is deleted if allowed."""
    if not path.exists():
        return None
    try:
        array = np.load(path, allow_pickle=False)
        if array.ndim != 2 or array.shape[0] != rows or not np.isfinite(array).all():
            raise ValueError("unexpected shape or values")
    except (OSError, ValueError, EOFError):
        if discard_if_bad:
            path.unlink(missing_ok=True)  # corrupt or stale: rebuild rather than trust it
        return None
    return array
