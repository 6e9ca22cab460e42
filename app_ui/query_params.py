"""The URL parameters that reproduce a view, and the one strict parser every link goes through.

A link is untrusted input: anyone can send one. :func:`parse_link` reads only the names listed
here, only finite numbers inside the sliders' ranges, only known sample, scorer, preset and model
names, and only bounded lengths; everything else becomes a notice (plain text, escaped where it
is shown) and the default. It never raises. :func:`link_values` bounds what is written back.
No Streamlit here, so the parser is tested directly (``tests/app/test_link_parser.py``).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from rse_core import ScorerName
from rse_core.param_specs import PARAM_SPECS, ParamSpec

from . import keys


def param_fields(specs: Iterable[ParamSpec] = PARAM_SPECS) -> dict[str, tuple[str, type]]:
    """URL name -> (RSEParams field, the type a link's value is read as), in the order a link lists them."""
    return {spec.url: (spec.name, str if spec.choices else spec.kind) for spec in specs}


def known_names(specs: Iterable[ParamSpec] = PARAM_SPECS) -> frozenset[str]:
    """Every URL name a link may carry: the view's and the parameters'."""
    views = (keys.URL_DOCS, keys.URL_QUERY, keys.URL_QUERY_2, keys.URL_SCORER, keys.URL_PRESET, keys.URL_MODEL)
    return frozenset({*views, keys.URL_UPLOADS, *param_fields(specs)})


PARAM_FIELDS = param_fields()
KNOWN = known_names()
STREAMLIT_OWN = keys.URL_STREAMLIT_OWN

QUERY_CHARS = 2000  # what a scorer reads of a query (rse_core.scoring.base.MAX_QUERY_CHARS)
NAME_CHARS = 100  # a sample, scorer, preset or model name
NUMBER_CHARS = 40
DOCS_CHARS = 1000
MAX_DOCS = 20
MAX_PARAMS = 60  # a longer query string is read only for the names above
SHOWN_CHARS = 40  # how much of a bad value a notice quotes
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,3})?", re.ASCII)
_COHERE_MODEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,79}")
_UPLOAD = re.compile(r"([0-9a-f]{16}):([^/\x00-\x1f]{1,120})")  # content hash, file name
UPLOAD_SEPARATOR = "/"  # never in an upload's name (a browser sends the base name)
UPLOADS_CHARS = 3000
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


@dataclass(frozen=True)
class NumberBounds:
    """The range a URL number must fall in (a slider's range), and its allowed values if fixed."""

    low: float
    high: float
    choices: tuple[int, ...] = ()


@dataclass(frozen=True)
class LinkChoices:
    """What a link may name: everything else is refused with a notice."""

    samples: Collection[str]
    scorers: Collection[str]
    presets: Collection[str]
    cross_encoders: Collection[str]
    bounds: Mapping[str, NumberBounds]  # RSEParams field -> bounds (booleans need none)
    texts: Mapping[str, Collection[str]] = field(default_factory=dict)  # RSEParams field -> allowed words
    params: tuple[ParamSpec, ...] = PARAM_SPECS  # the parameters a link may set


@dataclass(frozen=True)
class LinkUpload:
    """An uploaded file a view used: its content hash (``Document.doc_id``) and its name.

    A link cannot carry the file; it names it, so a new session can ask for it and recognise
    it by its contents whatever it is called then.
    """

    doc_id: str
    name: str

    def encoded(self) -> str:
        return f"{self.doc_id}:{self.name}"


@dataclass(frozen=True)
class LinkState:
    """What a link validly asks for (``None``: not given or refused) and what was refused, in words."""

    samples: tuple[str, ...] | None = None  # () = no sample document
    query: str | None = None
    query_2: str | None = None
    scorer: str | None = None
    model: str | None = None
    preset: str | None = None
    params: Mapping[str, object] = field(default_factory=dict)  # RSEParams field -> value
    notices: tuple[str, ...] = ()
    uploads: tuple[LinkUpload, ...] = ()


def parse_link(params: Mapping[str, object], choices: LinkChoices) -> LinkState:
    """Read a link's parameters strictly; never raises.

    ``params`` maps a name to a string or a list of strings (a repeated name); anything else
    (``st.query_params``, a dict from a test) works as long as it has ``keys`` and ``get``.
    """
    notices: list[str] = []
    values = _single_values(params, known_names(choices.params), notices)

    samples = _samples(values.get(keys.URL_DOCS), choices.samples, notices)
    query = _query(values.get(keys.URL_QUERY), "query", notices)
    query_2 = _query(values.get(keys.URL_QUERY_2), "second query", notices)
    scorer = _choice(values.get(keys.URL_SCORER), choices.scorers, "scorer", notices, "using minilm")
    model = _model(values.get(keys.URL_MODEL), scorer, choices.cross_encoders, notices)
    preset = _choice(values.get(keys.URL_PRESET), choices.presets, "preset", notices, "using the default")
    numbers: dict[str, object] = {}
    for url_name, (field_name, kind) in param_fields(choices.params).items():
        raw = values.get(url_name)
        if raw is None:
            continue
        if kind is str:
            value = _choice(raw, choices.texts.get(field_name, ()), url_name, notices, "using the default")
        else:
            value = _number(url_name, raw, kind, choices.bounds.get(field_name), notices)
        if value is not None:
            numbers[field_name] = value
    uploads = _uploads(values.get(keys.URL_UPLOADS), notices)
    return LinkState(samples, query, query_2, scorer, model, preset, numbers, tuple(notices), uploads)


def link_values(
    samples: Collection[str],
    queries: tuple[str, ...],
    scorer: str,
    model: str | None,
    numbers: Mapping[str, object],
    uploads: Sequence[LinkUpload] = (),
    specs: Iterable[ParamSpec] = PARAM_SPECS,
) -> dict[str, str]:
    """The URL parameters of a view, each bounded as :func:`parse_link` would read it back.

    ``numbers`` maps RSEParams fields (those of ``specs``) to values. A long query is written only as far as a scorer
    reads it (:data:`QUERY_CHARS`), so a 100,000-character query never becomes a huge link.
    """
    wanted: dict[str, str] = {
        keys.URL_DOCS: ",".join(samples),
        keys.URL_QUERY: queries[0][:QUERY_CHARS] if queries else "",
    }
    wanted[keys.URL_SCORER] = scorer
    if len(queries) > 1:
        wanted[keys.URL_QUERY_2] = queries[1][:QUERY_CHARS]
    if model:
        wanted[keys.URL_MODEL] = model[:NAME_CHARS]
    for url_name, (field_name, _) in param_fields(specs).items():
        if field_name in numbers:
            wanted[url_name] = format_value(numbers[field_name])
    named = [upload.encoded() for upload in uploads[:MAX_DOCS] if _UPLOAD.fullmatch(upload.encoded())]
    if named:
        wanted[keys.URL_UPLOADS] = UPLOAD_SEPARATOR.join(named)[:UPLOADS_CHARS]
    return wanted


def format_value(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def first(params: Mapping[str, object], name: str) -> str | None:
    """The first value of ``name`` (a repeated name gives a list), or ``None``."""
    value = params.get(name)
    if isinstance(value, list):
        return str(value[0]) if value else None
    return None if value is None else str(value)


# ------------------------------------------------------------------------------ the pieces


def shown(raw: str) -> str:
    """A bad value as a notice quotes it: short, one line (escaping happens where it is shown)."""
    text = " ".join(raw.split())
    return repr(text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "\u2026")


def _single_values(params: Mapping[str, object], known: Collection[str], notices: list[str]) -> dict[str, str]:
    """One string per known name (the first of a repeated one); notices for the rest."""
    try:
        names = [str(name) for name in list(params.keys())[:MAX_PARAMS]]
        extra = max(len(params.keys()) - MAX_PARAMS, 0)
    except Exception:  # not a mapping after all: read nothing
        return {}
    values: dict[str, str] = {}
    unknown = [name for name in names if name not in known and name not in STREAMLIT_OWN]
    for name in names:
        if name not in known:
            continue
        raw = params.get(name)
        if isinstance(raw, (list, tuple)):
            if len(raw) > 1:
                notices.append(f"The link gives {name} {len(raw)} times; used the first.")
            raw = raw[0] if raw else None
        if raw is not None:
            values[name] = str(raw)
    if unknown or extra:
        listed = ", ".join(shown(name) for name in unknown[:5])
        more = len(unknown) - 5 + extra
        notices.append(
            f"Ignored unknown link parameter(s): {listed}{f' and {more} more' if more > 0 else ''}."
            if listed
            else f"Ignored {extra} link parameter(s) past the first {MAX_PARAMS}."
        )
    return values


def _samples(raw: str | None, known: Collection[str], notices: list[str]) -> tuple[str, ...] | None:
    if raw is None:
        return None
    if not raw.strip():
        return ()  # the view had no sample document (uploads only, which a link never carries)
    if len(raw) > DOCS_CHARS:
        notices.append(f"The link's document list is longer than {DOCS_CHARS:,} characters; read only its start.")
        raw = raw[:DOCS_CHARS]
    names = [name.strip() for name in raw.split(",") if name.strip()]
    if len(names) > MAX_DOCS:
        notices.append(f"The link names {len(names)} documents; read the first {MAX_DOCS}.")
        names = names[:MAX_DOCS]
    chosen = tuple(dict.fromkeys(name for name in names if name in known))
    unknown = [name for name in names if name not in known]
    if unknown:
        listed = ", ".join(shown(name) for name in unknown[:5])
        notices.append(f"Unknown sample document(s) in the link: {listed}{' and more' if len(unknown) > 5 else ''}.")
    return chosen or None


def _uploads(raw: str | None, notices: list[str]) -> tuple[LinkUpload, ...]:
    """The uploads a link names (hash:name, separated by "/"); malformed entries are noticed, not kept."""
    if not raw:
        return ()
    entries = raw[:UPLOADS_CHARS].split(UPLOAD_SEPARATOR)[:MAX_DOCS]
    found = [_UPLOAD.fullmatch(entry) for entry in entries]
    bad = [entry for entry, match in zip(entries, found, strict=True) if match is None]
    if bad:
        notices.append(f"Ignored {len(bad)} upload name(s) in the link that are not a content hash and a file name.")
    unique = {match.group(1): LinkUpload(match.group(1), match.group(2)) for match in found if match is not None}
    return tuple(unique.values())


def _query(raw: str | None, what: str, notices: list[str]) -> str | None:
    if raw is None:
        return None
    text = "".join(char for char in raw if char in "\n\t" or unicodedata.category(char) not in ("Cc", "Cs"))
    if len(text) > QUERY_CHARS:
        notices.append(f"The link's {what} was cut to its first {QUERY_CHARS:,} characters.")
        text = text[:QUERY_CHARS]
    return text


def _choice(raw: str | None, known: Collection[str], what: str, notices: list[str], fallback: str) -> str | None:
    if raw is None:
        return None
    name = raw.strip().lower()
    if len(name) <= NAME_CHARS and name in known:
        return name
    notices.append(f"Unknown {what} {shown(raw)} in the link; {fallback}.")
    return None


def model_refused_message() -> str:
    """The one answer to any cross-encoder name that is not on the operator's list.

    It never depends on the name, so a link cannot learn whether a server path exists.
    """
    return "The link asks for a cross-encoder model this server does not offer, so none was loaded."


def _model(raw: str | None, scorer: str | None, cross_encoders: Collection[str], notices: list[str]) -> str | None:
    if raw is None or not raw.strip():
        return None
    name = raw.strip()
    if scorer == ScorerName.CROSS_ENCODER:
        if len(name) <= NAME_CHARS and name in cross_encoders:
            return name
        notices.append(model_refused_message())
        return None
    if scorer == ScorerName.COHERE:
        if _COHERE_MODEL.fullmatch(name):
            return name
        notices.append(f"Ignored the link's Cohere model {shown(raw)}: not a model name.")
        return None
    return None  # a model only means something with those two scorers


def _number(url_name: str, raw: str, kind: type, bounds: NumberBounds | None, notices: list[str]) -> object | None:
    """A finite value of ``kind`` inside ``bounds``, or ``None`` with a notice."""
    text = raw.strip()
    if kind is bool:
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        notices.append(f"Ignored {url_name}={shown(raw)} in the link: use 1 or 0.")
        return None
    number = float(text) if len(text) <= NUMBER_CHARS and _NUMBER.fullmatch(text) else math.nan
    if not math.isfinite(number):  # junk, inf, nan, 1e999 (overflows to inf)
        notices.append(f"Ignored {url_name}={shown(raw)} in the link: not a finite number.")
        return None
    if kind is int and not number.is_integer():
        notices.append(f"Ignored {url_name}={shown(raw)} in the link: not a whole number.")
        return None
    if bounds is not None and not bounds.low <= number <= bounds.high:
        notices.append(
            f"Ignored {url_name}={shown(raw)} in the link: outside {format_value(bounds.low)} to "
            f"{format_value(bounds.high)}."
        )
        return None
    if kind is int:
        value = int(number)
        if bounds is not None and bounds.choices and value not in bounds.choices:
            nearest = min(bounds.choices, key=lambda choice: abs(choice - value))
            notices.append(f"{url_name}={value} is not one of the sizes offered; using {nearest}.")
            value = nearest
        return value
    return number
