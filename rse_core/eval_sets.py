"""The evaluation sets by name: the samples, the external golden set, FinanceBench.

``samples`` are the golden sets of the bundled sample documents (``sample_docs/``), written with
the documents. ``external`` are golden sets written by reading third-party documents nobody here
wrote (``eval_sets/external/``); they reference the documents in ``../shared/corpus`` by a path
relative to the golden file and never copy their text. ``financebench`` is the FinanceBench
sample (:mod:`rse_core.financebench`), read from the same folder.

Only these bundled golden files are ever resolved to a path; each resolved document must lie in
the project or in the corpus folder (:func:`golden_sets`), so a stray ``..`` in a bundled file
cannot point the evaluation anywhere else.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from .errors import RSEError
from .golden import GoldenSet, GoldenSetError, load_golden_set

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DIR = PROJECT_ROOT / "sample_docs"
EXTERNAL_DIR = PROJECT_ROOT / "eval_sets" / "external"
CORPUS_DIR = PROJECT_ROOT.parent / "shared" / "corpus"
"""``../shared/corpus`` from the project root: third-party documents, never copied into the project."""

__all__ = [
    "CORPUS_DIR",
    "EXTERNAL_DIR",
    "SAMPLE_DIR",
    "CorpusMissingError",
    "SetName",
    "corpus_missing_message",
    "golden_paths",
    "golden_sets",
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
        raise RSEError("FinanceBench is not a golden set; load it with rse_core.financebench.load_financebench().")
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
