"""``debias status`` and ``debias next``: what the votes so far settle about a question, with
anytime-valid intervals, and which battles to put in front of people next."""

from __future__ import annotations

import sys

from debias.cli.preferences import add_pair_columns, add_ties_option, read_pairs
from debias.cli.shared import add_output_options
from debias.io.canonical import InputError
from debias.io.reader import FORMATS
from debias.io.scores import number_in


def _common(sub) -> None:
    add_pair_columns(sub)
    sub.add_argument(
        "--question",
        required=True,
        metavar="Q",
        help="better:A,B (is A better than B), top:K (which are the top K), ranks (every rank) or within:W "
        "(every system's score within +/- W)",
    )
    sub.add_argument(
        "--level",
        type=number_in(0, 1),
        help="probability that all the intervals used hold at every look at once, in (0, 1) (default: the "
        "configuration's estimates.level)",
    )
    add_ties_option(sub)
    sub.add_argument("--estimand", choices=("win_rate", "strength"), default="win_rate", help="default: %(default)s")
    sub.add_argument(
        "--estimator",
        help="human, ppi++:<judge> or ppi++:combined (default: PPI++ with the --judge columns, human without)",
    )
    sub.add_argument(
        "--optimal-at",
        type=number_in(1, low_open=False),
        default=1000,
        metavar="T",
        help="votes at which the intervals are tightest; fix it before the first look (default: %(default)s)",
    )
    sub.add_argument(
        "--table-format", choices=sorted(set(FORMATS.values())), help="format of the tables (default: from the name)"
    )


def add_command(commands) -> None:
    """The ``debias status`` and ``debias next`` subcommands."""
    sub = commands.add_parser(
        "status",
        help="what the votes so far settle about a question (anytime-valid intervals)",
        description="Print what a table of pairwise verdicts settles about a question, with intervals that stay "
        "valid however often you look and whenever you stop (confidence sequences), and what is not settled "
        "yet with the further votes it needs: one row per system and per open pair. The first line (to "
        "stderr) is the answer; 'unresolved so far' means the votes do not settle it yet.",
    )
    _common(sub)
    add_output_options(sub)  # --format csv|markdown|json, --output FILE
    sub.set_defaults(run=run_status)
    nxt = commands.add_parser(
        "next",
        help="the battles to put in front of people next, from the pairs a question leaves open",
        description="Write BUDGET battles without a human verdict (rows of TABLE with an empty verdict, or of "
        "--pool) from the pairs of systems the question leaves open, drawn at random from --seed: the same "
        "data and seed give the same battles. Columns: the item, system A and system B columns.",
    )
    _common(nxt)
    nxt.add_argument(
        "--budget", required=True, type=int, metavar="B", help="how many battles to send (a whole number >= 1)"
    )
    nxt.add_argument("--seed", type=int, default=0, help="seed of the random draw (default: %(default)s)")
    nxt.add_argument("--output", required=True, metavar="CSV", help="where to write the battles (CSV)")
    nxt.set_defaults(run=run_next)


def _state(args, pairs):
    from debias.config.settings import section_defaults
    from debias.stats.common.status import QuestionError
    from debias.stats.preferences import pairs_status

    level = args.level if args.level is not None else section_defaults("estimates")["level"]
    try:
        return pairs_status(
            pairs,
            args.question,
            level=level,
            estimand=args.estimand,
            estimator=args.estimator,
            ties=args.ties,
            optimal_at=args.optimal_at,
        )
    except QuestionError as error:
        raise InputError(f"--{error.option} {error.text}", error.message) from None
    except ValueError as error:
        raise InputError(args.table, str(error)) from None


def run_status(args, emit) -> int:
    """Run ``debias status``; exit status 2 with a one-line message on bad input."""
    from debias.tables.status import status_table

    try:
        pairs = read_pairs(args)
        state = _state(args, pairs)
    except (InputError, ValueError) as error:
        print(f"debias status: error: {error}", file=sys.stderr)
        return 2
    more = "" if state.resolved else f"; {_votes(state.more_votes)}"
    print(
        f"{state.question.text}: {state.answer} ({state.estimand}, {state.estimator}, {state.n_votes} votes, "
        f"level {state.level:g} at every look{more})",
        file=sys.stderr,
    )
    emit(status_table(state), args.format, sys.stdout)
    return 0


def _votes(more: float) -> str:
    import numpy as np

    if np.isnan(more):
        return "no estimate of the votes still needed (a system without an estimate)"
    if np.isinf(more):
        return "no number of votes is expected to settle it (an open pair's estimated gap is 0)"
    return f"about {int(np.ceil(more)):,} more votes on the open pairs' battles"


def run_next(args, emit) -> int:
    """Run ``debias next``: write the battles atomically; exit status 2 on bad input."""
    import numpy as np
    import pandas as pd

    from debias.io.atomic import write_csv
    from debias.stats.preferences import next_battles

    try:
        if args.budget < 1:
            raise InputError("--budget", f"expected a whole number of battles >= 1, found {args.budget}")
        if args.seed < 0:
            raise InputError("--seed", f"expected a whole number >= 0, found {args.seed}")
        pairs = read_pairs(args)
        state = _state(args, pairs)
        chosen = next_battles(pairs, state, args.budget, np.random.default_rng(args.seed))
        index = chosen.battles
        names = np.asarray(pairs.systems, dtype=object)
        table = pd.DataFrame(
            {
                args.item: pairs.items[index] if pairs.items is not None else index,
                args.system_a: names[pairs.system_a[index]],
                args.system_b: names[pairs.system_b[index]],
            }
        )
        try:
            write_csv(table, args.output)
        except OSError as error:
            raise InputError(args.output, f"cannot write the battles ({error.strerror or error})") from None
    except (InputError, ValueError) as error:
        print(f"debias next: error: {error}", file=sys.stderr)
        return 2
    print(
        f"{state.question.text}: {state.answer}; wrote {index.size} battles to {args.output}"
        + (f" ({chosen.note})" if chosen.note else ""),
        file=sys.stderr,
    )
    return 0
