"""Golden sets: queries with the character span that answers them, and phrase matching.

A golden set (schema ``rse-golden/1``, documented in ``sample_docs/FORMAT.md``) names a document
and lists queries, each with its kind, the gold span as character offsets into the loaded text,
and the span's first and last phrase so the offsets can be re-checked when extraction changes.
``sample_docs/build.py`` fills the offsets from the phrases; the evaluation checks them.

Matching is exact except for whitespace: the words of a phrase may be separated by any run of
whitespace in the text (PDF extraction turns line wraps into newlines), and a line break may also
fall right after a hyphen or slash inside a word ("full-time" may come out as "full-\\ntime").
Both the golden set and the document may come from a user, so the matching is done in linear time
by :mod:`rse_core.evaluation.phrase_match`, never by a regular expression on their text.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, replace
from pathlib import Path, PurePath

from rse_core.errors import RSEError
from rse_core.evaluation import phrase_match

SCHEMA = "rse-golden/1"
QUERY_KINDS = ("factoid", "broad", "gapped")
MAX_QUERIES = 1000
MAX_GOLDEN_BYTES = 5_000_000
MIN_PHRASE_WORDS = 5
REQUIRED_FIELDS = ("id", "query", "kind", "start_char", "end_char")
OPTIONAL_TEXT_FIELDS = ("first_phrase", "last_phrase", "note")
_MAX_LISTED = 8  # problems named in one error message; the rest are counted

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
    "parse_golden_json",
    "parse_golden_set",
    "phrase_regex",
    "query_for_span",
    "same_query",
]


class PhraseError(ValueError):
    """A phrase is missing from the text, or occurs more often than allowed."""


def phrase_regex(phrase: str) -> re.Pattern[str]:
    """A regex for ``phrase`` with loose whitespace, for callers that want a pattern.

    The matching here does not use it (see :mod:`rse_core.evaluation.phrase_match`). A word-final
    hyphen or slash is followed by ``\\s+`` alone, never ``\\s*\\s+``, which backtracks exponentially.
    """
    words = phrase.split()
    if not words:
        raise PhraseError("empty phrase")
    parts = []
    for number, word in enumerate(words):
        pieces = [piece for piece in re.split(r"([-/])", word) if piece]
        last = number == len(words) - 1
        parts.append(
            "".join(
                re.escape(piece) + (r"\s*" if piece in "-/" and (at < len(pieces) - 1 or last) else "")
                for at, piece in enumerate(pieces)
            )
        )
    return re.compile(r"\s+".join(parts))


def _checked_phrase(phrase: str) -> str:
    if not phrase.split():
        raise PhraseError("empty phrase")
    return phrase


def find_phrase_all(text: str, phrase: str, start: int = 0) -> list[tuple[int, int]]:
    """All non-overlapping matches of ``phrase`` in ``text[start:]`` as (start, end) offsets."""
    return phrase_match.find_all(text, _checked_phrase(phrase), start)


def locate_phrase(text: str, phrase: str, start: int = 0) -> tuple[int, int]:
    """First match of ``phrase`` at or after offset ``start``; raises PhraseError if none."""
    found = phrase_match.find_first(text, _checked_phrase(phrase), start)
    if found is None:
        raise PhraseError(f"phrase not found after offset {start}: {phrase!r}")
    return found


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


def _problems_error(what: str, problems: list[str]) -> GoldenSetError:
    """One error naming the first few problems and counting the rest."""
    listed = "; ".join(problems[:_MAX_LISTED])
    more = f"; and {len(problems) - _MAX_LISTED} more" if len(problems) > _MAX_LISTED else ""
    count = "1 problem" if len(problems) == 1 else f"{len(problems)} problems"
    return GoldenSetError(f"{what} has {count}: {listed}{more}.")


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

    @property
    def span(self) -> tuple[int, int]:
        return self.start_char, self.end_char


@dataclass(frozen=True)
class GoldenSet:
    """A document (path relative to the golden file) and its golden queries."""

    document: str
    queries: tuple[GoldenQuery, ...]
    path: Path | None = None

    @property
    def document_path(self) -> Path:
        """The document, resolved relative to the golden file (it may lie outside the project).

        Only a golden set read from a file has a path to resolve against: a set parsed from an
        upload names its document by file name alone (:attr:`document_name`), and is matched
        against the documents already loaded, so an uploaded set never makes the app open a path.

        Raises:
            GoldenSetError: the set was not read from a file.
        """
        if self.path is None:
            raise GoldenSetError(
                f"This golden set was not read from a file, so its document {self.document_name} is matched "
                "by file name among the loaded documents; load that document first."
            )
        return self.path.parent / self.document

    @property
    def document_name(self) -> str:
        """The document's file name without folders: what an uploaded file is matched by."""
        return PurePath(self.document.replace("\\", "/")).name

    def to_dict(self) -> dict[str, object]:
        return {"schema": SCHEMA, "document": self.document, "queries": [asdict(query) for query in self.queries]}

    def to_json(self) -> str:
        """The golden set as ``rse-golden/1`` JSON (what ``load_golden_set`` reads back)."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def with_query(self, query: GoldenQuery) -> GoldenSet:
        """A copy with ``query`` appended.

        Raises:
            GoldenSetError: its id is taken, or the same query (ignoring case and spacing) is in
                the set already: a query has one answer span, and a repeat would count twice.
        """
        if any(existing.id == query.id for existing in self.queries):
            raise GoldenSetError(f"Query id {query.id!r} is already in the golden set; choose another id.")
        same = next((existing for existing in self.queries if same_query(existing.query, query.query)), None)
        if same is not None:
            raise GoldenSetError(
                f"The query {same.query!r} is already {same.id} in the golden set; a query has one answer span."
            )
        return replace(self, queries=(*self.queries, query))

    def check_offsets(self, text: str) -> list[str]:
        """Problems where a query's span lies outside ``text`` or no longer starts/ends with its phrases.

        A query without phrases is only checked for its range. When the phrases are found
        elsewhere in the text, the problem says where, so a stale offset is easy to fix.
        """
        problems = []
        for query in self.queries:
            if query.end_char > len(text):
                problems.append(
                    f"query {query.id}: end_char {query.end_char} is past the end of the document "
                    f"({len(text)} characters)"
                )
                continue
            if not query.first_phrase or not query.last_phrase:
                continue
            span = text[query.start_char : query.end_char]
            wrong = []
            if not phrase_match.starts_with(span, _checked_phrase(query.first_phrase)):
                wrong.append(f"does not start with first_phrase {query.first_phrase!r}")
            if not phrase_match.ends_with(span, _checked_phrase(query.last_phrase)):
                wrong.append(f"does not end with last_phrase {query.last_phrase!r}")
            if wrong:
                problems.append(
                    f"query {query.id}: the text at {query.start_char}-{query.end_char} {' and '.join(wrong)}"
                    f" ({_where_phrases_are(text, query)})"
                )
        return problems

    def validate_document(self, text: str) -> None:
        """Raise GoldenSetError naming every query whose span does not fit ``text``."""
        problems = self.check_offsets(text)
        if problems:
            raise _problems_error(f"The golden set for {self.document_name}", problems)


def _where_phrases_are(text: str, query: GoldenQuery) -> str:
    """Where the phrases of ``query`` actually are, as advice for a problem message."""
    try:
        start, end = locate_region(text, query.first_phrase, query.last_phrase)
    except PhraseError as error:
        return str(error)
    return f"the phrases are found at {start}-{end}"


def _query_problems(item: object, label: str) -> list[str]:
    """Every problem with one query object of the JSON (empty if it is valid)."""
    if not isinstance(item, dict):
        return [f"{label} must be an object with {', '.join(REQUIRED_FIELDS)}, not {type(item).__name__}"]
    missing = [key for key in REQUIRED_FIELDS if key not in item]
    problems = [f"{label} is missing {', '.join(repr(key) for key in missing)}"] if missing else []
    for key in ("id", "query"):
        if key in item and (not isinstance(item[key], str) or not item[key].strip()):
            problems.append(f"{label}: {key!r} must be a non-empty string, not {item[key]!r}")
    if "kind" in item and item["kind"] not in QUERY_KINDS:
        problems.append(f"{label}: 'kind' must be one of {', '.join(QUERY_KINDS)}, not {item['kind']!r}")
    numbers = {}
    for key in ("start_char", "end_char"):
        if key in item:
            value = item[key]
            if isinstance(value, bool) or not isinstance(value, int):
                problems.append(f"{label}: {key!r} must be a whole number of characters, not {value!r}")
            else:
                numbers[key] = value
    if len(numbers) == 2 and not 0 <= numbers["start_char"] < numbers["end_char"]:
        problems.append(
            f"{label}: need 0 <= start_char < end_char (got {numbers['start_char']}, {numbers['end_char']})"
        )
    for key in OPTIONAL_TEXT_FIELDS:
        if key in item and not isinstance(item[key], str):
            problems.append(f"{label}: {key!r} must be a string, not {item[key]!r}")
    return problems


def parse_golden_set(data: object, path: Path | None = None, *, name: str = "") -> GoldenSet:
    """Validate golden-set JSON (already parsed); errors name the query and the field.

    Raises:
        GoldenSetError: listing the problems found (missing fields, wrong types, unknown kinds,
            reversed or negative offsets, duplicate ids). Offsets against the document itself are
            checked by :meth:`GoldenSet.validate_document`, which needs the document's text.
    """
    name = name or (path.name if path is not None else "")
    where = f"Golden set {name}" if name else "The golden set"
    if not isinstance(data, dict):
        raise GoldenSetError(
            f"{where} must be a JSON object with 'schema', 'document' and 'queries', not {type(data).__name__}."
        )
    if data.get("schema", SCHEMA) != SCHEMA:
        raise GoldenSetError(f"{where}: unknown schema {data.get('schema')!r}; expected {SCHEMA!r}.")
    document = data.get("document")
    raw_queries = data.get("queries")
    if not isinstance(document, str) or not document.strip():
        raise GoldenSetError(f"{where} needs a 'document': the file name of the PDF or text file it is about.")
    if not isinstance(raw_queries, list) or not raw_queries:
        raise GoldenSetError(f"{where} needs a non-empty 'queries' list.")
    if len(raw_queries) > MAX_QUERIES:
        raise GoldenSetError(f"{where} has {len(raw_queries)} queries; at most {MAX_QUERIES} are supported.")
    problems: list[str] = []
    seen: set[str] = set()
    for number, item in enumerate(raw_queries, 1):
        item_id = item.get("id") if isinstance(item, dict) else None
        label = f"query {item_id}" if isinstance(item_id, str) and item_id.strip() else f"query #{number}"
        problems += _query_problems(item, label)
        if isinstance(item_id, str):
            if item_id in seen:
                problems.append(f"query id {item_id!r} appears twice")
            seen.add(item_id)
    if problems:
        raise _problems_error(where, problems)
    queries = tuple(
        GoldenQuery(
            id=item["id"],
            query=item["query"],
            kind=item["kind"],
            start_char=item["start_char"],
            end_char=item["end_char"],
            **{key: item.get(key, "") for key in OPTIONAL_TEXT_FIELDS},
        )
        for item in raw_queries
    )
    return GoldenSet(document=document, queries=queries, path=path)


def parse_golden_json(data: bytes | str, name: str = "", path: Path | None = None) -> GoldenSet:
    """Parse golden-set JSON from bytes or text (an upload); every failure is a GoldenSetError.

    ``name`` (e.g. the uploaded file's name) labels the error messages.
    """
    name = name or (path.name if path is not None else "")
    where = f"Golden set {name}" if name else "The golden set"
    if isinstance(data, bytes):
        if len(data) > MAX_GOLDEN_BYTES:
            raise GoldenSetError(f"{where} is {len(data):,} bytes; a golden set may be at most {MAX_GOLDEN_BYTES:,}.")
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise GoldenSetError(f"{where} is not UTF-8 text; a golden set is a JSON file.") from None
    try:
        parsed = json.loads(data)
    except json.JSONDecodeError as error:
        raise GoldenSetError(
            f"{where} is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}."
        ) from None
    except RecursionError:
        raise GoldenSetError(f"{where} is nested too deeply to be a golden set.") from None
    except ValueError as error:  # e.g. an integer longer than Python converts (4,300 digits)
        reason = str(error).split(";")[0].split("\n")[0]
        raise GoldenSetError(f"{where} holds a value that cannot be read ({reason}); fix that number.") from None
    return parse_golden_set(parsed, path, name=name)


def load_golden_set(path: str | Path) -> GoldenSet:
    """Read and validate a golden-set JSON file."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise GoldenSetError(f"Could not read golden set {path.name}: {error.strerror or error}.") from error
    return parse_golden_json(raw, path=path)


def _phrase_pins(text: str, phrase: str, start: int) -> bool:
    """``phrase`` occurs exactly once in ``text``, at ``start``."""
    hits = find_phrase_all(text, phrase)
    return len(hits) == 1 and hits[0][0] == start


def query_for_span(
    text: str, start: int, end: int, *, query_id: str, query: str, kind: str, note: str = ""
) -> GoldenQuery:
    """A golden query for ``text[start:end]`` with first/last phrases taken from the span.

    Whitespace at either end of the span is dropped. Each phrase is the shortest run of words
    (at least :data:`MIN_PHRASE_WORDS`, or the whole span if it is shorter) that pins the span
    down: the first phrase occurs once in the text, and :func:`locate_region` finds exactly
    this span from the two phrases, so :meth:`GoldenSet.check_offsets` accepts it.

    Raises:
        GoldenSetError: empty span, bad id/query/kind, or no phrases make the span unique.
    """
    problems = _query_problems(
        {"id": query_id, "query": query, "kind": kind, "start_char": start, "end_char": end}, f"query {query_id}"
    )
    if problems:
        raise GoldenSetError("; ".join(problems) + ".")
    span = text[start:end]
    if not span.strip():
        raise GoldenSetError("The selected span holds no text.")
    start += len(span) - len(span.lstrip())
    end -= len(span) - len(span.rstrip())
    words = text[start:end].split()
    shortest = min(MIN_PHRASE_WORDS, len(words))
    first = next(
        (
            " ".join(words[:n])
            for n in range(shortest, len(words) + 1)
            if _phrase_pins(text, " ".join(words[:n]), start)
        ),
        None,
    )
    if first is None:
        raise GoldenSetError("The start of the span is not unique in the document, so no first phrase pins it down.")
    for n in range(shortest, len(words) + 1):
        last = " ".join(words[-n:])
        try:
            if locate_region(text, first, last) == (start, end):
                break
        except PhraseError:
            continue
    else:
        raise GoldenSetError("No last phrase pins down the end of the span.")
    return GoldenQuery(
        id=query_id.strip(),
        query=query.strip(),
        kind=kind,
        start_char=start,
        end_char=end,
        first_phrase=first,
        last_phrase=last,
        note=note.strip(),
    )


def same_query(first: str, second: str) -> bool:
    """Whether two queries are the same, ignoring case and spacing (a golden set holds each once)."""
    return " ".join(first.casefold().split()) == " ".join(second.casefold().split())
