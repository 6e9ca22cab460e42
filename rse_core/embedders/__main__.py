"""``python -m rse_core.embedders install mpnet``: the model installer's command line (:mod:`rse_core.cli.models`)."""

from rse_core.cli.models import main

if __name__ == "__main__":
    raise SystemExit(main())
