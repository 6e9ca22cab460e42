"""Finding a damaged knowledge base, and making its catalog true again.

A base is whole when its three parts agree: every document ``kb.json`` lists has a chunk-bounds
file with one end per chunk, and the store holds it committed with that many readable chunk rows;
and the store holds no document ``kb.json`` does not list. Writes are ordered (store, bounds, then
catalog; removal the other way) so a crash leaves only the last kind, which queries ignore. The
rest comes from outside: a deleted store folder, a truncated data file, a deleted bounds file.

Repair makes the catalog list only what is whole: damaged documents are dropped from ``kb.json``
first, then their chunks and bounds, so a build adds them again from their files. An unreadable
store can only be made again empty, which drops every document: that needs ``rebuild_store``.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from rse_core.kb.base import LANCE_DIR, KnowledgeBase, open_store
from rse_core.kb.calibration import read_fit
from rse_core.kb.catalog import (
    CALIBRATION_FILE,
    Catalog,
    DamagedBaseError,
    DocumentEntry,
    KnowledgeBaseError,
    read_bounds,
    read_catalog,
    remove_bounds,
    write_catalog,
)
from rse_core.kb.store import ChunkStore

_NAME_SHOWN = 80


class ProblemKind(StrEnum):
    STORE_MISSING = "store-missing"
    STORE_UNREADABLE = "store-unreadable"
    NOT_STORED = "not-stored"
    CHUNKS_DIFFER = "chunks-differ"
    BOUNDS_MISSING = "bounds-missing"
    NOT_LISTED = "not-listed"
    CALIBRATION = "calibration"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a base, said in one line (``doc_id`` empty for the whole store)."""

    kind: ProblemKind
    message: str
    doc_id: str = ""


@dataclass(frozen=True)
class CheckReport:
    """What ``check`` found in a base: its documents listed and its problems (none: whole)."""

    path: str
    documents: int
    problems: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, object]:
        problems = [{"kind": p.kind.value, "doc_id": p.doc_id, "message": p.message} for p in self.problems]
        return {"path": self.path, "documents": self.documents, "ok": self.ok, "problems": problems}


def check_base(kb_dir: str | Path) -> CheckReport:
    """Check the base at ``kb_dir``, reading every chunk row (a damaged data file shows here).

    Raises:
        KnowledgeBaseError: no base there, or its ``kb.json`` is unreadable.
    """
    kb_dir = Path(kb_dir)
    catalog = read_catalog(kb_dir)
    try:
        store = open_store(kb_dir, catalog.store, catalog.dimension, create=False)
    except DamagedBaseError:
        missing = Problem(
            ProblemKind.STORE_MISSING,
            f"The chunk store is missing; the {len(catalog.documents)} document(s) kb.json lists must be added again.",
        )
        return CheckReport(str(kb_dir), len(catalog.documents), (missing, *calibration_problems(kb_dir, catalog)))
    try:
        problems = find_problems(kb_dir, catalog, store) + calibration_problems(kb_dir, catalog)
        return CheckReport(str(kb_dir), len(catalog.documents), tuple(problems))
    finally:
        store.close()


def find_problems(kb_dir: Path, catalog: Catalog, store: ChunkStore) -> list[Problem]:
    """Every disagreement between the catalog, the bounds files and the store."""
    try:
        committed = store.documents()
        stored = store.stored_chunks()
    except DamagedBaseError as error:
        return [Problem(ProblemKind.STORE_UNREADABLE, str(error))]
    problems: list[Problem] = []
    for entry in catalog.documents.values():
        shown = _shown(entry)
        if entry.doc_id not in committed:
            problems.append(Problem(ProblemKind.NOT_STORED, f"{shown} is listed but not in the store.", entry.doc_id))
        elif committed[entry.doc_id] != entry.chunks or stored.get(entry.doc_id, 0) != entry.chunks:
            problems.append(
                Problem(
                    ProblemKind.CHUNKS_DIFFER,
                    f"{shown} is listed with {entry.chunks} chunks; the store holds {stored.get(entry.doc_id, 0)}.",
                    entry.doc_id,
                )
            )
        elif not _bounds_match(kb_dir, entry):
            message = f"{shown}: its chunk-bounds file is missing or damaged."
            problems.append(Problem(ProblemKind.BOUNDS_MISSING, message, entry.doc_id))
    for doc_id in sorted((committed.keys() | stored.keys()) - catalog.documents.keys()):
        problems.append(Problem(ProblemKind.NOT_LISTED, f"The store holds document {doc_id}, not listed.", doc_id))
    return problems


def calibration_problems(kb_dir: Path, catalog: Catalog) -> list[Problem]:
    """A stored calibration fit that queries would refuse (damaged) or set aside (fitted for
    other vectors than the base's). Not a build's to repair: ``calibrate`` again, or delete it."""
    try:
        fit = read_fit(kb_dir)
    except KnowledgeBaseError as error:
        return [Problem(ProblemKind.CALIBRATION, str(error))]
    if fit is None or fit.embedder.same_vectors_as(catalog.embedder):
        return []
    message = (
        f"{CALIBRATION_FILE} was fitted for {fit.embedder.describe()}, not this base's {catalog.embedder.describe()}: "
        "queries set it aside; run 'calibrate' again or delete it."
    )
    return [Problem(ProblemKind.CALIBRATION, message)]


def repair_base(kb: KnowledgeBase, *, rebuild_store: bool = False) -> tuple[DocumentEntry, ...]:
    """Drop what :func:`find_problems` finds damaged, catalog first; the documents dropped.
    The caller holds the writer lock (a build does).

    Raises:
        DamagedBaseError: the store is unreadable and ``rebuild_store`` is off, or it is not a
            LanceDB folder this can make again.
    """
    problems = find_problems(kb.path, kb.catalog, kb.store)
    unreadable = [p for p in problems if p.kind is ProblemKind.STORE_UNREADABLE]
    if unreadable and (not rebuild_store or kb.catalog.store.get("kind", "lancedb") != "lancedb"):
        raise DamagedBaseError(unreadable[0].message)
    damaged = set(kb.documents) if unreadable else {p.doc_id for p in problems if p.kind is not ProblemKind.NOT_LISTED}
    dropped = tuple(kb.documents[doc_id] for doc_id in sorted(damaged))
    if dropped:
        for entry in dropped:
            del kb.catalog.documents[entry.doc_id]
        write_catalog(kb.path, kb.catalog)
    if unreadable:
        kb.store.close()
        shutil.rmtree(kb.path / LANCE_DIR)
        kb.store = open_store(kb.path, kb.catalog.store, kb.catalog.dimension, create=True)
    else:
        for doc_id in damaged | {p.doc_id for p in problems if p.kind is ProblemKind.NOT_LISTED}:
            kb.store.remove(doc_id)
    for entry in dropped:
        remove_bounds(kb.path, entry.doc_id)
    kb.reload()
    return dropped


def _bounds_match(kb_dir: Path, entry: DocumentEntry) -> bool:
    try:
        return len(read_bounds(kb_dir, entry.doc_id)) == entry.chunks
    except DamagedBaseError:
        return False


def _shown(entry: DocumentEntry) -> str:
    """A document as a problem line names it: its id and its name, bounded and quoted."""
    name = entry.name if len(entry.name) <= _NAME_SHOWN else entry.name[: _NAME_SHOWN - 1] + "…"
    return f"Document {entry.doc_id} ({name!r})"
