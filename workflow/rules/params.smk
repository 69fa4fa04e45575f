# What each job gets as params, one function or value per kind: only the settings it reads,
# since Snakemake reruns a job whose params change. Editing one task's labels, another
# section's key or another task's systems leaves the results that do not show them alone.


def settings(section, *keys):
    """Only ``keys`` of a config section (one with its defaults: ESTIMATES, COMPARE, PLAN)."""
    return {key: section[key] for key in keys}


def get_language(wildcards):
    """The task's language, which chooses the metrics' tokenisation."""
    return config["tasks"][wildcards.task].get("language", "en")


def get_task_metrics(wildcards):
    """The metrics of a task (tasks.<task>.metrics, default all): its joined tables' columns."""
    return task_metrics(config, wildcards.task)


def get_task_provided(wildcards):
    """The task's metrics whose scores come with its system files."""
    return provided_metrics(config, wildcards.task)


def get_task_cluster(wildcards):
    """The key of the system files' lines holding their items' cluster (tasks.<task>.cluster),
    or None: the items are their own clusters."""
    return config["tasks"][wildcards.task].get("cluster")


def get_task_implementations(wildcards):
    """The task's computed metrics, each with the implementation that computes it."""
    return {
        name: IMPLEMENTATIONS[name] for name in computed_metrics(config, wildcards.task)
    }


def get_prompt_bounds(wildcards):
    """Prompts of a task with their ranges only: a label edit must not rerun per-system jobs."""
    prompts = config["tasks"][wildcards.task]["prompts"]
    return {
        name: {"min": spec["min"], "max": spec["max"], "null_as": spec.get("null_as")}
        for name, spec in prompts.items()
    }


def get_prompt_names(wildcards):
    """A task's prompts, in config order."""
    return list(config["tasks"][wildcards.task]["prompts"])


def task_prompts():
    """Every task's prompts, in config order: what the tables over every task read."""
    return {
        task: list(spec["prompts"])
        for task, spec in (config.get("tasks") or {}).items()
    }


def lower_is_better_prompts():
    """(task, prompt) of every prompt where a lower judgment is better: a leaderboard ranks
    them lowest first."""
    return [
        [task, prompt]
        for task, spec in (config.get("tasks") or {}).items()
        for prompt, p in spec["prompts"].items()
        if p.get("higher_is_better") is False
    ]


def get_labels(tasks=None, system=None):
    """What a table or figure shows of the config: the display labels of ``tasks`` (default:
    every task), of their prompts (with the prompt's direction) and systems (only ``system``,
    when given), and of every metric, all in config order."""
    shown = {}
    for task in tasks or TASKS:
        spec = config["tasks"][task]
        shown[task] = {
            "label": spec["label"],
            "prompts": {
                prompt: {"label": p["label"], "higher_is_better": p["higher_is_better"]}
                for prompt, p in spec["prompts"].items()
            },
            "systems": {
                name: {"label": s["label"]}
                for name, s in spec["systems"].items()
                if system in (None, name)
            },
        }
    metrics = {
        name: {"label": spec["label"]}
        for name, spec in (config.get("metrics") or {}).items()
    }
    return {"tasks": shown, "metrics": metrics}


def get_task_labels(wildcards):
    return get_labels([wildcards.task])


def get_table2_tasks():
    """Per task, its label, its prompts' labels and how Table 2 pools its judged lines."""
    return {
        task: {
            "label": spec["label"],
            "prompts": {p: {"label": v["label"]} for p, v in spec["prompts"].items()},
            "table2": spec.get("table2"),
            "reference_system": spec.get("reference_system"),
        }
        for task, spec in (config.get("tasks") or {}).items()
    }


def get_figure5_prompt(wildcards):
    return config["figures"]["figure5"][wildcards.task]


def get_figure6_config(wildcards):
    """Labels of the panel's own task and system, and the bootstrap's level and DE range."""
    panel = get_figure6_panel(wildcards)
    return {
        **get_labels([panel["task"]], panel["system"]),
        "bootstrap": settings(config["bootstrap"], "level", "de_range"),
    }


def get_one_task_config(task, keys):
    """Config ``keys`` with ``tasks`` reduced to ``task`` (Table 1 and Figure 1 load its data)."""
    shown = {key: config[key] for key in keys}
    shown["tasks"] = {task: config["tasks"][task]}
    return shown


def get_figure1_config(wildcards):
    """Figure 1's task, as loaded (data_dir, metrics), and its bootstrap of the systems' means."""
    shown = get_one_task_config(
        config["figures"]["figure1"]["task"], ("data_dir", "metrics")
    )
    shown["bootstrap"] = settings(config["bootstrap"], "level", "replicates", "seed")
    return shown


def get_table1_config():
    """What Table 1 loads: data_dir, metrics and its panels' tasks only (an added task
    elsewhere does not rerun it)."""
    shown = {key: config.get(key) for key in ("data_dir", "metrics")}
    panels = config.get("table1", {}).values()
    shown["tasks"] = {p["task"]: config["tasks"][p["task"]] for p in panels}
    return shown


def get_report_config():
    """The report shows every task, metric, figure and the bootstrap and estimates settings, and
    every preference task with its judges' labels."""
    keys = ("tasks", "metrics", "figures", "bootstrap", "preferences")
    shown = {key: config[key] for key in keys if key in config}
    shown["estimates"] = ESTIMATES
    return shown


def get_metric_part_lines(wildcards):
    """(start, stop) output numbers of one block of a system's lines."""
    return metric_blocks(wildcards.task, wildcards.system)[int(wildcards.part)]


def get_preference_settings(wildcards):
    """A preference task's settings with its level (default ``estimates.level``)."""
    spec = config["preferences"][wildcards.preference]
    return {
        "spec": spec,
        "level": spec.get("level", ESTIMATES["level"]),
    }
