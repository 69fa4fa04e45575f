r"""The joint covariance of several systems' estimates, from the items they share.

Every estimator of :mod:`debias.stats.ratings.estimators` is a mean of per-item terms :math:`t_{s,i}`
over the n_s judged items of system s (up to a constant; :func:`debias.stats.ratings.estimate.estimate_with_terms`).
Two systems judged on the same inputs share items, and an easy or a hard input moves both
systems' terms: their estimates are dependent. With :math:`I_s` the judged items of s,
:math:`n_{st} = |I_s \cap I_t|`, and the items a sample without replacement of the N inputs,

.. math::

    \widehat{\operatorname{Cov}}(\hat\mu_s, \hat\mu_t)
      = \Bigl(1 - \frac{n_{st}}{N_{st}}\Bigr)\,\frac{n_{st}\,\hat c_{st}}{n_s\,n_t},
    \qquad s \ne t,

where :math:`\hat c_{st}` is the sample covariance (ddof 1) of the two systems' terms over the
shared items and :math:`N_{st}` the number of outputs they share (their inputs). For a common
sample (:math:`I_s = I_t`, :math:`N_{st} = N`) this is the finite-population covariance of two
means of the same n of N items, the off-diagonal partner of the estimators' variance
(:func:`debias.stats.common.intervals.t_interval`); systems with no shared item are independent.
Annotator noise is independent between systems' outputs and adds nothing off the diagonal. The
diagonal is each estimator's own variance (its interval's squared standard error), which
already carries its noise floor and plug-in costs.

Pairs estimated on different subsets need not give a positive semi-definite matrix; the
correlation matrix is then projected onto the positive semi-definite cone (eigenvalues clipped
at zero, unit diagonal restored) and rescaled by the variances (:func:`nearest_covariance`).

References
----------
W. G. Cochran. *Sampling Techniques*, 3rd edition, Wiley, 1977, section 2.6 and Theorem 2.3
(covariance of two sample means under simple random sampling without replacement).

A. Chaganty, S. Mussmann and P. Liang. The price of debiasing automatic metrics in natural
language evaluation. In *Proceedings of the 56th Annual Meeting of the Association for
Computational Linguistics (ACL)*, pages 643-653, Melbourne, 2018.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from debias.stats.common.vocabulary import EstimatorInfo, describe

__all__ = ["JointEstimate", "check_joint", "is_sparse", "nearest_covariance", "shared_item_covariance", "variances"]

#: Relative tolerance of a covariance's symmetry and of its negative eigenvalues.
TOLERANCE = 1e-8


@dataclass(frozen=True, eq=False)
class JointEstimate:
    """One estimator's estimates of one estimand for S systems, with their joint covariance.

    The result of the ratings (a system's mean human score: :func:`shared_item_covariance`) and
    of pairwise preferences (win rates and Bradley-Terry strengths:
    :func:`debias.stats.preferences.estimands.preference_estimates`) alike.

    Attributes
    ----------
    estimand : str
        ``"mean"`` (ratings), ``"win_rate"`` or ``"strength"`` (preferences).
    estimator : str
        The estimator's name (:mod:`debias.stats.common.vocabulary`: ``mean``, ``cv:<metric>``,
        ``human``, ``ppi++:<judge>``, ...).
    systems : tuple of str
        The systems, in the order of every array.
    estimate : numpy.ndarray, shape (S,)
        The estimates (NaN where ``notes`` says why there is none).
    covariance : numpy.ndarray, shape (S, S)
        Their estimated joint covariance (NaN rows and columns for systems without an interval).
    se, ci_low, ci_high : numpy.ndarray, shape (S,)
        Each estimate's standard error and its own (marginal) interval at ``level``.
    level : float
        Nominal coverage of the marginal intervals.
    n_judged : numpy.ndarray of int, shape (S,)
        Judged items (ratings) or battles with a human verdict (preferences) behind each estimate.
    n_judge, n_missing : numpy.ndarray of int, shape (S,)
        Preferences: each system's battles with a verdict of the estimator's judge(s), and
        battles with a verdict of none of them; zeros for ratings and for ``human``.
    notes : tuple of str
        Per system, why there is no estimate or no interval (``""`` when there is).
    weights : numpy.ndarray, shape (J,)
        The PPI++ weight of each of the estimator's judges (empty otherwise).
    df : numpy.ndarray, shape (S,), optional
        Degrees of freedom of each estimate's t interval (ratings: the judged items less the
        coefficients fitted, :func:`debias.stats.common.intervals.t_interval`); ``None`` where the
        intervals are normal (preferences). Rank-sets then use a multivariate-t critical value
        with the smallest of them (:func:`debias.stats.common.ranking.rank_sets`).
    n_clusters : numpy.ndarray of int, shape (S,), optional
        With clustered data (judgments sharing a question), the clusters behind each estimate;
        ``None`` when every judgment is its own cluster (:mod:`debias.stats.common.clusters`).
    design_effect : numpy.ndarray, shape (S,), optional
        With clustered data, each estimate's clustered variance over the variance it would have
        with independent judgments (1: clustering cost nothing); ``None`` otherwise.
    """

    estimand: str
    estimator: str
    systems: tuple[str, ...]
    estimate: np.ndarray
    covariance: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    level: float
    n_judged: np.ndarray
    n_judge: np.ndarray
    n_missing: np.ndarray
    notes: tuple[str, ...]
    weights: np.ndarray
    df: np.ndarray | None = None
    n_clusters: np.ndarray | None = None
    design_effect: np.ndarray | None = None

    @property
    def width(self) -> np.ndarray:
        return self.ci_high - self.ci_low

    @property
    def arrivals(self) -> np.ndarray:
        """The independent units behind each estimate: its clusters when the data are
        clustered, else its judged items or human battles (:attr:`n_judged`). What a confidence
        sequence counts as its votes (:mod:`debias.stats.common.sequential`)."""
        return self.n_judged if self.n_clusters is None else self.n_clusters

    @property
    def info(self) -> EstimatorInfo:
        """What the estimator is (:func:`debias.stats.common.vocabulary.describe`)."""
        return describe(self.estimator)

    @property
    def biased(self) -> bool:
        """True for an estimator resting on a proxy alone (``judge:<j>``): its interval is about
        the proxy, not about people."""
        return self.info.biased


def shared_item_covariance(
    terms: Sequence[np.ndarray], items: Sequence[np.ndarray], variances, shared_outputs=None
) -> np.ndarray:
    r"""The joint covariance of S means of per-item terms, from the items they share.

    Parameters
    ----------
    terms : sequence of S arrays, shape (n_s,)
        Each system's per-item terms (their mean is its estimate, up to a constant).
    items : sequence of S arrays, shape (n_s,)
        The items' identifiers, aligned with ``terms`` (distinct within a system).
    variances : array_like, shape (S,)
        Each estimate's own variance: the diagonal.
    shared_outputs : array_like, shape (S, S), optional
        :math:`N_{st}`, the outputs two systems share, for the finite-population factor; default
        infinite (no factor).

    Returns
    -------
    numpy.ndarray, shape (S, S)
        :math:`(1 - n_{st}/N_{st})\,n_{st}\hat c_{st}/(n_s n_t)` off the diagonal (module
        notes; 0 for pairs sharing fewer than 2 items), ``variances`` on it, projected to be
        positive semi-definite (:func:`nearest_covariance`).
    """
    s = len(terms)
    if len(items) != s:
        raise ValueError(f"{len(items)} item lists for {s} systems' terms")
    variances = np.asarray(variances, dtype=float).reshape(-1)
    if variances.size != s or not np.all(np.isfinite(variances)) or np.any(variances < 0):
        raise ValueError(f"variances must be {s} finite numbers >= 0")
    codes, index = {}, []
    for system, (t, ids) in enumerate(zip(terms, items)):
        ids = np.asarray(ids)
        if np.shape(t) != ids.shape:
            raise ValueError(f"system {system}: {np.size(t)} terms for {ids.size} item ids")
        position = np.array([codes.setdefault(i, len(codes)) for i in ids.tolist()], dtype=np.int64)
        if np.unique(position).size != position.size:
            raise ValueError(f"system {system}: item ids repeat")
        index.append(position)
    values = np.zeros((s, len(codes)))
    mask = np.zeros((s, len(codes)))
    for system, (t, position) in enumerate(zip(terms, index)):
        t = np.asarray(t, dtype=float)
        values[system, position] = t - t.mean()  # centred for precision; covariances are unchanged
        mask[system, position] = 1.0
    n = mask.sum(axis=1)
    shared = mask @ mask.T
    products = values @ values.T
    sums = values @ mask.T  # sums[s, t]: sum of s's terms over the items shared with t
    with np.errstate(divide="ignore", invalid="ignore"):
        c = (products - sums * sums.T / shared) / (shared - 1.0)
        covariance = np.where(shared >= 2, shared * c / np.outer(n, n), 0.0)
    if shared_outputs is not None:
        total = np.asarray(shared_outputs, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            covariance *= np.where(total > 0, np.clip(1.0 - shared / total, 0.0, 1.0), 1.0)
    np.fill_diagonal(covariance, variances)
    return nearest_covariance(covariance)


def is_sparse(matrix) -> bool:
    """Whether ``matrix`` is a SciPy sparse matrix (a covariance of many estimates, most pairs
    of them independent: the cells of a head-to-head matrix)."""
    module = sys.modules.get("scipy.sparse")  # not loaded: nothing is sparse
    return module is not None and bool(module.issparse(matrix))


def variances(covariance) -> np.ndarray:
    """The diagonal (..., S) of a covariance (..., S, S), dense or sparse (:func:`is_sparse`)."""
    if is_sparse(covariance):
        return np.asarray(covariance.diagonal(), dtype=float)
    return np.einsum("...ss->...s", covariance)


def nearest_covariance(covariance) -> np.ndarray:
    """The matrix with the same diagonal whose correlation matrix is the nearest positive
    semi-definite one in the eigenvalue-clipping sense (unchanged when already positive
    semi-definite); rows with zero variance keep zero covariance. A sparse matrix
    (:func:`is_sparse`) is projected one block of linked estimates at a time (its connected
    components), which is the projection of the whole: the eigenvectors of a block-diagonal
    matrix are its blocks'."""
    if is_sparse(covariance):
        return _nearest_blocks(covariance)
    sigma = np.asarray(covariance, dtype=float)
    sigma = (sigma + sigma.T) / 2.0
    sd = np.sqrt(np.diag(sigma))
    live = sd > 0
    out = np.zeros_like(sigma)
    if not np.any(live):
        return out
    sub = sigma[np.ix_(live, live)] / np.outer(sd[live], sd[live])
    values, vectors = np.linalg.eigh(sub)
    if values[0] < 0:
        sub = (vectors * np.clip(values, 0.0, None)) @ vectors.T
        d = np.sqrt(np.clip(np.diag(sub), np.finfo(float).tiny, None))
        sub = sub / np.outer(d, d)
    out[np.ix_(live, live)] = sub * np.outer(sd[live], sd[live])
    return out


def _nearest_blocks(covariance):
    """:func:`nearest_covariance` of a sparse matrix, block by block (a CSR array)."""
    from scipy.sparse import coo_array, csr_array
    from scipy.sparse.csgraph import connected_components

    sigma = coo_array((covariance + covariance.T) / 2.0)
    sigma.sum_duplicates()
    size = sigma.shape[0]
    if size == 0:
        return csr_array((0, 0))
    _, block = connected_components(csr_array(sigma), directed=False)
    # each block's members in order, and each entry's block and place in it
    members = np.argsort(block, kind="stable")
    starts = np.searchsorted(block[members], np.arange(block.max() + 2))
    place = np.empty(size, dtype=np.int64)
    place[members] = np.arange(size) - starts[block[members]]
    entries = np.argsort(block[sigma.row], kind="stable")
    bounds = np.searchsorted(block[sigma.row[entries]], np.arange(starts.size))
    rows, columns, values = [], [], []
    for k in range(starts.size - 1):
        own = members[starts[k] : starts[k + 1]]
        mine = entries[bounds[k] : bounds[k + 1]]
        dense = np.zeros((own.size, own.size))
        dense[place[sigma.row[mine]], place[sigma.col[mine]]] = sigma.data[mine]
        near = nearest_covariance(dense)
        r, c = np.nonzero(near)
        rows.append(own[r])
        columns.append(own[c])
        values.append(near[r, c])
    if not values:
        return csr_array((size, size))
    return csr_array((np.concatenate(values), (np.concatenate(rows), np.concatenate(columns))), shape=(size, size))


def check_joint(estimate, covariance, systems: Sequence[str] | None = None):
    """Check estimates (S,) and their covariance (S, S); return them as float arrays and the
    systems' names (default ``"0"``, ``"1"``, ...). Refuse non-finite values, a covariance that
    is not symmetric or has a clearly negative eigenvalue, and names of the wrong number."""
    theta = np.asarray(estimate, dtype=float)
    sigma = np.asarray(covariance, dtype=float)
    if theta.ndim != 1 or theta.size == 0:
        raise ValueError(f"estimate must be a non-empty vector (S,), got shape {theta.shape}")
    s = theta.size
    if sigma.shape != (s, s):
        raise ValueError(f"covariance must have shape ({s}, {s}) for {s} estimates, got {sigma.shape}")
    bad = np.flatnonzero(~np.isfinite(theta))
    if bad.size:
        raise ValueError(f"estimate has non-finite values at positions {bad.tolist()}")
    if not np.all(np.isfinite(sigma)):
        rows = sorted(set(np.argwhere(~np.isfinite(sigma))[:, 0].tolist()))
        raise ValueError(f"covariance has non-finite values in rows {rows}")
    scale = max(float(np.max(np.abs(np.diag(sigma)))), np.finfo(float).tiny)
    if np.max(np.abs(sigma - sigma.T)) > TOLERANCE * scale:
        raise ValueError("covariance must be symmetric")
    if s > 1 and np.linalg.eigvalsh(sigma)[0] < -1e-6 * scale:
        raise ValueError("covariance must be positive semi-definite (it has a negative eigenvalue)")
    if np.any(np.diag(sigma) < 0):
        raise ValueError("covariance has a negative variance on its diagonal")
    names = tuple(str(i) for i in range(s)) if systems is None else tuple(str(x) for x in systems)
    if len(names) != s:
        raise ValueError(f"{len(names)} system names for {s} estimates")
    if len(set(names)) != s:
        raise ValueError(f"system names must be distinct, got {list(names)}")
    return theta, sigma, names
