"""What the configuration says, as every table, figure and report shows it.

One home for display labels (tasks, prompts, systems, metrics, conditions), for a prompt's
direction, and for the names of the figures the configuration asks for. Every function takes
the parsed ``config/config.yaml`` (or the part of it a rule passes on) and falls back to the
raw name where no label is configured.
"""

from __future__ import annotations

from collections.abc import Mapping

from debias.config.settings import default, section_defaults

__all__ = [
    "COMBINED",
    "CONDITIONS",
    "computed_metrics",
    "condition_label",
    "figure_kind",
    "figure_names",
    "metric_label",
    "prompt_is_lower_better",
    "prompt_label",
    "provided_metrics",
    "system_label",
    "task_label",
    "task_metrics",
]

#: Pseudo-system naming every system of a task pooled (correlations, best metrics).
COMBINED = "combined"

#: The paper's conditions of the bootstrap experiment (Figure 6; :mod:`debias.stats.checks.bootstrap`),
#: in display order, and their labels; ``{metric}`` is replaced by the metric's label.
CONDITIONS: dict[str, str] = {
    "mean": "Humans",
    "cv": "Humans + {metric}",
    "noiseless": "Noiseless humans + {metric}",
    "perfect": "Humans + perfect metric",
}


def _label(section: Mapping | None, key: str) -> str:
    entry = (section or {}).get(key)
    if isinstance(entry, Mapping) and entry.get("label"):
        return str(entry["label"])
    return str(key)


def task_label(config: Mapping, task: str) -> str:
    """Display name of a task."""
    return _label(config.get("tasks"), task)


def prompt_label(config: Mapping, task: str, prompt: str) -> str:
    """Display name of a task's prompt."""
    return _label(config.get("tasks", {}).get(task, {}).get("prompts"), prompt)


def system_label(config: Mapping, task: str, system: str) -> str:
    """Display name of a task's system; ``combined`` is every system pooled."""
    if system == COMBINED:
        return "Combined"
    return _label(config.get("tasks", {}).get(task, {}).get("systems"), system)


def metric_label(config: Mapping, metric: str) -> str:
    """Display name of an automatic metric (``perfect`` is the perfect metric)."""
    if metric == "perfect":
        return "perfect metric"
    return _label(config.get("metrics"), metric)


def condition_label(config: Mapping, condition: str, metric: str | None = None) -> str:
    """Display name of a bootstrap condition, e.g. ``Humans + ROUGE-1``."""
    template = CONDITIONS[condition]
    return template.format(metric=metric_label(config, metric) if metric else "metric")


def prompt_is_lower_better(config: Mapping, task: str, prompt: str) -> bool:
    """True for prompts such as post-edit distance, where a lower judgment is better."""
    entry = config.get("tasks", {}).get(task, {}).get("prompts", {}).get(prompt, {})
    return isinstance(entry, Mapping) and entry.get("higher_is_better") is False


def figure_names(config: Mapping) -> list[str]:
    """File names (without suffix) of every figure the configuration asks for, in report order:
    ``figure3``, ``figure5_<task>`` per configured heatmap, ``figure6<panel>`` per panel."""
    figures = config.get("figures") or {}
    names = ["figure3"]
    names += [f"figure5_{task}" for task in figures.get("figure5") or {}]
    names += [f"figure6{panel}" for panel in figures.get("figure6") or {}]
    return names


def figure_kind(name: str) -> str:
    """The kind of a figure file name: ``figure3``, ``figure5`` or ``figure6``."""
    for kind in ("figure3", "figure5", "figure6"):
        if name.startswith(kind):
            return kind
    raise ValueError(f"not a figure of this pipeline: {name!r}")


def task_metrics(config: Mapping, task: str | None = None) -> list[str]:
    """The configured metrics a task uses (``tasks.<task>.metrics``, default every configured
    metric), in config order; without a task, every configured metric."""
    chosen = ((config.get("tasks") or {}).get(task) or {}).get("metrics") if task is not None else None
    return [name for name in config.get("metrics") or {} if chosen is None or name in chosen]


def provided_metrics(config: Mapping, task: str | None = None) -> list[str]:
    """Configured metrics whose scores the system files carry (``provided: true``), in config
    order; of one task's metrics when ``task`` is given."""
    return [name for name in task_metrics(config, task) if (config["metrics"][name] or {}).get("provided", False)]


def computed_metrics(config: Mapping, task: str | None = None) -> list[str]:
    """Configured metrics the pipeline computes from outputs and references, in config order; of
    one task's metrics when ``task`` is given."""
    provided = provided_metrics(config)
    return [name for name in task_metrics(config, task) if name not in provided]


def estimates_spec(config: Mapping) -> dict:
    """The ``estimates`` config section with its defaults, plus ``seed`` (``bootstrap.seed``; 0 in
    a configuration of preference tasks alone, which has no ``bootstrap``)."""
    return {**section_defaults("estimates"), **(config.get("estimates") or {}), "seed": _base_seed(config)}


def _base_seed(config: Mapping) -> int:
    return int((config.get("bootstrap") or {}).get("seed", 0))


def compare_spec(config: Mapping) -> dict:
    """The ``compare`` config section with its defaults, plus ``level`` (``estimates.level``),
    ``seed`` (``bootstrap.seed``) and ``min_items`` (``min_judged_items``)."""
    spec = {**section_defaults("compare"), **(config.get("compare") or {})}
    spec["level"] = estimates_spec(config)["level"]
    spec["seed"] = _base_seed(config)
    spec["min_items"] = int(config.get("min_judged_items", default("min_judged_items")))
    return spec


def plan_spec(config: Mapping) -> dict:
    """The ``plan`` config section with its defaults, plus ``level`` (``estimates.level``),
    ``seed`` (``bootstrap.seed``) and ``scales`` (task -> prompt -> (min, max)); ``check`` is
    ``False`` when the config turns the check off, else its settings with their defaults
    (``check: true`` or no ``check``: the defaults)."""
    given = dict(config.get("plan") or {})
    check = given.get("check", True)
    defaults = section_defaults("plan")
    if check is not False:
        check = {**defaults["check"], **(check if isinstance(check, Mapping) else {})}
    spec = {**defaults, **given, "check": check}
    spec["scales"] = {
        task: {name: (prompt["min"], prompt["max"]) for name, prompt in spec_["prompts"].items()}
        for task, spec_ in (config.get("tasks") or {}).items()
    }
    spec["level"] = estimates_spec(config)["level"]
    spec["seed"] = _base_seed(config)
    return spec
