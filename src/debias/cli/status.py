"""``debias status`` and ``debias next``: what the judgments so far settle about a question, with
anytime-valid intervals, and what to put in front of people next. Both read either shape of data:
a table of pairwise verdicts (``--system-a``, ``--system-b``, ``--verdict``) or a table of ratings
(``--system``, ``--judgment``), as :func:`debias.status` and :func:`debias.next_battles` do."""

from __future__ import annotations

import sys

from debias.cli.preferences import add_pair_columns, add_ties_option, read_pairs
from debias.cli.shared import add_input_format, add_output_options, refuse_input_as_output, table_columns
from debias.io.canonical import InputError
from debias.io.scores import number_in
from debias.stats.common.vocabulary import MIN_LEVEL

#: The options that make a table pairwise verdicts, and those that make it ratings.
PAIR_OPTIONS = ("system_a", "system_b", "verdict")
RATINGS_OPTIONS = ("system", "judgment")


def _common(sub) -> None:
    add_pair_columns(sub, required=False)
    ratings = sub.add_argument_group("a table of ratings (instead of --system-a, --system-b and --verdict)")
    ratings.add_argument("--system", metavar="COL", help="column naming the system")
    ratings.add_argument("--judgment", metavar="COL", help="column with the rating (a number; empty: not judged)")
    ratings.add_argument("--prompt", metavar="COL", help="column naming the prompt (a rubric's criterion)")
    ratings.add_argument(
        "--score", action="append", default=[], metavar="COL", help="per-output metric score (repeatable)"
    )
    ratings.add_argument(
        "--for-prompt", metavar="P", help="the prompt the question is about (needed when the table has several)"
    )
    ratings.add_argument("--lower-is-better", action="store_true", help="a lower rating is better")
    ratings.add_argument(
        "--scale", nargs=2, type=float, metavar=("MIN", "MAX"), help="the rating scale (default: inferred)"
    )
    sub.add_argument(
        "--question",
        required=True,
        metavar="Q",
        help="better:A,B (is A better than B), top:K (which are the top K), ranks (every rank) or within:W "
        "(every system's score within +/- W)",
    )
    sub.add_argument(
        "--level",
        type=number_in(MIN_LEVEL, 1, low_open=False),
        help=f"probability that all the intervals used hold at every look at once, in [{MIN_LEVEL:g}, 1) (default: the "
        "configuration's estimates.level)",
    )
    add_ties_option(sub)
    sub.add_argument(
        "--estimand",
        choices=("win_rate", "strength", "mean"),
        help="win_rate (default) or strength for pairwise verdicts; mean for ratings",
    )
    sub.add_argument(
        "--estimator",
        help="pairwise verdicts: human, ppi++:<judge> or ppi++:combined (default: PPI++ with the --judge columns, "
        "human without); ratings: mean, cv:<metric>, cv:combined or ppi++:<metric> (default: the control variate "
        "of the --score columns, mean without)",
    )
    sub.add_argument(
        "--optimal-at",
        type=number_in(1, low_open=False),
        default=1000,
        metavar="T",
        help="judgments at which the intervals are tightest; fix it before the first look (default: %(default)s)",
    )
    add_input_format(sub, "--table-format")


def add_command(commands) -> None:
    """The ``debias status`` and ``debias next`` subcommands."""
    sub = commands.add_parser(
        "status",
        help="what the judgments so far settle about a question (anytime-valid intervals)",
        description="Print what a table of pairwise verdicts (--system-a, --system-b, --verdict) or of ratings "
        "(--system, --judgment) settles about a question, with intervals that stay valid however often you look "
        "and whenever you stop (confidence sequences), and what is not settled yet with the further judgments it "
        "needs: one row per system and per open pair. The first line (to stderr) is the answer; 'unresolved so "
        "far' means the judgments do not settle it yet.",
    )
    _common(sub)
    add_output_options(sub)  # --format csv|markdown|json, --output FILE
    sub.set_defaults(run=run_status)
    nxt = commands.add_parser(
        "next",
        help="what to put in front of people next, from the systems and pairs a question leaves open",
        description="Write BUDGET battles without a human verdict (rows of TABLE with an empty verdict, or of "
        "--pool) from the pairs of systems the question leaves open, or, for a table of ratings, BUDGET outputs "
        "nobody judged on the prompt (rows with an empty judgment) of the systems it leaves open, drawn at random "
        "from --seed: the same data and seed give the same rows. Columns: the item, system A and system B "
        "columns (ratings: the item and system columns).",
    )
    _common(nxt)
    nxt.add_argument(
        "--budget",
        required=True,
        type=int,
        metavar="B",
        help="how many to send at most (a whole number >= 1); with --cluster whole clusters are sent in a random "
        "order while what is left of the budget holds the largest open cluster, and a budget smaller than that "
        "cluster is refused naming its size",
    )
    nxt.add_argument("--seed", type=int, default=0, help="seed of the random draw (default: %(default)s)")
    nxt.add_argument("--output", required=True, metavar="CSV", help="where to write them (CSV)")
    nxt.set_defaults(run=run_next)


def _shape(args) -> str:
    """``"pairs"`` or ``"ratings"``, by the column options given; an :class:`InputError` when
    both or neither shape is named completely."""
    pairs = [name for name in PAIR_OPTIONS if getattr(args, name)]
    ratings = [name for name in RATINGS_OPTIONS if getattr(args, name)]
    option = lambda name: "--" + name.replace("_", "-")  # noqa: E731
    if pairs and ratings:
        raise InputError(option(ratings[0]), f"a table is pairwise verdicts ({option(pairs[0])}) or ratings, not both")
    if ratings:
        if len(ratings) < len(RATINGS_OPTIONS):
            missing = next(name for name in RATINGS_OPTIONS if name not in ratings)
            raise InputError(option(missing), "a table of ratings needs --system and --judgment")
        for name in ("pool", "mapping", "judge_mapping", "judge", "order"):
            if getattr(args, name):
                raise InputError(option(name), "is an option of pairwise verdicts, not of ratings")
        return "ratings"
    if len(pairs) < len(PAIR_OPTIONS):
        missing = next(name for name in PAIR_OPTIONS if name not in pairs)
        raise InputError(
            option(missing),
            "name the columns: --system-a, --system-b and --verdict (pairwise verdicts) or --system and --judgment "
            "(ratings)",
        )
    for name in ("prompt", "score", "for_prompt", "lower_is_better", "scale"):
        if getattr(args, name):
            raise InputError(option(name), "is an option of ratings, not of pairwise verdicts")
    return "pairs"


def _read(args):
    """The table of the command, read by its shape's read step."""
    if _shape(args) == "pairs":
        return read_pairs(args)
    from debias.io.reader import read_evaluation_table

    columns = table_columns(args)
    scale = tuple(args.scale) if args.scale else None
    table = read_evaluation_table(
        args.table, columns, fmt=args.input_format, scale=scale, format_option="--input-format"
    )
    return table.with_settings(higher_is_better=not args.lower_is_better, task="evaluation")


def _settings(args) -> dict:
    """The status settings of the command line, checked against the table's shape."""
    shape = _shape(args)
    if args.ties == "davidson":
        raise InputError(
            "--ties", "davidson models the strengths of an analysis; a question's status takes half or drop"
        )
    if args.ties != "half" and shape == "ratings":
        raise InputError("--ties", "is a rule of pairwise verdicts, not of ratings")
    if shape == "ratings" and args.estimand not in (None, "mean"):
        raise InputError("--estimand", f"ratings have one estimand, mean, not {args.estimand}")
    if shape == "pairs" and args.estimand == "mean":
        raise InputError("--estimand", "pairwise verdicts have win_rate and strength, not mean")
    return {
        "level": args.level,
        "estimand": args.estimand,
        "estimator": args.estimator,
        "for_prompt": args.for_prompt,
        "ties": args.ties,
        "optimal_at": args.optimal_at,
    }


def _option(error: InputError, args) -> InputError:
    """The API's error as the command line names it: an option (``--question top:9``), or the
    table for what its data cannot answer."""
    if error.file == "settings":
        return InputError(args.table, error.message)
    if error.file.startswith("--"):  # already named as the command line names it
        return error
    return InputError(f"--{error.file.replace('_', '-')}", error.message)


def _state(args, read):
    import debias.api

    try:
        return debias.api.status(read, args.question, **_settings(args))
    except InputError as error:
        raise _option(error, args) from None


def run_status(args, emit) -> int:
    """Run ``debias status``; exit status 2 with a one-line message on bad input."""
    from debias.tables.status import more_votes_words, status_joint, status_table

    try:
        read = _read(args)
        state = _state(args, read)
        joint = status_joint(read, state, ties=args.ties, prompt=args.for_prompt)
    except (InputError, ValueError) as error:
        print(f"debias status: error: {error}", file=sys.stderr)
        return 2
    args.level_used = state.level
    ratings = _shape(args) == "ratings"
    more = "" if state.resolved else f"; {more_votes_words(state, 'judged items' if ratings else 'votes')}"
    if ratings:
        votes = f"{state.n_votes} judged items"
    else:  # a vote is a battle with a human verdict; several raters of one give several verdicts
        verdicts = int(read.human.size)
        extra = "" if verdicts == state.n_votes else f", {verdicts} human verdicts"
        kind = "a decisive human verdict" if args.ties == "drop" else "a human verdict"
        votes = f"{state.n_votes} votes (battles with {kind}{extra})"
    print(
        f"{state.question.text}: {state.answer} ({state.estimand}, {state.estimator}, {votes}, "
        f"level {state.level:.12g} at every look{more})",
        file=sys.stderr,
    )
    emit(status_table(state, joint), args.format, sys.stdout)
    return 0


def run_next(args, emit) -> int:
    """Run ``debias next``: write the battles (or outputs) atomically; exit status 2 on bad input."""
    from debias.io.atomic import write_csv

    try:
        if args.budget < 1:
            raise InputError("--budget", f"expected a whole number >= 1, found {args.budget}")
        if args.seed < 0:
            raise InputError("--seed", f"expected a whole number >= 0, found {args.seed}")
        refuse_input_as_output(args.output, args)
        read = _read(args)
        import debias.api

        try:
            chosen = debias.api.next_battles(read, args.question, args.budget, seed=args.seed, **_settings(args))
        except InputError as error:
            raise _option(error, args) from None
        pairs = _shape(args) == "pairs"
        named = [args.item, args.system_a, args.system_b] if pairs else [args.item, args.system]
        table = chosen.battles.set_axis(named, axis=1)
        what = "battles" if pairs else "outputs"
        try:
            write_csv(table, args.output)
        except OSError as error:
            raise InputError(args.output, f"cannot write the {what} ({error.strerror or error})") from None
    except (InputError, ValueError) as error:
        print(f"debias next: error: {error}", file=sys.stderr)
        return 2
    print(
        f"{args.question.strip()}: {chosen.answer}; wrote {len(table)} {what} to {args.output}"
        + (f" ({chosen.note})" if chosen.note else ""),
        file=sys.stderr,
    )
    return 0
