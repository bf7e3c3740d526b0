"""``python -m workbench``: the ``workbench`` command (see :mod:`workbench.cli`)."""

from workbench.cli import main

raise SystemExit(main())
