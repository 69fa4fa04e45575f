"""Control-variates evaluation of NLG systems: metrics, variance components, bootstrap."""
