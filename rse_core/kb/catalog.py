"""The knowledge base's own record: its settings, its documents, and where each chunk ends.

``kb.json`` holds the settings a query must match (the embedder's identity, chunk size, headers and
whether their titles carry file names, store)
and one entry per committed document; it is replaced atomically (a temporary file of its own in
the same folder, fsync, rename), so a killed build leaves the last committed version and no two
writers share a temporary file (so is ``calibration.json``, a fit of the dense calibration for
the base's embedder). ``bounds/<doc_id>.npy`` holds each document's
chunk end offsets: a query needs every chunk's length and span for the documents it selects
without reading their text from the store.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import BinaryIO

import numpy as np

from rse_core.embedders.identity import EmbedderIdentity
from rse_core.embedders.local import identity_of_unrecorded_base
from rse_core.errors import RSEError

CATALOG_FILE = "kb.json"
CALIBRATION_FILE = "calibration.json"
"""A dense calibration fitted for the base's embedder (:mod:`rse_core.kb.calibration`), beside ``kb.json``."""
BOUNDS_DIR = "bounds"
FORMAT = "rse-kb/1"


class KnowledgeBaseError(RSEError):
    """The knowledge-base folder is missing, not a knowledge base, or of another kind."""


class DamagedBaseError(KnowledgeBaseError):
    """Part of a base is missing or unreadable (its store, a data file, chunk bounds)."""


@dataclass(frozen=True)
class DocumentEntry:
    """A document in the base, keyed by content hash (``doc_id``); ``name`` is the file name."""

    doc_id: str
    name: str
    path: str
    chunks: int
    pages: int
    characters: int
    title: str = ""


@dataclass
class Catalog:
    """Settings and documents of one knowledge base (``kb.json``)."""

    embedder: EmbedderIdentity
    chunk_size: int
    headers: bool
    store: dict[str, str] = field(default_factory=lambda: {"kind": "lancedb"})
    documents: dict[str, DocumentEntry] = field(default_factory=dict)
    name_in_title: bool = False
    """Each document's title (in every chunk's header) starts with its file name
    (:meth:`rse_core.documents.Document.with_name_in_title`). Off in bases made before it existed."""

    @property
    def model(self) -> str:
        return self.embedder.model

    @property
    def dimension(self) -> int:
        return self.embedder.dimension

    def to_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["model"], data["dimension"] = self.model, self.dimension  # what readers before ``embedder`` check
        data["format"] = FORMAT
        data["documents"] = [asdict(entry) for entry in self.documents.values()]
        return data

    @classmethod
    def from_dict(cls, data: dict, where: Path) -> Catalog:
        if data.get("format") != FORMAT:
            raise KnowledgeBaseError(f"{where} is not a knowledge base of format {FORMAT}.")
        try:
            entries = [DocumentEntry(**entry) for entry in data["documents"]]
            recorded = data.get("embedder")
            if recorded is None:
                embedder = identity_of_unrecorded_base(str(data["model"]), int(data["dimension"]))
            elif isinstance(recorded, dict):
                embedder = EmbedderIdentity.from_dict(recorded)
            else:
                raise TypeError("the embedder record is not an object")
            return cls(
                embedder=embedder,
                chunk_size=int(data["chunk_size"]),
                headers=bool(data["headers"]),
                store=dict(data["store"]),
                documents={entry.doc_id: entry for entry in entries},
                name_in_title=bool(data.get("name_in_title", False)),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise KnowledgeBaseError(f"{where} is damaged ({type(error).__name__}: {error}).") from None

    @property
    def chunk_total(self) -> int:
        return sum(entry.chunks for entry in self.documents.values())


def catalog_path(kb_dir: Path) -> Path:
    return kb_dir / CATALOG_FILE


def read_catalog(kb_dir: Path) -> Catalog:
    path = catalog_path(kb_dir)
    if not kb_dir.is_dir():
        raise KnowledgeBaseError(f"No knowledge base at {kb_dir}: the folder does not exist; build one first.")
    if not path.is_file():
        raise KnowledgeBaseError(f"{kb_dir} is not a knowledge base (no {CATALOG_FILE}); build one first.")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise KnowledgeBaseError(f"{path} could not be read ({error}).") from None
    if not isinstance(data, dict):
        raise KnowledgeBaseError(f"{path} is not a knowledge-base catalog.")
    return Catalog.from_dict(data, path)


def write_catalog(kb_dir: Path, catalog: Catalog) -> None:
    """Replace ``kb.json`` atomically: a reader or a crash sees the old or the new one, never half."""
    with replace_file(catalog_path(kb_dir)) as handle:
        handle.write(json.dumps(catalog.to_dict(), ensure_ascii=False, indent=1).encode("utf-8"))


@contextmanager
def replace_file(path: Path) -> Iterator[BinaryIO]:
    """A new file written beside ``path`` under a name of its own, then renamed over it (or
    removed, if writing failed)."""
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644  # a temporary file starts private
    handle = tempfile.NamedTemporaryFile(dir=path.parent, prefix=f"{path.name}.", suffix=".tmp", delete=False)  # noqa: SIM115 - renamed or removed below
    try:
        os.chmod(handle.name, mode)
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


def write_bounds(kb_dir: Path, doc_id: str, ends: np.ndarray) -> None:
    directory = kb_dir / BOUNDS_DIR
    directory.mkdir(exist_ok=True)
    with replace_file(directory / f"{doc_id}.npy") as handle:
        np.save(handle, np.asarray(ends, dtype=np.int64))


def read_bounds(kb_dir: Path, doc_id: str) -> np.ndarray:
    """Chunk end offsets of one document (chunk ``i`` spans ``ends[i-1]:ends[i]``, from 0)."""
    try:
        return np.load(kb_dir / BOUNDS_DIR / f"{doc_id}.npy")
    except (OSError, ValueError, EOFError):
        raise DamagedBaseError(
            f"The chunk bounds of document {doc_id} are missing or damaged; run 'check', then 'build' with its files "
            "to repair the base."
        ) from None


def remove_bounds(kb_dir: Path, doc_id: str) -> None:
    (kb_dir / BOUNDS_DIR / f"{doc_id}.npy").unlink(missing_ok=True)
