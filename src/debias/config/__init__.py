"""The configuration: its schema (``schema.yaml``, the one home of every default), loading and
checking it (:mod:`debias.config.settings`), and what it says as tables and figures show it
(:mod:`debias.config.labels`)."""
