"""Maps from first-stage scores to [0, 1] that put every document of a base on one scale.

The core calibrates MiniLM per document (a quantile of the document's own scores); over a
knowledge base that would be circular (only hits are scored) and would give every document's
best chunk full weight, however weak. A bi-encoder's cosine has no fixed scale either: one fixed
map (0.25 -> 0, 0.55 -> 1, read off the samples) sent 7,900 characters a question on the samples'
base but 14,900 on the external set's and 15,300 on FinanceBench's, where headed chunks of a
relevant document score high all through.

So the dense map is anchored on the query's **best hit in the whole base**: that cosine maps to
1 and 0.2 below it to 0, the same line for every document, so a document whose best chunk is far
below the base's best stays near 0. A best under 0.45 counts as 0.45, so a query nothing in the
base answers stays weak (as the core's minilm ceiling does). Adding documents changes a query's
values only when a new document holds a better chunk than any before. Measured on the three
knowledge-base sets (``python bench/kb_calibration.py``, docs/knowledge_base.md has the table).
"""

from __future__ import annotations

from rse_core.scoring import Calibration

DENSE_SPREAD = 0.2
"""Cosine below the query's best hit at which a chunk's calibrated score reaches 0."""
DENSE_CEILING = 0.45
"""The anchor is at least this cosine: a query's weak best hit maps below 1."""


def dense_calibration(best: float) -> Calibration:
    """The dense map for a query whose best cosine in the base is ``best``: ``max(best, 0.45)``
    -> 1, ``0.2`` below that -> 0, clipped linear between."""
    high = max(float(best), DENSE_CEILING)
    return Calibration(
        kind="linear",
        low=high - DENSE_SPREAD,
        high=high,
        note=(
            f"Cosine of all-MiniLM-L6-v2 embeddings, anchored on the query's best hit in the base "
            f"({float(best):.2f}; at least {DENSE_CEILING}): {high:.2f} -> 1, {high - DENSE_SPREAD:.2f} -> 0."
        ),
    )


BM25_CALIBRATION = Calibration(
    kind="logistic",
    low=6.0,
    high=2.0,
    note=(
        "BM25 (LanceDB's or Milvus' full-text index), logistic with midpoint 6 and scale 2. Over the three "
        "sample PDFs a golden query's median matching chunk scores 1.6-3.6 (-> 0.1-0.25), the 90th "
        "percentile 3.3-7.1 and the best 5-21 (-> 0.4-1). On the 36 golden queries at RSEParams() it "
        "recalls 0.52 of the gold characters with 8,200 characters a query; midpoints 7-9 send 3,200-5,000 "
        "characters but recall 0.42-0.46 (BM25 misses the paraphrased questions either way). Fixed, but "
        "BM25's term weights (IDF) are taken over the whole base, so it drifts as any document is added "
        "(the dense map moves only when a better-matching one is), and in a base of a few chunks every word "
        "is common and scores stay low."
    ),
)
"""For the bm25 first stage, and BM25's half of the hybrid fusion."""
