"""Rule `preference_status`: a preference task's question, what its votes settle with anytime-valid
intervals and what not yet (status.csv, status.json), and the figure of the intervals narrowing as
the votes arrived, in the table's order."""

import json
from pathlib import Path

from debias.config.tasks import load_preferences, win_rate_ties
from debias.io.atomic import write_csv, write_text
from debias.pipeline.logs import run_script
from debias.plots import save_figure
from debias.plots.sequences import draw_status_path
from debias.stats.preferences.status import status_path
from debias.tables.status import status_joint, status_summary, status_table

#: Looks of the figure, spread evenly over the votes.
LOOKS = 20


def main(smk, log):
    name, settings = smk.wildcards.preference, smk.params.settings
    spec = settings["spec"]
    pairs = load_preferences({"preferences": {name: spec}}, name)
    path = status_path(pairs, spec["question"], level=settings["level"], looks=LOOKS, ties=win_rate_ties(spec["ties"]))
    state = path.status
    log.info("%s: %s: %s (%d votes, level %g)", name, spec["question"], state.answer, state.n_votes, state.level)
    if path.note:
        log.warning("%s: %s", name, path.note)
    write_csv(status_table(state, status_joint(pairs, state, ties=win_rate_ties(spec["ties"]))), smk.output.table)
    summary = status_summary(state)
    if path.resolved.any():
        summary["settled_at_votes"] = int(path.votes[path.resolved.argmax()])
    if path.note:  # the votes at which it settled describe the table's order, not a random one
        summary["arrival_order_note"] = path.note
    write_text(smk.output.summary, json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
    written = save_figure(draw_status_path(path, title=spec["label"]), Path(smk.output.pdf).with_suffix(""))
    log.info("wrote %s", ", ".join(map(str, [smk.output.table, smk.output.summary, *written])))


run_script(main, snakemake)  # noqa: F821
