"""Rule `table2`: variance components of the human judgments, pooled per task and per system."""

from debias.io.atomic import write_csv, write_text
from debias.pipeline.logs import run_script
from debias.tables.joined import read_joined
from debias.tables.render import to_latex, to_markdown
from debias.tables.variance import TABLE2_COLUMNS, RecordHandling, by_task, noted_rows, table2, variance_by_system

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


def main(smk, log):
    tasks = smk.params.tasks
    joined = by_task([read_joined(path) for path in smk.input.joined])
    prompts = {task: list(spec["prompts"]) for task, spec in tasks.items()}
    handling = {task: RecordHandling.from_config(spec) for task, spec in tasks.items()}
    # The reasons for missing components go to the Markdown table and the log; the CSVs keep
    # their columns (a row without components counts as many judgments as items).
    noted = table2(joined, prompts, handling, with_note=True)
    table = noted[TABLE2_COLUMNS]
    write_csv(table, smk.output.csv)
    by_system = variance_by_system(joined, prompts, with_note=True)
    write_csv(by_system.drop(columns="note"), smk.output.by_system)
    shown = table.copy()
    shown["prompt"] = [tasks[t]["prompts"][p]["label"] for t, p in zip(shown["task"], shown["prompt"])]
    shown["task"] = [tasks[t]["label"] for t in shown["task"]]
    title = "Table 2: annotator variance σ_a², human-metric variance σ_f² and γ = σ_a²/σ_f²\n\n"
    notes = [
        f"– {tasks[row.task]['label']}, {tasks[row.task]['prompts'][row.prompt]['label']}: {row.note}.\n"
        for row in noted.itertuples()
        if row.note
    ]
    footer = "\n" + "".join(notes) if notes else ""
    write_text(smk.output.md, title + to_markdown(shown, digits=3, headers=HEADERS_MD) + footer)
    caption = "Annotator variance, human-metric variance and their ratio."
    write_text(smk.output.tex, to_latex(shown, digits=2, headers=HEADERS_TEX, caption=caption))
    log.info("Table 2:\n%s", table.to_string(index=False))
    for line in noted_rows(noted, ["task", "prompt"]) + noted_rows(by_system, ["task", "system", "prompt"]):
        log.warning("variance components not computed for %s", line)


run_script(main, snakemake)  # noqa: F821
