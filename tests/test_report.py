"""Report: one row per number the paper states, our values read from the input tables, metric
choices read from the best-metrics table, paper values confined to the Paper column, prose that
follows the configuration, and missing inputs reported, not fatal."""

from __future__ import annotations

import copy
import json
import re

import numpy as np
import pandas as pd
import pytest
from conftest import PAPER_CONFIG, REPO

from debias.config.labels import figure_names
from debias.io.canonical import InputError
from debias.report import build_report, load_paper_values, markdown
from debias.report.table2_rows import REASON_TABLE2
from debias.tables.selection import best_metrics

PAPER_VALUES = REPO / "data" / "paper" / "reported_values.yaml"

METRICS = ["bleu", "rouge1", "rouge2", "rougeL", "meteor"]
CONFIG = PAPER_CONFIG
# Table 2, Figure 6 DEs, three ranges (two scopes each), Figure 1b rho, the three-fold γ ratio,
# the reference answers' AnyCorrect and their lead over snet.ens,
# Table 1's 2 x 4 cells, Figure 1b's rho as Figure 1's own table gives it (one "not computed" row
# without that table) and three claims from manual inspection
N_STATED = 18 + 4 + 3 * 2 + 1 + 1 + 2 + 8 + 1 + 3
ALL_FIGURES = [f"figures/{name}.png" for name in figure_names(CONFIG)]


@pytest.fixture(scope="module")
def paper():
    return load_paper_values(PAPER_VALUES)


def tables(seed=0):
    """Synthetic inputs. No value printed to three decimals ends in 0, so none can equal a
    paper value (all stated to two decimals) however the report formats it."""
    rng = np.random.default_rng(seed)
    t2, corr, de = [], [], []
    for task, spec in CONFIG["tasks"].items():
        for prompt in spec["prompts"]:
            t2.append(
                {
                    "task": task,
                    "prompt": prompt,
                    "sigma2_a": 0.1237,
                    "sigma2_f": 0.2173,
                    # Edit's differs, so that the "three-fold" ratio is no paper value either.
                    "gamma": 0.5693 if prompt != "edit" else 0.2237,
                    "sigma2_f_unbiased": 0.2011,
                    "gamma_unbiased": 0.6151,
                    "n_items": 500,
                    "n_judgments": 1093,
                }
            )
            for system in list(spec["systems"]) + ["combined"]:
                for metric in METRICS:
                    rho = round(0.1 + 0.4 * rng.random(), 2) + 0.0037
                    corr.append({"task": task, "prompt": prompt, "system": system, "metric": metric, "rho": rho})
            for system in spec["systems"]:
                cell = {"task": task, "prompt": prompt, "system": system, "rho": 0.3, "gamma_resampling": 0.5693}
                for metric in METRICS:
                    for condition, base in (("cv", 1.0417), ("noiseless", 1.3337)):
                        de.append(
                            {
                                **cell,
                                "metric": metric,
                                "condition": condition,
                                "de": base + round(0.1 * rng.random(), 2),
                                "de_theory": base,
                            }
                        )
                de.append(
                    {
                        **cell,
                        "metric": "perfect",
                        "condition": "perfect",
                        "de": 2.0137 + round(rng.random(), 2),
                        "de_theory": 2.5,
                        "rho": 1.0,
                    }
                )
    corr = pd.DataFrame(corr)
    return pd.DataFrame(t2), corr, best_metrics(corr, METRICS), pd.DataFrame(de)


def markdown_rows(section: str) -> list[dict]:
    lines = [line for line in section.splitlines() if line.startswith("|")]

    def split(line):
        return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]

    header = split(lines[0])
    return [dict(zip(header, split(line))) for line in lines[2:]]


def section(markdown: str, title: str) -> str:
    return markdown.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


def comparison_table(markdown: str) -> list[dict]:
    """Rows of the report's "Paper vs reproduction" table as dicts keyed by header."""
    return markdown_rows(section(markdown, "Paper vs reproduction"))


def find(rows, *fragments):
    hits = [r for r in rows if all(f in r["Quantity"] for f in fragments)]
    assert len(hits) == 1, (fragments, [r["Quantity"] for r in hits])
    return hits[0]


def build(paper, t2=None, corr=None, best=None, de=None, config=CONFIG, figures=ALL_FIGURES):
    base = tables()
    t2, corr, best, de = (b if given is None else given for b, given in zip(base, (t2, corr, best, de)))
    return build_report(t2, corr, best, de, paper, config, figures=figures)


def test_paper_values_file_is_complete_and_consistent(paper):
    rows = paper["table2"]
    assert {(r["task"], r["prompt"]) for r in rows} == {
        (task, prompt) for task, spec in CONFIG["tasks"].items() for prompt in spec["prompts"]
    }
    for r in rows:
        # gamma = sigma_a^2 / sigma_f^2 must be attainable from the rounded variances.
        half = 0.005
        low = (r["sigma2_a"] - half) / (r["sigma2_f"] + half)
        high = (r["sigma2_a"] + half) / (r["sigma2_f"] - half)
        assert low - half <= r["gamma"] <= high + half, r
    assert sorted({e["panel"] for e in paper["figure6"]}) == ["a", "b", "c"]
    assert {e["condition"] for e in paper["de_ranges"]} == {"cv", "noiseless", "perfect"}
    assert [c["id"] for c in paper["correlations"]] == ["figure1b"]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("    de: 1.15\n", "    de: high\n", "'de' must be number"),
        ("    de: 1.15\n", "", "lacks 'de'"),
        ("  - panel: c\n", "  - panel: (c)\n", "panel letter"),
        ("    low: 1.42\n", "    low: 1.72\n", "low < high"),
        ("  - condition: perfect\n", "  - condition: best\n", "condition must be one of"),
        ("    rho: 0.31\n", "    rho: 0.31\n    extra: 1\n", "unknown key 'extra'"),
    ],
)
def test_malformed_paper_values_name_file_and_line(tmp_path, old, new, message):
    text = PAPER_VALUES.read_text(encoding="utf-8")
    assert old in text
    before = text[: text.index(old) + len(old)].splitlines()
    entry_line = max(i for i, line in enumerate(before, start=1) if line.startswith("  - "))
    path = tmp_path / "reported_values.yaml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(message)) as error:
        load_paper_values(path)
    assert error.value.where == f"{path}:{entry_line}"


def test_report_has_a_row_for_every_stated_number(paper):
    rows = comparison_table(build(paper))
    assert len(rows) == N_STATED
    assert [r["#"] for r in rows] == [str(i) for i in range(1, N_STATED + 1)]
    for entry in paper["table2"]:
        task = CONFIG["tasks"][entry["task"]]
        names = (task["label"], task["prompts"][entry["prompt"]]["label"])
        for column, symbol in (("sigma2_a", "σ_a²"), ("sigma2_f", "σ_f²"), ("gamma", "γ,")):
            row = find(rows, symbol, f"{names[0]} {names[1]}")
            assert row["Paper"] == f"{entry[column]:.2f}"
            assert row["Stated in"] == "Table 2"
    for entry in paper["figure6"]:
        row = find(rows, f"Figure 6{entry['panel']} ", entry["metric_label"])
        assert row["Paper"] == f"{entry['de']:.2f}"
    for entry in paper["de_ranges"]:
        for scope in ("our Figure 6 panels", "every system × prompt"):
            row = find(rows, "DE range", entry["description"], scope)
            assert row["Paper"] == f"{entry['low']:.2f}–{entry['high']:.2f}"
    row = find(rows, "ρ, ROUGE-L vs AnyCorrect", "fastqa")
    assert row["Paper"] == f"{paper['correlations'][0]['rho']:.2f}"


def test_our_values_come_from_the_input_tables(paper):
    t2, corr, best, de = tables()
    before = comparison_table(build(paper))

    t2 = t2.copy()
    t2.loc[(t2.task == "cnndm") & (t2.prompt == "edit"), "gamma"] = 0.7771
    corr = corr.copy()
    fastqa_rougel = (
        (corr.task == "msmarco")
        & (corr.prompt == "any_correct")
        & (corr.system == "fastqa")
        & (corr.metric == "rougeL")
    )
    corr.loc[fastqa_rougel, "rho"] = 0.4567
    de = de.copy()
    panel_c = (de.task == "msmarco") & (de.prompt == "any_correct") & (de.system == "fastqa_ext")
    de.loc[panel_c & (de.metric == "rouge1") & (de.condition == "cv"), "de"] = 1.2345
    de.loc[
        (de.task == "cnndm") & (de.system == "ml") & (de.prompt == "fluency") & (de.condition == "perfect"), "de"
    ] = 9.8765
    after = comparison_table(build(paper, t2, corr, best, de))

    gamma_edit = find(after, "γ,", "CNN/Daily Mail Edit")
    assert gamma_edit["Ours"] == "0.777"
    assert gamma_edit["Ours"] != find(before, "γ,", "CNN/Daily Mail Edit")["Ours"]
    paper_gamma = next(r["gamma"] for r in paper["table2"] if r["prompt"] == "edit")
    assert gamma_edit["Ours − paper"] == f"{0.7771 - paper_gamma:+.3f}"
    assert find(after, "ρ, ROUGE-L vs AnyCorrect")["Ours"] == "0.457"
    assert find(after, "Figure 6c", "ROUGE-1")["Ours"] == "1.234"
    assert find(after, "DE range", "perfect", "every system")["Ours"].endswith("–9.877")
    # Untouched rows stay as they were.
    assert find(after, "σ_a²", "MS MARCO AvgCorrect") == find(before, "σ_a²", "MS MARCO AvgCorrect")


def test_agreement_within_rounding_and_beyond(paper):
    t2 = tables()[0].copy()
    target = next(r for r in paper["table2"] if r["prompt"] == "overall")
    mask = (t2.task == "cnndm") & (t2.prompt == "overall")
    t2.loc[mask, "sigma2_a"] = target["sigma2_a"] + 0.004
    t2.loc[mask, "sigma2_f"] = target["sigma2_f"] + 0.02
    rows = comparison_table(build(paper, t2=t2))
    close = find(rows, "σ_a²", "CNN/Daily Mail Overall")
    far = find(rows, "σ_f²", "CNN/Daily Mail Overall")
    assert close["Agreement"] == "within rounding"
    assert far["Agreement"] == "differs" and len(far["Reason for the difference"]) > 10
    assert far["Ours − paper"] == "+0.020"


def test_panels_without_the_papers_metric_use_the_best_metrics_table(paper):
    """Figure 6a substitutes the metric best_metrics.csv names, not the one correlations.csv
    would suggest."""
    _, corr, best, de = tables()
    sub = corr[(corr.task == "cnndm") & (corr.prompt == "overall") & (corr.system == "seq2seq")]
    weakest = sub.loc[sub["rho"].abs().idxmin(), "metric"]
    assert weakest != best.loc[(best.prompt == "overall") & (best.system == "seq2seq"), "metric"].iloc[0]
    best = best.copy()
    best.loc[(best.prompt == "overall") & (best.system == "seq2seq"), "metric"] = weakest
    label = CONFIG["metrics"][weakest]["label"]
    markdown = build(paper, best=best)
    a = find(comparison_table(markdown), "Figure 6a")
    ours = de[(de.prompt == "overall") & (de.system == "seq2seq") & (de.metric == weakest) & (de.condition == "cv")]
    assert a["Agreement"] == "different metric"
    assert a["Ours"] == f"{ours['de'].iloc[0]:.3f} ({label})"
    assert "VecSim" in a["Reason for the difference"] and "(highest |ρ|)" in a["Reason for the difference"]
    panels = markdown_rows(section(markdown, "Figure 6 panels"))
    assert panels[0]["Metric"] == f"{label} (highest |ρ|)"
    caption = next(line for line in markdown.splitlines() if line.startswith("**Figure 6a.**"))
    assert f"metric {label} (chosen as the highest |ρ| for this system and prompt)" in caption
    vecsim_c = find(comparison_table(markdown), "Figure 6c", "VecSim")
    assert vecsim_c["Ours"] == "not computed" and vecsim_c["Agreement"] == "not comparable"


def test_figure6_panel_table_reads_the_resampled_gamma(paper):
    _, _, _, de = tables()
    de = de.copy()
    panel_c = (de.task == "msmarco") & (de.prompt == "any_correct") & (de.system == "fastqa_ext")
    de.loc[panel_c & (de.metric == "rouge1") & (de.condition == "cv"), "gamma_resampling"] = 0.8123
    panels = markdown_rows(section(build(paper, de=de), "Figure 6 panels"))
    assert [p["Panel"] for p in panels] == ["6a", "6b", "6c"]
    assert panels[2]["γ"] == "0.812"
    assert panels[2]["Metric"] == "ROUGE-1 (configured)"


def known_differences(markdown: str) -> list[str]:
    return [line for line in section(markdown, "Known differences from the paper's setup").splitlines() if line]


def test_known_differences_follow_the_configured_panels_and_metrics(paper):
    default = known_differences(build(paper))
    assert any(line.startswith("- ROUGE: ") for line in default)
    assert any(line.startswith("- METEOR: ") for line in default)
    vecsim = next(line for line in default if line.startswith("- VecSim"))
    assert "Figure 6a and 6b use the metric with the highest |ρ| instead" in vecsim
    assert "the paper's VecSim DE for 6c has no counterpart" in vecsim

    config = copy.deepcopy(CONFIG)
    config["figures"]["figure6"]["a"]["metric"] = "rouge2"
    del config["metrics"]["meteor"]
    t2, corr, _, de = tables()
    best = best_metrics(corr, [m for m in METRICS if m != "meteor"])
    markdown = build(paper, t2, corr, best, de, config=config)
    lines = known_differences(markdown)
    assert not any(line.startswith("- METEOR: ") for line in lines)
    vecsim = next(line for line in lines if line.startswith("- VecSim"))
    assert "Figure 6a uses ROUGE-2 (set in the config)" in vecsim
    assert "Figure 6b uses the metric with the highest |ρ|" in vecsim
    assert "6a and 6b" not in vecsim
    assert find(comparison_table(markdown), "Figure 6a")["Ours"].endswith("(ROUGE-2)")
    caption = next(line for line in markdown.splitlines() if line.startswith("**Figure 6a.**"))
    assert "metric ROUGE-2" in caption and "chosen" not in caption


def test_figure6_caption_mentions_the_papers_panel_only_for_the_same_cell(paper):
    config = copy.deepcopy(CONFIG)
    config["figures"]["figure6"]["a"]["system"] = "pointer"
    markdown = build(paper, config=config)
    captions = {line.split("**")[1]: line for line in markdown.splitlines() if line.startswith("**Figure 6")}
    assert "the paper's panel used VecSim" not in captions["Figure 6a."]
    assert captions["Figure 6b."].endswith("; the paper's panel used VecSim, which this project does not have.")


def test_paper_numbers_appear_only_in_the_paper_column(paper):
    markdown = build(paper)
    rows = comparison_table(markdown)
    for row in rows:
        ours = re.findall(r"\d+\.\d+", row["Ours"])
        paper_numbers = re.findall(r"\d+\.\d+", row["Paper"])
        assert not {float(x) for x in ours} & {float(x) for x in paper_numbers}, row
    # Remove the Paper column and look for any paper number anywhere else in the report.
    stripped = markdown.replace(section(markdown, "Paper vs reproduction"), "")
    stripped += "\n".join(" ".join(v for k, v in r.items() if k != "Paper") for r in rows)
    numbers = [r[c] for r in paper["table2"] for c in ("sigma2_a", "sigma2_f", "gamma")]
    numbers += [e["de"] for e in paper["figure6"]]
    numbers += [e[k] for e in paper["de_ranges"] for k in ("low", "high")]
    numbers += [e["rho"] for e in paper["correlations"]]
    for number in numbers:
        for text in (f"{number:.2f}", f"{number:.3f}"):
            pattern = rf"(?<![\d.]){re.escape(text)}(?!\d)"
            assert not re.search(pattern, stripped), f"paper value {text} outside the Paper column"


def test_missing_inputs_are_reported_not_fatal(paper):
    t2, corr, best, de = tables()
    t2 = t2[t2.prompt != "edit"]
    corr = corr[corr.system != "fastqa"]
    best = best[best.system != "seq2seq"]
    de = de.iloc[0:0]
    markdown = build(paper, t2, corr, best, de, figures=["figures/figure3.png"])
    rows = comparison_table(markdown)
    assert len(rows) == N_STATED
    assert find(rows, "γ,", "CNN/Daily Mail Edit")["Ours"] == "not computed"
    assert find(rows, "ρ, ROUGE-L vs AnyCorrect")["Ours"] == "not computed"
    assert find(rows, "Figure 6c", "ROUGE-1")["Ours"] == "not computed"
    assert "no substitute DE" in find(rows, "Figure 6a")["Reason for the difference"]
    assert all(r["Ours"] == "not computed" for r in rows if "DE range" in r["Quantity"])
    assert markdown_rows(section(markdown, "Figure 6 panels"))[0]["Metric"] == "not computed"
    vecsim = next(line for line in known_differences(markdown) if line.startswith("- VecSim"))
    assert vecsim.endswith(" is not computed here, so the paper's VecSim DE for 6a, 6b and 6c has no counterpart.")
    assert "*figure6a: not rendered.*" in markdown
    assert "![figure3](figures/figure3.png)" in markdown
    # Entirely empty tables still give a report.
    empty = pd.DataFrame()
    rows = comparison_table(build_report(empty, empty, empty, empty, paper, CONFIG, figures=[]))
    assert len(rows) == N_STATED and all(r["Ours"] == "not computed" for r in rows)


def test_report_embeds_every_configured_figure_and_links_tables(paper):
    config = copy.deepcopy(CONFIG)
    config["figures"]["figure6"]["d"] = {
        "task": "msmarco",
        "prompt": "avg_correct",
        "system": "fastqa",
        "metric": "best",
    }
    names = figure_names(config)
    markdown = build(paper, config=config, figures=[f"out/{name}.pdf" for name in names])
    for name in names:
        assert f"![{name}](figures/{name}.png)" in markdown
    assert "**Figure 6d.** fastqa on MS MARCO, AvgCorrect" in markdown
    for name in ["table2", "correlations", "data_efficiency"]:
        assert f"(tables/{name}.csv)" in markdown
    other = build_report(*tables(), paper, CONFIG, figures=ALL_FIGURES, figures_dir="../fig", tables_dir="tab")
    assert "![figure3](../fig/figure3.png)" in other and "(tab/table2.csv)" in other


def test_paper_tasks_show_their_leaderboard_figures_when_drawn(paper):
    without = build(paper, figures=ALL_FIGURES)
    assert "## Leaderboards" not in without
    drawn = build(paper, figures=[*ALL_FIGURES, "figures/leaderboard_msmarco.png"])
    section = drawn[drawn.index("## Leaderboards") :]
    assert "![leaderboard_msmarco](figures/leaderboard_msmarco.png)" in section
    assert "(tables/leaderboard.csv)" in section and "leaderboard_cnndm" not in section


def test_gamma_reason_depends_on_the_interval_the_rounded_variances_allow(paper):
    entry = next(r for r in paper["table2"] if r["prompt"] == "fluency")
    low = (entry["sigma2_a"] - 0.005) / (entry["sigma2_f"] + 0.005)
    high = (entry["sigma2_a"] + 0.005) / (entry["sigma2_f"] - 0.005)
    t2 = tables()[0]
    mask = (t2.task == "cnndm") & (t2.prompt == "fluency")
    reasons = {}
    for label, gamma in (("inside", (entry["gamma"] + high) / 2 + 0.0013), ("outside", high + 0.1013)):
        frame = t2.copy()
        frame.loc[mask, "gamma"] = gamma
        row = find(comparison_table(build(paper, t2=frame)), "γ,", "CNN/Daily Mail Fluency")
        assert row["Agreement"] == "differs"
        reasons[label] = row["Reason for the difference"]
    assert low < entry["gamma"] < high
    assert reasons["inside"].startswith("Consistent with the paper's rounded")
    assert reasons["outside"] == REASON_TABLE2


def test_sections_come_from_the_list_of_section_builders(paper, monkeypatch):
    """A section is one function in SECTIONS: its lines appear in list order, set off by blank
    lines; a section with nothing to say leaves no trace."""
    plain = build(paper)
    n_rows = len(comparison_table(plain))

    def extra(ctx):
        return ["## Extra", "", f"{len(ctx.rows)} comparison rows"]

    sections = list(markdown.SECTIONS)
    monkeypatch.setattr(markdown, "SECTIONS", [*sections[:-1], extra, lambda ctx: [], sections[-1]])
    text = build(paper)
    assert f"\n\n## Extra\n\n{n_rows} comparison rows\n\n## Tables\n\n" in text
    assert text.replace(f"## Extra\n\n{n_rows} comparison rows\n\n", "") == plain


def test_table1_rows_need_exact_counts_and_say_why_a_task_is_not_computed(paper):
    from debias.report.bias_rows import table1_rows
    from debias.report.comparison import DIFFERS, NOT_COMPUTED, WITHIN

    cells = [("good", "high", 285), ("bad", "high", 20), ("good", "low", 815), ("bad", "low", 335)]
    ours = pd.DataFrame(
        [
            {"task": "msmarco", "prompt": "any_correct", "judgment": j, "metric_side": m, "count": c, "metric": metric}
            for j, m, c in cells
            for metric in ["rouge021-L"]
        ]
    )
    rows = table1_rows(ours, paper, PAPER_CONFIG)
    assert [r.agreement for r in rows[:4]] == [WITHIN, DIFFERS, WITHIN, DIFFERS]
    assert rows[1].difference == "+1" and rows[1].reason
    assert all(r.agreement == NOT_COMPUTED and "sent2vec" in r.reason for r in rows[4:])
    assert all(r.agreement == NOT_COMPUTED for r in table1_rows(None, paper, PAPER_CONFIG))


def test_table1_rows_compare_the_human_side_when_the_papers_metric_is_missing(paper):
    from debias.report.bias_rows import table1_rows
    from debias.report.comparison import DIFFERS, NOT_COMPUTED, OTHER_METRIC, WITHIN

    def ours(cells, metric):
        return pd.DataFrame(
            [
                {"task": "cnndm", "prompt": "edit", "judgment": j, "metric_side": m, "count": c, "metric": metric}
                for j, m, c in cells
            ]
        )

    split = ours([("good", "", 1368), ("bad", "", 633)], "")
    rows = [r for r in table1_rows(split, paper, PAPER_CONFIG) if r.key[1] == "cnndm"]
    assert [r.key[3] for r in rows[:2]] == ["any", "any"]
    assert [r.agreement for r in rows[:2]] == [WITHIN, DIFFERS] and rows[1].difference == "+1"
    assert len(rows) == 6 and all(r.agreement == NOT_COMPUTED and "sent2vec" in r.reason for r in rows[2:])

    quadrants = [("good", "high", 1000), ("bad", "high", 300), ("good", "low", 368), ("bad", "low", 332)]
    rows = [r for r in table1_rows(ours(quadrants, "vecsim-minilm"), paper, PAPER_CONFIG) if r.key[1] == "cnndm"]
    assert [r.agreement for r in rows[:2]] == [WITHIN, WITHIN]
    assert all(r.agreement == OTHER_METRIC and "vecsim-minilm" in r.reason for r in rows[2:])
    assert [r.ours for r in rows[2:]] == ["1,000", "300", "368", "332"]


def test_figure1_rows_one_per_definition_each_with_a_reason(paper):
    from debias.report.bias_rows import figure1_rows
    from debias.report.comparison import DIFFERS, WITHIN

    ours = pd.DataFrame(
        [
            {
                "task": "msmarco",
                "system": "fastqa",
                "panel": "b",
                "metric": "m",
                "definition": d,
                "rho": r,
                "description": d,
            }
            for d, r in [("own_lines", 0.309), ("per_judgment", 0.317)]
        ]
    )
    rows = figure1_rows(ours, paper, PAPER_CONFIG, 0.005, 2)
    assert [r.agreement for r in rows] == [WITHIN, DIFFERS]
    assert "per judgment" in rows[1].reason


def test_paper_numbers_are_compared_with_the_papers_implementation_when_configured(paper):
    # Panel (c)'s ROUGE-1 is ROUGE-1.5.5 in the paper: with only rouge-score's ROUGE-1 configured
    # the row compares that and says so; with a ROUGE-1.5.5 metric configured beside it, that one.
    t2, corr, best, de = tables()
    panel_c = (
        (de.task == "msmarco") & (de.prompt == "any_correct") & (de.system == "fastqa_ext") & (de.condition == "cv")
    )
    extra = de[panel_c & (de.metric == "rouge1")].assign(metric="rouge1_155", de=1.3579)
    de = pd.concat([de, extra], ignore_index=True)
    today = find(comparison_table(build(paper, t2, corr, best, de)), "Figure 6c", "ROUGE-1")
    assert "rouge-score" in today["Reason for the difference"]
    assert today["Ours"] != "1.358"

    config = copy.deepcopy(CONFIG)
    config["metrics"]["rouge1_155"] = {"label": "ROUGE-1 (1.5.5)", "implementation": "rouge155-1"}
    markdown = build(paper, t2, corr, best, de, config=config)
    row = find(comparison_table(markdown), "Figure 6c", "ROUGE-1")
    assert row["Ours"] == "1.358"
    assert "ROUGE-1 (1.5.5) is the paper's implementation" in row["Reason for the difference"]
    rouge = next(line for line in known_differences(markdown) if line.startswith("- ROUGE: "))
    assert "computed beside" in rouge


def test_three_fold_claim_is_checked_at_its_stated_precision_and_inspection_claims_are_listed(paper):
    t2 = tables()[0].copy()
    cnndm = t2.task == "cnndm"
    t2.loc[cnndm & (t2.prompt == "overall"), "gamma"] = 1.0052
    t2.loc[cnndm & (t2.prompt == "edit"), "gamma"] = 0.3570
    rows = comparison_table(build(paper, t2))
    ratio = find(rows, "γ ratio", "Overall / Edit")
    assert (ratio["Paper"], ratio["Ours"], ratio["Agreement"]) == ("3", "2.816", "within rounding")
    t2.loc[cnndm & (t2.prompt == "edit"), "gamma"] = 0.4070  # ratio 2.470: more than half a unit off
    assert find(comparison_table(build(paper, t2)), "γ ratio")["Agreement"] == "differs"
    inspected = [r for r in rows if r["Agreement"] == "not checkable"]
    assert [r["Paper"] for r in inspected] == ["95%", "62%", "about 90%"]
    assert all("manual inspection" in r["Reason for the difference"] for r in inspected)


def test_system_means_and_leads_come_from_the_per_system_table(paper):
    by_system = pd.DataFrame(
        {
            "task": "msmarco",
            "system": ["reference", "snet.ensemble", "fastqa"],
            "prompt": "any_correct",
            "mean": [0.7351, 0.7112, 0.6013],
        }
    )
    t2, corr, best, de = tables()
    rows = comparison_table(build_report(t2, corr, best, de, paper, CONFIG, figures=ALL_FIGURES, by_system=by_system))
    level = find(rows, "AnyCorrect mean", "correctness of the reference")
    assert (level["Paper"], level["Ours"], level["Agreement"]) == ("0.735", "0.735", "within rounding")
    lead = find(rows, "AnyCorrect mean", "above the leading system")
    assert (lead["Paper"], lead["Ours"], lead["Agreement"]) == ("0.02", "0.024", "within rounding")
    missing = comparison_table(build(paper))
    assert find(missing, "correctness of the reference")["Agreement"] == "not computed"


def estimate_rows(widths: dict[str, float], system="s") -> pd.DataFrame:
    """One system × prompt's system_estimates rows with these interval widths, centred at 3."""
    return pd.DataFrame(
        [
            {"task": "t", "prompt": "p", "system": system, "estimator": name, "estimate": 3.0}
            | {"ci_low": 3.0 - w / 2, "ci_high": 3.0 + w / 2, "level": 0.8, "n_judged": 50, "n_outputs": 200}
            | {"effective_n": 50 * (widths["mean"] / w) ** 2}
            for name, w in widths.items()
        ]
    )


def test_best_control_variate_never_picks_on_noise():
    from debias.tables.selection import BEST_WIDTH_TOLERANCE, best_control_variate

    tol = BEST_WIDTH_TOLERANCE
    # every output judged: all widths the mean's up to 1e-5, as cv:combined was on the released data
    assert best_control_variate(estimate_rows({"mean": 0.04396, "cv:bleu": 0.04396, "cv:combined": 0.043955})) is None
    # narrower than the mean, but by less than the tolerance: no metric helps
    assert best_control_variate(estimate_rows({"mean": 1.0, "cv:a": 1 - tol / 2})) is None
    # clearly narrower: the narrowest
    assert best_control_variate(estimate_rows({"mean": 1.0, "cv:a": 0.9, "cv:b": 0.7})) == "cv:b"
    # two within the tolerance of each other: the first in table order (a single metric before combined)
    rows = estimate_rows({"mean": 1.0, "cv:a": 0.7, "cv:combined": 0.7 * (1 - tol / 2)})
    assert best_control_variate(rows) == "cv:a"
    rows = estimate_rows({"mean": 1.0, "cv:a": 0.7, "cv:combined": 0.6})
    assert best_control_variate(rows) == "cv:combined"
    # no control variate at all
    assert best_control_variate(estimate_rows({"mean": 1.0})) is None


def test_report_and_figure_name_the_same_best_control_variate():
    from debias.plots import draw_system_scores
    from debias.report.estimates import estimates_lines

    config = {
        "metrics": {"a": {"label": "A"}, "b": {"label": "B"}},
        "tasks": {"t": {"label": "T", "systems": {"s1": {}, "s2": {}}, "prompts": {"p": {"label": "P"}}}},
    }
    estimates = pd.concat(
        [
            estimate_rows({"mean": 1.0, "cv:a": 0.995, "cv:b": 0.999, "cv:combined": 0.99}, "s1"),
            estimate_rows({"mean": 1.0, "cv:a": 0.8, "cv:b": 0.6, "cv:combined": 0.598}, "s2"),
        ],
        ignore_index=True,
    )
    lines = "\n".join(estimates_lines(estimates, None, config))
    assert "| no metric helps |" in lines and "cv:b: 3.000" in lines and "cv:combined:" not in lines
    fig = draw_system_scores(estimates, config, "t")
    texts = sorted(t.get_text() for ax in fig.axes for t in ax.texts)
    assert texts == ["B", "no metric helps"]


def test_a_constant_metric_is_named_left_out_of_the_pool_and_its_cv_is_the_mean(caplog):
    # the reference system scores BLEU 100 on every item: rho is undefined, the pool leaves it out
    import logging

    from debias.report.user_tables import constant_metric_lines
    from debias.tables.correlations import correlation_table
    from debias.tables.estimates import system_estimates_table

    rng = np.random.default_rng(7)
    frames = []
    for system, constant in (("a", False), ("b", False), ("reference", True)):
        n = 40
        truth = rng.normal(0, 1, n) + (3.0 if constant else 0.0)
        bleu = np.full(n, 100.0) if constant else 20 + 5 * truth + rng.normal(0, 2, n)
        judgments = [json.dumps([float(v) for v in truth[i] + rng.normal(0, 0.5, 2)]) for i in range(n)]
        frames.append(
            pd.DataFrame(
                {"task": "t", "system": system, "prompt": "p", "id": [f"{system}{i}" for i in range(n)]}
                | {"judgments": judgments, "n_judgments": 2, "bleu": bleu, "chrf": truth + rng.normal(0, 1, n)}
                | {"mean_judgment": [float(np.mean(json.loads(j))) for j in judgments]}
            )
        )
    with caplog.at_level(logging.WARNING):
        table = correlation_table(frames, {"t": ["p"]}, ["bleu", "chrf"])
        estimates = system_estimates_table(frames, {"t": ["p"]}, ["bleu", "chrf"], level=0.8)
    pooled = table[table["system"] == "combined"].set_index("metric")
    assert pooled.loc["bleu", "n_items"] == 80 and pooled.loc["chrf", "n_items"] == 120
    expected = correlation_table(frames[:2], {"t": ["p"]}, ["bleu"])
    assert pooled.loc["bleu", "rho"] == expected[expected["system"] == "combined"]["rho"].iloc[0]
    assert np.isnan(table[(table["system"] == "reference") & (table["metric"] == "bleu")]["rho"].iloc[0])
    assert "left out of the pooled" in caplog.text and "cv:bleu and ppi++:bleu fall back to the mean" in caplog.text
    reference = estimates[estimates["system"] == "reference"].set_index("estimator")
    assert reference.loc["cv:bleu", ["estimate", "ci_low", "ci_high"]].tolist() == pytest.approx(
        reference.loc["mean", ["estimate", "ci_low", "ci_high"]].tolist(), abs=1e-15
    )
    config = {"metrics": {"bleu": {"label": "BLEU"}}, "tasks": {"t": {"systems": {}, "prompts": {"p": {}}}}}
    note = "\n".join(constant_metric_lines(table, config))
    assert "output: BLEU on reference (p)." in note  # the constant metric and system, nothing else
    assert constant_metric_lines(correlation_table(frames[:2], {"t": ["p"]}, ["bleu", "chrf"]), config) == []


def test_best_paired_control_variate_needs_more_than_the_tolerance():
    from debias.tables.selection import best_paired_control_variate

    def pair(savings):
        return pd.DataFrame({"estimator": list(savings), "de_vs_independent": list(savings.values())})

    assert best_paired_control_variate(pair({"mean": 2.0, "cv:a": 2.01, "cv:combined": 2.015})) is None
    assert best_paired_control_variate(pair({"mean": 2.0, "cv:a": 2.2, "cv:combined": 2.21})) == "cv:a"
    assert best_paired_control_variate(pair({"mean": 2.0, "cv:a": 2.2, "cv:combined": 2.5})) == "cv:combined"
    assert best_paired_control_variate(pair({"mean": 2.0})) is None
