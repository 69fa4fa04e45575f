"""Figures: every configured figure renders to a valid PDF and a PNG of the chosen size,
labels do not collide, output is byte-for-byte reproducible, and "best" resolves to the
metric with the highest |rho|."""

from __future__ import annotations

import runpy
import struct
from pathlib import Path
from types import SimpleNamespace

import matplotlib.image as mpimg
import numpy as np
import pandas as pd
import pytest
from conftest import PAPER_CONFIG, REPO

from debias import figures

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

CONFIG = PAPER_CONFIG

# gamma values close together on purpose, so that Figure 3's labels must avoid each other.
GAMMA = {
    ("cnndm", "fluency"): 1.23,
    ("cnndm", "redundancy"): 0.61,
    ("cnndm", "overall"): 1.00,
    ("cnndm", "edit"): 0.36,
    ("msmarco", "any_correct"): 0.95,
    ("msmarco", "avg_correct"): 0.91,
}


def synthetic_tables(config=CONFIG, seed=0):
    """Small tables with the columns the pipeline's earlier stages write."""
    rng = np.random.default_rng(seed)
    metrics = list(config["metrics"])
    t2, corr, de, curves = [], [], [], []
    for task, spec in config["tasks"].items():
        systems = list(spec["systems"])
        for prompt, pspec in spec["prompts"].items():
            sign = -1.0 if pspec.get("higher_is_better") is False else 1.0
            gamma = GAMMA[(task, prompt)]
            t2.append(
                {
                    "task": task,
                    "prompt": prompt,
                    "sigma2_a": 0.1 * gamma,
                    "sigma2_f": 0.1,
                    "gamma": gamma,
                    "sigma2_f_unbiased": 0.09,
                    "gamma_unbiased": gamma * 1.1,
                    "n_items": 500,
                    "n_judgments": 1100,
                }
            )
            for system in systems + ["combined"]:
                # Nearly equal |rho| keeps the Figure 3 points of one task bunched together.
                rhos = sign * (0.30 + 0.02 * rng.random(len(metrics)))
                for metric, rho in zip(metrics, rhos):
                    corr.append(
                        {"task": task, "prompt": prompt, "system": system, "metric": metric, "rho": rho, "n_items": 500}
                    )
            for system in systems:
                for metric in metrics:
                    for condition, value in (("cv", 1.08), ("noiseless", 1.5)):
                        de.append(
                            {
                                "task": task,
                                "prompt": prompt,
                                "system": system,
                                "metric": metric,
                                "condition": condition,
                                "de": value + 0.05 * rng.random(),
                                "de_theory": value,
                                "rho": 0.3,
                                "gamma": gamma,
                            }
                        )
                de.append(
                    {
                        "task": task,
                        "prompt": prompt,
                        "system": system,
                        "metric": "perfect",
                        "condition": "perfect",
                        "de": 3.0 + rng.random(),
                        "de_theory": 3.0,
                        "rho": 1.0,
                        "gamma": gamma,
                    }
                )
                n = np.arange(10, 501, 10)
                for condition, metric, factor in (("mean", "none", 1.0), ("perfect", "perfect", 0.5)):
                    curves.append(
                        pd.DataFrame(
                            {
                                "task": task,
                                "prompt": prompt,
                                "system": system,
                                "metric": metric,
                                "condition": condition,
                                "n": n,
                                "width": factor / np.sqrt(n),
                            }
                        )
                    )
                for metric in metrics:
                    for condition, factor in (("cv", 0.95), ("noiseless", 0.8)):
                        curves.append(
                            pd.DataFrame(
                                {
                                    "task": task,
                                    "prompt": prompt,
                                    "system": system,
                                    "metric": metric,
                                    "condition": condition,
                                    "n": n,
                                    "width": factor / np.sqrt(n),
                                }
                            )
                        )
    return pd.DataFrame(t2), pd.DataFrame(corr), pd.DataFrame(de), pd.concat(curves, ignore_index=True)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, f"{path} is not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def expected_kind(name: str) -> str:
    return "figure5" if name.startswith("figure5") else "figure6" if name.startswith("figure6") else "figure3"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    out = tmp_path_factory.mktemp("figures")
    table2, corr, de, curves = synthetic_tables()
    written = figures.render_all(table2, corr, de, curves, CONFIG, out)
    return out, written


def test_figure_names_follow_config():
    assert figures.figure_names(CONFIG) == [
        "figure3",
        "figure5_msmarco",
        "figure5_cnndm",
        "figure6a",
        "figure6b",
        "figure6c",
    ]


def test_every_figure_is_a_valid_pdf_and_png_of_the_chosen_size(rendered):
    out, written = rendered
    expected = {out / f"{name}.{ext}" for name in figures.figure_names(CONFIG) for ext in ("pdf", "png")}
    assert set(written) == expected
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in expected), "stray files"
    for name in figures.figure_names(CONFIG):
        assert (out / f"{name}.pdf").read_bytes()[:5] == b"%PDF-"
        width_in, height_in = figures.FIGSIZE[expected_kind(name)]
        size = (round(width_in * figures.DPI), round(height_in * figures.DPI))
        assert png_size(out / f"{name}.png") == size
        pixels = mpimg.imread(out / f"{name}.png")
        assert pixels.shape[:2] == (size[1], size[0])
        assert figures.DPI >= 150
        # Not a blank canvas: a drawn figure has many distinct colours.
        rgba = np.ascontiguousarray((pixels[..., :4] * 255).round().astype(np.uint8))
        assert len(np.unique(rgba.view(np.uint32))) > 20


def test_figures_are_reproducible_byte_for_byte(rendered, tmp_path):
    _, first = rendered
    table2, corr, de, curves = synthetic_tables()
    second = figures.render_all(table2, corr, de, curves, CONFIG, tmp_path)
    assert [p.name for p in first] == [p.name for p in second]
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes(), a.name
    pdf = next(p for p in first if p.suffix == ".pdf").read_bytes()
    assert b"CreationDate" not in pdf


def test_best_metric_is_highest_absolute_correlation():
    corr = pd.DataFrame(
        {
            "task": "t",
            "prompt": "p",
            "system": ["s"] * 4 + ["other"],
            "metric": ["bleu", "rouge1", "rougeL", "meteor", "bleu"],
            "rho": [0.30, -0.55, 0.50, np.nan, 0.99],
        }
    )
    assert figures.best_metric(corr, "t", "p", "s") == "rouge1"
    assert figures.best_metric(corr, "t", "p", "s", metrics=["bleu", "rougeL"]) == "rougeL"
    with pytest.raises(LookupError):
        figures.best_metric(corr, "t", "p", "missing")


def test_panel_metric_resolution():
    _, corr, _, _ = synthetic_tables()
    panel = CONFIG["figures"]["figure6"]["figure6b"]
    rows = corr[(corr.task == "cnndm") & (corr.prompt == "edit") & (corr.system == "seq2seq")]
    expected = rows.loc[rows["rho"].abs().idxmax(), "metric"]
    assert figures.resolve_panel_metric(corr, panel) == (expected, True)
    fixed = CONFIG["figures"]["figure6"]["figure6c"]
    assert figures.resolve_panel_metric(corr, fixed) == ("rouge1", False)


def test_figure6_shows_the_four_conditions_and_their_des():
    table2, corr, de, curves = synthetic_tables()
    fig = figures.plot_figure6(curves, de, corr, CONFIG, "figure6c")
    ax = fig.axes[0]
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    cv = de[
        (de.task == "msmarco")
        & (de.prompt == "any_correct")
        & (de.system == "fastqa_ext")
        & (de.metric == "rouge1")
        & (de.condition == "cv")
    ]["de"].iloc[0]
    assert labels[0] == "Humans"
    assert labels[1] == f"Humans + ROUGE-1 (DE {cv:.2f})"
    assert labels[2].startswith("Noiseless humans + ROUGE-1 (DE ")
    assert labels[3].startswith("Humans + perfect metric (DE ")
    styles = [line.get_linestyle() for line in ax.get_lines()]
    assert styles == ["-", "-", ":", ":"]
    assert f"DE = {cv:.2f}" in ax.get_title()
    best = figures.plot_figure6(curves, de, corr, CONFIG, "figure6a").axes[0].get_title()
    assert "highest |" in best


def test_figure3_point_labels_do_not_overlap():
    table2, corr, _, _ = synthetic_tables()
    fig = figures.plot_figure3(table2, corr, CONFIG)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    labels = [t for t in ax.texts if t.get_text().endswith(")")]
    assert len(labels) == len(table2)
    boxes = [t.get_window_extent(renderer) for t in labels]
    axes_box = ax.get_window_extent(renderer)
    for i, a in enumerate(boxes):
        assert axes_box.x0 <= a.x0 and a.x1 <= axes_box.x1 and axes_box.y0 <= a.y0 and a.y1 <= axes_box.y1
        for b in boxes[i + 1 :]:
            assert not a.overlaps(b), "point labels overlap"


def test_figure3_points_use_best_combined_metric():
    table2, corr, _, _ = synthetic_tables()
    points = figures.measured_points(table2, corr, CONFIG)
    row = points[(points.task == "cnndm") & (points.prompt == "edit")].iloc[0]
    combined = corr[(corr.task == "cnndm") & (corr.prompt == "edit") & (corr.system == "combined")]
    assert row["rho"] == pytest.approx(combined["rho"].abs().max())
    assert row["rho"] > 0  # edit correlations are negative; Figure 3 uses |rho|
    assert row["gamma"] == pytest.approx(0.36)


def test_figure5_heatmap_annotates_every_cell():
    _, corr, _, _ = synthetic_tables()
    fig = figures.plot_figure5(corr, CONFIG, "cnndm", "edit")
    ax = fig.axes[0]
    cells = [t.get_text() for t in ax.texts]
    assert len(cells) == 5 * 5
    value = corr[
        (corr.task == "cnndm") & (corr.prompt == "edit") & (corr.system == "combined") & (corr.metric == "bleu")
    ]["rho"].iloc[0]
    assert f"{value:.2f}" in cells
    assert [t.get_text() for t in ax.get_xticklabels()][-1] == "Combined"
    mesh = ax.collections[0]
    assert mesh.norm.vmin == -mesh.norm.vmax  # diverging map centred at 0
    assert mesh.get_array().shape == (5, 5)
    assert len(fig.axes) == 2  # heatmap and colour bar


def test_render_script_writes_all_figures(tmp_path):
    table2, corr, de, curves = synthetic_tables()
    paths = {}
    for name, frame in (("table2", table2), ("correlations", corr), ("data_efficiency", de)):
        paths[name] = tmp_path / f"{name}.csv"
        frame.to_csv(paths[name], index=False)
    curve_paths = []
    for (task, system), frame in curves.groupby(["task", "system"]):
        path = tmp_path / "curves" / task / f"{system}.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        frame.to_csv(path, index=False)
        curve_paths.append(str(path))
    out = tmp_path / "figures"
    snakemake = SimpleNamespace(
        input=SimpleNamespace(
            table2=str(paths["table2"]),
            correlations=str(paths["correlations"]),
            efficiency=[str(paths["data_efficiency"])],
            curves=curve_paths,
        ),
        params=SimpleNamespace(figures_dir=str(out), names=figures.figure_names(CONFIG), figure_config=CONFIG),
        log=[str(tmp_path / "logs" / "figures.log")],
    )
    runpy.run_path(str(REPO / "scripts" / "render_figures.py"), init_globals={"snakemake": snakemake})
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(f"{n}.{e}" for n in figures.figure_names(CONFIG) for e in ("pdf", "png"))
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "temporary files left behind"


def test_render_script_draws_only_the_named_figures(tmp_path):
    """The overview job draws figures 3 and 5 from the tables alone, before any curve exists."""
    table2, corr, _, _ = synthetic_tables()
    paths = {}
    for name, frame in (("table2", table2), ("correlations", corr)):
        paths[name] = tmp_path / f"{name}.csv"
        frame.to_csv(paths[name], index=False)
    out = tmp_path / "figures"
    names = [n for n in figures.figure_names(CONFIG) if not n.startswith("figure6")]
    snakemake = SimpleNamespace(
        input=SimpleNamespace(table2=str(paths["table2"]), correlations=str(paths["correlations"])),
        params=SimpleNamespace(figures_dir=str(out), names=names, figure_config=CONFIG),
        log=[str(tmp_path / "logs" / "figures.log")],
    )
    runpy.run_path(str(REPO / "scripts" / "render_figures.py"), init_globals={"snakemake": snakemake})
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{n}.{e}" for n in names for e in ("pdf", "png"))
