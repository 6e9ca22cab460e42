"""The operator's list of retrievers: what the Explore sidebar's scorer box offers.

Users pick from this list and never type a URL: the bundled minilm (the default), hybrid and
bm25, ``mpnet`` once installed on this server, each embedding endpoint the operator names in
``RSE_EMBEDDERS``, and the Cohere reranker and offered cross-encoders (:mod:`app_ui.models`).
``RSE_EMBEDDERS`` holds entries separated by commas, each ``openai:MODEL@URL`` (any
OpenAI-compatible ``/v1/embeddings`` root; key from ``OPENAI_API_KEY``) or ``cohere:MODEL``
(optionally ``@URL``; key from ``CO_API_KEY``), e.g.
``openai:nomic-embed-text@http://localhost:11434/v1,cohere:embed-english-v3.0``. A malformed
entry is one log line and is left out; the app still starts. Each entry is shown by its model
name only: a URL may carry credentials or reveal the operator's network.
"""

from __future__ import annotations

import functools
import logging
import os
from dataclasses import dataclass
from urllib.parse import urlsplit

from rse_core import ScorerName
from rse_core.embedders.packaged import PACKAGED_MODELS, is_installed
from rse_core.net.urls import display_url

EMBEDDERS_ENV = "RSE_EMBEDDERS"
ENDPOINT_PROVIDERS = ("openai", "cohere")
LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class OfferedEmbedder:
    """One embedder the operator offers: ``label`` is what users see and pick (the scorer box's
    value), ``name`` and ``base_url`` what :func:`rse_core.embedders.embedder_from_name` takes."""

    label: str
    name: str
    base_url: str | None = None


@functools.lru_cache(maxsize=4)
def parse_embedders(text: str) -> tuple[OfferedEmbedder, ...]:
    """The entries of ``RSE_EMBEDDERS`` in the operator's order; each bad one logged once and left out."""
    offered: dict[str, OfferedEmbedder] = {}
    for number, raw in enumerate(text.split(","), start=1):
        entry = raw.strip()
        if not entry:
            continue
        name, _, url = entry.partition("@")
        provider, _, model = name.strip().partition(":")
        problem = _problem(provider, model.strip(), url.strip())
        if problem:
            LOGGER.warning(
                "%s entry %d (%r) left out: %s; write openai:MODEL@URL or cohere:MODEL[@URL].",
                EMBEDDERS_ENV,
                number,
                display_url(entry),
                problem,
            )
            continue
        label = f"{provider}:{model.strip()}"
        unique, copy = label, 2
        while unique in offered:
            unique, copy = f"{label} ({copy})", copy + 1
        offered[unique] = OfferedEmbedder(unique, label, url.strip() or None)
    return tuple(offered.values())


def _problem(provider: str, model: str, url: str) -> str:
    """Why an entry cannot be offered, or ``""``."""
    if provider not in ENDPOINT_PROVIDERS or not model:
        return "not an openai: or cohere: model"
    if provider == "openai" and not url:
        return "an openai: entry needs the endpoint's URL after @"
    if url:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return "the part after @ is not an http(s) URL"
    return ""


def offered_embedders() -> dict[str, OfferedEmbedder]:
    """Label -> embedder: the packaged models installed here (``mpnet``), then the operator's endpoints."""
    offered = [OfferedEmbedder(model.name, model.name) for model in PACKAGED_MODELS.values() if is_installed(model)]
    offered += parse_embedders(os.environ.get(EMBEDDERS_ENV, ""))
    return {embedder.label: embedder for embedder in offered}


def scorer_choices() -> tuple[str, ...]:
    """The scorer box's options in order: the offline scorers, the offered embedders, the rerankers."""
    return (
        ScorerName.MINILM.value,
        ScorerName.HYBRID.value,
        ScorerName.BM25.value,
        *offered_embedders(),
        ScorerName.COHERE.value,
        ScorerName.CROSS_ENCODER.value,
    )
