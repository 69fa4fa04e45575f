"""``python -m debias.cli``: the ``debias`` command."""

from debias.cli import main

raise SystemExit(main())
