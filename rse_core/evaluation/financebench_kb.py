"""FinanceBench over its real filings: 129 questions asked of one knowledge base of 74 filings.

The open sample of FinanceBench (Patronus AI, CC BY-NC 4.0; ``$RSE_FINANCEBENCH_DIR``) names,
for each question, the filing and the zero-based page that answers it, with the annotator's
excerpt of that page (``evidence_text``). Here each excerpt is located in the text
``load_document`` gives for the filing, so both the page and the exact characters are gold.

The annotators extracted text with another tool: words are split or joined differently ("Cash
Flow s"), so an excerpt is matched on the page with whitespace ignored, and when that fails, by
aligning the two character streams (:func:`locate_excerpt`). An excerpt that cannot be found on
its page (a figure, or a page the PDF has no text for) is gold as the whole page and counted.

Nothing from the benchmark is copied into the project: the located spans are cached under the
cache folder (``$RSE_CACHE_DIR``), keyed by each filing's content hash.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from rse_core.documents import Document, load_document
from rse_core.embedders import Embedder, embedder_from_name
from rse_core.errors import RSEError
from rse_core.evaluation.golden_kb import variant_dir
from rse_core.evaluation.kb_eval import GoldItem
from rse_core.kb import KnowledgeBase, ensure_built
from rse_core.kb.build import BuildCallback, content_id
from rse_core.scoring.embedding_cache import default_cache_dir

FOLDER_ENV = "RSE_FINANCEBENCH_DIR"
KB_ENV = "RSE_FINANCEBENCH_KB"
QUESTIONS_FILE = "financebench_open_source.jsonl"
PDF_FOLDER = "pdfs"
GOLD_CACHE = "financebench_kb_gold.json"
MIN_BLOCK = 6
"""Aligned runs shorter than this many characters are chance (digits, short words), not the excerpt."""
MIN_MATCHED = 0.6
"""Share of an excerpt's characters that must align with the page for its span to count as found."""

__all__ = [
    "Evidence",
    "FinanceBenchKBError",
    "FinanceBenchQuestion",
    "GoldSpan",
    "default_folder",
    "default_kb_dir",
    "locate_excerpt",
    "locate_gold",
    "read_questions",
]


class FinanceBenchKBError(RSEError):
    """The FinanceBench folder is missing or not as expected."""


@dataclass(frozen=True)
class Evidence:
    """One evidence item: a page of a filing (zero-based, as FinanceBench gives it) and its excerpt."""

    doc_name: str
    page: int
    text: str


@dataclass(frozen=True)
class FinanceBenchQuestion:
    id: str
    question: str
    kind: str
    doc_name: str
    evidence: tuple[Evidence, ...]


@dataclass(frozen=True)
class GoldSpan:
    """Where one evidence item is in ``load_document(filing).text``.

    ``page_start``/``page_end`` bound its page; ``start``/``end`` its excerpt (the page itself
    when ``located`` is False)."""

    doc_id: str
    page: int
    page_start: int
    page_end: int
    start: int
    end: int
    located: bool


def default_folder() -> Path | None:
    """``$RSE_FINANCEBENCH_DIR`` (FinanceBench's questions and filings are not shipped), or None when unset."""
    configured = os.environ.get(FOLDER_ENV, "").strip()
    return Path(configured) if configured else None


def default_kb_dir() -> Path:
    """``$RSE_FINANCEBENCH_KB``, else ``financebench-kb`` in the cache folder: built once, reused."""
    configured = os.environ.get(KB_ENV)
    return Path(configured) if configured else default_cache_dir() / "kb" / "financebench"


def missing_message(folder: Path | None) -> str | None:
    """Why the folder (None: not given) cannot be used, or None."""
    if folder is None:
        return f"FinanceBench's filings are not shipped: set {FOLDER_ENV} to the folder with {QUESTIONS_FILE}."
    if not (folder / QUESTIONS_FILE).is_file() or not (folder / PDF_FOLDER).is_dir():
        return f"FinanceBench is not at {folder} (needs {QUESTIONS_FILE} and {PDF_FOLDER}/); set {FOLDER_ENV}."
    return None


def read_questions(
    folder: Path | None, limit: int | None = None, filings: Iterable[str] | None = None
) -> list[FinanceBenchQuestion]:
    """The questions whose filing has a PDF in ``folder/pdfs`` (129 of the open sample's 150), in
    file order; ``filings`` (names without ``.pdf``) narrows them to those filings."""
    problem = missing_message(folder)
    if problem:
        raise FinanceBenchKBError(problem)
    present = {path.stem for path in (folder / PDF_FOLDER).glob("*.pdf")}
    wanted = present if filings is None else present & set(filings)
    questions = []
    for number, line in enumerate((folder / QUESTIONS_FILE).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            question = FinanceBenchQuestion(
                id=str(row["financebench_id"]),
                question=str(row["question"]),
                kind=str(row["question_type"]),
                doc_name=str(row["doc_name"]),
                evidence=tuple(
                    Evidence(str(item["doc_name"]), int(item["evidence_page_num"]), str(item["evidence_text"]))
                    for item in row["evidence"]
                ),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise FinanceBenchKBError(
                f"Line {number} of {QUESTIONS_FILE} is not a FinanceBench row ({error})."
            ) from None
        if question.doc_name in wanted and all(item.doc_name in wanted for item in question.evidence):
            questions.append(question)
        if limit is not None and len(questions) >= limit:
            break
    return questions


def _stream(text: str) -> tuple[str, list[int]]:
    """``text`` without whitespace, lower-cased, and each kept character's offset in ``text``."""
    kept, where = [], []
    for index, character in enumerate(text):
        if not character.isspace():
            kept.append(character.lower())
            where.append(index)
    return "".join(kept), where


def locate_excerpt(page_text: str, excerpt: str) -> tuple[int, int] | None:
    """The span of ``page_text`` the excerpt was taken from (offsets within ``page_text``), or None.

    Whitespace is ignored on both sides; an exact match wins, else the excerpt's characters are
    aligned with the page's (``difflib``, runs of at least :data:`MIN_BLOCK`) and the span runs
    from the first aligned run to the last, if at least :data:`MIN_MATCHED` of it aligned.
    """
    page, where = _stream(page_text)
    wanted, _ = _stream(excerpt)
    if not wanted or not page:
        return None
    found = page.find(wanted)
    if found >= 0:
        return where[found], where[found + len(wanted) - 1] + 1
    matcher = difflib.SequenceMatcher(None, page, wanted, autojunk=False)
    blocks = [block for block in matcher.get_matching_blocks() if block.size >= MIN_BLOCK]
    if not blocks or sum(block.size for block in blocks) < MIN_MATCHED * len(wanted):
        return None
    return where[blocks[0].a], where[blocks[-1].a + blocks[-1].size - 1] + 1


def locate_gold(
    questions: Iterable[FinanceBenchQuestion],
    folder: Path,
    cache: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, tuple[GoldSpan, ...]]:
    """Each question's gold spans (by question id), one per evidence item; filings are loaded
    only when the cache lacks them."""
    cache = cache or default_cache_dir() / GOLD_CACHE
    try:
        stored = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        stored = {}
    questions = list(questions)
    hashes = {
        name: content_id(folder / PDF_FOLDER / f"{name}.pdf")
        for name in {e.doc_name for q in questions for e in q.evidence}
    }
    documents: dict[str, Document] = {}
    gold: dict[str, tuple[GoldSpan, ...]] = {}
    changed = False
    for question in questions:
        spans = []
        for number, item in enumerate(question.evidence):
            key = (
                f"{question.id}:{number}:{hashes[item.doc_name]}:{hashlib.sha256(item.text.encode()).hexdigest()[:16]}"
            )
            if key not in stored:
                if item.doc_name not in documents:
                    if progress:
                        progress(f"reading {item.doc_name}.pdf for its evidence pages")
                    documents[item.doc_name] = load_document(folder / PDF_FOLDER / f"{item.doc_name}.pdf")
                stored[key] = asdict(_gold_span(documents[item.doc_name], item))
                changed = True
            spans.append(GoldSpan(**stored[key]))
        gold[question.id] = tuple(spans)
    if changed:
        cache.parent.mkdir(parents=True, exist_ok=True)
        temporary = cache.with_suffix(".tmp")
        temporary.write_text(json.dumps(stored), encoding="utf-8")
        os.replace(temporary, cache)
    return gold


def _gold_span(document: Document, item: Evidence) -> GoldSpan:
    starts = document.page_starts
    if not 0 <= item.page < len(starts):
        raise FinanceBenchKBError(
            f"{document.name} has {len(starts)} pages; FinanceBench's evidence is on page {item.page + 1}."
        )
    page_start = starts[item.page]
    page_end = starts[item.page + 1] if item.page + 1 < len(starts) else len(document.text)
    found = locate_excerpt(document.text[page_start:page_end], item.text)
    start, end = (page_start + found[0], page_start + found[1]) if found else (page_start, page_end)
    return GoldSpan(document.doc_id, item.page + 1, page_start, page_end, start, end, found is not None)


def case_items(
    questions: Iterable[FinanceBenchQuestion], gold: dict[str, tuple[GoldSpan, ...]]
) -> list[tuple[str, str, str, str, tuple[GoldItem, ...]]]:
    """(id, question, kind, filing's doc_id, gold) per question, for :func:`kb_eval.prepare_cases`."""
    items = []
    for question in questions:
        spans = gold[question.id]
        own = next(
            (
                span.doc_id
                for span, item in zip(spans, question.evidence, strict=True)
                if item.doc_name == question.doc_name
            ),
            spans[0].doc_id,
        )
        items.append(
            (
                question.id,
                question.question,
                question.kind,
                own,
                tuple(GoldItem(s.doc_id, s.page_start, s.page_end, s.start, s.end) for s in spans),
            )
        )
    return items


def ensure_kb(
    folder: Path | None,
    kb_dir: Path,
    progress: BuildCallback | None = None,
    embedder: Embedder | None = None,
    name_in_title: bool | None = None,
) -> KnowledgeBase:
    """The base of every filing in ``folder/pdfs``, built (or completed) at ``kb_dir`` first:
    a build adds only the filings it lacks, so once built this only checks content hashes.
    ``embedder``: a new base's (default MiniLM), or the one an existing base is opened with;
    ``name_in_title``: see :func:`rse_core.kb.build.ensure_built`."""
    problem = missing_message(folder)
    if problem:
        raise FinanceBenchKBError(problem)
    filings = sorted((folder / PDF_FOLDER).glob("*.pdf"))
    return ensure_built(kb_dir, filings, progress, embedder=embedder, name_in_title=name_in_title)


def open_evaluation_base(
    embedder: str | None = None,
    name_in_title: bool = False,
    kb_dir: Path | None = None,
    progress: BuildCallback | None = None,
) -> KnowledgeBase:
    """The base ``rse-evaluate financebench-kb [--embedder NAME] [--name-in-title]`` searches, at
    ``kb_dir`` or in its own folder beside the default one, built (or completed) first.

    Without ``name_in_title`` a base given by ``kb_dir`` is taken as it was built."""
    folder = default_folder()
    chosen = kb_dir or variant_dir(default_kb_dir(), embedder, name_in_title)
    named = True if name_in_title else None
    return ensure_kb(folder, chosen, progress, embedder_from_name(embedder) if embedder else None, named)
