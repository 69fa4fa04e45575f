r"""Judged pairs: battles between two systems, with human and judge verdicts (see :mod:`debias.data`).

A *battle* is one item (an input) answered by two systems, A and B. A verdict is coded as the
score of system A: 1 (A is better), 0.5 (a tie) or 0 (B is better); NaN means no verdict. A
battle has any number of human verdicts (several raters, or none: a battle of the unlabelled
pool) and one verdict of each named judge (NaN where the judge gave none or an answer that is not
a verdict).

The verdict spellings of the public pairwise datasets are read by :func:`verdict_codes`:

=====================================  ======
spelling (case and spaces ignored)     code
=====================================  ======
``a``, ``model_a``                     1
``b``, ``model_b``                     0
``tie``, ``tie (bothbad)``             0.5
empty, null (``None``), NaN            missing
=====================================  ======

(Chatbot Arena and MT-Bench write ``model_a``, ``model_b``, ``tie`` and ``tie (bothbad)``.)
Numbers are read only through an explicit ``mapping`` such as ``{1: "a", 2: "b", 3: "tie"}``:
whether 1 means "A wins" or "first option" is the dataset's convention, not a guess. A mapping's
target may also be ``None`` (no verdict): ``{"error": None}`` reads a judge's failed answers as
missing, and says so.

The *text* ``none`` is not read as missing: some datasets write it for a vote not cast, others
for "neither is good" (both bad, which Chatbot Arena calls ``tie (bothbad)``). It is refused until
a mapping says which, ``{"none": None}`` or ``{"none": "tie"}``.

A judge's column whose every value is a number in [0, 1], one at least not 0 or 1, is read as
probabilities that A is better (``judge=`` in :func:`verdict_codes`). A judge's column of 0s and 1s
only is read as the judge's verdicts: 1 is A better, 0 is B better (the codes a probability of 1 or
0 would give; a people's column of 0s and 1s needs a mapping, as any code does). In a column of
probabilities, a value that is not one (a text, a number out of [0, 1], ``inf``) is refused on its
own row, as a value that is not a probability. Anything else that is not a verdict is refused, for
judges as for people (:class:`UnknownVerdicts`, with each value, its count and the mapping that
would read it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

__all__ = ["VERDICT_SPELLINGS", "JudgedPairs", "UnknownVerdicts", "VerdictCodes", "parse_mapping", "verdict_codes"]

#: Accepted verdict spellings, lower case with spaces removed, and their codes (the score of A).
VERDICT_SPELLINGS: dict[str, float] = {
    "a": 1.0,
    "model_a": 1.0,
    "b": 0.0,
    "model_b": 0.0,
    "tie": 0.5,
    "tie(bothbad)": 0.5,
}
_MISSING = {"", "nan", "null"}
#: Spellings of "no verdict" a mapping's target may take (besides ``None`` and NaN).
_NO_VERDICT = {"", "missing", "null", "nan", "none"}
#: Where a mapping is given, for the errors' hints.
MAPPING_HINT = (
    "mapping= in Python, mapping: in a preference task's config (or a judge's), --mapping on the command line"
)


class UnknownVerdicts(ValueError):
    """Verdicts that are not a known spelling (a person's or a judge's).

    Attributes
    ----------
    counts : dict
        Each unknown value (as given) and how often it occurs.
    first : int
        Position of the first unknown value.
    judge : str or None
        The judge whose verdicts these are (``None``: people's).
    """

    def __init__(
        self,
        counts: Mapping,
        first: int,
        what: str = "human verdicts",
        judge: str | None = None,
        probabilities: bool = False,
    ):
        self.counts = dict(counts)
        self.first = int(first)
        self.what = what
        self.judge = judge
        self.probabilities = probabilities
        listed = ", ".join(f"{value!r} ({count}x)" for value, count in list(self.counts.items())[:10])
        more = f" and {len(self.counts) - 10} more" if len(self.counts) > 10 else ""
        if probabilities:  # a judge's column of probabilities with a few values that are not
            super().__init__(
                f"values of judge {judge!r} that are not probabilities: {listed}{more}; the column's other values"
                " are probabilities that A is better, so each must be a number in [0, 1] (or empty: no verdict)"
            )
            return
        expected = "a/b/tie, model_a/model_b/tie/tie (bothbad) (case and spaces ignored)"
        if judge is not None:
            expected += ", or a probability that A is better (every value a number in [0, 1])"
        hints = []
        if any(_normal(value) == "none" for value in self.counts):
            hints.append(
                "The text 'none' is a vote not cast in some datasets and 'neither is good' in others: map it to"
                " None (no verdict) or to 'tie'."
            )
        codes = [value for value in self.counts if _normal(value) != "none"]
        if codes:
            if all(_is_number(v) for v in codes):
                codes = sorted(codes)
            example = ", ".join(f"{v!r}: {t!r}" for v, t in zip(codes[:3], ("a", "b", "tie")))
            hints.append(
                f"Such values need an explicit mapping of each to a, b, tie or None (no verdict), e.g. {{{example}}}"
                f" if that is what they mean ({MAPPING_HINT})."
            )
        super().__init__(f"unknown {what}: {listed}{more}; expected {expected}. {' '.join(hints)}".rstrip())


class VerdictCodes(NamedTuple):
    """Codes of a column of verdicts: ``codes`` (score of A, NaN = missing), ``unknown`` (each
    value its mapping reads as no verdict, with its count) and ``continuous`` (a judge's
    probabilities that A is better, read as they are)."""

    codes: np.ndarray
    unknown: dict
    continuous: bool = False


def _is_number(value) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool | np.bool_)


def _is_null(value) -> bool:
    """``None``, NaN or pandas' NA (a nullable column's missing value)."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    return _is_number(value) and math.isnan(float(value))


def _normal(value) -> str | None:
    """A verdict's spelling for lookup: lower case, spaces removed; integral numbers as integers;
    ``None`` for a missing value."""
    if _is_null(value):
        return None
    if _is_number(value):
        number = float(value)
        if math.isnan(number):
            return None
        return str(int(number)) if number.is_integer() else repr(number)
    text = "".join(str(value).split()).lower()
    return None if text in _MISSING else text


def _lookup(mapping: Mapping | None) -> dict[str, float]:
    """Spelling -> code (NaN: a value the mapping reads as no verdict)."""
    table = dict(VERDICT_SPELLINGS)
    if mapping is None:
        return table
    if not isinstance(mapping, Mapping):
        raise ValueError(f"verdict mapping: expected a mapping of values to a/b/tie, found {type(mapping).__name__}")
    given: dict[str, object] = {}
    for key, target in mapping.items():
        spelling = _normal(key)
        if spelling is None:
            raise ValueError(f"verdict mapping: key {key!r} is a missing value (missing values are no verdict already)")
        if spelling in given:
            raise ValueError(
                f"verdict mapping: keys {given[spelling]!r} and {key!r} are the same value ({spelling!r}): give it once"
            )
        given[spelling] = key
        if _is_null(target) or (isinstance(target, str) and target.strip().lower() in _NO_VERDICT):
            table[spelling] = math.nan
        elif _is_number(target) and float(target) in (0.0, 0.5, 1.0):
            table[spelling] = float(target)
        elif isinstance(target, str) and _normal(target) in VERDICT_SPELLINGS:
            table[spelling] = VERDICT_SPELLINGS[_normal(target)]
        else:
            raise ValueError(
                f"verdict mapping: {key!r} -> {target!r}; a target must be a/b/tie (or model_a/model_b), 1/0.5/0,"
                " or None for no verdict"
            )
    return table


def _number(value) -> float | None:
    """A finite number (a number, or a text that reads as one), or ``None``."""
    if _is_number(value):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def _probability(value) -> float | None:
    """A number in [0, 1] (a number, or a text that reads as one), or ``None``."""
    number = _number(value)
    return number if number is not None and 0.0 <= number <= 1.0 else None


def parse_mapping(text: str) -> dict[str, str | None]:
    """A verdict mapping written on one line, as the command line takes it: ``1=a,2=b,3=tie``
    (``none=`` or ``none=missing``: no verdict). Keys are texts: ``"1"`` matches the number 1 too.

    Examples
    --------
    >>> parse_mapping("1=a, 2=b, 3=tie, none=")
    {'1': 'a', '2': 'b', '3': 'tie', 'none': None}
    """
    mapping: dict[str, str | None] = {}
    for part in str(text).split(","):
        if not part.strip():
            continue
        key, sep, target = part.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"verdict mapping: {part.strip()!r} is not value=target (e.g. 1=a,2=b,3=tie)")
        if key.strip() in mapping:
            raise ValueError(f"verdict mapping: {key.strip()!r} is mapped twice: give each value once")
        target = target.strip()
        mapping[key.strip()] = None if target.lower() in _NO_VERDICT else target
    _lookup(mapping)
    return mapping


def verdict_codes(values, *, mapping: Mapping | None = None, judge: str | None = None) -> VerdictCodes:
    """Verdicts as the score of system A: 1, 0.5 or 0, NaN for a missing verdict.

    Parameters
    ----------
    values : array_like
        Verdicts as written (module notes for the spellings).
    mapping : mapping, optional
        Extra spellings or numeric codes, each to a spelling (``"a"``, ``"b"``, ``"tie"``) or a
        code (1, 0.5, 0), e.g. ``{1: "a", 2: "b", 0: "tie"}``.
    judge : str, optional
        The judge whose verdicts these are: its column may instead hold probabilities that A is
        better (every value a number in [0, 1], one at least not 0 or 1), read as they are; a
        column of 0s and 1s only is the judge's verdicts, 1 for A and 0 for B.

    Returns
    -------
    VerdictCodes
        ``(codes, unknown, continuous)``; ``unknown`` counts the values the mapping reads as no
        verdict.

    Raises
    ------
    UnknownVerdicts
        Values that are neither a known spelling nor mapped (nor, for a judge, all probabilities),
        listed with their counts and the mapping that would read them.

    Examples
    --------
    >>> verdict_codes(["model_a", "Tie (bothbad)", " B ", None]).codes.tolist()
    [1.0, 0.5, 0.0, nan]
    >>> verdict_codes(["a", "error", "error"], mapping={"error": None}, judge="gpt-4").unknown
    {'error': 2}
    >>> verdict_codes([0.8, 0.25, "1"], judge="gpt-4").codes.tolist()
    [0.8, 0.25, 1.0]
    """
    array = np.asarray(values, dtype=object).ravel()
    index: dict = {}
    positions = np.fromiter((index.setdefault(v, len(index)) for v in array), dtype=np.int64, count=array.size)
    distinct = list(index)
    table = _lookup(mapping)
    spellings = [_normal(v) for v in distinct]
    codes_of = np.array([np.nan if s is None else table.get(s, np.nan) for s in spellings], dtype=float)
    unknown_of = np.array([s is not None and s not in table for s in spellings], dtype=bool)
    counts = np.bincount(positions, minlength=len(distinct)) if distinct else np.zeros(0, np.int64)
    no_verdict: dict = {}
    for k, spelling in enumerate(spellings):
        if spelling is not None and spelling in table and np.isnan(codes_of[k]):
            no_verdict[distinct[k]] = no_verdict.get(distinct[k], 0) + int(counts[k])
    if unknown_of.any():
        # a judge's probabilities: every value that is not missing (nor mapped to no verdict) a number in [0, 1]
        present = [
            k for k, s in enumerate(spellings) if s is not None and (s not in table or not np.isnan(codes_of[k]))
        ]
        numbers = {k: _probability(distinct[k]) for k in present}
        if judge is not None and all(n is not None for n in numbers.values()):
            # every value a number in [0, 1]: probabilities that A is better; 0s and 1s only: the
            # judge's verdicts, 1 for A and 0 for B (the same codes either way)
            codes_of = np.full(len(distinct), np.nan)
            codes_of[present] = [numbers[k] for k in present]
            fractional = any(n not in (0.0, 1.0) for n in numbers.values())
            return VerdictCodes(codes_of[positions], no_verdict, fractional)
        # a judge's probabilities with a few values that are not (a text, a number out of [0, 1],
        # inf): those values are what is wrong, not the probabilities around them
        probability_rows = sum(
            int(counts[k]) for k, n in numbers.items() if n is not None and spellings[k] not in table
        )
        verdict_rows = sum(int(counts[k]) for k in present if spellings[k] in table)
        fractional = any(n is not None and n not in (0.0, 1.0) for n in numbers.values())
        if judge is not None and fractional and probability_rows > verdict_rows:
            unknown_of = np.zeros(len(distinct), dtype=bool)
            unknown_of[[k for k, n in numbers.items() if n is None]] = True
            what = f"probabilities of judge {judge!r}"
            unknown = {distinct[k]: int(counts[k]) for k in np.flatnonzero(unknown_of)}
            raise UnknownVerdicts(unknown, int(np.flatnonzero(unknown_of[positions])[0]), what, judge, True)
        unknown: dict = {}
        for k in np.flatnonzero(unknown_of):
            unknown[distinct[k]] = unknown.get(distinct[k], 0) + int(counts[k])
        first = int(np.flatnonzero(unknown_of[positions])[0])
        what = "human verdicts" if judge is None else f"verdicts of judge {judge!r}"
        raise UnknownVerdicts(unknown, first, what, judge)
    return VerdictCodes(codes_of[positions] if array.size else np.zeros(0), no_verdict)


def _codes(values, what: str) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    bad = ~(np.isnan(values) | (values == 0.0) | (values == 0.5) | (values == 1.0))
    if bad.any():
        raise ValueError(f"{what} must be coded 1, 0.5, 0 or NaN (found {values[bad][:3].tolist()})")
    return values


def _predictions(values, what: str) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    bad = ~(np.isnan(values) | ((values >= 0.0) & (values <= 1.0)))
    if bad.any():
        raise ValueError(f"{what} must be in [0, 1] or NaN (found {values[bad][:3].tolist()})")
    return values


#: A judge answering fewer than this share of the battles is named (:attr:`JudgedPairs.sparse_judges`).
SPARSE_SHARE = 0.5


@dataclass(frozen=True, eq=False)
class JudgedPairs:
    r"""B battles between pairs of systems with their human and judge verdicts, battle after battle.

    Attributes
    ----------
    systems : tuple of str
        System names; ``system_a`` and ``system_b`` index them.
    system_a, system_b : numpy.ndarray of int, shape (B,)
        The two systems of each battle (never the same).
    human : numpy.ndarray, shape (V,)
        Every human verdict (score of A), battle 0's first, then battle 1's, ...
    human_counts : numpy.ndarray of int, shape (B,)
        Human verdicts of each battle, :math:`k_i \ge 0` (0: a battle of the unlabelled pool).
    judges : tuple of str
        Judge names, the columns of ``judge_verdicts``.
    judge_verdicts : numpy.ndarray, shape (B, J)
        Each judge's verdict (score of A: 1, 0.5, 0) on each battle, or its probability that A
        is better (any number in [0, 1]); NaN where it gave none.
    items : numpy.ndarray of str, shape (B,), optional
        The item (input) of each battle.
    judge_unknown : numpy.ndarray of int, shape (J,)
        Answers of each judge its mapping read as no verdict (e.g. ``{"error": None}``), for the
        record.
    task : str
        The name the battles' random draws are named after (a preference task's name in the
        workflow; ``"evaluation"`` otherwise), so that the same battles under the same name give
        the same rank-sets through the API, the command line and the workflow.
    clusters : numpy.ndarray of str, shape (B,), optional
        The cluster of each battle (a question, a document, a conversation): battles sharing
        one are not independent, and the intervals treat the cluster as the unit
        (:attr:`cluster_codes`). Default: the battle's item, so that the battles of one item
        share it.
    arrival : numpy.ndarray of float, shape (B,), optional
        When each battle with a human verdict arrived, on the scale of the table's order column
        (a number, or a date-time as nanoseconds since 1970 UTC; on a battle without a human
        verdict, NaN or a value that means nothing), given only when the table had one. The
        battles are then in that order (:func:`debias.io.pairs.read_pair_table` sorts the table
        by it), so that what reads them in order reads them as they arrived; ``None``: the
        table's order is the only one.
    covariates : mapping of str to numpy.ndarray of shape (B, 2), optional
        Per-battle covariates, each its value on A's response and on B's (a length, a count of
        markdown headers), for style control: the model uses the difference A - B
        (:mod:`debias.stats.preferences.design`).
    facets : mapping of str to numpy.ndarray of str, optional
        Columns that label each battle (a category, a turn, a language): ``{column: (B,)
        labels}``, what a breakdown by that column splits the battles by
        (:func:`debias.tables.preferences.preference_breakdown`).

    Notes
    -----
    Derived, once: :attr:`human_mean` (each battle's mean human verdict, NaN with none),
    :attr:`labelled` (battles with a human verdict) and :attr:`rater_variance` (the pooled
    variance of one rater's verdict around its battle's mean, the preference analogue of the
    paper's :math:`\sigma_a^2`).
    """

    systems: tuple[str, ...]
    system_a: np.ndarray
    system_b: np.ndarray
    human: np.ndarray
    human_counts: np.ndarray
    judges: tuple[str, ...] = ()
    judge_verdicts: np.ndarray | None = None
    items: np.ndarray | None = None
    judge_unknown: np.ndarray | None = field(default=None)
    task: str = "evaluation"
    clusters: np.ndarray | None = None
    arrival: np.ndarray | None = None
    covariates: Mapping[str, np.ndarray] | None = None
    facets: Mapping[str, np.ndarray] | None = None

    def __post_init__(self):
        if not isinstance(self.task, str) or not self.task.strip():
            raise ValueError(f"task must be a name, got {self.task!r}")
        systems = tuple(str(s) for s in self.systems)
        a = np.asarray(self.system_a, dtype=np.int64)
        b = np.asarray(self.system_b, dtype=np.int64)
        if a.ndim != 1 or a.shape != b.shape:
            raise ValueError(f"system_a and system_b must be one-dimensional of equal length ({a.shape}, {b.shape})")
        if len(set(systems)) != len(systems):
            raise ValueError("system names must be distinct")
        for name, index in (("system_a", a), ("system_b", b)):
            if index.size and (index.min() < 0 or index.max() >= len(systems)):
                raise ValueError(f"{name} must index the {len(systems)} systems")
        if np.any(a == b):
            first = int(np.flatnonzero(a == b)[0])
            raise ValueError(f"battle {first}: a system cannot battle itself ({systems[a[first]]!r})")
        counts = np.asarray(self.human_counts, dtype=np.int64)
        human = _codes(self.human, "human verdicts").ravel()
        if counts.shape != a.shape or np.any(counts < 0):
            raise ValueError("human_counts needs one count >= 0 per battle")
        if int(counts.sum()) != human.size:
            raise ValueError(f"human_counts add up to {int(counts.sum())} but there are {human.size} human verdicts")
        if np.isnan(human).any():
            raise ValueError("human verdicts are stored without missing values (a battle without one has count 0)")
        judges = tuple(str(j) for j in self.judges)
        verdicts = np.zeros((a.size, 0)) if self.judge_verdicts is None else self.judge_verdicts
        verdicts = _predictions(verdicts, "judge verdicts")
        if verdicts.ndim == 1:
            verdicts = verdicts[:, None]
        if verdicts.shape != (a.size, len(judges)):
            raise ValueError(f"judge_verdicts must have shape ({a.size}, {len(judges)}), got {verdicts.shape}")
        if len(set(judges)) != len(judges):
            raise ValueError("judge names must be distinct")
        unknown = np.zeros(len(judges), np.int64) if self.judge_unknown is None else self.judge_unknown
        unknown = np.asarray(unknown, dtype=np.int64)
        if unknown.shape != (len(judges),):
            raise ValueError("judge_unknown needs one count per judge")
        items = None if self.items is None else np.asarray(self.items, dtype=object)
        if items is not None and items.shape != a.shape:
            raise ValueError(f"{items.size} items for {a.size} battles")
        clusters = None if self.clusters is None else np.asarray(self.clusters, dtype=object)
        if clusters is not None and clusters.shape != a.shape:
            raise ValueError(f"{clusters.size} clusters for {a.size} battles")
        if clusters is not None:
            missing = np.flatnonzero([_is_null(c) or str(c).strip() == "" for c in clusters.tolist()])
            if missing.size:
                raise ValueError(f"battle {int(missing[0])}: no cluster (with clusters given, every battle needs one)")
        arrival = None if self.arrival is None else np.asarray(self.arrival, dtype=float)
        if arrival is not None and arrival.shape != a.shape:
            raise ValueError(f"{arrival.size} arrival times for {a.size} battles")
        covariates = None
        if self.covariates is not None:
            covariates = {}
            for name, sides in dict(self.covariates).items():
                sides = np.array(sides, dtype=float)
                if sides.shape != (a.size, 2):
                    raise ValueError(
                        f"covariate {name!r}: needs its two sides on each of {a.size} battles, got {sides.shape}"
                    )
                if not np.all(np.isfinite(sides)):
                    first = int(np.flatnonzero(~np.isfinite(sides).all(axis=1))[0])
                    raise ValueError(f"covariate {name!r}: battle {first} has no value (a covariate needs both sides)")
                sides.setflags(write=False)
                covariates[str(name)] = sides
            covariates = MappingProxyType(covariates)
        facets = None
        if self.facets is not None:
            facets = {}
            for column, labels in self.facets.items():
                labels = np.asarray(labels, dtype=object)
                if labels.shape != a.shape:
                    raise ValueError(f"facet {column!r}: {labels.size} labels for {a.size} battles")
                missing = np.flatnonzero([_is_null(v) or str(v).strip() == "" for v in labels.tolist()])
                if missing.size:
                    raise ValueError(f"battle {int(missing[0])}: no value in column {column!r}")
                labels.setflags(write=False)
                facets[str(column)] = labels
        extra = [x for x in (items, clusters, arrival) if x is not None]
        for array in (a, b, counts, human, verdicts, unknown, *extra):
            array.setflags(write=False)
        for name, value in (
            ("systems", systems),
            ("system_a", a),
            ("system_b", b),
            ("human", human),
            ("human_counts", counts),
            ("judges", judges),
            ("judge_verdicts", verdicts),
            ("judge_unknown", unknown),
            ("items", items),
            ("clusters", clusters),
            ("arrival", arrival),
            ("covariates", covariates),
            ("facets", facets),
        ):
            object.__setattr__(self, name, value)

    @classmethod
    def from_arrays(
        cls,
        system_a: Sequence[str],
        system_b: Sequence[str],
        human,
        judges: Mapping[str, Sequence[float]] | None = None,
        *,
        items: Sequence[str] | None = None,
        systems: Sequence[str] | None = None,
        clusters: Sequence[str] | None = None,
        covariates: Mapping[str, object] | None = None,
    ) -> JudgedPairs:
        """From system names per battle, human verdicts (one code per battle, NaN for none, or one
        list of codes per battle) and ``{judge: codes}``; systems in order of appearance unless given;
        ``covariates`` as :attr:`covariates` (``{name: (B, 2) sides}``).

        Examples
        --------
        >>> pairs = JudgedPairs.from_arrays(["x", "y"], ["y", "z"], [[1, 0.5], np.nan], {"j": [1, 0]})
        >>> pairs.systems, pairs.human_counts.tolist(), pairs.human_mean.tolist()
        (('x', 'y', 'z'), [2, 0], [0.75, nan])
        """
        names_a, names_b = [str(s) for s in system_a], [str(s) for s in system_b]
        if systems is None:
            systems = list(dict.fromkeys(names_a + names_b))
        position = {name: k for k, name in enumerate(systems)}
        missing = sorted(set(names_a + names_b) - set(position))
        if missing:
            raise ValueError(f"systems {missing[:5]} are not among the systems given")
        a = np.array([position[s] for s in names_a], dtype=np.int64)
        b = np.array([position[s] for s in names_b], dtype=np.int64)
        if isinstance(human, np.ndarray) or all(np.ndim(v) == 0 for v in human):
            flat = np.asarray(human, dtype=float).ravel()
            counts = (~np.isnan(flat)).astype(np.int64)
            flat = flat[~np.isnan(flat)]
        else:
            lists = [np.asarray([] if v is None else v, dtype=float).ravel() for v in human]
            lists = [v[~np.isnan(v)] for v in lists]
            counts = np.array([v.size for v in lists], dtype=np.int64)
            flat = np.concatenate(lists) if lists else np.zeros(0)
        judges = dict(judges or {})
        verdicts = np.column_stack([np.asarray(v, dtype=float) for v in judges.values()]) if judges else None
        return cls(
            tuple(systems), a, b, flat, counts, tuple(judges), verdicts, items, clusters=clusters, covariates=covariates
        )

    # Derived quantities ---------------------------------------------------------------------

    @property
    def n_battles(self) -> int:
        return int(self.system_a.size)

    def __len__(self) -> int:
        return self.n_battles

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    @cached_property
    def offsets(self) -> np.ndarray:
        """Where each battle's human verdicts start in :attr:`human` (length B + 1)."""
        return np.concatenate([[0], np.cumsum(self.human_counts)]).astype(np.int64)

    @cached_property
    def labelled(self) -> np.ndarray:
        """Mask of the battles with at least one human verdict."""
        return self.human_counts > 0

    @cached_property
    def human_mean(self) -> np.ndarray:
        """Each battle's mean human verdict (NaN for a battle without one)."""
        if self.n_battles and self.human_counts.max() == 1:  # one verdict a judged battle: the verdict
            mean = np.full(self.n_battles, np.nan)
            mean[self.labelled] = self.human
            return mean
        sums = np.bincount(np.repeat(np.arange(self.n_battles), self.human_counts), self.human, self.n_battles)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.labelled, sums / np.maximum(self.human_counts, 1), np.nan)

    def human_share(self, code: float) -> np.ndarray:
        """Each battle's share of human verdicts equal to ``code`` (NaN without one): with
        ``code=1`` the share saying A is better."""
        battle = np.repeat(np.arange(self.n_battles), self.human_counts)
        hits = np.bincount(battle, (self.human == code).astype(float), self.n_battles)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.labelled, hits / np.maximum(self.human_counts, 1), np.nan)

    @cached_property
    def rater_variance(self) -> float:
        r"""Pooled variance of one rater's verdict around its battle's mean,
        :math:`\sum_i\sum_r (v_{ir} - \bar v_i)^2 / \sum_i (k_i - 1)` over the battles rated at
        least twice (NaN without such battles)."""
        battle = np.repeat(np.arange(self.n_battles), self.human_counts)
        deviations = self.human - self.human_mean[battle]
        dof = int(np.sum(np.maximum(self.human_counts - 1, 0)))
        return float(deviations @ deviations / dof) if dof else float("nan")

    @cached_property
    def continuous_judges(self) -> tuple[str, ...]:
        """The judges whose verdicts include a probability (a value other than 1, 0.5 and 0)."""
        verdicts = self.judge_verdicts
        other = ~(np.isnan(verdicts) | (verdicts == 0.0) | (verdicts == 0.5) | (verdicts == 1.0))
        return tuple(j for j, flag in zip(self.judges, other.any(axis=0)) if flag)

    @cached_property
    def judge_coverage(self) -> np.ndarray:
        """Per judge, the share of the battles it gave a verdict on (NaN without battles)."""
        if not self.n_battles:
            return np.full(len(self.judges), np.nan)
        return np.mean(~np.isnan(self.judge_verdicts), axis=0)

    @property
    def sparse_judges(self) -> tuple[str, ...]:
        """The judges with a verdict on fewer than half the battles (:data:`SPARSE_SHARE`)."""
        return tuple(j for j, share in zip(self.judges, self.judge_coverage) if share < SPARSE_SHARE)

    @cached_property
    def cluster_codes(self) -> np.ndarray:
        """Each battle's cluster as a number 0, 1, ... in order of first appearance: from
        :attr:`clusters`, else from :attr:`items` (the battles of one item share it), else every
        battle its own."""
        labels = self.clusters if self.clusters is not None else self.items
        if labels is None:
            return np.arange(self.n_battles, dtype=np.int64)
        _, first, codes = np.unique(np.asarray(labels, dtype=str), return_index=True, return_inverse=True)
        order = np.empty(first.size, dtype=np.int64)
        order[np.argsort(first, kind="stable")] = np.arange(first.size)
        return order[codes.reshape(-1)]

    @property
    def n_clusters(self) -> int:
        """The clusters the battles fall in (:attr:`cluster_codes`)."""
        return int(self.cluster_codes.max()) + 1 if self.n_battles else 0

    @property
    def clustered(self) -> bool:
        """Whether some cluster holds two battles or more: only then do the intervals differ
        from those of independent battles."""
        return self.n_clusters < self.n_battles

    @property
    def n_multiply_rated(self) -> int:
        """Battles with at least two human verdicts."""
        return int(np.sum(self.human_counts >= 2))

    def take(self, index) -> JudgedPairs:
        """The battles at ``index`` (integer positions or a boolean mask), in that order."""
        index = np.asarray(index)
        if index.dtype == bool:
            index = np.flatnonzero(index)
        starts, counts = self.offsets[index], self.human_counts[index]
        flat = np.repeat(starts - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts) + np.arange(counts.sum())
        return JudgedPairs(
            self.systems,
            self.system_a[index],
            self.system_b[index],
            self.human[flat.astype(np.int64)],
            counts,
            self.judges,
            self.judge_verdicts[index],
            None if self.items is None else self.items[index],
            self.judge_unknown,
            self.task,
            None if self.clusters is None else self.clusters[index],
            None if self.arrival is None else self.arrival[index],
            None if self.covariates is None else {k: v[index] for k, v in self.covariates.items()},
            None if self.facets is None else {k: v[index] for k, v in self.facets.items()},
        )

    def decisive(self) -> JudgedPairs:
        """The same battles with ties left out: every human tie verdict removed (a battle whose
        verdicts are all ties keeps none, and joins the unlabelled pool) and a judge's tie read
        as no verdict. What a model of wins and losses alone fits (``ties="drop"``)."""
        tie = self.human == 0.5
        if not tie.any() and not np.any(self.judge_verdicts == 0.5):
            return self
        battle = np.repeat(np.arange(self.n_battles), self.human_counts)
        counts = np.bincount(battle[~tie], minlength=self.n_battles).astype(self.human_counts.dtype)
        verdicts = np.where(self.judge_verdicts == 0.5, np.nan, self.judge_verdicts)
        return replace(self, human=self.human[~tie], human_counts=counts, judge_verdicts=verdicts)

    def without_human(self, index) -> JudgedPairs:
        """The same battles with the human verdicts of ``index`` (positions or mask) removed:
        those battles join the unlabelled pool."""
        drop = np.zeros(self.n_battles, bool)
        drop[np.asarray(index)] = True
        keep_verdict = np.repeat(~drop, self.human_counts)
        counts = np.where(drop, 0, self.human_counts)
        return JudgedPairs(
            self.systems,
            self.system_a,
            self.system_b,
            self.human[keep_verdict],
            counts,
            self.judges,
            self.judge_verdicts,
            self.items,
            self.judge_unknown,
            self.task,
            self.clusters,
            self.arrival,
            self.covariates,
            self.facets,
        )
