"""A named golden set's documents as one knowledge base: every query asked of all of them at once.

The single-document evaluation asks each golden query of its own document, so the first stage
cannot pick the wrong one. Here the samples (3 PDFs) or the external set (6 documents of
``$RSE_CORPUS_DIR``) are built into one base (:func:`rse_core.kb.build.ensure_built`, once, in
the cache folder) and every query goes through the base's first stage, document selection and
cross-document ranking, as a production query would, judged by
:mod:`rse_core.evaluation.kb_eval` like FinanceBench's filings.

Gold is the query's span. Its "page" is the PDF pages the span lies on; a document without pages
(a text file) has the span itself as its page, so a page hit there means the span was touched.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

from rse_core.documents import Document, load_document
from rse_core.embedders import DEFAULT_EMBEDDER, Embedder, embedder_from_name
from rse_core.errors import RSEError
from rse_core.evaluation.golden import GoldenSet
from rse_core.evaluation.kb_eval import GoldItem
from rse_core.evaluation.sets import SAMPLE_DIR, SetName, golden_sets
from rse_core.kb import KnowledgeBase, MiniLMEmbedder, ensure_built
from rse_core.kb.build import BuildCallback, content_id
from rse_core.scoring.embedding_cache import default_cache_dir

SUFFIX = "-kb"
SET_NAMES = {f"{name.value}{SUFFIX}": name for name in (SetName.SAMPLES, SetName.EXTERNAL)}
"""The command-line names of the golden sets run as knowledge bases."""
SAMPLE_EMBEDDINGS = SAMPLE_DIR / "embeddings"

CaseItem = tuple[str, str, str, str, tuple[GoldItem, ...]]

__all__ = [
    "SET_NAMES",
    "CaseItem",
    "case_items",
    "default_kb_dir",
    "ensure_golden_kb",
    "for_embedder",
    "gold_item",
    "set_embedder",
]


def default_kb_dir(name: SetName) -> Path:
    return default_cache_dir() / "kb" / f"golden-{name.value}"


def for_embedder(kb_dir: Path, embedder: str | None) -> Path:
    """``kb_dir`` for the default embedder, else a sibling named after ``embedder`` (a base holds
    one embedder's vectors, so each embedder's evaluation base is built once beside the others)."""
    if not embedder or embedder == DEFAULT_EMBEDDER:
        return kb_dir
    slug = re.sub(r"[^a-z0-9]+", "-", embedder.lower()).strip("-")[:40]
    return kb_dir.with_name(f"{kb_dir.name}-{slug}-{hashlib.sha256(embedder.encode()).hexdigest()[:8]}")


def variant_dir(kb_dir: Path, embedder: str | None, name_in_title: bool = False) -> Path:
    """The evaluation base for ``embedder`` (:func:`for_embedder`), with ``-names`` after it for a
    base whose titles start with file names: each variant is built once, beside the others."""
    chosen = for_embedder(kb_dir, embedder)
    return chosen.with_name(f"{chosen.name}-names") if name_in_title else chosen


def set_embedder(name: SetName, embedder: str | None = None) -> Embedder | None:
    """The embedder a set's base is built with: ``embedder`` by name, else the default (the samples'
    MiniLM reads their shipped embeddings; ``None`` leaves it to the base's record)."""
    bundled = [SAMPLE_EMBEDDINGS] if name is SetName.SAMPLES else []
    if embedder and embedder != DEFAULT_EMBEDDER:
        return embedder_from_name(embedder, bundled_embeddings=bundled)
    return MiniLMEmbedder(bundled_embeddings=bundled) if bundled else None


def ensure_golden_kb(
    name: SetName,
    kb_dir: Path | None = None,
    progress: BuildCallback | None = None,
    embedder: str | None = None,
    name_in_title: bool | None = None,
) -> tuple[KnowledgeBase, list[GoldenSet]]:
    """The set's golden sets and a base of their documents, built on first use with ``embedder``
    (a name of :func:`~rse_core.embedders.embedder_from_name`; default MiniLM) and, with
    ``name_in_title``, titles that start with file names.

    Raises:
        CorpusMissingError: the external set and no corpus folder (``$RSE_CORPUS_DIR``).
        RSEError: a golden set is malformed, or a document cannot be read.
    """
    sets = golden_sets(name)
    chosen = set_embedder(name, embedder)
    paths = list(dict.fromkeys(golden.document_path for golden in sets))
    kb_dir = kb_dir or variant_dir(default_kb_dir(name), embedder, bool(name_in_title))
    kb = ensure_built(kb_dir, paths, progress, embedder=chosen, name_in_title=name_in_title)
    return kb, sets


def gold_item(document: Document, start: int, end: int) -> GoldItem:
    """The span with the pages it lies on (the span itself for a document without pages)."""
    starts = document.page_starts
    if len(starts) <= 1:
        return GoldItem(document.doc_id, start, end, start, end)
    first = document.page_of(start) - 1
    last = document.page_of(max(start, end - 1))
    page_end = starts[last] if last < len(starts) else len(document.text)
    return GoldItem(document.doc_id, starts[first], page_end, start, end)


def case_items(kb: KnowledgeBase, sets: Sequence[GoldenSet], limit: int | None = None) -> list[CaseItem]:
    """(id, query, kind, doc_id, gold) per golden query, for :func:`kb_eval.prepare_cases`; ids
    are ``document-name/query-id``. ``limit`` keeps the first queries of each golden set.

    Raises:
        RSEError: a golden set's document is not in ``kb``, or its offsets do not fit the text.
    """
    items: list[CaseItem] = []
    for golden in sets:
        path = golden.document_path
        doc_id = content_id(path)
        if doc_id not in kb.documents:
            raise RSEError(f"{path.name} (golden set {golden.document_name}) is not in the base at {kb.path}.")
        document = load_document(path)  # the text the base chunked: spans line up with its chunks
        golden.validate_document(document.text)
        for query in golden.queries[:limit]:
            gold = gold_item(document, *query.span)
            items.append((f"{path.stem}/{query.id}", query.query, query.kind, doc_id, (gold,)))
    return items
