"""Rerank as a second stage over a knowledge base, as the RSE authors run dsRAG in production.

The first stage (:mod:`rse_core.kb.first_stage`) finds candidates across the base; a reranker
then reads the query with each candidate chunk (its header, then its text), the documents are
selected from the reranked order (:func:`rse_core.kb.query.search_first_stage`), and the
reranker's relevance becomes what the chunk values start from: calibrated by the reranker's own
:class:`~rse_core.scoring.Calibration` (Cohere's relevance as is, a cross-encoder's logit through
its sigmoid), then the core's ``beta.cdf(x, 0.4, 0.4) * exp(-rank / decay) - penalty``
(:func:`rse_core.values.chunk_values`), ranked by the reranker's raw score. That is dsRAG's
``CohereReranker``: ``transform`` (the beta CDF, a = b = 0.4) of the relevance, then
``exp(-rank / decay_rate)`` over the reranked order, minus the penalty. A chunk not reranked
counts 0, as a first-stage miss does.

Names (:func:`reranker_from_name`), one spelling for rse_core, the CLI and the app:
``cohere:MODEL`` (Cohere's ``/v2/rerank`` or any endpoint speaking it) or a local cross-encoder folder.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rse_core.chunking import Chunk
from rse_core.errors import AuthenticationError, ParameterError, RSEError
from rse_core.kb.base import KnowledgeBase
from rse_core.kb.first_stage import ScoredHit, hit_rank
from rse_core.kb.store import StoredChunk
from rse_core.net.urls import display_url
from rse_core.scoring import Scorer

RERANK_FORMS = "cohere:MODEL (e.g. cohere:rerank-v3.5) or a local cross-encoder folder"


@dataclass(frozen=True)
class Reranker:
    """A scorer used as the second stage, and the name it was asked for (what results show)."""

    name: str
    scorer: Scorer


def reranker_from_name(
    name: str,
    base_url: str | None = None,
    *,
    api_key: str | None = None,
    url_from_operator: bool = True,
    **options: object,
) -> Reranker:
    """The reranker ``name`` stands for: ``cohere:MODEL`` or a local cross-encoder folder.

    Args:
        base_url: ``cohere:`` only: the rerank API root (default ``$CO_API_URL``, then Cohere's).
        api_key: ``cohere:`` only: the caller's own key (default the operator's, ``$CO_API_KEY``).
        url_from_operator: ``base_url`` was given by the operator (the CLI's own option). When it
            was typed by a user or read from a file, the operator's key is not sent there unless it
            is the operator's endpoint (``$CO_API_URL`` or Cohere's); such a caller passes its own
            ``api_key``.
        options: for the scorer's constructor (e.g. ``max_retries``, ``timeout``, ``batch_size``).

    Raises:
        ParameterError: the name is none of the forms, or a base URL is given for a local folder.
        AuthenticationError: the operator's key would go to an endpoint the operator did not name.
        ScorerError: the scorer cannot be made (no key, the model does not load, ...).
    """
    text = (name or "").strip()
    provider, _, model = text.partition(":")
    if provider == "cohere" and model.strip():
        from rse_core.scoring.cohere_rerank import CohereScorer

        if api_key is None and base_url and not url_from_operator:
            _check_operator_endpoint(base_url)
        scorer: Scorer = CohereScorer(api_key=api_key, model=model.strip(), base_url=base_url, **options)
        return Reranker(f"cohere:{model.strip()}", scorer)
    if base_url:
        raise ParameterError(f"A base URL is for cohere:MODEL rerankers, not {text[:80]!r}.")
    if text and not text.startswith("cohere:") and Path(text).expanduser().is_dir():
        from rse_core.scoring.cross_encoder import CrossEncoderScorer

        return Reranker(text, CrossEncoderScorer(Path(text).expanduser(), **options))
    raise ParameterError(f"Unknown reranker {text[:80]!r}: use {RERANK_FORMS}.")


def _check_operator_endpoint(base_url: str) -> None:
    from rse_core.scoring.cohere_rerank import DEFAULT_BASE_URL

    operator = (os.environ.get("CO_API_URL") or DEFAULT_BASE_URL).strip().rstrip("/")
    if base_url.strip().rstrip("/") != operator:
        raise AuthenticationError(
            f"The rerank endpoint {display_url(base_url)} is not the configured one; give your own Cohere key "
            "for it (the operator's key goes only to the operator's endpoint)."
        )


def rerank_hits(
    kb: KnowledgeBase,
    queries: Sequence[str],
    hits: Sequence[Sequence[ScoredHit]],
    reranker: Reranker,
    limit: int,
) -> tuple[tuple[tuple[ScoredHit, ...], ...], int]:
    """Per query, its best ``limit`` first-stage hits scored again by the reranker, best first:
    ``score`` is the reranker's calibrated relevance, ``order`` its raw score (the rank). Also the
    number of candidates reranked over all queries. Each chunk's text is read once, however many
    queries share it."""
    pools = [sorted(query_hits, key=hit_rank)[:limit] for query_hits in hits]
    wanted = [(hit.doc_id, hit.chunk_index, hit.chunk_index) for pool in pools for hit in pool]
    stored = kb.read_chunks(wanted)
    reranked = []
    for query, pool in zip(queries, pools, strict=True):
        if not pool:
            reranked.append(())
            continue
        chunks = [_chunk(stored, hit) for hit in pool]
        raw = np.asarray(reranker.scorer.score(query, chunks), dtype=np.float64)
        calibrated = reranker.scorer.calibration(raw)
        scored = [
            ScoredHit(hit.doc_id, hit.chunk_index, float(score), float(order))
            for hit, score, order in zip(pool, calibrated, raw, strict=True)
        ]
        reranked.append(tuple(sorted(scored, key=hit_rank)))
    return tuple(reranked), sum(len(pool) for pool in pools)


def _chunk(stored: dict[str, dict[int, StoredChunk]], hit: ScoredHit) -> Chunk:
    found = stored.get(hit.doc_id, {}).get(hit.chunk_index)
    if found is None:
        raise RSEError(f"The store is missing chunk {hit.chunk_index} of document {hit.doc_id}; rebuild that document.")
    return Chunk(
        found.doc_id,
        found.chunk_index,
        found.start,
        found.end,
        found.text,
        found.first_page,
        found.last_page,
        header=found.header,  # the reranker reads what the embedder read: header, then text (as dsRAG)
    )
