"""Every command line, and the only place argparse is used.

The installed scripts (``pyproject.toml``'s ``[project.scripts]``) and, in a checkout, the same
commands as modules:

- ``rse FILE... --query Q`` (``python -m rse_core``): :mod:`~rse_core.cli.extract`;
- ``rse-evaluate`` (``python -m rse_core.evaluate``): :mod:`~rse_core.cli.evaluate`, with the sets
  run over one knowledge base (``samples-kb``, ``financebench-kb``...) in :mod:`~rse_core.cli.evaluate_kb`;
- ``rse-kb build|query|info|remove`` (``python -m rse_core.kb``): :mod:`~rse_core.cli.kb`;
- ``python -m rse_core.cli.chunk_study``: :mod:`~rse_core.cli.chunk_study` (chunk size as a study);
- ``python -m rse_core.cli.handout OUT_DIR``: :mod:`~rse_core.cli.handout` (the exercise handout and its key);
- :mod:`~rse_core.cli.support`: one-line errors and exit status 2, shared by all.
"""
