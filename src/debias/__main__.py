"""``python -m debias``: the ``debias`` command."""

from debias.cli import main

raise SystemExit(main())
