"""Rule `table1`: judged system responses by human judgment (good/bad) and metric (high/low)."""

from debias.bias import bias_quadrants, score_systems, unique_responses
from debias.inputs import load_task, references_path
from debias.io import iter_json_lines, write_csv, write_text
from debias.logs import run_script
from debias.metrics import IMPLEMENTATIONS
from debias.tables import to_markdown

HEADERS = ["Human", "Metric", "Count", "%", "Example question", "Reference", "Output", "Systems", "Human", "Metric"]
SHOWN = [
    "judgment",
    "metric_side",
    "count",
    "percent",
    "example_input",
    "example_reference",
    "example_output",
    "example_systems",
    "example_judgment",
    "example_metric",
]


def main(smk, log):
    spec, config = smk.params.table1, smk.params.config
    task, prompt, implementation = spec["task"], spec["prompt"], spec["implementation"]
    task_spec = dict(config["tasks"][task])
    if spec.get("null_votes", "drop") == "drop":  # a null vote is no vote: left out of the mean
        task_spec["prompts"] = {p: {**s, "null_as": float("nan")} for p, s in task_spec["prompts"].items()}
    loading = {**config, "tasks": {**config["tasks"], task: task_spec}}
    references, systems = load_task(loading, task, list(task_spec["systems"]))
    scores = score_systems(systems, references, implementation)
    inputs = {row["id"]: row.get("input", "") for _, row in iter_json_lines(references_path(loading, task))}
    responses = unique_responses(systems, references, prompt, scores, inputs)
    table = bias_quadrants(
        responses,
        spec["judgment_threshold"],
        "m",
        spec.get("metric_threshold", 0.5),
        task_spec["prompts"][prompt].get("higher_is_better", True),
    )
    table.insert(0, "task", task)
    table.insert(1, "prompt", prompt)
    table.insert(2, "metric", implementation)
    write_csv(table, smk.output.csv)
    label = IMPLEMENTATIONS[implementation].label
    prompt_label = task_spec["prompts"][prompt]["label"]
    title = (
        f"Table 1: {len(responses)} judged {task_spec['label']} responses, good when {prompt_label} "
        f"≥ {spec['judgment_threshold']}, high when {label} > {spec.get('metric_threshold', 0.5)}\n\n"
    )
    write_text(smk.output.md, title + to_markdown(table[SHOWN], digits=2, headers=HEADERS))
    log.info("Table 1:\n%s", table[["judgment", "metric_side", "count", "percent"]].to_string(index=False))


run_script(main, snakemake)  # noqa: F821
