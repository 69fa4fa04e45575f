# Step 5: instance-level correlations (Figure 5's numbers) and every figure.


rule correlations:
    input:
        scores=per_system(f"{R}/metrics/{{task}}/{{system}}.csv"),
        systems=[str(system_path(config, t, s)) for t in TASKS for s in scored_systems(t)],
        references=all_reference_files(),
    output:
        f"{R}/tables/correlations.csv",
    params:
        tasks=config["tasks"],
        metrics=METRICS,
        data_dir=config["data_dir"],
        results_dir=R,
    log:
        f"{R}/logs/correlations.log",
    script:
        "../../scripts/correlations.py"


def figure_caption(path):
    """Caption file for Snakemake's HTML report: the figure's own, else its kind's."""
    name = Path(path).stem
    if (Path(workflow.basedir) / "workflow/report" / f"{name}.rst").exists():
        return f"../report/{name}.rst"
    kind = "figure3" if name == "figure3" else "figure5" if name.startswith("figure5") else "figure6"
    return f"../report/{kind}.rst"


rule figures:
    input:
        table2=f"{R}/tables/table2.csv",
        correlations=f"{R}/tables/correlations.csv",
        data_efficiency=f"{R}/tables/data_efficiency.csv",
        curves=per_system(f"{R}/curves/{{task}}/{{system}}.csv"),
    output:
        [
            report(path, caption=figure_caption(path), category="Figures") if path.endswith(".png") else path
            for path in figure_files()
        ],
    params:
        figures_dir=f"{R}/figures",
    log:
        f"{R}/logs/figures.log",
    script:
        "../../scripts/render_figures.py"
