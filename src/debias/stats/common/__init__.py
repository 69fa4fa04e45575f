"""The contract every shape of data shares: the vocabulary of estimators, intervals, the joint
result (:class:`~debias.stats.common.joint.JointEstimate`), the PPI++ weight rule, rank-sets,
confidence sequences, a question's status and multiplicity adjustments. It imports no shape:
:mod:`debias.stats.ratings` and :mod:`debias.stats.preferences` are written on it."""
