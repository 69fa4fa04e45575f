"""Rule `table2`: variance components of the human judgments, pooled per task and per system."""

from debias.inputs import load_task
from debias.io import write_csv, write_text
from debias.logs import setup_logging
from debias.tables import to_latex, to_markdown
from debias.variance import table2, variance_by_system

HEADERS_MD = ["Task", "Prompt", "σ_a²", "σ_f²", "γ", "σ_f² (unbiased)", "γ (unbiased)", "items", "judgments"]
HEADERS_TEX = [
    "Task",
    "Prompt",
    r"$\sigma_a^2$",
    r"$\sigma_f^2$",
    r"$\gamma$",
    r"$\sigma_f^2$ (unb.)",
    r"$\gamma$ (unb.)",
    "items",
    "judgments",
]


def main(smk):
    log = setup_logging(smk.log[0])
    config = {"data_dir": smk.params.data_dir, "tasks": smk.params.tasks}
    items = {task: load_task(config, task)[1] for task in config["tasks"]}
    prompts = {task: list(spec["prompts"]) for task, spec in config["tasks"].items()}
    table = table2(items, prompts)
    write_csv(table, smk.output.csv)
    write_csv(variance_by_system(items, prompts), smk.output.by_system)
    shown = table.copy()
    shown["prompt"] = [config["tasks"][t]["prompts"][p]["label"] for t, p in zip(shown["task"], shown["prompt"])]
    shown["task"] = [config["tasks"][t]["label"] for t in shown["task"]]
    write_text(
        smk.output.md,
        "Table 2: annotator variance σ_a², human-metric variance σ_f² and γ = σ_a²/σ_f²\n\n"
        + to_markdown(shown, digits=3, headers=HEADERS_MD),
    )
    write_text(
        smk.output.tex,
        to_latex(
            shown, digits=2, headers=HEADERS_TEX, caption="Annotator variance, human-metric variance and their ratio."
        ),
    )
    log.info("Table 2:\n%s", table.to_string(index=False))


main(snakemake)  # noqa: F821
