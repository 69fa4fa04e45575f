"""Files in and out: the canonical task files (:mod:`debias.io.canonical`), long tables of
judgments, read by one reader (:mod:`debias.io.reader`) and imported as a task
(:mod:`debias.io.importer`), metric-score tables (:mod:`debias.io.scores`), the paper's released
judgments (:mod:`debias.io.released`) and atomic writes (:mod:`debias.io.atomic`)."""
