"""The evaluation sets by name: the samples, the external golden set, FinanceBench.

``samples`` are the golden sets of the bundled sample documents (``sample_docs/``), written with
the documents. ``external`` are golden sets written by reading third-party documents nobody here
wrote (``eval_sets/external/``); they reference the documents in ``../shared/corpus`` by a path
relative to the golden file and never copy their text. ``financebench`` is the FinanceBench
sample (:mod:`rse_core.evaluation.financebench`), read from the same folder.

Only these bundled golden files are ever resolved to a path; each resolved document must lie in
the project or in the corpus folder (:func:`golden_sets`), so a stray ``..`` in a bundled file
cannot point the evaluation anywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from rse_core.documents import Document, load_document
from rse_core.errors import RSEError
from rse_core.evaluation.financebench import FILE_NAME as FINANCEBENCH_FILE
from rse_core.evaluation.financebench import page_collection, read_financebench
from rse_core.evaluation.golden import GoldenSet, GoldenSetError, load_golden_set

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SAMPLE_DIR = PROJECT_ROOT / "sample_docs"
EXTERNAL_DIR = PROJECT_ROOT / "eval_sets" / "external"
CORPUS_DIR = PROJECT_ROOT.parent / "shared" / "corpus"
"""``../shared/corpus`` from the project root: third-party documents, never copied into the project."""

__all__ = [
    "CORPUS_DIR",
    "EXTERNAL_DIR",
    "SAMPLE_DIR",
    "Case",
    "CorpusMissingError",
    "EvalGroup",
    "EvalSet",
    "SetName",
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
    """The third-party corpus folder (``../shared/corpus``) is not there."""


def corpus_missing_message() -> str | None:
    """Why the external sets cannot run, or None when the corpus folder is there."""
    if CORPUS_DIR.is_dir():
        return None
    return (
        f"The third-party corpus is not at {CORPUS_DIR} (../shared/corpus from the project root); "
        "the external set and FinanceBench need it."
    )


def _require_corpus() -> None:
    message = corpus_missing_message()
    if message:
        raise CorpusMissingError(message)


def golden_paths(name: SetName | str) -> list[Path]:
    """The golden-set files of a named set (FinanceBench has none: it is a CSV)."""
    name = SetName.parse(name) if isinstance(name, str) else name
    if name is SetName.SAMPLES:
        return sorted(SAMPLE_DIR.glob("*.golden.json"))
    if name is SetName.EXTERNAL:
        return sorted(EXTERNAL_DIR.glob("*.golden.json"))
    return []


def _inside(path: Path, root: Path) -> bool:
    return path.resolve().is_relative_to(root.resolve())


def golden_sets(name: SetName | str) -> list[GoldenSet]:
    """Load the golden sets of ``name``, checking each document lies in the project or the corpus.

    Raises:
        CorpusMissingError: the external set was asked for and ``../shared/corpus`` is missing.
        GoldenSetError: a file is malformed, or names a document outside the two allowed folders.
    """
    name = SetName.parse(name) if isinstance(name, str) else name
    if name is SetName.FINANCEBENCH:
        raise RSEError(
            "FinanceBench is not a golden set; load it with rse_core.evaluation.financebench.load_financebench()."
        )
    if name is SetName.EXTERNAL:
        _require_corpus()
    sets = []
    for path in golden_paths(name):
        golden = load_golden_set(path)
        document = golden.document_path
        if not (_inside(document, PROJECT_ROOT) or _inside(document, CORPUS_DIR)):
            raise GoldenSetError(
                f"Golden set {path.name} names {golden.document!r}, which is outside the project and the corpus "
                "folder; bundled golden sets may only reference documents there."
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
    ``question_type`` (metrics-generated, domain-relevant, novel-generated).
    """
    if path is None:
        _require_corpus()
        path = CORPUS_DIR / FINANCEBENCH_FILE
    rows = read_financebench(path, limit)
    documents, doc_ids = page_collection(rows)
    lengths = {document.doc_id: len(document.text) for document in documents}
    cases = tuple(
        Case(row.id, row.question, row.question_type, doc_id, (0, lengths[doc_id]))
        for row, doc_id in zip(rows, doc_ids, strict=True)
    )
    return EvalSet(SetName.FINANCEBENCH.value, (EvalGroup(documents, cases),))


def load_eval_set(name: SetName | str, limit: int | None = None) -> EvalSet:
    """Load a named set, documents included; ``limit`` keeps only the first cases (for quick runs).

    Raises:
        CorpusMissingError: the set needs ``../shared/corpus`` and it is missing.
        RSEError: a golden set or the FinanceBench CSV is malformed.
    """
    name = SetName.parse(name) if isinstance(name, str) else name
    if name is SetName.FINANCEBENCH:
        return financebench_set(limit)
    groups = []
    remaining = limit
    for golden in golden_sets(name):
        if remaining is not None and remaining <= 0:
            break
        group = golden_group(golden)
        if remaining is not None:
            group = EvalGroup(group.documents, group.cases[:remaining])
            remaining -= len(group.cases)
        groups.append(group)
    return EvalSet(name.value, tuple(groups))
