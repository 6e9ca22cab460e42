"""The knowledge-base query's own knobs (RSE's stay in :class:`rse_core.RSEParams`)."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from enum import StrEnum

from rse_core.errors import ParameterError
from rse_core.validation import parse_choice


class FirstStage(StrEnum):
    """How the candidate chunks are found over the whole base."""

    DENSE = "dense"
    BM25 = "bm25"
    HYBRID = "hybrid"

    @classmethod
    def parse(cls, name: str | FirstStage) -> FirstStage:
        return parse_choice(cls, name, "first stage", ParameterError)


@dataclass(frozen=True)
class KBQueryParams:
    """How a query searches the base before RSE runs (dsRAG's ``KnowledgeBase.query`` knobs).

    Attributes:
        first_stage: ``dense`` (MiniLM vectors, the default), ``bm25`` (full text, no model) or
            ``hybrid`` (both, fused).
        top_n: first-stage hits per query (dsRAG: 200). Chunks outside them are valued as
            irrelevant: their value is minus the penalty.
        documents_selected: RSE runs over the documents of the best this-many hits of each query
            (dsRAG's ``top_k_for_document_selection``, 10).
        selected_top_n: after selection, a second search *within* the selected documents scores
            up to this many of their chunks per query (0: off, as dsRAG). The base-wide top
            ``top_n`` spreads over every document, so a selected document may have few hits; its
            relevant chunks just outside them would otherwise be valued as irrelevant.
        fusion_weight: hybrid only: weight of the dense score; BM25 gets ``1 - fusion_weight``.
        top_k_minimum: least number of first-stage chunks listed beside RSE's segments.
        rank_across_documents: the rank in ``exp(-rank / decay_rate)`` is a chunk's place among
            all the selected documents' chunks, as dsRAG ranks its reranked results (True), or
            within its own document, as the core does for one document at a time (False). Within
            documents, every selected document's best chunk gets the full weight, so ten selected
            documents each give a segment: on the first 43 FinanceBench questions (dense, penalty
            0.3) that sent 15,900 characters a question against 8,900 across, for the same share
            of evidence pages touched (0.33 against 0.34).
        rerank_candidates: with a reranker (:mod:`rse_core.kb.rerank`), the first stage's best
            this-many hits per query across the base are reranked and the documents selected from the
            reranked order (dsRAG reranks its 200 first-stage results: 2 Cohere search units of 100
            documents a query); the rest count as irrelevant. No effect without a reranker.
        named_documents: search only the documents whose file names the query shares the rarest
            words with (:mod:`rse_core.kb.named`: a company, a year), when it shares any; the
            whole base (or ``within``) otherwise.
    """

    first_stage: FirstStage = FirstStage.DENSE
    top_n: int = 200
    documents_selected: int = 10
    selected_top_n: int = 200
    fusion_weight: float = 0.5
    top_k_minimum: int = 50
    rank_across_documents: bool = True
    rerank_candidates: int = 200
    named_documents: bool = False

    @property
    def selection(self) -> str:
        """How documents are selected, as the evaluation reports and the app's settings line say it."""
        named = " among those the question names" if self.named_documents else ""
        return f"{self.documents_selected} documents selected{named}"

    @property
    def search_key(self) -> tuple[object, ...]:
        """The fields the first stage depends on: two settings with the same key search alike (the
        others, ``rank_across_documents`` and ``top_k_minimum``, act after the search)."""
        return (
            self.first_stage,
            self.top_n,
            self.documents_selected,
            self.selected_top_n,
            self.fusion_weight,
            self.rerank_candidates,
            self.named_documents,
        )

    def __post_init__(self) -> None:
        object.__setattr__(self, "first_stage", FirstStage.parse(self.first_stage))
        problems = []
        for name, low in (
            ("top_n", 1),
            ("documents_selected", 1),
            ("selected_top_n", 0),
            ("top_k_minimum", 0),
            ("rerank_candidates", 1),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
                problems.append(f"{name} must be a whole number of at least {low} (got {value!r})")
            else:
                object.__setattr__(self, name, int(value))
        for name in ("rank_across_documents", "named_documents"):
            if not isinstance(getattr(self, name), bool):
                problems.append(f"{name} must be true or false (got {getattr(self, name)!r})")
        weight = self.fusion_weight
        if (
            isinstance(weight, bool)
            or not isinstance(weight, numbers.Real)
            or not math.isfinite(float(weight))
            or not 0 <= weight <= 1
        ):
            problems.append(f"fusion_weight must be between 0 and 1 (got {weight!r})")
        else:
            object.__setattr__(self, "fusion_weight", float(weight))
        if problems:
            raise ParameterError("Invalid knowledge-base query parameters: " + "; ".join(problems) + ".")
