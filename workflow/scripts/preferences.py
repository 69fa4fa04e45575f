"""Rule `preferences`: one preference task's win rates and Bradley-Terry strengths by every
estimator, how each judge agrees with people, a summary of the battles, the leaderboard (each
system's simultaneous rank-set per estimand and estimator), the figure of the win rates with their
intervals per estimator and the leaderboard figure."""

import json
from pathlib import Path

import pandas as pd

from debias.config.tasks import load_preferences
from debias.io.atomic import write_csv, write_text
from debias.io.canonical import InputError
from debias.io.style import covariate_names
from debias.pipeline.logs import run_script
from debias.plots import draw_preference_leaderboard, draw_preferences, save_figure
from debias.tables.leaderboard import PREFERENCE_SEED, preferences_leaderboard
from debias.tables.preferences import AGREEMENT_COLUMNS, agreement_table, preference_analysis, preference_summary


def main(smk, log):
    name, settings = smk.wildcards.preference, smk.params.settings
    spec = settings["spec"]
    pairs = load_preferences({"preferences": {name: spec}}, name)
    log.info(
        "%s: %d battles, %d with a human verdict, %d systems",
        name,
        pairs.n_battles,
        pairs.labelled.sum(),
        pairs.n_systems,
    )
    # style control (covariates:), a baseline and Davidson's ties add rows; a task without them has none
    extras = {}
    if spec.get("covariates"):
        extras["covariates"] = covariate_names(spec["covariates"])
    if spec.get("baseline") is not None:
        extras["baseline"] = spec["baseline"]
    try:
        analysis = preference_analysis(pairs, level=settings["level"], ties=spec["ties"], **extras)
    except ValueError as error:
        if "covariate" not in str(error):
            raise
        # e.g. a covariate the battles leave collinear with the systems: named by its config key
        raise InputError(f"config: preferences.{name}.covariates", str(error)) from None
    table = analysis.table
    if pairs.judges:
        agreement = agreement_table(pairs, level=settings["level"])
    else:
        agreement = pd.DataFrame(columns=AGREEMENT_COLUMNS)
    results = analysis.results
    if extras or spec["ties"] == "davidson":
        # the coefficients and the tie parameter are no system's estimates: not ranked; the
        # strengths ranked are the adjusted ones
        results = [r for r in results if tuple(r.systems) == tuple(pairs.systems)]
    board = preferences_leaderboard(results, level=settings["level"], seed=PREFERENCE_SEED, names=(pairs.task,))
    write_csv(table, smk.output.table)
    write_csv(board, smk.output.leaderboard)
    write_csv(agreement, smk.output.agreement)
    write_text(smk.output.summary, json.dumps(preference_summary(pairs, analysis), indent=1, ensure_ascii=False) + "\n")
    figure = draw_preferences(table, title=spec["label"], ties=spec["ties"])
    written = save_figure(figure, Path(smk.output.pdf).with_suffix(""))
    figure = draw_preference_leaderboard(board, title=spec["label"], ties=spec["ties"])
    written += save_figure(figure, Path(smk.output.leaderboard_pdf).with_suffix(""))
    tables = [smk.output.table, smk.output.agreement, smk.output.leaderboard, smk.output.summary]
    log.info("wrote %s", ", ".join(map(str, [*tables, *written])))


run_script(main, snakemake)  # noqa: F821
