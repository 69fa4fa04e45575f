"""Rule `breakdown`: one preference task's estimates within each level of its `by` column, the
intervals simultaneous over the levels, and the figure of the win rates per level."""

from pathlib import Path

from debias.config.tasks import load_preferences, win_rate_ties
from debias.io.atomic import write_csv
from debias.pipeline.logs import run_script
from debias.plots import save_figure
from debias.plots.head_to_head import draw_breakdown
from debias.tables.preferences import BY, preference_breakdown


def main(smk, log):
    name, settings = smk.wildcards.preference, smk.params.settings
    spec = settings["spec"]
    pairs = load_preferences({"preferences": {name: spec}}, name)
    table = preference_breakdown(pairs, spec["by"], level=settings["level"], ties=win_rate_ties(spec["ties"]))
    log.info("%s: %d levels of %s", name, table[BY].nunique(), spec["by"])
    write_csv(table, smk.output.table)
    figure = draw_breakdown(table, title=spec["label"], ties=win_rate_ties(spec["ties"]))
    written = save_figure(figure, Path(smk.output.pdf).with_suffix(""))
    log.info("wrote %s", ", ".join(map(str, [smk.output.table, *written])))


run_script(main, snakemake)  # noqa: F821
