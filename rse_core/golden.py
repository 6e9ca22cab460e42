"""Golden sets: queries with the character span that answers them, and phrase matching.

A golden set (schema ``rse-golden/1``, documented in ``sample_docs/FORMAT.md``) names a document
and lists queries, each with its kind, the gold span as character offsets into the loaded text,
and the span's first and last phrase so the offsets can be re-checked when extraction changes.
``sample_docs/build.py`` fills the offsets from the phrases; the evaluation checks them.

Matching is exact except for whitespace: the words of a phrase may be separated by any run of
whitespace in the text (PDF extraction turns line wraps into newlines), and a line break may also
fall right after a hyphen or slash inside a word ("full-time" may come out as "full-\\ntime").
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from .errors import RSEError

SCHEMA = "rse-golden/1"
QUERY_KINDS = ("factoid", "broad", "gapped")

__all__ = [
    "QUERY_KINDS",
    "SCHEMA",
    "GoldenQuery",
    "GoldenSet",
    "GoldenSetError",
    "PhraseError",
    "find_phrase_all",
    "load_golden_set",
    "locate_phrase",
    "locate_region",
    "locate_unique_phrase",
    "phrase_regex",
]


class PhraseError(ValueError):
    """A phrase is missing from the text, or occurs more often than allowed."""


def phrase_regex(phrase: str) -> re.Pattern[str]:
    """Compile a regex matching ``phrase`` with loose whitespace."""
    words = phrase.split()
    if not words:
        raise PhraseError("empty phrase")
    parts = []
    for word in words:
        # Allow a line break after an in-word hyphen or slash.
        pieces = re.split(r"([-/])", word)
        parts.append("".join(re.escape(p) + r"\s*" if p in "-/" and p else re.escape(p) for p in pieces))
    return re.compile(r"\s+".join(parts))


def find_phrase_all(text: str, phrase: str, start: int = 0) -> list[tuple[int, int]]:
    """All non-overlapping matches of ``phrase`` in ``text[start:]`` as (start, end) offsets."""
    return [(m.start(), m.end()) for m in phrase_regex(phrase).finditer(text, start)]


def locate_phrase(text: str, phrase: str, start: int = 0) -> tuple[int, int]:
    """First match of ``phrase`` at or after offset ``start``; raises PhraseError if none."""
    m = phrase_regex(phrase).search(text, start)
    if m is None:
        raise PhraseError(f"phrase not found after offset {start}: {phrase!r}")
    return m.start(), m.end()


def locate_unique_phrase(text: str, phrase: str) -> tuple[int, int]:
    """The single match of ``phrase`` in ``text``; raises PhraseError if missing or ambiguous."""
    hits = find_phrase_all(text, phrase)
    if not hits:
        raise PhraseError(f"phrase not found: {phrase!r}")
    if len(hits) > 1:
        raise PhraseError(f"phrase occurs {len(hits)} times (must be unique): {phrase!r}")
    return hits[0]


def locate_region(text: str, first_phrase: str, last_phrase: str) -> tuple[int, int]:
    """(start_char, end_char) of a gold region, end exclusive.

    ``first_phrase`` must occur exactly once; the region ends at the end of the first occurrence
    of ``last_phrase`` that starts at or after the start of ``first_phrase`` (so the two phrases
    may be the same sentence or overlap).
    """
    start, first_end = locate_unique_phrase(text, first_phrase)
    try:
        _, end = locate_phrase(text, last_phrase, start)
    except PhraseError:
        raise PhraseError(f"last phrase not found after first phrase: {last_phrase!r}") from None
    return start, max(end, first_end)


class GoldenSetError(RSEError):
    """A golden set file is malformed or does not match its document."""


@dataclass(frozen=True)
class GoldenQuery:
    """One query and the character span ``start_char:end_char`` that answers it."""

    id: str
    query: str
    kind: str
    start_char: int
    end_char: int
    first_phrase: str = ""
    last_phrase: str = ""
    note: str = ""


@dataclass(frozen=True)
class GoldenSet:
    """A document (path relative to the golden file) and its golden queries."""

    document: str
    queries: tuple[GoldenQuery, ...]
    path: Path | None = None

    @property
    def document_path(self) -> Path:
        base = self.path.parent if self.path is not None else Path.cwd()
        return base / self.document

    def to_dict(self) -> dict[str, object]:
        return {"schema": SCHEMA, "document": self.document, "queries": [asdict(query) for query in self.queries]}

    def check_offsets(self, text: str) -> list[str]:
        """Problems where a query's stored span no longer starts/ends with its phrases."""
        problems = []
        for query in self.queries:
            if not query.first_phrase or not query.last_phrase:
                continue
            span = text[query.start_char : query.end_char]
            if not phrase_regex(query.first_phrase).match(span):
                problems.append(f"{query.id}: the span does not start with {query.first_phrase!r}")
            if not phrase_regex(query.last_phrase).search(span) or not re.search(
                phrase_regex(query.last_phrase).pattern + r"\Z", span
            ):
                problems.append(f"{query.id}: the span does not end with {query.last_phrase!r}")
        return problems


def parse_golden_set(data: object, path: Path | None = None) -> GoldenSet:
    """Validate golden-set JSON (already parsed); errors name the query and the field."""
    if not isinstance(data, dict):
        raise GoldenSetError("A golden set must be a JSON object with 'document' and 'queries'.")
    if data.get("schema", SCHEMA) != SCHEMA:
        raise GoldenSetError(f"Unknown golden-set schema {data.get('schema')!r}; expected {SCHEMA!r}.")
    document = data.get("document")
    raw_queries = data.get("queries")
    if not isinstance(document, str) or not document:
        raise GoldenSetError("The golden set needs a 'document' (file name of the PDF or text file).")
    if not isinstance(raw_queries, list) or not raw_queries:
        raise GoldenSetError("The golden set needs a non-empty 'queries' list.")
    queries, seen = [], set()
    for number, item in enumerate(raw_queries):
        label = item.get("id", f"#{number}") if isinstance(item, dict) else f"#{number}"
        if not isinstance(item, dict):
            raise GoldenSetError(f"Query {label} must be an object.")
        missing = [key for key in ("id", "query", "kind", "start_char", "end_char") if key not in item]
        if missing:
            raise GoldenSetError(f"Query {label} is missing {', '.join(missing)}.")
        if item["kind"] not in QUERY_KINDS:
            raise GoldenSetError(f"Query {label}: kind must be one of {', '.join(QUERY_KINDS)}, not {item['kind']!r}.")
        start, end = item["start_char"], item["end_char"]
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end):
            raise GoldenSetError(f"Query {label}: need 0 <= start_char < end_char (got {start!r}, {end!r}).")
        if item["id"] in seen:
            raise GoldenSetError(f"Query id {item['id']!r} appears twice.")
        seen.add(item["id"])
        queries.append(
            GoldenQuery(
                id=str(item["id"]),
                query=str(item["query"]),
                kind=item["kind"],
                start_char=start,
                end_char=end,
                first_phrase=str(item.get("first_phrase", "")),
                last_phrase=str(item.get("last_phrase", "")),
                note=str(item.get("note", "")),
            )
        )
    return GoldenSet(document=document, queries=tuple(queries), path=path)


def load_golden_set(path: str | Path) -> GoldenSet:
    """Read and validate a golden-set JSON file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise GoldenSetError(f"Could not read golden set {path.name}: {error}") from error
    return parse_golden_set(data, path)
