"""The segment search: the greedy search RSE runs, and the exact optimum it is compared with.

- :mod:`~rse_core.search.greedy`: :func:`find_best_segments`, the RSE authors' greedy search;
- :mod:`~rse_core.search.optimal`: the exact maximum-total answer by dynamic programming, for
  teaching and benchmarks (it is never part of the pipeline).
"""

from rse_core.search.greedy import SearchResult, SearchStep, Segment, StopReason, find_best_segments

__all__ = ["SearchResult", "SearchStep", "Segment", "StopReason", "find_best_segments"]
