"""What the workflow needs around the analyses: every input checked at start-up
(:mod:`debias.pipeline.inputs`), job sizes (:mod:`debias.pipeline.resources`), metric scoring in
blocks (:mod:`debias.pipeline.metric_chunks`) and the rule scripts' logs (:mod:`debias.pipeline.logs`)."""
