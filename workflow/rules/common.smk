# Configuration checks, input validation and path helpers shared by every rule.
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version, validate

from debias.inputs import judged_systems, references_path, system_path, validate_inputs
from debias.io import InputError

min_version("8.0")

validate(config, schema="../schemas/config.schema.yaml")

# Every input is read and checked now, before any job runs: a bad line stops the whole
# workflow with its file and line number, and nothing in results/ is touched.
try:
    validate_inputs(config)
except InputError as error:
    raise WorkflowError(f"invalid input: {error}") from None


def check_wordnet():
    """METEOR is never computed without WordNet: stop now rather than in the first metrics job."""
    if (
        "meteor" not in config["metrics"]
        or (Path(config["nltk_data"]) / "corpora/wordnet").is_dir()
    ):
        return
    from debias.wordnet import PROVISION_HINT, WordNetUnavailableError, use_wordnet

    try:
        use_wordnet(
            config["nltk_data"]
        )  # slow path only: WordNet elsewhere on NLTK's search path
    except WordNetUnavailableError:
        raise WorkflowError(
            f"WordNet 3.0, which METEOR needs, is not in {config['nltk_data']}/corpora/wordnet "
            f"(config key nltk_data) nor anywhere else NLTK looks. {PROVISION_HINT}"
        ) from None


check_wordnet()

R = config["results_dir"]
TASKS = list(config["tasks"])
METRICS = list(config["metrics"])


wildcard_constraints:
    task="[^/]+",
    system="[^/]+",


def scored_systems(task):
    """Configured systems of a task (judged references are not scored by metrics)."""
    return list(config["tasks"][task]["systems"])


def prompt_bounds(task):
    """Prompts of a task with only their ranges: a label edit must not rerun per-system jobs."""
    return {
        name: {"min": spec["min"], "max": spec["max"]}
        for name, spec in config["tasks"][task]["prompts"].items()
    }


def per_system(pattern):
    """Expand a results pattern with {task} and {system} over every scored system."""
    return [pattern.format(task=t, system=s) for t in TASKS for s in scored_systems(t)]


def all_judged_system_files():
    return [
        str(system_path(config, t, s)) for t in TASKS for s in judged_systems(config, t)
    ]


def all_reference_files():
    return [str(references_path(config, t)) for t in TASKS]


OVERVIEW_FIGURES = ["figure3"] + [
    f"figure5_{task}" for task in config["figures"].get("figure5", {})
]
CURVE_FIGURES = list(config["figures"].get("figure6", {}))


def figure_files():
    names = OVERVIEW_FIGURES + CURVE_FIGURES
    return [f"{R}/figures/{name}.{ext}" for name in names for ext in ("pdf", "png")]


def all_outputs():
    return (
        per_system(f"{R}/metrics/{{task}}/{{system}}.csv")
        + [f"{R}/tables/table2.{ext}" for ext in ("csv", "md", "tex")]
        + [f"{R}/tables/variance_by_system.csv"]
        + [f"{R}/tables/data_efficiency.csv", f"{R}/tables/data_efficiency.md"]
        + [f"{R}/tables/correlations.csv"]
        + figure_files()
        + [f"{R}/report.md"]
    )
