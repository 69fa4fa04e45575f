r"""The one vocabulary of estimators, for ratings and pairwise preferences alike.

Every estimator the project computes has a name written in its tables (``mean``, ``cv:bleu``,
``ppi++:gpt4``, ...). This module is the only place that reads such a name:
:func:`describe` turns it into an :class:`EstimatorInfo` that says what the estimator is (whom
it asks: people only, people with proxies, or a proxy alone; whether it is unbiased; which
proxies it uses; how it is labelled), and :func:`estimator_name` writes one. Code outside the
statistics core asks the description, never the spelling (a test checks this).

Families
--------
Ratings (a system's mean human score; the proxies are automatic metrics):

=====================  ==========================================================  =========
name                   what it is                                                  unbiased
=====================  ==========================================================  =========
``mean``               the mean of the human judgments (people only)               yes
``cv:<metric>``        Algorithm 1: the control variate of one metric              yes
``cv:combined``        every metric at once as a vector control variate            yes
``ppi++:<metric>``     prediction-powered inference, power-tuned weight             yes
``ppi++fpc:<metric>``  PPI++'s estimate with the finite-population t-interval      yes
=====================  ==========================================================  =========

Preferences (win rates and Bradley-Terry strengths; the proxies are LLM judges):

=====================  ==========================================================  =========
name                   what it is                                                  unbiased
=====================  ==========================================================  =========
``human``              the human verdicts alone (people only)                      yes
``judge:<judge>``      one judge's verdicts as if they were people's (proxy alone)  no
``ppi++:<judge>``      PPI++ with one judge                                        yes
``ppi++:combined``     PPI++ with every judge, the weights tuned together           yes
=====================  ==========================================================  =========

``mean`` and ``human`` are each shape's *baseline*: the people-only estimate that data
efficiency and effective sample sizes are measured against (:func:`baseline`).

Estimands and ties
------------------
What is estimated is written for a reader by :data:`ESTIMAND_LABELS` (``mean``: a system's mean
human score; ``win_rate``; ``strength``: a Bradley-Terry strength), an axis by
:func:`estimand_axis`. How a tie counts in a win rate is one of :data:`TIES` (``half``: half a
win, the default; ``drop``: left out, the share of decisive battles won), checked by
:func:`check_ties`; a Bradley-Terry strength always counts a tie as half a win.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

#: The lowest nominal coverage (``level``) taken anywhere (:func:`debias.stats.common.intervals.check_level`,
#: the configuration's schema, ``--level``): intervals of 50% or more; below that an interval
#: says little, and a level such as 1e-300 only shrinks every interval to a point. No code of the
#: package, its workflow or its tests asks for less (0.8 is the lowest they use). The highest is
#: below 1.
MIN_LEVEL = 0.5

__all__ = [
    "COMBINED",
    "MIN_LEVEL",
    "ESTIMAND_LABELS",
    "FAMILIES",
    "SHAPES",
    "TIES",
    "TIE_MODELS",
    "EstimatorFamily",
    "EstimatorInfo",
    "UnknownEstimator",
    "baseline",
    "check_ties",
    "describe",
    "estimand_axis",
    "estimator_name",
    "is_biased",
    "is_control_variate",
    "is_people_only",
]

#: The two shapes of data: ratings of outputs, and pairwise verdicts on battles.
SHAPES = ("ratings", "preferences")
#: The proxy name of the estimators that use every proxy at once.
COMBINED = "combined"


class UnknownEstimator(ValueError):
    """An estimator name that no family of :data:`FAMILIES` writes."""


@dataclass(frozen=True)
class EstimatorFamily:
    """One family of estimators.

    Attributes
    ----------
    family : str
        Its name, the prefix of every member's name (``cv``, ``ppi++``, ...).
    shapes : tuple of str
        The shapes of data it applies to (:data:`SHAPES`).
    asks : {"people", "people+proxy", "proxy"}
        Whom its estimate rests on: people only, people corrected by proxies, or a proxy alone.
    unbiased : bool
        Whether its estimate is about people whatever the proxies get wrong.
    per_proxy : bool
        Members are ``<family>:<proxy>`` (one proxy each; ``<family>:combined`` for every proxy
        where ``combined`` is allowed).
    combined : bool
        Whether the family has a member that uses every proxy at once.
    check_only : bool
        Listed in the coverage checks, not among a sample's estimates.
    label : str
        How a table or figure describes a member; ``{proxy}`` is replaced by the proxy's label.
    """

    family: str
    shapes: tuple[str, ...]
    asks: str
    unbiased: bool
    per_proxy: bool
    combined: bool = False
    check_only: bool = False
    label: str = ""


#: Every family, in the order estimators are listed.
FAMILIES: dict[str, EstimatorFamily] = {
    f.family: f
    for f in (
        EstimatorFamily("mean", ("ratings",), "people", True, False, label="mean of the judgments"),
        EstimatorFamily("human", ("preferences",), "people", True, False, label="people alone"),
        EstimatorFamily(
            "cv", ("ratings",), "people+proxy", True, True, combined=True, label="control variate, {proxy}"
        ),
        EstimatorFamily("judge", ("preferences",), "proxy", False, True, label="judge alone, {proxy}"),
        EstimatorFamily("ppi++", SHAPES, "people+proxy", True, True, combined=True, label="PPI++, {proxy}"),
        EstimatorFamily(
            "ppi++fpc", ("ratings",), "people+proxy", True, True, check_only=True, label="PPI++ (t-interval), {proxy}"
        ),
    )
}


@dataclass(frozen=True)
class EstimatorInfo:
    """What one estimator name means (:func:`describe`).

    Attributes
    ----------
    name : str
        The name as written in tables.
    family : EstimatorFamily
        Its family.
    proxy : str or None
        The one proxy (metric or judge) it uses; ``None`` for people-only estimators and for
        those that use every proxy (``combined``).
    """

    name: str
    family: EstimatorFamily
    proxy: str | None

    @property
    def people_only(self) -> bool:
        """Rests on human judgments alone: the shape's baseline (``mean`` or ``human``)."""
        return self.family.asks == "people"

    @property
    def proxy_only(self) -> bool:
        """Rests on a proxy alone (``judge:<j>``): biased by whatever the proxy gets wrong."""
        return self.family.asks == "proxy"

    @property
    def biased(self) -> bool:
        return not self.family.unbiased

    @property
    def combined(self) -> bool:
        """Uses every proxy at once (``cv:combined``, ``ppi++:combined``)."""
        return self.family.per_proxy and self.proxy is None

    @property
    def control_variate(self) -> bool:
        """Algorithm 1 with one metric or with every metric (``cv:<metric>``, ``cv:combined``)."""
        return self.family.family == "cv"

    @property
    def check_only(self) -> bool:
        return self.family.check_only

    @property
    def uses_proxies(self) -> bool:
        return self.family.asks != "people"

    def label(self, proxy_label: str | None = None, *, all_proxies: str = "all") -> str:
        """A reader's label: the family's, with the proxy's label (default its name)."""
        if not self.family.per_proxy:
            return self.family.label
        shown = all_proxies if self.combined else (proxy_label or self.proxy)
        return self.family.label.format(proxy=shown)


@lru_cache(maxsize=4096)
def describe(name: str) -> EstimatorInfo:
    """The description of an estimator name; :class:`UnknownEstimator` (a ``ValueError``) for a
    name no family writes.

    Examples
    --------
    >>> describe("cv:bleu").proxy, describe("cv:bleu").people_only
    ('bleu', False)
    >>> describe("judge:gpt4").biased, describe("ppi++:combined").combined
    (True, True)
    """
    if not isinstance(name, str):
        raise UnknownEstimator(f"an estimator name is a string, got {name!r}")
    if name in FAMILIES and not FAMILIES[name].per_proxy:
        return EstimatorInfo(name, FAMILIES[name], None)
    head, colon, proxy = name.partition(":")
    family = FAMILIES.get(head)
    if family is None or not family.per_proxy or not colon or not proxy:
        known = ", ".join(f.family if not f.per_proxy else f"{f.family}:<proxy>" for f in FAMILIES.values())
        raise UnknownEstimator(f"unknown estimator {name!r} (the names are {known})")
    if proxy == COMBINED and family.combined:
        return EstimatorInfo(name, family, None)
    return EstimatorInfo(name, family, proxy)


def estimator_name(family: str, proxy: str | None = None) -> str:
    """The name of a family's member: ``family`` alone, ``family:proxy``, or with ``proxy=None``
    for a per-proxy family the member that uses every proxy (``family:combined``)."""
    entry = FAMILIES.get(family)
    if entry is None:
        raise UnknownEstimator(f"unknown estimator family {family!r} (families: {list(FAMILIES)})")
    if not entry.per_proxy:
        if proxy is not None:
            raise UnknownEstimator(f"{family!r} uses no proxy, got {proxy!r}")
        return family
    if proxy is None:
        if not entry.combined:
            raise UnknownEstimator(f"{family!r} has no member using every proxy")
        proxy = COMBINED
    return f"{family}:{proxy}"


def baseline(shape: str) -> str:
    """The people-only estimator of a shape of data: ``mean`` (ratings) or ``human`` (preferences)."""
    for family in FAMILIES.values():
        if family.asks == "people" and shape in family.shapes:
            return family.family
    raise ValueError(f"unknown shape {shape!r} (shapes: {list(SHAPES)})")


def is_people_only(name: str) -> bool:
    """Whether ``name`` rests on human judgments alone (for ``Series.map`` and filters)."""
    return describe(name).people_only


def is_biased(name: str) -> bool:
    """Whether ``name`` is a proxy's estimate taken as if it were people's (``judge:<j>``)."""
    return describe(name).biased


def is_control_variate(name: str) -> bool:
    """Whether ``name`` is Algorithm 1 (``cv:<metric>`` or ``cv:combined``)."""
    return describe(name).control_variate


# Estimands and ties -------------------------------------------------------------------------------

#: How each estimand is written for a reader (a figure's title or panel, a sentence): ``mean``
#: (ratings), ``win_rate`` and ``strength`` (preferences).
ESTIMAND_LABELS: dict[str, str] = {
    "mean": "mean human score",
    "win_rate": "win rate",
    "strength": "Bradley-Terry strength",
}
#: What an axis of each estimand adds to its label: the scale of its numbers.
_ESTIMAND_SCALES = {"strength": "log-odds, mean 0"}

#: How a tie counts in a win rate, by the name the settings and options use, in a reader's words:
#: half a win (the first, the default), or left out (each system's share of its decisive battles
#: won). A Bradley-Terry strength always counts a tie as half a win.
TIES: dict[str, str] = {"half": "ties counted as half a win", "drop": "ties left out of the win rates"}
#: Tie models of the strengths an analysis may fit instead (win rates then count a tie as half a win).
TIE_MODELS: dict[str, str] = {
    "davidson": "ties modelled by Davidson's tie parameter in the strengths (half a win in the win rates)"
}


def check_ties(ties, *, models: bool = False) -> None:
    """Refuse a tie rule that is not one of :data:`TIES` (a ``ValueError``); with ``models``,
    one of :data:`TIE_MODELS` passes too."""
    allowed = {**TIES, **(TIE_MODELS if models else {})}
    if not isinstance(ties, str) or ties not in allowed:
        rules = " or ".join(f"{name!r} ({words})" for name, words in allowed.items())
        raise ValueError(f"ties must be {rules}, got {ties!r}")


def estimand_axis(estimand: str, ties: str = "half") -> str:
    """An axis label of ``estimand``: its label (:data:`ESTIMAND_LABELS`; an unknown estimand as
    it is written) with the scale of its numbers, and for a win rate how a tie counts.

    Examples
    --------
    >>> estimand_axis("win_rate"), estimand_axis("strength")
    ('win rate (ties counted as half a win)', 'Bradley-Terry strength (log-odds, mean 0)')
    """
    label = ESTIMAND_LABELS.get(estimand, estimand)
    scale = TIES.get(ties, TIES["half"]) if estimand == "win_rate" else _ESTIMAND_SCALES.get(estimand)
    return f"{label} ({scale})" if scale else label
