"""Running the workflow on a SLURM cluster: a throw-away single-node SLURM for ``make cluster-test``."""
