"""Report: one row per number the paper states, our values read from the input tables,
paper values confined to the Paper column, and missing inputs reported, not fatal."""

from __future__ import annotations

import re
import runpy
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from conftest import PAPER_CONFIG, REPO

from debias import figures, report

PAPER_VALUES = REPO / "data" / "paper" / "reported_values.yaml"

METRICS = ["bleu", "rouge1", "rouge2", "rougeL", "meteor"]
CONFIG = PAPER_CONFIG
N_STATED = 18 + 4 + 3 * 2 + 1  # Table 2, Figure 6 DEs, three ranges (two scopes each), Figure 1b rho


@pytest.fixture(scope="module")
def paper():
    return report.load_paper_values(PAPER_VALUES)


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
                    "gamma": 0.5693,
                    "sigma2_f_unbiased": 0.2011,
                    "gamma_unbiased": 0.6151,
                    "n_items": 500,
                    "n_judgments": 1093,
                }
            )
            for system in list(spec["systems"]) + ["combined"]:
                for metric in METRICS:
                    corr.append(
                        {
                            "task": task,
                            "prompt": prompt,
                            "system": system,
                            "metric": metric,
                            "rho": round(0.1 + 0.4 * rng.random(), 2) + 0.0037,
                            "n_items": 100,
                        }
                    )
            for system in spec["systems"]:
                for metric in METRICS:
                    for condition, base in (("cv", 1.0417), ("noiseless", 1.3337)):
                        de.append(
                            {
                                "task": task,
                                "prompt": prompt,
                                "system": system,
                                "metric": metric,
                                "condition": condition,
                                "de": base + round(0.1 * rng.random(), 2),
                                "de_theory": base,
                                "rho": 0.3,
                                "gamma": 0.5693,
                            }
                        )
                de.append(
                    {
                        "task": task,
                        "prompt": prompt,
                        "system": system,
                        "metric": "perfect",
                        "condition": "perfect",
                        "de": 2.0137 + round(rng.random(), 2),
                        "de_theory": 2.5,
                        "rho": 1.0,
                        "gamma": 0.5693,
                    }
                )
    return pd.DataFrame(t2), pd.DataFrame(corr), pd.DataFrame(de)


def comparison_table(markdown: str) -> list[dict]:
    """Rows of the report's "Paper vs reproduction" table as dicts keyed by header."""
    section = markdown.split("## Paper vs reproduction", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]

    def split(line):
        return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]

    header = split(lines[0])
    return [dict(zip(header, split(line))) for line in lines[2:]]


def find(rows, *fragments):
    hits = [r for r in rows if all(f in r["Quantity"] for f in fragments)]
    assert len(hits) == 1, (fragments, [r["Quantity"] for r in hits])
    return hits[0]


def build(paper, t2=None, corr=None, de=None, **kwargs):
    base = tables()
    t2 = base[0] if t2 is None else t2
    corr = base[1] if corr is None else corr
    de = base[2] if de is None else de
    return report.build_report(t2, corr, de, paper, CONFIG, **kwargs)


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
    assert sorted({e["panel"] for e in paper["figure6"]}) == ["figure6a", "figure6b", "figure6c"]
    assert {e["condition"] for e in paper["de_ranges"]} == {"cv", "noiseless", "perfect"}
    assert all(e["low"] < e["high"] for e in paper["de_ranges"])
    assert [c["id"] for c in paper["correlations"]] == ["figure1b"]
    for entry in paper["figure6"] + paper["de_ranges"] + paper["correlations"] + paper["table2"]:
        assert entry["where"], entry


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
        row = find(rows, f"Figure {entry['panel'].removeprefix('figure')} ", entry["metric_label"])
        assert row["Paper"] == f"{entry['de']:.2f}"
    for entry in paper["de_ranges"]:
        for scope in ("our Figure 6 panels", "every system × prompt"):
            row = find(rows, "DE range", entry["description"], scope)
            assert row["Paper"] == f"{entry['low']:.2f}–{entry['high']:.2f}"
    row = find(rows, "ρ, ROUGE-L vs AnyCorrect", "fastqa")
    assert row["Paper"] == f"{paper['correlations'][0]['rho']:.2f}"


def test_our_values_come_from_the_input_tables(paper):
    t2, corr, de = tables()
    before = comparison_table(build(paper))

    t2 = t2.copy()
    t2.loc[(t2.task == "cnndm") & (t2.prompt == "edit"), "gamma"] = 0.7771
    corr = corr.copy()
    corr.loc[
        (corr.task == "msmarco")
        & (corr.prompt == "any_correct")
        & (corr.system == "fastqa")
        & (corr.metric == "rougeL"),
        "rho",
    ] = 0.4567
    de = de.copy()
    de.loc[
        (de.task == "msmarco")
        & (de.prompt == "any_correct")
        & (de.system == "fastqa_ext")
        & (de.metric == "rouge1")
        & (de.condition == "cv"),
        "de",
    ] = 1.2345
    de.loc[
        (de.task == "cnndm") & (de.system == "ml") & (de.prompt == "fluency") & (de.condition == "perfect"), "de"
    ] = 9.8765
    after = comparison_table(build(paper, t2, corr, de))

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
    t2, corr, de = tables()
    target = next(r for r in paper["table2"] if r["prompt"] == "overall")
    t2 = t2.copy()
    mask = (t2.task == "cnndm") & (t2.prompt == "overall")
    t2.loc[mask, "sigma2_a"] = target["sigma2_a"] + 0.004
    t2.loc[mask, "sigma2_f"] = target["sigma2_f"] + 0.02
    rows = comparison_table(build(paper, t2=t2))
    close = find(rows, "σ_a²", "CNN/Daily Mail Overall")
    far = find(rows, "σ_f²", "CNN/Daily Mail Overall")
    assert close["Agreement"] == "within rounding"
    assert far["Agreement"] == "differs" and len(far["Reason for the difference"]) > 10
    assert far["Ours − paper"] == "+0.020"


def test_panels_without_the_papers_metric_say_so(paper):
    rows = comparison_table(build(paper))
    t2, corr, de = tables()
    sub = corr[(corr.task == "cnndm") & (corr.prompt == "overall") & (corr.system == "seq2seq")]
    best = sub.loc[sub["rho"].abs().idxmax(), "metric"]
    label = CONFIG["metrics"][best]["label"]
    a = find(rows, "Figure 6a")
    assert a["Agreement"] == "different metric"
    assert f"({label})" in a["Ours"] and "VecSim" in a["Reason for the difference"]
    vecsim_c = find(rows, "Figure 6c", "VecSim")
    assert vecsim_c["Ours"] == "not computed" and "VecSim" in vecsim_c["Reason for the difference"]


def test_paper_numbers_appear_only_in_the_paper_column(paper):
    markdown = build(paper)
    rows = comparison_table(markdown)
    for row in rows:
        ours = re.findall(r"\d+\.\d+", row["Ours"])
        paper_numbers = re.findall(r"\d+\.\d+", row["Paper"])
        assert not {float(x) for x in ours} & {float(x) for x in paper_numbers}, row
    # Remove the Paper column and look for any paper number anywhere else in the report.
    section = markdown.split("## Paper vs reproduction", 1)[1].split("\n## ", 1)[0]
    stripped = markdown.replace(section, "")
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
    t2, corr, de = tables()
    t2 = t2[t2.prompt != "edit"]
    corr = corr[corr.system != "fastqa"]
    de = de.iloc[0:0]
    markdown = build(paper, t2, corr, de, figures=["figures/figure3.png"])
    rows = comparison_table(markdown)
    assert len(rows) == N_STATED
    assert find(rows, "γ,", "CNN/Daily Mail Edit")["Ours"] == "not computed"
    assert find(rows, "ρ, ROUGE-L vs AnyCorrect")["Ours"] == "not computed"
    assert find(rows, "Figure 6c", "ROUGE-1")["Ours"] == "not computed"
    assert all(r["Ours"] == "not computed" for r in rows if "DE range" in r["Quantity"])
    assert "*figure6a: not rendered.*" in markdown
    assert "![figure3](figures/figure3.png)" in markdown
    # Entirely empty tables still give a report.
    empty = pd.DataFrame()
    rows = comparison_table(report.build_report(empty, empty, empty, paper, CONFIG))
    assert len(rows) == N_STATED and all(r["Ours"] == "not computed" for r in rows)


def test_report_embeds_figures_and_links_tables(paper):
    markdown = build(paper)
    for name in ["figure3", "figure5_msmarco", "figure5_cnndm", "figure6a", "figure6b", "figure6c"]:
        assert f"![{name}](figures/{name}.png)" in markdown
    for name in ["table2", "correlations", "data_efficiency"]:
        assert f"(tables/{name}.csv)" in markdown


def test_write_report_script(tmp_path, paper):
    t2, corr, de = tables()
    results = tmp_path / "results"
    (results / "tables").mkdir(parents=True)
    (results / "figures").mkdir()
    inputs = {}
    for name, frame in (("table2", t2), ("correlations", corr), ("data_efficiency", de)):
        inputs[name] = results / "tables" / f"{name}.csv"
        frame.to_csv(inputs[name], index=False)
    figure_files = []
    for name in ("figure3", "figure6a"):
        for ext in ("pdf", "png"):
            path = results / "figures" / f"{name}.{ext}"
            path.write_bytes(b"")
            figure_files.append(str(path))
    out = results / "report.md"
    snakemake = SimpleNamespace(
        input=SimpleNamespace(
            table2=str(inputs["table2"]),
            correlations=str(inputs["correlations"]),
            data_efficiency=str(inputs["data_efficiency"]),
            paper_values=str(PAPER_VALUES),
        ),
        output=SimpleNamespace(report=str(out)),
        params=SimpleNamespace(figures_dir=str(results / "figures"), report_config=CONFIG),
        log=[str(tmp_path / "logs" / "report.log")],
    )
    runpy.run_path(str(REPO / "scripts" / "write_report.py"), init_globals={"snakemake": snakemake})
    text = out.read_text(encoding="utf-8")
    assert text == report.build_report(t2, corr, de, paper, CONFIG, figures=None)
    # every configured figure is linked, relative to the report
    for name in figures.figure_names(CONFIG):
        assert f"![{name}](figures/{name}.png)" in text
    assert sorted(p.name for p in results.iterdir()) == ["figures", "report.md", "tables"]


def test_gamma_reason_depends_on_the_interval_the_rounded_variances_allow(paper):
    entry = next(r for r in paper["table2"] if r["prompt"] == "fluency")
    low = (entry["sigma2_a"] - 0.005) / (entry["sigma2_f"] + 0.005)
    high = (entry["sigma2_a"] + 0.005) / (entry["sigma2_f"] - 0.005)
    t2, _, _ = tables()
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
    assert reasons["outside"] == report.REASON_TABLE2
