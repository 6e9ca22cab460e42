"""Evaluation: how well RSE and its baselines retrieve gold spans, and tuning from cached scores.

Bottom to top:

- :mod:`~rse_core.evaluation.metrics`: the one span judge (recall, precision, characters sent);
- :mod:`~rse_core.evaluation.golden`, :mod:`~rse_core.evaluation.financebench`,
  :mod:`~rse_core.evaluation.sets`: golden sets and the named evaluation sets;
- :mod:`~rse_core.evaluation.runs`: one golden set end to end (score, extract, judge);
- :mod:`~rse_core.evaluation.scored_sets`: a set scored once, judged at any parameters;
- :mod:`~rse_core.evaluation.sweep`, :mod:`~rse_core.evaluation.curves`,
  :mod:`~rse_core.evaluation.tuning`: parameter grids, recall-vs-characters curves, auto-tune;
- :mod:`~rse_core.evaluation.reports`, :mod:`~rse_core.evaluation.retrieval_targets`,
  :mod:`~rse_core.evaluation.chunk_study`: the tables ``python -m rse_core.evaluate`` prints.

The small core never imports this package.
"""
