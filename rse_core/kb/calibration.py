"""Fixed maps from first-stage scores to [0, 1]: a chunk's calibrated score depends on the query
and the chunk alone, never on which other documents are in the knowledge base.

The core calibrates MiniLM per document (a quantile of the document's own scores); over a
knowledge base that would be circular (only hits are scored) and a document's values would move
when the hit list changes. So here the maps are fixed, with constants read off the sample
documents and their golden queries (numbers in each map's note).
"""

from __future__ import annotations

from rse_core.scoring import Calibration

DENSE_CALIBRATION = Calibration(
    kind="linear",
    low=0.25,
    high=0.55,
    note=(
        "Cosine similarity of all-MiniLM-L6-v2 embeddings, clipped linear: 0.25 -> 0, 0.55 -> 1. On the "
        "samples' golden queries the median chunk scores 0.02-0.23 (so most of a document maps to 0 and "
        "pays only the penalty), the 90th percentile 0.18-0.50 and the chunk that answers 0.35-0.65. Over "
        "a base of the three sample PDFs, the 36 golden queries at RSEParams() recall 0.87 of the gold "
        "characters with 11,400 characters a query at (0.2, 0.5), 0.84 with 8,200 at (0.25, 0.55), 0.80 "
        "with 5,800 at (0.3, 0.6) and 0.67 with 4,100 at (0.35, 0.6); (0.25, 0.55) keeps the core's recall "
        "on the samples (0.86) within a few points. Fixed, so absolute: a chunk's value for a query does "
        "not change when other documents are added."
    ),
)
"""For the dense first stage (``rse_core.kb``'s default)."""

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
        "BM25's term weights (IDF) are taken over the whole base, so unlike the dense map it drifts as "
        "documents are added, and in a base of a few chunks every word is common and scores stay low."
    ),
)
"""For the bm25 first stage, and BM25's half of the hybrid fusion."""
