"""The URL parameters that reproduce a view, in one place (names are part of shared links)."""

from __future__ import annotations

from collections.abc import Mapping

DOCS = "docs"
QUERY = "q"
QUERY_2 = "q2"
SCORER = "scorer"
PRESET = "preset"
MODEL = "model"

# URL name -> (RSEParams field, type)
PARAM_FIELDS: dict[str, tuple[str, type]] = {
    "chunk": ("chunk_size", int),
    "penalty": ("irrelevant_chunk_penalty", float),
    "decay": ("decay_rate", float),
    "a": ("beta_a", float),
    "b": ("beta_b", float),
    "maxlen": ("max_length", int),
    "overall": ("overall_max_length", int),
    "minval": ("minimum_value", float),
    "topk": ("top_k", int),
    "adjust": ("chunk_length_adjustment", bool),
    "headers": ("chunk_headers", bool),
}


def parse_value(raw: str, kind: type) -> object:
    """Parse one URL value; raises ValueError for junk (the caller ignores that parameter)."""
    if kind is bool:
        if raw.lower() in ("1", "true", "yes", "on"):
            return True
        if raw.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError(raw)
    return kind(float(raw)) if kind is int else kind(raw)


def format_value(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def first(params: Mapping[str, str | list[str]], name: str) -> str | None:
    value = params.get(name)
    if isinstance(value, list):
        return value[0] if value else None
    return value
