"""The evaluation sets by name: the samples, the external golden set, FinanceBench.

``samples`` are the golden sets of the bundled sample documents, written with the documents.
``external`` are golden sets written by reading third-party documents nobody here wrote; they
name each document by file name and never copy its text. ``financebench`` is the FinanceBench
sample (:mod:`rse_core.evaluation.financebench`). Both golden folders are package data
(:mod:`rse_core.data`: ``sample_docs/`` and ``eval_sets/external/`` in a checkout); the
third-party documents are not, and come only from the folder given as an argument or in
``$RSE_CORPUS_DIR``, never from a path guessed from where the code lies.

Only these bundled golden files are ever resolved to a path: a sample's document must lie in the
samples folder and an external one is looked up by file name in the corpus folder
(:func:`golden_sets`), so a stray ``..`` in a bundled file cannot point the evaluation anywhere
else. A named set that finds no golden file or no query is an error (:class:`EmptySetError`),
never an evaluation of nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from rse_core.data import EXTERNAL, SAMPLES, bundled_folder
from rse_core.documents import Document, load_document
from rse_core.errors import EmptySetError, RSEError
from rse_core.evaluation.financebench import FILE_NAME as FINANCEBENCH_FILE
from rse_core.evaluation.financebench import page_collection, read_financebench
from rse_core.evaluation.golden import GoldenSet, GoldenSetError, load_golden_set

SAMPLE_DIR = bundled_folder(SAMPLES)
"""The sample documents with their golden sets and shipped embeddings and text."""
EXTERNAL_DIR = bundled_folder(EXTERNAL)
"""The external golden sets; their documents are in the corpus folder (:func:`corpus_dir`)."""
CORPUS_ENV = "RSE_CORPUS_DIR"
"""The folder of third-party documents the external set and FinanceBench read (``../shared/corpus`` here)."""

__all__ = [
    "CORPUS_ENV",
    "EXTERNAL_DIR",
    "SAMPLE_DIR",
    "Case",
    "CorpusMissingError",
    "EmptySetError",
    "EvalGroup",
    "EvalSet",
    "SetName",
    "corpus_dir",
    "corpus_missing_message",
    "golden_paths",
    "golden_sets",
    "load_eval_set",
]


class SetName(StrEnum):
    """The evaluation sets ``python -m rse_core.evaluate`` knows by name."""

    SAMPLES = "samples"
    EXTERNAL = "external"
    FINANCEBENCH = "financebench"

    @classmethod
    def parse(cls, name: str) -> SetName:
        try:
            return cls(name)
        except ValueError:
            raise RSEError(
                f"Unknown evaluation set {name!r}; choose one of {', '.join(s.value for s in cls)}."
            ) from None


class CorpusMissingError(RSEError):
    """The third-party corpus folder is not given (``$RSE_CORPUS_DIR``) or not there."""


def corpus_dir() -> Path | None:
    """The third-party corpus folder from ``$RSE_CORPUS_DIR``, or None when it is not set."""
    configured = os.environ.get(CORPUS_ENV, "").strip()
    return Path(configured) if configured else None


def corpus_missing_message(corpus: Path | None = None) -> str | None:
    """Why the external set and FinanceBench cannot run, or None when their folder is there.

    Args:
        corpus: the folder; default :func:`corpus_dir`.
    """
    corpus = corpus or corpus_dir()
    if corpus is None:
        return f"The external set and FinanceBench read third-party documents: set {CORPUS_ENV} to their folder."
    if not corpus.is_dir():
        return f"The third-party corpus is not at {corpus} ({CORPUS_ENV}); the external set and FinanceBench need it."
    return None


def _require_corpus(corpus: Path | None) -> Path:
    """``corpus``, else ``$RSE_CORPUS_DIR``, when that folder is there."""
    folder = corpus or corpus_dir()
    if folder is None or not folder.is_dir():
        raise CorpusMissingError(corpus_missing_message(folder) or "")
    return folder


def _set_folder(name: SetName) -> Path:
    return SAMPLE_DIR if name is SetName.SAMPLES else EXTERNAL_DIR


def golden_paths(name: SetName | str) -> list[Path]:
    """The golden-set files of a named set (FinanceBench has none: it is a CSV)."""
    name = SetName.parse(name) if isinstance(name, str) else name
    if name is SetName.FINANCEBENCH:
        return []
    return sorted(_set_folder(name).glob("*.golden.json"))


def _inside(path: Path, root: Path) -> bool:
    return path.resolve().is_relative_to(root.resolve())


def golden_sets(name: SetName | str, corpus: Path | None = None) -> list[GoldenSet]:
    """Load the golden sets of ``name``, each with its document resolved in its one allowed folder.

    A sample's document lies beside its golden set; an external set's is its file name in
    ``corpus`` (default ``$RSE_CORPUS_DIR``).

    Raises:
        CorpusMissingError: the external set was asked for and the corpus folder is not given or missing.
        EmptySetError: the set's folder holds no golden set (the package's data is missing).
        GoldenSetError: a file is malformed, or a sample's names a document outside the samples folder.
    """
    name = SetName.parse(name) if isinstance(name, str) else name
    if name is SetName.FINANCEBENCH:
        raise RSEError(
            "FinanceBench is not a golden set; load it with rse_core.evaluation.financebench.load_financebench()."
        )
    folder = _require_corpus(corpus) if name is SetName.EXTERNAL else None
    paths = golden_paths(name)
    if not paths:
        raise EmptySetError(
            f"The {name.value} set has no golden sets in {_set_folder(name)}: the package's data is missing; "
            "reinstall rse-explorer."
        )
    sets = []
    for path in paths:
        golden = load_golden_set(path)
        if folder is not None:
            golden = replace(golden, document=str(folder / golden.document_name))
        elif not _inside(golden.document_path, SAMPLE_DIR):
            raise GoldenSetError(
                f"Golden set {path.name} names {golden.document!r}, which is outside the samples folder; "
                "a bundled sample's golden set may only reference a document beside it."
            )
        sets.append(golden)
    return sets


# ------------------------------------------------------------------------- sets ready to score


@dataclass(frozen=True)
class Case:
    """One query and the character span ``span`` of document ``doc_id`` that answers it."""

    id: str
    query: str
    kind: str
    doc_id: str
    span: tuple[int, int]


@dataclass(frozen=True)
class EvalGroup:
    """Documents searched together, and the cases asked of them."""

    documents: tuple[Document, ...]
    cases: tuple[Case, ...]


@dataclass(frozen=True)
class EvalSet:
    """A named evaluation set: golden sets run each on its document alone; FinanceBench as one collection."""

    name: str
    groups: tuple[EvalGroup, ...]

    @property
    def cases(self) -> tuple[Case, ...]:
        return tuple(case for group in self.groups for case in group.cases)

    @property
    def document_count(self) -> int:
        return len({document.doc_id for group in self.groups for document in group.documents})


def golden_group(golden: GoldenSet, document: Document | None = None) -> EvalGroup:
    """A golden set as a group: its document alone, every query a case (offsets checked first)."""
    document = document or load_document(golden.document_path)
    golden.validate_document(document.text)
    cases = tuple(Case(q.id, q.query, q.kind, document.doc_id, q.span) for q in golden.queries)
    return EvalGroup((document,), cases)


def financebench_set(limit: int | None = None, path: Path | None = None) -> EvalSet:
    """FinanceBench as one group: every distinct evidence page a document, each question a case.

    The gold span of a question is its whole evidence page; the kind is FinanceBench's
    ``question_type`` (metrics-generated, domain-relevant, novel-generated). ``path`` is the CSV,
    by default in the corpus folder (``$RSE_CORPUS_DIR``).
    """
    path = path or _require_corpus(None) / FINANCEBENCH_FILE
    rows = read_financebench(path, limit)
    documents, doc_ids = page_collection(rows)
    lengths = {document.doc_id: len(document.text) for document in documents}
    cases = tuple(
        Case(row.id, row.question, row.question_type, doc_id, (0, lengths[doc_id]))
        for row, doc_id in zip(rows, doc_ids, strict=True)
    )
    return EvalSet(SetName.FINANCEBENCH.value, (EvalGroup(documents, cases),))


def load_eval_set(name: SetName | str, limit: int | None = None, corpus: Path | None = None) -> EvalSet:
    """Load a named set, documents included; ``limit`` keeps only the first cases (for quick runs).

    Args:
        corpus: the third-party documents' folder for the external set and FinanceBench
            (default ``$RSE_CORPUS_DIR``).

    Raises:
        CorpusMissingError: the set needs the corpus folder and it is not given or missing.
        EmptySetError: the set resolved to no query.
        RSEError: a golden set or the FinanceBench CSV is malformed.
    """
    name = SetName.parse(name) if isinstance(name, str) else name
    if name is SetName.FINANCEBENCH:
        loaded = financebench_set(limit, corpus and corpus / FINANCEBENCH_FILE)
    else:
        groups = []
        remaining = limit
        for golden in golden_sets(name, corpus):
            if remaining is not None and remaining <= 0:
                break
            group = golden_group(golden)
            if remaining is not None:
                group = EvalGroup(group.documents, group.cases[:remaining])
                remaining -= len(group.cases)
            groups.append(group)
        loaded = EvalSet(name.value, tuple(groups))
    if not loaded.cases:
        raise EmptySetError(f"The {name.value} set resolved to no query; nothing to evaluate.")
    return loaded
