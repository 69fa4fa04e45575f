"""The ``debias`` command: ``estimate``, ``compare`` and ``plan`` on system files
(:mod:`debias.cli.analyse`) and ``import`` of a long table (:mod:`debias.cli.importing`)."""

from debias.cli.analyse import main

__all__ = ["main"]
