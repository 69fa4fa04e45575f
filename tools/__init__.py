"""The repository's own tools, run from the repository root with ``python -m`` (the Makefile does):
setting up a machine for the workflow (:mod:`tools.provision`: ``python -m tools.provision.system``,
``python -m tools.provision.wordnet``) and checking the workflow on a throw-away SLURM cluster
(:mod:`tools.cluster`: ``python -m tools.cluster.check``).

They are not part of the package a user installs: the wheel holds :mod:`debias` only. Nothing here
computes a result of the paper; the workflow's numbers come from :mod:`debias`.
"""
