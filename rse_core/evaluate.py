"""``python -m rse_core.evaluate``: the evaluation command line (:mod:`rse_core.cli.evaluate`).

An entry point only, kept at this name so the documented command keeps working; the code lives
in :mod:`rse_core.cli.evaluate` and :mod:`rse_core.evaluation`.
"""

from rse_core.cli.evaluate import main

if __name__ == "__main__":
    raise SystemExit(main())
