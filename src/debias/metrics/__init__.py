"""Automatic metrics: a registry of implementations and one entry point, :func:`score_outputs`.

A *metric* is a configured name (a column of the metric tables, e.g. ``rougeL``); its
*implementation* says which code computes it. Implementations come in families, one
module each, and every family scores all of its variants in one pass (ROUGE-1.5.5 runs
its Perl script once for ROUGE-1, -2, -L and -SU4):

=================  =========================================================  =====================
family (module)    implementations                                            needs
=================  =========================================================  =====================
``modern``         ``sacrebleu``, ``rouge-score-1``, ``rouge-score-2``,       WordNet for METEOR
                   ``rouge-score-L``, ``nltk-meteor``
``rouge155``       ``rouge155-1``, ``-2``, ``-3``, ``-4``, ``-L``, ``-SU4``   Perl, XML::Parser
``meteor15``       ``meteor15``                                               Java
``rouge021``       ``rouge021-1``, ``rouge021-2``, ``rouge021-L``             ``rouge`` 0.2.1
``vecsim``         ``vecsim-minilm`` (optional extra ``.[vecsim]``)           sentence-transformers
=================  =========================================================  =====================

The five modern names ``bleu``, ``rouge1``, ``rouge2``, ``rougeL`` and ``meteor`` name
their implementation by default (:data:`DEFAULT_IMPLEMENTATIONS`); any other metric name
must say which implementation it uses. An output or reference that is empty or only white
space scores 0 on every metric without reaching any implementation.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "COMPUTED_METRICS",
    "DEFAULT_IMPLEMENTATIONS",
    "ENGLISH_ONLY",
    "IMPLEMENTATIONS",
    "METEOR_PARAMS",
    "METRICS",
    "Implementation",
    "implementation_unavailable",
    "meteor_tokens",
    "metric_versions",
    "resolve_implementations",
    "score_outputs",
]


@dataclass(frozen=True)
class Implementation:
    """One way of computing a metric.

    ``family`` is the module under :mod:`debias.metrics` that computes it, ``variant`` the
    score of that module it is, ``label`` the display name a metric using it gets unless
    the configuration gives one, and ``low``/``high`` the range every score lies in.
    """

    name: str
    family: str
    variant: str
    label: str
    description: str
    low: float = 0.0
    high: float = 1.0


def _registry() -> dict[str, Implementation]:
    entries = [
        Implementation("sacrebleu", "modern", "bleu", "BLEU", "sacrebleu sentence BLEU, default settings"),
        Implementation("sacrebleu-chrf", "modern", "chrf", "chrF", "sacrebleu sentence chrF"),
        Implementation("sacrebleu-chrf++", "modern", "chrfpp", "chrF++", "sacrebleu sentence chrF++ (word bigrams)"),
        Implementation("rouge-score-1", "modern", "rouge1", "ROUGE-1", "rouge-score ROUGE-1 F, Porter stemmer"),
        Implementation("rouge-score-2", "modern", "rouge2", "ROUGE-2", "rouge-score ROUGE-2 F, Porter stemmer"),
        Implementation("rouge-score-L", "modern", "rougeL", "ROUGE-L", "rouge-score ROUGE-L F, Porter stemmer"),
        Implementation("nltk-meteor", "modern", "meteor", "METEOR", "NLTK METEOR with WordNet 3.0"),
        Implementation("meteor15", "meteor15", "meteor", "METEOR (1.5)", "METEOR 1.5 (Java), -l en -norm"),
        Implementation(
            "vecsim-minilm",
            "vecsim",
            "cosine",
            "VecSim (MiniLM substitute)",
            "cosine of MiniLM-L6 embeddings",
            -1.0,
            1.0,
        ),
    ]
    for variant in ("1", "2", "3", "4", "L", "SU4"):
        entries.append(
            Implementation(
                f"rouge155-{variant}",
                "rouge155",
                variant,
                f"ROUGE-{variant} (1.5.5)",
                f"ROUGE-1.5.5 ROUGE-{variant} recall",
            )
        )
    for variant in ("1", "2", "L"):
        entries.append(
            Implementation(
                f"rouge021-{variant}",
                "rouge021",
                variant,
                f"ROUGE-{variant} (rouge 0.2.1)",
                f"rouge 0.2.1 ROUGE-{variant} F",
            )
        )
    return {entry.name: entry for entry in entries}


#: Every implementation by name.
IMPLEMENTATIONS: dict[str, Implementation] = _registry()

#: The implementation each of the five modern metric names uses when none is configured.
DEFAULT_IMPLEMENTATIONS: dict[str, str] = {
    "bleu": "sacrebleu",
    "chrf": "sacrebleu-chrf",
    "chrfpp": "sacrebleu-chrf++",
    "rouge1": "rouge-score-1",
    "rouge2": "rouge-score-2",
    "rougeL": "rouge-score-L",
    "meteor": "nltk-meteor",
}

#: The metrics the pipeline computes itself when no implementation is configured; any other
#: configured metric names its implementation or is declared ``provided: true`` and comes with
#: the system files' ``"scores"``.
COMPUTED_METRICS: tuple[str, ...] = tuple(DEFAULT_IMPLEMENTATIONS)

#: The metrics scored when none are named: the paper's modern set.
METRICS: tuple[str, ...] = ("bleu", "rouge1", "rouge2", "rougeL", "meteor")

#: Implementations for English texts only: METEOR matches English stems and WordNet synonyms.
ENGLISH_ONLY = frozenset({"nltk-meteor", "meteor15"})


def resolve_implementations(metrics: Sequence[str] | Mapping) -> dict[str, str]:
    """Map each metric name to its implementation name.

    ``metrics`` is a list of metric names (each one of the five modern names), or the
    configuration's ``metrics`` mapping (name to an entry with an optional ``implementation``
    key; an entry may also be the implementation name itself). Entries marked
    ``provided: true`` (scores supplied inside the system files) are left out.
    """
    if isinstance(metrics, str):
        raise TypeError("metrics must be a list of names or a mapping, not a single string")
    entries = metrics.items() if isinstance(metrics, Mapping) else ((name, None) for name in metrics)
    resolved = {}
    for name, entry in entries:
        if isinstance(entry, Mapping) and entry.get("provided"):
            continue
        chosen = entry.get("implementation") if isinstance(entry, Mapping) else entry
        chosen = chosen or DEFAULT_IMPLEMENTATIONS.get(name)
        if chosen is None:
            raise ValueError(
                f"metric '{name}' names no implementation; give one of: {', '.join(IMPLEMENTATIONS)} "
                f"(only {', '.join(DEFAULT_IMPLEMENTATIONS)} have a default)"
            )
        if chosen not in IMPLEMENTATIONS:
            raise ValueError(
                f"unknown implementation '{chosen}' for metric '{name}'; known: {', '.join(IMPLEMENTATIONS)}"
            )
        resolved[name] = chosen
    return resolved


def _family(name: str):
    return importlib.import_module(f"{__name__}.{name}")


def __getattr__(name: str):
    # The modern family's constants are read from it on first use, so that importing the
    # registry (as the workflow does at start-up) does not import NLTK, sacrebleu and rouge-score.
    if name in ("METEOR_PARAMS", "meteor_tokens"):
        return getattr(_family("modern"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def implementation_unavailable(implementation: str) -> str | None:
    """Why ``implementation`` cannot run on this machine (naming what to install), or None."""
    if IMPLEMENTATIONS[implementation].family == "modern":
        from importlib.util import find_spec

        from debias.distribution.extras import install_hint

        # Its packages are the extra 'workflow'; WordNet is checked on its own.
        for module in ("sacrebleu", "rouge_score", "nltk"):
            if find_spec(module) is None:
                return f"the Python package {module} is not installed ({install_hint(module)})"
        return None
    family = _family(IMPLEMENTATIONS[implementation].family)
    check = getattr(family, "unavailable", None)
    return check() if check else None


def _check_texts(name: str, texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError(f"{name} must be a sequence of strings, not a single string")
    checked = list(texts)
    for i, text in enumerate(checked):
        if not isinstance(text, str):
            raise TypeError(f"{name}[{i}] is {type(text).__name__}, not str")
    return checked


def score_outputs(
    outputs: Sequence[str],
    references: Sequence[str],
    nltk_data_dir: str | os.PathLike | None = None,
    metrics: Sequence[str] | Mapping = METRICS,
    cache_dir: str | os.PathLike | None = None,
    language: str = "en",
) -> pd.DataFrame:
    """Score each output against its reference on each metric.

    Parameters
    ----------
    outputs, references : sequence of str
        One reference per output.
    nltk_data_dir : path, optional
        NLTK data directory holding WordNet 3.0; needed only by ``nltk-meteor``.
    metrics : sequence of str or mapping
        Metric names, or metric name to implementation (see :func:`resolve_implementations`).
        Default: the five modern metrics.
    cache_dir : path, optional
        Where implementations that cache work between calls keep it (``vecsim-minilm``
        caches embeddings by text hash).
    language : str
        The texts' language (ISO 639-1, default ``en``): it chooses BLEU's and ROUGE's
        tokenisation (:mod:`debias.metrics.modern`).

    Returns
    -------
    pandas.DataFrame
        One row per output (in order, default index), one float column per metric, each
        score within its implementation's range; blank outputs or references score 0.
    """
    import numpy as np
    import pandas as pd

    chosen = resolve_implementations(metrics)
    outputs = _check_texts("outputs", outputs)
    references = _check_texts("references", references)
    if len(outputs) != len(references):
        raise ValueError(f"{len(outputs)} outputs but {len(references)} references; need one reference per output")
    scored = np.array([not (o.isspace() or not o or r.isspace() or not r) for o, r in zip(outputs, references)], bool)
    kept_outputs = [o for o, keep in zip(outputs, scored) if keep]
    kept_references = [r for r, keep in zip(references, scored) if keep]
    context = {"nltk_data": nltk_data_dir, "cache_dir": cache_dir, "language": language}
    by_family: dict[str, list[str]] = {}
    for implementation in chosen.values():
        entry = IMPLEMENTATIONS[implementation]
        variants = by_family.setdefault(entry.family, [])
        if entry.variant not in variants:
            variants.append(entry.variant)
    # Families that score in a process of their own (METEOR 1.5's Java, ROUGE-1.5.5's Perl) run
    # beside the Python ones: the JVM loads METEOR's paraphrase table (seconds) while Python
    # scores. Each family's scores are the same either way.
    external = [family for family in by_family if getattr(_family(family), "EXTERNAL_PROCESS", False)]
    with ThreadPoolExecutor(max_workers=max(1, len(external))) as pool:
        started = {
            family: pool.submit(_family(family).score, kept_outputs, kept_references, by_family[family], context)
            for family in external
        }
        family_scores = {
            family: _family(family).score(kept_outputs, kept_references, variants, context)
            for family, variants in by_family.items()
            if family not in started
        }
        family_scores.update({family: future.result() for family, future in started.items()})
    frame = pd.DataFrame(index=range(len(outputs)))
    for name, implementation in chosen.items():
        entry = IMPLEMENTATIONS[implementation]
        column = np.zeros(len(outputs))
        column[scored] = family_scores[entry.family][entry.variant]
        # Guard against floating-point overshoot (e.g. 1.0000000000000002) only.
        if np.any(column < entry.low - 1e-9) or np.any(column > entry.high + 1e-9):
            raise AssertionError(f"{implementation} gave scores outside [{entry.low}, {entry.high}]")
        frame[name] = np.clip(column, entry.low, entry.high)
    return frame


def metric_versions(
    nltk_data_dir: str | os.PathLike | None = None,
    meteor: bool = True,
    metrics: Sequence[str] | Mapping | None = None,
    language: str = "en",
) -> dict:
    """Versions and settings of the implementations that computed the scores, to store with them.

    Without ``metrics``: today's five modern metrics (``meteor=False`` when METEOR was not
    computed, so that no WordNet is described). With ``metrics`` (as for
    :func:`score_outputs`): ``implementations`` maps each metric to its implementation, the
    modern entries are present when a modern implementation is used, and every other family
    used adds an entry under its own name.
    """
    if metrics is None:
        return _family("modern").versions(nltk_data_dir, meteor=meteor)
    chosen = resolve_implementations(metrics)
    families = {IMPLEMENTATIONS[i].family for i in chosen.values()}
    versions: dict = {"implementations": dict(chosen)}
    if "modern" in families:
        versions.update(
            _family("modern").versions(
                nltk_data_dir,
                meteor="nltk-meteor" in chosen.values(),
                bleu="sacrebleu" in chosen.values(),
                language=language,
            )
        )
    context = {"nltk_data": nltk_data_dir}
    for family in sorted(families - {"modern"}):
        versions[family] = _family(family).versions(context)
    return versions
