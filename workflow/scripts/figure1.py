"""Rule `figure1`: system-level (a) and instance-level (b) agreement of a metric with humans."""

from pathlib import Path

import pandas as pd

from debias.config.tasks import load_task
from debias.io.atomic import write_csv
from debias.metrics import IMPLEMENTATIONS
from debias.pipeline.logs import run_script
from debias.plots import draw_figure1a, draw_figure1b, save_figure
from debias.tables.bias import INSTANCE_DEFINITIONS, instance_correlations, score_systems, system_level_points
from debias.tables.joined import join_system, judged_rows


def main(smk, log):
    spec, config = smk.params.figure1, smk.params.config
    task, prompt, implementation = spec["task"], spec["prompt"], spec["implementation"]
    task_spec = config["tasks"][task]
    references, systems = load_task(config, task, list(task_spec["systems"]))
    scores = score_systems(systems, references, implementation)
    joined = {
        system: join_system(task, system, items, list(task_spec["prompts"]), scores[system], ["m"])
        for system, items in systems.items()
    }
    boot = config["bootstrap"]
    points, across = system_level_points(joined, prompt, "m", boot["level"], boot["replicates"], boot["seed"])
    correlations = instance_correlations(joined[spec["system"]], prompt, ["m"])
    table = pd.concat(
        [
            pd.DataFrame([{"panel": "a", "definition": "systems", "system": "", "rho": across, "n": len(points)}]),
            correlations.drop(columns="metric").assign(panel="b", system=spec["system"]),
        ]
    )
    table["description"] = table["definition"].map(
        {**INSTANCE_DEFINITIONS, "systems": "Pearson r of the systems' means"}
    )
    table.insert(0, "task", task)
    table.insert(1, "prompt", prompt)
    table.insert(2, "metric", implementation)
    write_csv(table, smk.output.csv)
    labels = {s: v["label"] for s, v in task_spec["systems"].items()}
    judgment_label, metric_label = task_spec["prompts"][prompt]["label"], IMPLEMENTATIONS[implementation].label
    save_figure(
        draw_figure1a(points, across, judgment_label, metric_label, labels), Path(smk.output.a_pdf).with_suffix("")
    )
    rows = judged_rows(joined[spec["system"]], prompt)
    own = rows[rows["judged_output"] == ""]
    rho = correlations.set_index("definition").loc["own_lines", "rho"]
    save_figure(draw_figure1b(own, "m", rho, judgment_label, metric_label), Path(smk.output.b_pdf).with_suffix(""))
    log.info("Figure 1 correlations:\n%s", table.to_string(index=False))


run_script(main, snakemake)  # noqa: F821
