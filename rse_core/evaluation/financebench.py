"""FinanceBench's open sample as a collection of evidence pages with one question each.

FinanceBench (Patronus AI, CC BY-NC 4.0) pairs questions about company filings with the page of
the filing that answers them (``evidence_text``). The filings are not in the sample, so the
collection RSE searches is the evidence pages themselves: 150 rows, one page each, built in
memory from ``financebench_sample_150.csv`` in ``$RSE_CORPUS_DIR`` and never copied into the project.
A question is answered well when RSE's segments cover its evidence page: the gold span is the
whole page. Rows that quote the same page text share one document (documents are identified by
the hash of their text), so the collection holds fewer documents than rows.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from rse_core.documents import Document
from rse_core.errors import RSEError

FILE_NAME = "financebench_sample_150.csv"
COLUMNS = ("financebench_id", "doc_name", "question_type", "question", "evidence_text", "page_number")

__all__ = ["FILE_NAME", "FinanceBenchError", "FinanceBenchRow", "page_collection", "read_financebench"]


class FinanceBenchError(RSEError):
    """The FinanceBench CSV is missing or has not the expected columns."""


@dataclass(frozen=True)
class FinanceBenchRow:
    """One question with its evidence page."""

    id: str
    doc_name: str
    question_type: str
    question: str
    evidence_text: str
    page_number: str

    @property
    def page_name(self) -> str:
        """A file-like name for the evidence page, e.g. ``3M_2018_10K_p60.txt``."""
        return f"{self.doc_name}_p{self.page_number or 'x'}.txt"


def read_financebench(source: str | Path | bytes, limit: int | None = None) -> list[FinanceBenchRow]:
    """The rows of the CSV (fields may span lines), optionally only the first ``limit``.

    Raises:
        FinanceBenchError: the file cannot be read, lacks a column, or has a row without a
            question or evidence text.
    """
    try:
        raw = source if isinstance(source, bytes) else Path(source).read_bytes()
        text = raw.decode("utf-8-sig")
    except OSError as error:
        raise FinanceBenchError(f"Could not read the FinanceBench CSV: {error.strerror or error}.") from error
    except UnicodeDecodeError:
        raise FinanceBenchError("The FinanceBench CSV is not UTF-8 text.") from None
    reader = csv.DictReader(io.StringIO(text))
    missing = [column for column in COLUMNS if column not in (reader.fieldnames or [])]
    if missing:
        raise FinanceBenchError(f"The FinanceBench CSV lacks the column(s) {', '.join(missing)}.")
    rows = []
    for number, record in enumerate(reader, 1):
        if limit is not None and len(rows) >= limit:
            break
        if not record["question"].strip() or not record["evidence_text"].strip():
            raise FinanceBenchError(f"Row {number} of the FinanceBench CSV has no question or no evidence text.")
        rows.append(FinanceBenchRow(**{("id" if c == "financebench_id" else c): record[c] for c in COLUMNS}))
    return rows


def page_collection(rows: list[FinanceBenchRow]) -> tuple[tuple[Document, ...], tuple[str, ...]]:
    """The distinct evidence pages as in-memory documents, and the ``doc_id`` of each row's page.

    Two rows with the same page text get the same document (the same ``doc_id``), named after
    the first row that quotes it, so the collection holds each page once.
    """
    documents: dict[str, Document] = {}
    doc_ids = []
    for row in rows:
        document = Document.from_text(row.evidence_text, name=row.page_name)
        documents.setdefault(document.doc_id, document)
        doc_ids.append(document.doc_id)
    return tuple(documents.values()), tuple(doc_ids)
