"""Tools around the scientific package :mod:`debias`: setting up a machine for the workflow
(:mod:`debias_tools.provision`), the workflow's start-up checks (:mod:`debias_tools.startup`)
and running it on a SLURM cluster (:mod:`debias_tools.cluster`).

Nothing here computes a result of the paper; the workflow's numbers come from :mod:`debias` only.
"""
