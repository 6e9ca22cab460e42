"""Add files to a knowledge base: load, chunk, embed, store, commit a batch at a time.

Documents are keyed by the SHA-256 of their bytes (the id ``load_document`` gives), so a file
already in the base is skipped before it is parsed, and the same bytes under two names are
stored once. Work is committed in batches of about ``batch_chunks`` chunks: the store gets the
chunks, then the catalog records their documents. A build that is killed loses at most the batch
in flight (one the embedder stops with an error loses nothing: the documents embedded before it are
committed first); running it again skips what was committed and redoes the rest.

A build reads only the files named and those under the folders named (:mod:`rse_core.kb.sources`:
links leaving a folder are skipped and listed), holds the base's writer lock throughout
(:mod:`rse_core.kb.writer_lock`), and first repairs what :mod:`rse_core.kb.check` finds damaged, so
the files of a damaged document are added again instead of being "already there".
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from rse_core.chunking import chunk_document, scoring_text
from rse_core.documents import load_document
from rse_core.documents.loading import DOC_ID_DIGITS, LoadLimits, document_id
from rse_core.embedders import Embedder
from rse_core.errors import DocumentError, RSEError
from rse_core.kb.base import KnowledgeBase, check_new_folder
from rse_core.kb.catalog import DocumentEntry, write_bounds
from rse_core.kb.check import repair_base
from rse_core.kb.sources import NotRead, SourceFile, Sources, as_sources, collect_sources
from rse_core.kb.store import ChunkRecord
from rse_core.kb.writer_lock import DEFAULT_WAIT_SECONDS, LOCK_FILE, writer_lock

DEFAULT_BATCH_CHUNKS = 256
"""Chunks per commit: about 15 s of embedding on a 2-core CPU, the most a killed build loses."""


@dataclass(frozen=True)
class BuildProgress:
    """Where a build is; given to the progress callback after every file and every commit."""

    files_done: int
    files_total: int
    documents_added: int
    documents_skipped: int
    chunks_added: int
    committed_documents: int
    elapsed: float
    eta_seconds: float | None
    current: str = ""

    def line(self) -> str:
        """The counts so far, then what the build is doing now ("reading a.pdf (3/40)")."""
        eta = "" if self.eta_seconds is None else f", about {_duration(self.eta_seconds)} left"
        counts = (
            f"{self.files_done}/{self.files_total} files, {self.documents_added} added "
            f"({self.chunks_added:,} chunks, {self.committed_documents} committed), "
            f"{self.documents_skipped} already there{eta}"
        )
        return f"{counts}: {self.current}" if self.current else counts


BuildCallback = Callable[[BuildProgress], None]


@dataclass(frozen=True)
class BuildReport:
    """What a build did: documents added, files skipped (already in the base), files that failed,
    links not followed (they leave their folder) and damaged documents dropped before adding
    (``repaired``: those whose files were given are in ``added`` again)."""

    added: tuple[DocumentEntry, ...]
    skipped: tuple[str, ...]
    failed: tuple[tuple[str, str], ...]
    seconds: float
    not_read: tuple[NotRead, ...] = ()
    repaired: tuple[DocumentEntry, ...] = ()

    @property
    def chunks(self) -> int:
        return sum(entry.chunks for entry in self.added)


def content_id(path: Path) -> str:
    """The document id ``load_document`` will give this file (:func:`~rse_core.documents.loading.document_id`
    of its bytes, read in blocks)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:DOC_ID_DIGITS]


@dataclass
class _Batch:
    entries: list[DocumentEntry] = field(default_factory=list)
    records: list[ChunkRecord] = field(default_factory=list)
    ends: list[np.ndarray] = field(default_factory=list)


def add_paths(
    kb: KnowledgeBase,
    paths: Sequence[str | Path] | Sources,
    progress: BuildCallback | None = None,
    batch_chunks: int = DEFAULT_BATCH_CHUNKS,
) -> BuildReport:
    """Add the files (and folders' files) not yet in ``kb``, holding its writer lock; see the
    module docstring."""
    sources = as_sources(paths)
    with writer_lock(kb.path):
        kb.reload()
        return _add_sources(kb, sources, progress, batch_chunks)


def _add_sources(kb: KnowledgeBase, sources: Sources, progress: BuildCallback | None, batch_chunks: int) -> BuildReport:
    started = time.monotonic()
    files = sources.paths
    sizes = [path.stat().st_size for path in files]
    pending_bytes = 0  # bytes of files that needed work, and how long they took: the ETA's rate
    work_seconds = 0.0
    added: list[DocumentEntry] = []
    skipped: list[str] = []
    failed: list[tuple[str, str]] = []
    batch = _Batch()
    seen: set[str] = set()
    committed = 0

    def report(done: int, current: str) -> None:
        if progress is None:
            return
        remaining = sum(sizes[done:])
        eta = work_seconds / pending_bytes * remaining if pending_bytes and remaining else (0.0 if done else None)
        progress(
            BuildProgress(
                files_done=done,
                files_total=len(files),
                documents_added=len(added),
                documents_skipped=len(skipped),
                chunks_added=sum(entry.chunks for entry in added),
                committed_documents=committed,
                elapsed=time.monotonic() - started,
                eta_seconds=eta,
                current=current,
            )
        )

    def flush(done: int) -> None:
        nonlocal batch, committed
        if not batch.entries:
            return
        kb.store.add(batch.records)
        for entry, ends in zip(batch.entries, batch.ends, strict=True):
            write_bounds(kb.path, entry.doc_id, ends)
        kb.commit(batch.entries)
        committed += len(batch.entries)
        batch = _Batch()
        report(done, "committed")

    max_bytes = LoadLimits().max_bytes
    preloaded = False
    for number, source in enumerate(sources.files):
        path = source.path
        report(number, f"reading {path.name} ({number + 1}/{len(files)})")
        began = time.monotonic()
        try:
            data = source.read_bytes(max_bytes)
        except (OSError, DocumentError) as error:
            failed.append((str(path), _unreadable(error)))
            continue
        doc_id = document_id(data)
        if doc_id in kb.documents or doc_id in seen:
            skipped.append(str(path))
            continue
        if not preloaded:  # the first file to embed: load the model outside the ETA's rate
            preloaded = True
            preload = getattr(kb.embedder, "preload", None)
            if preload is not None:
                report(number, "loading the embedding model")
                preload()
            began = time.monotonic()
        try:
            entry, records, ends = _prepare(source, data, kb)
        except DocumentError as error:
            failed.append((str(path), str(error)))
            continue
        except RSEError:  # the embedder failed (an endpoint's error): keep what is embedded, then stop
            flush(number)
            raise
        seen.add(entry.doc_id)
        batch.entries.append(entry)
        batch.records.extend(records)
        batch.ends.append(ends)
        added.append(entry)
        pending_bytes += sizes[number]
        work_seconds += time.monotonic() - began
        if len(batch.records) >= batch_chunks:
            flush(number + 1)
    if batch.entries:
        flush(len(files))
    else:
        report(len(files), "")
    if hasattr(kb.store, "optimize"):
        kb.store.optimize()
    seconds = time.monotonic() - started
    return BuildReport(tuple(added), tuple(skipped), tuple(failed), seconds, sources.skipped)


def _unreadable(error: Exception) -> str:
    """Why a file could not be read, without the resolved path an OSError names."""
    if isinstance(error, OSError):
        return f"could not be read ({error.strerror or type(error).__name__})."
    return str(error)


def _prepare(source: SourceFile, data: bytes, kb: KnowledgeBase) -> tuple[DocumentEntry, list[ChunkRecord], np.ndarray]:
    """Load (from the bytes read once, contained), chunk (as ``chunk_document`` does, with
    contextual headers) and embed one file; its recorded path is the one given, never a link's target."""
    path = source.path
    document = load_document(data, path.name)
    if kb.catalog.name_in_title:
        document = document.with_name_in_title()
    chunks = chunk_document(document, kb.catalog.chunk_size, headers=kb.catalog.headers)
    vectors = kb.embedder.embed_documents([scoring_text(chunk) for chunk in chunks])
    records = [ChunkRecord.of(chunk, vector) for chunk, vector in zip(chunks, vectors, strict=True)]
    entry = DocumentEntry(
        doc_id=document.doc_id,
        name=document.name,
        path=os.path.abspath(path),
        chunks=len(chunks),
        pages=document.page_count,
        characters=len(document.text),
        title=document.title,
    )
    return entry, records, np.array([chunk.end for chunk in chunks], dtype=np.int64)


def build(
    kb_dir: str | Path,
    paths: Sequence[str | Path] | Sources,
    progress: BuildCallback | None = None,
    *,
    embedder: Embedder | None = None,
    store: dict[str, str] | None = None,
    batch_chunks: int = DEFAULT_BATCH_CHUNKS,
    repair: bool = False,
    wait: float = DEFAULT_WAIT_SECONDS,
    name_in_title: bool | None = None,
) -> BuildReport:
    """Create the base at ``kb_dir`` if needed, repair it and add ``paths`` to it, holding its
    writer lock (waiting up to ``wait`` seconds for another writer). Paths are checked first, so
    a typo does not leave an empty base behind. Damaged documents are dropped and added again from
    the files given; an unreadable store is rebuilt only with ``repair`` (it drops every document).
    ``name_in_title``: a new base's titles start with file names (see :meth:`KnowledgeBase.create`).

    Raises:
        BaseBusyError: another writer held the base for ``wait`` seconds.
        DamagedBaseError: the store is unreadable and ``repair`` is off.
    """
    sources = as_sources(paths)
    sources.require_files()
    kb_dir = Path(kb_dir)
    check_new_folder(kb_dir)
    made = not kb_dir.exists()
    kb_dir.mkdir(parents=True, exist_ok=True)
    try:
        with writer_lock(kb_dir, wait):
            kb = KnowledgeBase.create(kb_dir, embedder, store=store, name_in_title=name_in_title)
            try:
                repaired = repair_base(kb, rebuild_store=repair)  # leaves kb's catalog read afresh
                report = _add_sources(kb, sources, progress, batch_chunks)
            finally:
                kb.close()
    except BaseException:
        if made:
            _remove_if_only_the_lock(kb_dir)  # an endpoint that could not be reached leaves no folder behind
        raise
    return replace(report, repaired=repaired)


def _remove_if_only_the_lock(kb_dir: Path) -> None:
    """Remove a folder this build made when nothing but its writer lock is in it."""
    try:
        if all(entry.name == LOCK_FILE for entry in kb_dir.iterdir()):
            (kb_dir / LOCK_FILE).unlink(missing_ok=True)
            kb_dir.rmdir()
    except OSError:  # another writer got there meanwhile: its folder now
        pass


def ensure_built(
    kb_dir: str | Path,
    paths: Sequence[str | Path],
    progress: BuildCallback | None = None,
    *,
    embedder: Embedder | None = None,
    name_in_title: bool | None = None,
) -> KnowledgeBase:
    """The base at ``kb_dir`` opened, after adding whichever of ``paths`` it lacks: once every file
    is in, this only hashes the files (an evaluation calls it on every run). ``name_in_title``: as
    :func:`build`'s; an existing base built the other way is refused even when it lacks nothing."""
    files = collect_sources(paths)
    try:
        kb = KnowledgeBase.open(kb_dir, embedder)
    except RSEError:  # no base there yet (or a damaged catalog): build() says which
        kb = None
    if kb is not None:
        other_titles = name_in_title is not None and name_in_title != kb.catalog.name_in_title
        if not other_titles and all(content_id(path) in kb.documents for path in files.paths):
            return kb
        kb.close()  # build() adds what is missing, or refuses a base titled the other way
    build(kb_dir, files, progress, embedder=embedder, name_in_title=name_in_title)
    return KnowledgeBase.open(kb_dir, embedder)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
