"""Figures: every configured figure renders to a valid PDF and a PNG of the chosen size, labels
do not collide, output is byte-for-byte reproducible and written atomically, and the figures
draw the metrics the best-metrics table names rather than choosing their own."""

from __future__ import annotations

import struct
from pathlib import Path

import matplotlib.image as mpimg
import numpy as np
import pandas as pd
import pytest
from conftest import PAPER_CONFIG

from debias.config.labels import figure_kind, figure_names
from debias.plots import DPI, FIGSIZE, draw_figure3, draw_figure5, draw_figure6, save_figure
from debias.stats.ratings.theory import theory_data_efficiency
from debias.tables.selection import best_metrics, panel_metric

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

CONFIG = PAPER_CONFIG
METRICS = list(CONFIG["metrics"])

# gamma values close together on purpose, so that Figure 3's labels must avoid each other.
GAMMA = {
    ("cnndm", "fluency"): 1.23,
    ("cnndm", "redundancy"): 0.61,
    ("cnndm", "overall"): 1.00,
    ("cnndm", "edit"): 0.36,
    ("msmarco", "any_correct"): 0.95,
    ("msmarco", "avg_correct"): 0.91,
}


def _curve(task, prompt, system, metric, condition, factor):
    n = np.arange(10, 501, 10)
    return pd.DataFrame(
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


def synthetic_tables(config=CONFIG, seed=0):
    """Small tables with the columns the pipeline's earlier stages write."""
    rng = np.random.default_rng(seed)
    t2, corr, de, curves = [], [], [], []
    for task, spec in config["tasks"].items():
        systems = list(spec["systems"])
        for prompt, pspec in spec["prompts"].items():
            sign = -1.0 if pspec.get("higher_is_better") is False else 1.0
            gamma = GAMMA[(task, prompt)]
            t2.append({"task": task, "prompt": prompt, "sigma2_a": 0.1 * gamma, "sigma2_f": 0.1, "gamma": gamma})
            for system in systems + ["combined"]:
                # Nearly equal |rho| keeps the Figure 3 points of one task bunched together.
                for metric, rho in zip(METRICS, sign * (0.30 + 0.02 * rng.random(len(METRICS)))):
                    corr.append({"task": task, "prompt": prompt, "system": system, "metric": metric, "rho": rho})
            for system in systems:
                cell = {"task": task, "prompt": prompt, "system": system, "gamma_resampling": gamma}
                for metric in METRICS:
                    for condition, value in (("cv", 1.08), ("noiseless", 1.5)):
                        de.append({**cell, "metric": metric, "condition": condition, "de": value + 0.05 * rng.random()})
                de.append({**cell, "metric": "perfect", "condition": "perfect", "de": 3.0 + rng.random()})
                curves.append(_curve(task, prompt, system, "none", "mean", 1.0))
                curves.append(_curve(task, prompt, system, "perfect", "perfect", 0.5))
                for metric in METRICS:
                    curves.append(_curve(task, prompt, system, metric, "cv", 0.95))
                    curves.append(_curve(task, prompt, system, metric, "noiseless", 0.8))
    corr = pd.DataFrame(corr)
    return pd.DataFrame(t2), corr, best_metrics(corr, METRICS), pd.DataFrame(de), pd.concat(curves, ignore_index=True)


def resolved_panel(name, best, config=CONFIG):
    spec = config["figures"]["figure6"][name]
    metric, chosen = panel_metric(spec, best)
    return {**spec, "name": name, "metric": metric, "chosen_as_best": chosen}


def draw_all(out: Path, config=CONFIG) -> list[Path]:
    """Every configured figure, drawn and saved the way the workflow's rules do."""
    table2, corr, best, de, curves = synthetic_tables(config)
    written = save_figure(draw_figure3(table2, best, config), out / "figure3")
    for task, prompt in config["figures"]["figure5"].items():
        written += save_figure(draw_figure5(corr, config, task, prompt), out / f"figure5_{task}")
    for name in config["figures"]["figure6"]:
        figure = draw_figure6(curves, de, resolved_panel(name, best, config), config)
        written += save_figure(figure, out / f"figure6{name}")
    return written


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, f"{path} is not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def cell(frame, **where):
    mask = np.logical_and.reduce([frame[k] == v for k, v in where.items()])
    return frame[mask]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    out = tmp_path_factory.mktemp("figures")
    return out, draw_all(out)


def test_every_figure_is_a_valid_pdf_and_png_of_the_chosen_size(rendered):
    out, written = rendered
    names = figure_names(CONFIG)
    expected = {out / f"{name}.{ext}" for name in names for ext in ("pdf", "png")}
    assert set(written) == expected
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in expected), "stray files"
    for name in names:
        assert (out / f"{name}.pdf").read_bytes()[:5] == b"%PDF-"
        width_in, height_in = FIGSIZE[figure_kind(name)]
        size = (round(width_in * DPI), round(height_in * DPI))
        assert png_size(out / f"{name}.png") == size
        pixels = mpimg.imread(out / f"{name}.png")
        # Not a blank canvas: a drawn figure has many distinct colours.
        rgba = np.ascontiguousarray((pixels[..., :4] * 255).round().astype(np.uint8))
        assert len(np.unique(rgba.view(np.uint32))) > 20


def test_figures_are_reproducible_byte_for_byte(rendered, tmp_path):
    _, first = rendered
    second = draw_all(tmp_path)
    assert [p.name for p in first] == [p.name for p in second]
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes(), a.name
    pdf = next(p for p in first if p.suffix == ".pdf").read_bytes()
    assert b"CreationDate" not in pdf


def test_a_failed_save_keeps_the_previous_figure_and_leaves_no_partial_file(tmp_path):
    table2, corr, _, _, _ = synthetic_tables()
    figure = draw_figure5(corr, CONFIG, "cnndm", "edit")
    save_figure(figure, tmp_path / "figure5_cnndm")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def broken(path, **kwargs):
        Path(path).write_bytes(b"partial")
        raise RuntimeError("disk full")

    figure.savefig = broken
    with pytest.raises(RuntimeError, match="disk full"):
        save_figure(figure, tmp_path / "figure5_cnndm")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_figure6_shows_the_four_conditions_and_their_des():
    _, _, best, de, curves = synthetic_tables()
    fig = draw_figure6(curves, de, resolved_panel("c", best), CONFIG)
    ax = fig.axes[0]
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    cv = cell(de, task="msmarco", prompt="any_correct", system="fastqa_ext", metric="rouge1", condition="cv")
    cv = cv["de"].iloc[0]
    assert labels[0] == "Humans"
    assert labels[1] == f"Humans + ROUGE-1 (DE {cv:.2f})"
    assert labels[2].startswith("Noiseless humans + ROUGE-1 (DE ")
    assert labels[3].startswith("Humans + perfect metric (DE ")
    assert [line.get_linestyle() for line in ax.get_lines()] == ["-", "-", ":", ":"]
    title = ax.get_title()
    assert title.startswith("(c) fastqa_ext on MS MARCO, AnyCorrect: ")
    assert f"DE = {cv:.2f}" in title and "(set in the config)" in title
    chosen = draw_figure6(curves, de, resolved_panel("a", best), CONFIG).axes[0].get_title()
    assert chosen.startswith("(a) ") and "highest |" in chosen


def test_figure6_draws_the_metric_it_is_given():
    """The panel's metric is resolved before drawing: a metric that is not the best is drawn
    as given, and labelled as configured."""
    _, corr, best, de, curves = synthetic_tables()
    rows = cell(corr, task="cnndm", prompt="overall", system="seq2seq")
    weakest = rows.loc[rows["rho"].abs().idxmin(), "metric"]
    panel = {"name": "a", "task": "cnndm", "prompt": "overall", "system": "seq2seq"}
    ax = draw_figure6(curves, de, {**panel, "metric": weakest, "chosen_as_best": False}, CONFIG).axes[0]
    label = CONFIG["metrics"][weakest]["label"]
    assert ax.get_legend().get_texts()[1].get_text().startswith(f"Humans + {label} (DE ")
    assert f"metric: {label} (set in the config)" in ax.get_title()


def test_figure6_without_curves_is_an_error():
    _, _, best, de, curves = synthetic_tables()
    panel = {**resolved_panel("a", best), "system": "missing"}
    with pytest.raises(LookupError, match="figure6a"):
        draw_figure6(curves, de, panel, CONFIG)


def test_figure3_point_labels_do_not_overlap():
    table2, _, best, _, _ = synthetic_tables()
    fig = draw_figure3(table2, best, CONFIG)
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


def test_figure3_points_come_from_the_pooled_best_metrics_and_table2():
    """rho is |rho| of the best-metrics table's `combined` row (whatever correlations.csv says),
    gamma is Table 2's."""
    table2, _, best, _, _ = synthetic_tables()
    best = best.copy()
    edit = (best.task == "cnndm") & (best.prompt == "edit") & (best.system == "combined")
    best.loc[edit, ["metric", "rho"]] = ["meteor", -0.83]
    ax = draw_figure3(table2, best, CONFIG).axes[0]
    points = np.concatenate([collection.get_offsets() for collection in ax.collections[-2:]])
    assert len(points) == len(table2)
    assert [0.83, 0.36] in points.round(6).tolist()  # edit correlations are negative; Figure 3 uses |rho|
    assert "Edit (METEOR)" in [t.get_text() for t in ax.texts]
    # A task x prompt without a pooled best metric is left out.
    ax = draw_figure3(table2, best[~edit], CONFIG).axes[0]
    assert sum(len(c.get_offsets()) for c in ax.collections[-2:]) == len(table2) - 1


def test_figure3_contours_are_levels_of_inverse_data_efficiency():
    table2, _, best, _, _ = synthetic_tables()
    ax = draw_figure3(table2, best, CONFIG).axes[0]
    contours = ax.collections[0]
    assert list(contours.levels) == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9])
    for level, path in zip(contours.levels, contours.get_paths()):
        rho, gamma = path.vertices[::25].T
        inside = (rho > 0) & (rho < 1) & (gamma > 0)
        assert 1.0 / theory_data_efficiency(rho[inside], gamma[inside]) == pytest.approx(level, abs=2e-3)


def test_figure5_heatmap_annotates_every_cell():
    _, corr, _, _, _ = synthetic_tables()
    ax = draw_figure5(corr, CONFIG, "cnndm", "edit").axes[0]
    cells = [t.get_text() for t in ax.texts]
    assert len(cells) == 5 * 5
    value = cell(corr, task="cnndm", prompt="edit", system="combined", metric="bleu")["rho"].iloc[0]
    assert f"{value:.2f}" in cells
    assert [t.get_text() for t in ax.get_xticklabels()][-1] == "Combined"
    assert "lower-is-better" in ax.get_title()
    mesh = ax.collections[0]
    assert mesh.norm.vmin == -mesh.norm.vmax  # diverging map centred at 0
    assert mesh.get_array().shape == (5, 5)
    assert len(ax.figure.axes) == 2  # heatmap and colour bar


def test_figure5_marks_missing_correlations():
    _, corr, _, _, _ = synthetic_tables()
    corr = corr[~((corr.system == "pointer") & (corr.metric == "meteor"))]
    ax = draw_figure5(corr, CONFIG, "cnndm", "edit").axes[0]
    assert [t.get_text() for t in ax.texts].count("n/a") == 1


def test_figure1_panels_show_every_system_and_output_with_rho_in_the_title():
    from debias.plots import draw_figure1a, draw_figure1b
    from debias.tables.bias import SystemPoint

    points = [
        SystemPoint(s, 10, j, j - 0.1, j + 0.1, g, g - 0.05, g + 0.05) for s, j, g in [("x", 0.2, 0.3), ("y", 0.6, 0.5)]
    ]
    fig = draw_figure1a(points, 0.97, "Quality", "ROUGE-L", {"x": "sys x"})
    (ax,) = fig.axes
    assert "0.97" in ax.get_title() and [t.get_text() for t in ax.texts] == ["sys x", "y"]
    rows = pd.DataFrame({"mean_judgment": [0.0, 0.5, 1.0], "m": [0.1, 0.2, 0.9]})
    (ax,) = draw_figure1b(rows, "m", 0.31, "Quality", "ROUGE-L").axes
    assert "0.31" in ax.get_title() and ax.collections[0].get_offsets().shape == (3, 2)


def test_figure1a_labels_of_nearby_systems_do_not_overlap():
    """The released MS MARCO data put fastqa and fastqa_ext 0.005 apart on both axes."""
    from debias.plots import draw_figure1a
    from debias.tables.bias import SystemPoint

    values = [
        ("fastqa", 0.607, 0.2765),
        ("fastqa_ext", 0.602, 0.2735),
        ("snet", 0.674, 0.364),
        ("snet.ens", 0.703, 0.378),
    ]
    points = [SystemPoint(s, 10, j, j - 0.02, j + 0.02, g, g - 0.02, g + 0.02) for s, j, g in values]
    fig = draw_figure1a(points, 0.99, "AnyCorrect", "ROUGE-L", {})
    (ax,) = fig.axes
    fig.canvas.draw()
    boxes = [text.get_window_extent() for text in ax.texts]
    assert [t.get_text() for t in ax.texts] == [s for s, _, _ in values]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])


def test_figure5_draws_the_corrected_quantity_and_keeps_pearson_without_it():
    rows = [
        {"task": "cnndm", "prompt": "edit", "system": s, "metric": m, "rho": -0.2, "rho_corrected": -0.45}
        for s in ["seq2seq", "combined"]
        for m in METRICS
    ]
    corrected = pd.DataFrame(rows)
    texts = [t.get_text() for t in draw_figure5(corrected, CONFIG, "cnndm", "edit").axes[0].texts]
    assert texts.count("-0.45") == 2 * len(METRICS) and "-0.20" not in texts
    texts = [
        t.get_text()
        for t in draw_figure5(corrected.drop(columns="rho_corrected"), CONFIG, "cnndm", "edit").axes[0].texts
    ]
    assert texts.count("-0.20") == 2 * len(METRICS)


def test_comparisons_forest_plot_draws_mean_and_best_cv_per_pair():
    from debias.plots import draw_comparisons
    from debias.plots.comparisons import best_cv_rows

    rows = []
    for a, b, shift in (("fastqa", "fastqa_ext", 0.01), ("fastqa", "snet.single", 0.07)):
        for estimator, de in (("mean", 1.3), ("cv:bleu", 1.31), ("cv:rougeL", 1.36), ("cv:combined", 1.35)):
            rows.append(
                {
                    "task": "msmarco",
                    "prompt": "any_correct",
                    "system_a": a,
                    "system_b": b,
                    "estimator": estimator,
                    "difference": shift,
                    "ci_low": shift - 0.02,
                    "ci_high": shift + 0.02,
                    "de_vs_independent": de,
                }
            )
    table = pd.DataFrame(rows)
    assert list(best_cv_rows(table)["estimator"]) == ["cv:rougeL", "cv:rougeL"]
    fig = draw_comparisons(table, PAPER_CONFIG, "msmarco", 0.8)
    ax = fig.axes[0]
    assert len(ax.containers) == 4  # two pairs, mean and best cv each
    assert [t.get_text() for t in ax.get_yticklabels()] == ["fastqa_ext − fastqa", "snet − fastqa"]
    assert ax.get_title() == "AnyCorrect"
    both = pd.concat([table, table.assign(prompt="avg_correct")], ignore_index=True)
    panels = [a for a in draw_comparisons(both, PAPER_CONFIG, "msmarco", 0.8).axes if a.get_title()]
    assert [a.get_title() for a in panels] == ["AnyCorrect", "AvgCorrect"]
    assert all(len(a.containers) == 4 for a in panels)


def test_a_jobs_log_keeps_the_packages_progress_and_the_libraries_warnings_not_their_chatter(tmp_path):
    import logging

    import matplotlib as mpl
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from debias.pipeline.logs import setup_logging
    from debias.plots.style import STYLE

    root = logging.getLogger()
    saved = root.handlers[:], root.level, logging.getLogger("debias").level
    try:
        log = setup_logging(str(tmp_path / "job.log"))
        log.info("the job's progress")
        logging.getLogger("debias.tables.estimates").info("a table's progress")
        with mpl.rc_context(STYLE):  # the figures' style: TrueType fonts, subset into each PDF
            figure = Figure()
            FigureCanvasAgg(figure)
            figure.subplots().set_title("a PDF figure: its fonts are subset")
            figure.savefig(tmp_path / "figure.pdf")
        logging.getLogger("fontTools.subset").warning("a library's warning")
        for handler in logging.getLogger().handlers:
            handler.flush()
        text = (tmp_path / "job.log").read_text()
    finally:
        for handler in root.handlers:
            if handler not in saved[0]:
                handler.close()
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
        logging.getLogger("debias").setLevel(saved[2])
    assert "the job's progress" in text and "a table's progress" in text
    assert "a library's warning" in text
    assert text.count("fontTools") == 1  # the warning only, none of the subsetting's progress
