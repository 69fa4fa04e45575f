"""``debias preferences``: win rates and Bradley-Terry strengths from a table of pairwise verdicts."""

from __future__ import annotations

import sys
from pathlib import Path

from debias.cli.shared import add_input_format, add_output_options
from debias.distribution.extras import MissingExtraError
from debias.io.canonical import InputError
from debias.io.rules import system_named
from debias.io.scores import number_in
from debias.stats.common.vocabulary import MIN_LEVEL, TIE_MODELS, TIES


def add_pair_columns(sub, *, required: bool = True) -> None:
    """The arguments naming a pair table and its columns (``debias preferences``, ``import-pairs``;
    ``debias status`` and ``next``, which read ratings too, with ``required=False``)."""
    sub.add_argument("table", help="the table (CSV, TSV, Parquet or JSONL, plain or gzipped)")
    sub.add_argument("--item", required=True, metavar="COL", help="column naming the item (the battle's input)")
    sub.add_argument("--system-a", required=required, metavar="COL", help="column naming system A")
    sub.add_argument("--system-b", required=required, metavar="COL", help="column naming system B")
    sub.add_argument("--verdict", required=required, metavar="COL", help="column with the human verdict")
    sub.add_argument("--rater", metavar="COL", help="column naming the rater (several raters of a battle)")
    sub.add_argument(
        "--cluster",
        metavar="COL",
        help="column naming each battle's cluster (the question, document or conversation several battles share; "
        "for ratings, each item's): the same on every row of a battle (or item), in --pool too; default: the item",
    )
    sub.add_argument(
        "--order",
        metavar="COL",
        help="column saying when each vote arrived (numbers, or ISO 8601 date-times such as 2025-03-04T10:15:00Z): "
        "the table is read sorted by it, rows of equal order as they are; empty only on a row without a verdict; "
        "default: the table's order is the order the votes arrived (pairwise verdicts only)",
    )
    sub.add_argument(
        "--judge", action="append", default=[], metavar="COL", help="a judge's verdict column (repeatable)"
    )
    sub.add_argument("--pool", metavar="TABLE", help="a table of battles without human verdicts (judges only)")
    sub.add_argument(
        "--mapping",
        metavar="SPELLINGS",
        help="more verdict spellings or codes, for people and judges: value=target separated by commas, a "
        "target a/b/tie (or model_a/model_b) or none for no verdict, e.g. 1=a,2=b,3=tie",
    )
    sub.add_argument(
        "--judge-mapping",
        action="append",
        default=[],
        metavar="COL:SPELLINGS",
        help="one --judge column's own codes, e.g. gpt4:1=a,2=b,0=tie (repeatable)",
    )


def add_ties_option(sub, models: bool = False) -> None:
    """``--ties``: how a tie counts in a win rate, one of :data:`debias.stats.common.vocabulary.TIES`
    (the first by default); with ``models`` also a tie model of the strengths
    (:data:`~debias.stats.common.vocabulary.TIE_MODELS`)."""
    rules = {**TIES, **(TIE_MODELS if models else {})}
    sub.add_argument("--ties", choices=tuple(rules), default=next(iter(rules)), help=", or ".join(rules.values()))


def pair_mappings(args) -> tuple[dict | None, dict[str, dict]]:
    """The ``--mapping`` option as a mapping, and the ``--judge-mapping`` options as
    ``{judge column: mapping}`` (:func:`debias.data.pairs.parse_mapping`)."""
    from debias.data.pairs import parse_mapping

    try:
        mapping = parse_mapping(args.mapping) if args.mapping else None
    except ValueError as error:
        raise InputError("--mapping", str(error)) from None
    own = named_values(
        "--judge-mapping",
        args.judge_mapping,
        ":",
        parse_mapping,
        usage="COLUMN:value=target,... for a --judge column",
        twice="judge {name!r} is mapped twice; give its mapping once, values joined by commas",
        among=("--judge", args.judge),
    )
    return mapping, own


def named_values(option: str, texts, separator: str, read, *, usage: str, twice: str, among=None) -> dict:
    """The ``NAME<separator>VALUES`` texts of a repeatable ``option`` as ``{name: read(VALUES)}``
    (``read`` raises ValueError on values it refuses). With ``among``, ``(the option, its
    columns)`` the name must be one of, the name is the column the text begins with, so a name
    may hold the separator. Refused naming the text: no name, a name not among those columns,
    values ``read`` refuses, and a name given twice (``twice``, formatted with ``name``);
    ``usage`` is the expected form."""
    out: dict = {}
    for text in texts:
        if among is None:
            name, found, values = text.partition(separator)
            name = name.strip() if found else ""
        else:
            columns_option, columns = among
            name = next((c for c in columns if text.startswith(f"{c}{separator}")), "")
            values = text[len(name) + 1 :]
            given = text.partition(separator)[0].strip() if separator in text else ""
            if not name and given:
                listed = ", ".join(columns) if columns else "none given"
                raise InputError(
                    option,
                    f"{text!r}: {given!r} is not a {columns_option} column ({columns_option}: {listed}); expected"
                    f" {usage}",
                )
        if not name:
            raise InputError(option, f"{text!r}: expected {usage}")
        if name in out:  # which of two would win is a guess
            raise InputError(option, f"{text!r}: " + twice.format(name=name))
        try:
            out[name] = read(values)
        except ValueError as error:
            raise InputError(option, f"{text!r}: {error}") from None
    return out


def read_pair_inputs(args, fmt: str | None):
    """The table and the ``--pool`` table of a pair command, only the columns it names read."""
    from debias.io.pairs import read_pair_file

    by = [getattr(args, "by", None)] if getattr(args, "by", None) else []
    keys = [args.item, args.system_a, args.system_b, *([args.cluster] if args.cluster else []), *by]
    own = [c for c in (args.rater, getattr(args, "order", None)) if c]
    sides = [column for columns in covariate_columns(args).values() for column in columns]
    named = [*keys, args.verdict, *own, *args.judge, *sides]
    option = "--input-format"
    frame = read_pair_file(args.table, list(dict.fromkeys(named)), fmt, format_option=option)
    pool_columns = list(dict.fromkeys([*keys, *args.judge, *sides]))
    pool = read_pair_file(args.pool, pool_columns, fmt, format_option=option) if args.pool else None
    return frame, pool


def covariate_columns(args) -> dict[str, tuple[str, str]]:
    """The ``--covariate NAME=COL_A,COL_B`` options as ``{name: (column_a, column_b)}``."""
    usage = "NAME=COLUMN_A,COLUMN_B (e.g. length=len_a,len_b)"

    def sides(text: str) -> tuple[str, str]:
        columns = [c.strip() for c in text.split(",")]
        if len(columns) != 2 or not all(columns):
            raise ValueError(f"expected {usage}")
        return columns[0], columns[1]

    texts = getattr(args, "covariate", None) or []
    return named_values("--covariate", texts, "=", sides, usage=usage, twice="covariate {name!r} is given twice")


def read_pairs(args):
    """The battles of a pair command (``debias preferences``, ``leaderboard``, ``status``,
    ``next``) as :class:`~debias.data.JudgedPairs`, by the reading rules of
    :func:`debias.io.pairs.read_pair_table`."""
    from debias.io.pairs import read_pair_table

    mapping, judge_mappings = pair_mappings(args)
    frame, pool = read_pair_inputs(args, getattr(args, "input_format", None))
    return read_pair_table(
        frame,
        item=args.item,
        system_a=args.system_a,
        system_b=args.system_b,
        verdict=args.verdict,
        rater=args.rater,
        judges=args.judge,
        pool=pool,
        mapping=mapping,
        judge_mappings=judge_mappings,
        source=args.table,
        pool_source=args.pool or "pool",
        task=getattr(args, "task", None) or "evaluation",
        cluster=args.cluster,
        order=getattr(args, "order", None),
        covariates=covariate_columns(args) or None,
        by=getattr(args, "by", None),
    )


def add_command(commands) -> None:
    """The ``debias preferences`` subcommand's arguments."""
    sub = commands.add_parser(
        "preferences",
        help="win rates and Bradley-Terry strengths from pairwise verdicts of people and LLM judges",
        description="Print one row per system, estimand (win_rate, strength) and estimator (human, judge:<j>, "
        "ppi++:<j>, ppi++:combined) from a table with one row per human verdict of a battle (item, system A, "
        "system B) and one column per judge; a row with an empty verdict is a battle only the judges saw. "
        "Verdicts: a/b/tie or model_a/model_b/tie/tie (bothbad), any case. With --agreement, print how each "
        "judge agrees with people instead; with --leaderboard, the systems' rank-sets.",
    )
    add_pair_columns(sub)
    sub.add_argument(
        "--level",
        type=number_in(MIN_LEVEL, 1, low_open=False),
        help=f"interval level in [{MIN_LEVEL:g}, 1) (default: the configuration's estimates.level)",
    )
    add_ties_option(sub, models=True)
    sub.add_argument(
        "--covariate",
        action="append",
        default=[],
        metavar="NAME=COL_A,COL_B",
        help="style control: a number per response, A's column and B's (e.g. length=len_a,len_b; repeatable); the "
        "strengths are adjusted for the differences A - B, each divided by its root mean square, and each "
        "covariate's coefficient is a row of estimand coefficient:NAME; style=RESPONSE_A,RESPONSE_B counts the "
        "length, markdown headers, list items and bold spans of two columns of response texts",
    )
    sub.add_argument(
        "--baseline",
        metavar="SYSTEM",
        help="add each system's win rate against SYSTEM (estimand baseline_win_rate) and, with a covariate named "
        "length, AlpacaEval 2.0's length-controlled one (lc_baseline_win_rate)",
    )
    what = sub.add_mutually_exclusive_group()
    what.add_argument("--agreement", action="store_true", help="print the judge-human agreement table")
    what.add_argument(
        "--leaderboard",
        action="store_true",
        help="print the leaderboard instead: every system's estimate, interval and simultaneous rank-set per "
        "estimand and estimator, the columns of debias.leaderboard (also: debias leaderboard TABLE --system-a ...)",
    )
    what.add_argument(
        "--matrix",
        action="store_true",
        help="print the head-to-head matrix instead: one row per estimator and ordered pair (system, opponent) "
        "with the system's win rate against the opponent and its interval, simultaneous over the pairs shown",
    )
    sub.add_argument(
        "--max-systems",
        type=number_in(2, low_open=False, integer=True),
        metavar="N",
        help="with --matrix: show at most N systems, the strongest (default: 30)",
    )
    sub.add_argument(
        "--by",
        metavar="COL",
        help="also estimate within each level of column COL (a category, turn, language): a column 'by' with "
        "the level beside the rows of every battle, intervals simultaneous over the levels",
    )
    sub.add_argument(
        "--top-k",
        type=number_in(1, low_open=False, integer=True),
        metavar="K",
        help="with --leaderboard: how many more battles would settle the top K systems (column factor_for_top_k)",
    )
    sub.add_argument(
        "--scale",
        choices=("log-odds", "elo"),
        default="log-odds",
        help="the Bradley-Terry strengths' scale: natural-log odds centred to mean 0, or Elo points, "
        "400/ln(10) per log-odds unit (400 points: odds of 10 to 1), the mean system at 1000 (as FastChat's "
        "Arena ratings) or --anchor at 1000; intervals and se scaled alike (default: %(default)s)",
    )
    sub.add_argument(
        "--anchor",
        metavar="SYSTEM",
        help="with --scale elo: the system rated 1000 (default: the mean of the systems); the intervals stay "
        "those of each strength relative to the mean, shifted",
    )
    sub.add_argument(
        "--figure",
        metavar="PATH",
        help="also draw the win rates with their intervals per estimator to PATH.pdf and PATH.png (with "
        "--matrix the head-to-head heatmap of people's verdicts, with --by the estimates per level)",
    )
    sub.add_argument(
        "--task",
        metavar="NAME",
        help="the name the rank-sets' random draws are named after: a preference task's name gives the "
        "workflow's leaderboard of the same battles (default: evaluation)",
    )
    add_input_format(sub, "--table-format")
    add_output_options(sub)


def pair_leaderboard(
    pairs, *, level: float, ties: str = "half", top_k: int | None = None, covariates=(), baseline=None
):
    """The leaderboard of :func:`debias.leaderboard` for pairwise verdicts: every estimand and
    estimator ranked from the joint covariance of its estimates
    (:func:`debias.tables.leaderboard.preferences_leaderboard`); the covariates' coefficients and
    the tie parameter are no systems' estimates and are not ranked."""
    from debias.stats.preferences import preference_estimates
    from debias.tables.leaderboard import PREFERENCE_SEED, preferences_leaderboard

    estimates = preference_estimates(pairs, level=level, ties=ties, covariates=tuple(covariates), baseline=baseline)
    estimates = [e for e in estimates if e.systems == pairs.systems]
    return preferences_leaderboard(estimates, level=level, seed=PREFERENCE_SEED, names=(pairs.task,), top_k=top_k)


def run_command(args, emit) -> int:
    """Run ``debias preferences``; exit status 2 with a one-line message on bad input."""
    from debias.config.settings import section_defaults
    from debias.tables.preferences import agreement_table, preference_table

    level = args.level if args.level is not None else section_defaults("estimates")["level"]
    args.level_used = level
    try:
        if args.figure:  # a folder that cannot hold the figure is refused before any work
            from debias.io.importer import _writable_folder

            _writable_folder(Path(args.figure).parent)
        if args.pool and not args.judge:
            raise InputError(
                "--pool", "its battles serve the judges' verdicts: name a --judge (without one they change no estimate)"
            )
        if (args.covariate or args.baseline is not None) and (args.matrix or args.by):
            given = "--covariate" if args.covariate else "--baseline"
            raise InputError(
                given, "goes with the table of estimates or --leaderboard (the head-to-head matrix and --by take none)"
            )
        pairs = read_pairs(args)
        from debias.io.style import covariate_names

        covariates = covariate_names(covariate_columns(args))
        if args.baseline is not None:
            args.baseline = system_named(args.baseline, pairs.systems, "--baseline")
        if (covariates or args.baseline) and args.agreement:
            raise InputError("--agreement", "the agreement table takes no --covariate or --baseline")
        if args.anchor is not None and args.scale != "elo":
            raise InputError("--anchor", "goes with --scale elo")
        if args.scale == "elo" and args.agreement:
            raise InputError("--scale", "the agreement table has no strengths: give --scale elo without --agreement")
        if args.top_k is not None and not args.leaderboard:
            raise InputError("--top-k", "goes with --leaderboard")
        if args.max_systems is not None and not args.matrix:
            raise InputError("--max-systems", "goes with --matrix")
        if args.by and (args.leaderboard or args.agreement or args.matrix):
            raise InputError("--by", "goes with the table of estimates (not --leaderboard, --agreement or --matrix)")
        if args.scale == "elo" and args.matrix:
            raise InputError("--scale", "the matrix holds win rates: give --scale elo without --matrix")
        if args.leaderboard:
            if args.figure:
                raise InputError("--figure", "draws the win rates: give it without --leaderboard")
            table = pair_leaderboard(
                pairs, level=level, ties=args.ties, top_k=args.top_k, covariates=covariates, baseline=args.baseline
            )
        elif args.agreement:
            if not args.judge:
                raise InputError("--agreement", "name at least one --judge column")
            if args.figure:
                raise InputError("--figure", "draws the win rates or the matrix: give it without --agreement")
            table = agreement_table(pairs, level=level, non_tie=True)
        elif args.matrix:
            from debias.tables.preferences import head_to_head_table

            table = head_to_head_table(pairs, level=level, ties=args.ties, max_systems=args.max_systems)
            omitted = table.attrs.get("omitted") or []
            if omitted:
                print(
                    f"debias preferences: the {len(set(table['system']))} strongest of "
                    f"{len(set(table['system'])) + len(omitted)} systems shown (--max-systems to show more)",
                    file=sys.stderr,
                )
            if args.figure:
                from debias.plots import save_figure
                from debias.plots.head_to_head import draw_head_to_head

                figure = draw_head_to_head(table, title=Path(args.table).name, ties=args.ties)
                _save(figure, args.figure, save_figure)
        elif args.by:
            from debias.tables.preferences import preference_breakdown

            table = preference_breakdown(pairs, args.by, level=level, ties=args.ties)
            if args.figure:
                from debias.plots import save_figure
                from debias.plots.head_to_head import draw_breakdown

                _save(draw_breakdown(table, title=Path(args.table).name, ties=args.ties), args.figure, save_figure)
        else:
            table = preference_table(pairs, level=level, ties=args.ties, covariates=covariates, baseline=args.baseline)
            if args.figure:
                from debias.plots import draw_preferences, save_figure

                try:
                    save_figure(draw_preferences(table, title=Path(args.table).name, ties=args.ties), args.figure)
                except OSError as error:
                    raise InputError(args.figure, f"cannot write the figure ({error.strerror or error})") from None
        if args.scale == "elo":
            from debias.tables.preferences import strengths_as_elo

            table = strengths_as_elo(table, args.anchor)
    except (InputError, ValueError, MissingExtraError) as error:
        print(f"debias {getattr(args, 'invoked', 'preferences')}: error: {error}", file=sys.stderr)
        return 2
    emit(table, args.format, sys.stdout)
    return 0


def _save(figure, path, save_figure) -> None:
    try:
        save_figure(figure, path)
    except OSError as error:
        raise InputError(path, f"cannot write the figure ({error.strerror or error})") from None
