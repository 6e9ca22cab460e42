"""Every command line, and the only place argparse is used.

- ``python -m rse_core FILE... --query Q``: :mod:`~rse_core.cli.extract`;
- ``python -m rse_core.evaluate``: :mod:`~rse_core.cli.evaluate`;
- ``python -m rse_core.cli.chunk_study``: :mod:`~rse_core.cli.chunk_study` (chunk size as a study);
- :mod:`~rse_core.cli.support`: one-line errors and exit status 2, shared by both.
"""
