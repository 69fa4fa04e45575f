"""The report's sentences that depend on the configuration: the known differences of setup
(which implementations differ, which Figure 6 panels substitute which metric) and the figure
captions. Each is derived from the configured metrics and panels and from the paper's values,
never written for one configuration."""

from __future__ import annotations

from collections.abc import Mapping

from debias.config.labels import figure_kind, metric_label, prompt_label, system_label, task_label
from debias.report.comparison import PaperPanel
from debias.report.summary import BEST

__all__ = ["caption", "known_differences"]

# What a metric of the paper that this project cannot compute is, for the known differences.
_PAPER_ONLY_METRICS = {"vecsim": "sent2vec sentence similarity"}
# A known difference of implementation: (today's implementations, the paper's, the note when
# only today's are configured, the note when the paper's are configured beside them).
_IMPLEMENTATION_NOTES = [
    (
        ("rouge-score-1", "rouge-score-2", "rouge-score-L"),
        ("rouge155-1", "rouge155-2", "rouge155-3", "rouge155-4", "rouge155-L", "rouge155-SU4"),
        "- ROUGE: `rouge-score` (Python) here; the paper used ROUGE-1.5.5 (Perl wrapper, stop words removed).",
        "- ROUGE: the paper's ROUGE-1.5.5 (Perl, recall, stop words removed; labelled 1.5.5) is computed "
        "beside `rouge-score` (Python, F-measure); the paper's numbers are compared with the 1.5.5 scores.",
    ),
    (
        ("nltk-meteor",),
        ("meteor15",),
        "- METEOR: NLTK's implementation here; the paper used METEOR 1.5 (Java).",
        "- METEOR: the paper's METEOR 1.5 (Java; labelled 1.5) is computed beside NLTK's implementation.",
    ),
]


def _enumerate(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _substitutions(panels: list[PaperPanel], config: Mapping) -> list[str]:
    """One known-differences line per metric of the paper that is not compared: which panels
    use which metric instead, and which numbers have no counterpart."""
    lines = []
    for metric in dict.fromkeys(p.entry["metric"] for p in panels if p.status != "compared"):
        own = [p for p in panels if p.entry["metric"] == metric and p.status != "compared"]
        label = own[0].entry["metric_label"]
        if own[0].entry.get("available") is False:
            described = f"{label} ({_PAPER_ONLY_METRICS[metric]})" if metric in _PAPER_ONLY_METRICS else label
            subject = f"{described} is not computed here"
        else:
            subject = f"{label} is not among the configured metrics"
        uses: dict[str, list[str]] = {}
        for p in own:
            if p.status == "substituted" and p.de is not None:
                how = (
                    f"the metric with the {BEST}"
                    if p.chosen_as_best
                    else f"{metric_label(config, p.metric)} (set in the config)"
                )
                uses.setdefault(how, []).append(f"6{p.entry['panel']}")
        unmatched = [f"6{p.entry['panel']}" for p in own if p.status == "not comparable" or p.de is None]
        parts = [
            f"Figure {_enumerate(names)} {'use' if len(names) > 1 else 'uses'} {how}" for how, names in uses.items()
        ]
        text = f"- {subject}, so "
        if parts:
            text += _enumerate(parts) + " instead"
        if unmatched:
            text += ", and " if parts else ""
            text += f"the paper's {label} DE for {_enumerate(unmatched)} has no counterpart"
        lines.append(text + ".")
    return lines


def known_differences(config: Mapping, panels: list[PaperPanel]) -> list[str]:
    """The bullet lines of "Known differences from the paper's setup": the implementation notes
    of the configured metrics, how the paper's Figure 6 numbers are met (``panels``, from
    :func:`debias.report.comparison.paper_panels`), and the notes on the paper itself."""
    from debias.metrics import resolve_implementations

    configured = set(resolve_implementations(config.get("metrics") or {}).values())
    lines = []
    for today, papers, alone, beside in _IMPLEMENTATION_NOTES:
        if configured.intersection(today):
            lines.append(beside if configured.intersection(papers) else alone)
    lines += _substitutions(panels, config)
    lines += [
        "- The paper's Figure 6 caption names ROUGE-1 for panel (c), its Section 5 text ROUGE-L; "
        "the comparison follows the caption.",
        "- The bootstrap is re-drawn: data efficiencies carry Monte-Carlo noise of their own.",
        "- The paper does not say which cells its DE ranges span (two of its own Figure 6 panel "
        "values lie outside its range for current metrics), so two ranges are given: over our "
        "Figure 6 panels and over every system × prompt with its best metric.",
    ]
    return lines


def _figure6_caption(panel: Mapping, config: Mapping, papers: list[PaperPanel]) -> str:
    """Cell and metric of the panel; the paper's metric when the paper drew the same cell under
    this letter with a metric not compared here."""
    task, prompt, system, metric = panel["task"], panel["prompt"], panel["system"], panel["metric"]
    text = (
        f"**Figure 6{panel['name']}.** {system_label(config, task, system)} on "
        f"{task_label(config, task)}, {prompt_label(config, task, prompt)}: CI width against "
        "number of human judgments"
    )
    if metric is not None:
        text += f", metric {metric_label(config, metric)}"
        if panel["chosen_as_best"]:
            text += f" (chosen as the {BEST} for this system and prompt)"
    # The paper's panel of the same letter and cell, when none of its metrics is compared here.
    same = [
        p
        for p in papers
        if p.entry["panel"] == panel["name"]
        and (p.entry["task"], p.entry["prompt"], p.entry["system"]) == (task, prompt, system)
    ]
    if same and all(p.status == "substituted" for p in same):
        text += f"; the paper's panel used {same[0].missing}"
    return text + "."


def _figure1_caption(panel: str, config: Mapping) -> str:
    from debias.metrics import IMPLEMENTATIONS

    spec = config["figures"]["figure1"]
    task, prompt = spec["task"], spec["prompt"]
    metric = IMPLEMENTATIONS[spec["implementation"]].label
    if panel == "a":
        return (
            f"**Figure 1a.** {metric} against {prompt_label(config, task, prompt)} across the "
            f"{task_label(config, task)} systems: each system's mean of both over its judged outputs, "
            f"with {float(config['bootstrap']['level']) * 100:.10g}% bootstrap intervals."
        )
    return (
        f"**Figure 1b.** {metric} against {prompt_label(config, task, prompt)} for the outputs of "
        f"{system_label(config, task, spec['system'])} on {task_label(config, task)}, one point per "
        "output judged for that system alone (ρ by every definition in the figure1 table)."
    )


def caption(name: str, config: Mapping, panels: dict[str, Mapping], papers: list[PaperPanel]) -> str:
    """The caption of figure ``name`` (a :func:`debias.config.labels.figure_names` entry); ``panels``
    are the resolved configured Figure 6 panels by letter."""
    if name in ("figure1a", "figure1b"):
        return _figure1_caption(name[-1], config)
    kind = figure_kind(name)
    if kind == "figure3":
        return (
            "**Figure 3.** Contours of inverse data efficiency 1/DE over (ρ, γ), with the measured "
            "point of each task × prompt (ρ: |correlation| of its best metric, all systems pooled; "
            "γ from Table 2)."
        )
    if kind == "figure5":
        task = name.removeprefix("figure5_")
        prompt = ((config.get("figures") or {}).get("figure5") or {}).get(task, "")
        return (
            f"**Figure 5 ({task_label(config, task)}, {prompt_label(config, task, prompt)}).** "
            "Correlation of each metric with the human judgment, corrected for annotator noise as "
            "the paper's code computes it, Cov(ȳ, g) / (σ_f · sd(g)), per system and with all "
            "systems pooled (Pearson's ρ, which picks the best metric, is in the correlations table)."
        )
    return _figure6_caption(panels[name.removeprefix("figure6")], config, papers)
