# Step 5: instance-level correlations (Figure 5's numbers) and every figure.


rule correlations:
    input:
        scores=per_system(f"{R}/metrics/{{task}}/{{system}}.csv"),
        systems=[
            str(system_path(config, t, s)) for t in TASKS for s in scored_systems(t)
        ],
        references=all_reference_files(),
    output:
        f"{R}/tables/correlations.csv",
    log:
        f"{R}/logs/correlations.log",
    params:
        tasks=config["tasks"],
        metrics=METRICS,
        data_dir=config["data_dir"],
    script:
        "../../scripts/correlations.py"


def figure_caption(path):
    """Caption file for Snakemake's HTML report: the figure's own, else its kind's."""
    name = Path(path).stem
    if (Path(workflow.basedir) / "workflow/report" / f"{name}.rst").exists():
        return f"../report/{name}.rst"
    kind = (
        "figure3"
        if name == "figure3"
        else "figure5" if name.startswith("figure5") else "figure6"
    )
    return f"../report/{kind}.rst"


def figure_outputs(names):
    """PDF and PNG of each named figure; PNGs are registered in the HTML report."""
    paths = [f"{R}/figures/{name}.{ext}" for name in names for ext in ("pdf", "png")]
    in_report = lambda path: report(
        path, caption=figure_caption(path), category="Figures"
    )  # noqa: E731
    return [in_report(path) if path.endswith(".png") else path for path in paths]


# Figures 3 and 5 need only Table 2 and the correlations, so they are drawn while the
# bootstrap still runs; the Figure 6 panels wait for the curves.
rule figures_overview:
    input:
        table2=f"{R}/tables/table2.csv",
        correlations=f"{R}/tables/correlations.csv",
    output:
        figure_outputs(OVERVIEW_FIGURES),
    log:
        f"{R}/logs/figures_overview.log",
    params:
        names=OVERVIEW_FIGURES,
        figures_dir=f"{R}/figures",
        # labels and panel choices: a change in them redraws the figures
        figure_config={k: config[k] for k in ("tasks", "metrics", "figures")},
    script:
        "../../scripts/render_figures.py"


rule figures_curves:
    input:
        table2=f"{R}/tables/table2.csv",
        correlations=f"{R}/tables/correlations.csv",
        # the per-system efficiencies rather than the gathered table: one job less before
        # the panels can be drawn
        efficiency=per_system(f"{R}/efficiency/{{task}}/{{system}}.csv"),
        curves=per_system(f"{R}/curves/{{task}}/{{system}}.csv"),
    output:
        figure_outputs(CURVE_FIGURES),
    log:
        f"{R}/logs/figures_curves.log",
    priority: 2  # on the longest path of a run: scheduled first when cores are scarce
    params:
        names=CURVE_FIGURES,
        figures_dir=f"{R}/figures",
        figure_config={
            k: config[k] for k in ("tasks", "metrics", "figures", "bootstrap")
        },
    script:
        "../../scripts/render_figures.py"
