"""``python -m rse_core.kb``: the knowledge-base command line (:mod:`rse_core.cli.kb`)."""

from rse_core.cli.kb import main

if __name__ == "__main__":
    raise SystemExit(main())
