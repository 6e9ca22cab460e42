from rse_core.cli.extract import main

raise SystemExit(main())
