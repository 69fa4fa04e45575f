"""Files in and out: the canonical task files (:mod:`debias.io.canonical`), long tables of
judgments (:mod:`debias.io.importer`), metric-score tables (:mod:`debias.io.scores`), the paper's
released judgments (:mod:`debias.io.released`) and atomic writes (:mod:`debias.io.atomic`)."""
