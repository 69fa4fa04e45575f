"""Reading defects a hostile test found: a judge's probabilities with one bad value, a pool's
errors, blank lines, verdict mapping targets, judges' mappings for no judge, column labels that
are not text, a DataFrame given unread, JSON Lines errors and a question on one system; and, from
a later run, outputs checked before any is written, a closed standard output on import, names
alike across scripts, covariates' names and scale, clusters and the budget, strengths of groups
never compared, a within:W status on ratings, labels a font lacks and an empty --configfile; and,
from a fourth run, tables read from a pipe, the name of the option for the input's format, a
column named twice, control characters in names, battles that are no regular file, an empty
results_dir, one judge given as a string, names in another Unicode normalisation in a question,
and levels that are no confidence level."""

from __future__ import annotations

import gzip
import io
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import debias
from debias.cli import main
from debias.config.settings import ConfigError, load_config
from debias.io.canonical import InputError

COLUMNS = dict(item="q", system_a="A", system_b="B", verdict="winner")
TASK = "preferences:\n  t:\n    label: T\n    battles: b.csv\n    mapping: {{1: a, 2: b, 3: {target}}}\n"
OPTIONS = ["--item", "q", "--system-a", "A", "--system-b", "B", "--verdict", "winner"]


def battles(n=120, seed=3) -> pd.DataFrame:
    """Battles of four systems, each with a human verdict and a judge's probability that A is better."""
    rng = np.random.default_rng(seed)
    systems = np.array(["w", "x", "y", "z"])
    a = rng.integers(0, 4, n)
    b = (a + rng.integers(1, 4, n)) % 4
    return pd.DataFrame(
        {
            "q": [f"q{i}" for i in range(n)],
            "A": systems[a],
            "B": systems[b],
            "winner": rng.choice(["a", "b", "tie"], n),
            "gpt4": np.round(rng.uniform(0.02, 0.98, n), 3),
        }
    )


def command(capsys, *args) -> tuple[int, str]:
    try:
        code = main([str(a) for a in args])
    except SystemExit as exit_info:
        code = exit_info.code
    return code, capsys.readouterr().err


@pytest.mark.parametrize(("bad", "at"), [(float("inf"), 42), ("a", 5), (7.0, 90), ("-0.5", 0)])
def test_a_value_that_is_no_probability_among_a_judges_probabilities_is_named_alone_on_its_row(
    bad, at, tmp_path, capsys
):
    frame = battles()
    frame["gpt4"] = frame["gpt4"].astype(object)
    frame.loc[at, "gpt4"] = bad
    with pytest.raises(InputError) as error:
        debias.read_pairs(frame, **COLUMNS, judges=["gpt4"])
    assert error.value.row == at + 2 and error.value.column == "gpt4"
    message = error.value.message
    assert "not probabilities" in message and f"{bad!r} (1x)" in message
    assert "(1x)," not in message and "more" not in message  # the probabilities around it are not listed
    path = tmp_path / "prob.csv"  # the same in a file, read by the command line
    frame.to_csv(path, index=False)
    code, err = command(capsys, "preferences", path, *OPTIONS, "--judge", "gpt4")
    assert (
        code == 2 and f"{path}: row {at + 2}: column 'gpt4': values of judge 'gpt4' that are not probabilities" in err
    )
    assert "(1x)" in err and "(1x)," not in err


def test_a_judges_column_of_0s_and_1s_is_read_as_its_verdicts_1_for_a_and_0_for_b(tmp_path, capsys):
    frame = battles()
    frame["gpt4"] = (frame["gpt4"] > 0.5).astype(int)
    pairs = debias.read_pairs(frame, **COLUMNS, judges=["gpt4"])
    assert pairs.judge_verdicts[:, 0].tolist() == frame["gpt4"].astype(float).tolist()
    assert pairs.continuous_judges == ()  # verdicts: ties may be left out
    table = debias.preferences(pairs, ties="drop", level=0.9)
    assert "judge:gpt4" in set(table["estimator"])
    path = tmp_path / "p01.csv"
    frame.to_csv(path, index=False)
    code, err = command(capsys, "preferences", path, *OPTIONS, "--judge", "gpt4")
    assert code == 0, err
    # a people's column of 0s and 1s is a code like any other: refused until mapped
    with pytest.raises(InputError, match="unknown human verdicts"):
        debias.read_pairs(frame.assign(winner=frame["gpt4"]), **COLUMNS)


def test_an_error_in_the_pool_names_the_pool_file_and_its_row(tmp_path, capsys):
    frame = battles(n=200)
    table, pool = tmp_path / "judged.csv", tmp_path / "pool.csv"
    frame.iloc[:120].to_csv(table, index=False)
    rest = frame.iloc[120:].drop(columns=["winner"]).reset_index(drop=True)
    rest.loc[30, "gpt4"] = 7
    rest.to_csv(pool, index=False)
    code, err = command(capsys, "preferences", table, *OPTIONS, "--judge", "gpt4", "--pool", pool)
    assert code == 2 and f"{pool}: row 32: column 'gpt4'" in err
    with pytest.raises(InputError) as error:  # the API, given the pool's path
        debias.read_pairs(str(table), **COLUMNS, judges=["gpt4"], pool=str(pool))
    assert error.value.where == f"{pool}: row 32"


def test_a_blank_line_of_a_file_is_a_row_so_the_row_named_is_the_line_of_the_value(tmp_path, capsys):
    frame = battles()
    frame.loc[100, "gpt4"] = 1.5
    lines = frame.to_csv(index=False).splitlines()
    lines.insert(50, "")  # a blank line before the bad value
    path = tmp_path / "blank.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    line = next(k for k, text in enumerate(path.read_text().splitlines(), start=1) if text.endswith(",1.5"))
    assert line == 103
    code, err = command(capsys, "preferences", path, *OPTIONS, "--judge", "gpt4")
    assert code == 2 and f"{path}: row {line}: column 'gpt4'" in err
    with pytest.raises(InputError) as error:
        debias.read_pairs(str(path), **COLUMNS, judges=["gpt4"])
    assert error.value.row == line


@pytest.mark.parametrize("target", ["nonsense", "[tie]", "2"])
def test_a_wrong_mapping_target_in_the_config_lists_the_targets_as_written(tmp_path, target):
    path = tmp_path / "config.yaml"
    path.write_text(TASK.format(target=target), encoding="utf-8")
    with pytest.raises(ConfigError) as error:
        load_config(path, required=())
    message = str(error.value)
    assert "preferences.t.mapping.3" in message and "is not one of [0, 0.5, 1]" not in message
    assert "a, b or tie" in message and "null" in message and "1, 0.5 or 0" in message


@pytest.mark.parametrize("target", ["none", "None", "null", "Missing", "tie (bothbad)", "model_a", "0.5"])
def test_the_mapping_targets_the_command_line_takes_are_taken_in_the_config_too(tmp_path, target):
    path = tmp_path / "config.yaml"
    path.write_text(TASK.format(target=target), encoding="utf-8")
    config = load_config(path, required=())
    from debias.data.pairs import verdict_codes

    codes = verdict_codes(["1", "2", "3"], mapping=config["preferences"]["t"]["mapping"]).codes
    assert codes[:2].tolist() == [1.0, 0.0]


def test_a_judges_mapping_for_a_column_that_is_no_judge_is_refused_naming_the_judges(tmp_path, capsys):
    frame = battles()
    path = tmp_path / "b.csv"
    frame.to_csv(path, index=False)
    code, err = command(capsys, "preferences", path, *OPTIONS, "--judge", "gpt4", "--judge-mapping", "gpt5:1=a")
    assert code == 2 and "'gpt5' is not a --judge column (--judge: gpt4)" in err and len(err.splitlines()) == 1
    with pytest.raises(InputError, match=r"judge_mappings: 'gpt5' is not one of the judges \(\['gpt4'\]\)"):
        debias.read_pairs(frame, **COLUMNS, judges=["gpt4"], judge_mappings={"gpt5": {1: "a"}})


def test_a_tuple_label_is_a_column_and_a_label_none_is_refused():
    frame = battles()
    expected = debias.read_pairs(frame, **COLUMNS, judges=["gpt4"])
    tupled = frame.set_axis(["q", "A", "B", "winner", ("g", "4")], axis=1)
    pairs = debias.read_pairs(tupled, **COLUMNS, judges=[("g", "4")])
    np.testing.assert_array_equal(pairs.judge_verdicts, expected.judge_verdicts)
    nameless = frame.set_axis([1.5, "A", "B", None, "gpt4"], axis=1)
    with pytest.raises(InputError, match=r"column at position 3 has no name \(None\)"):
        debias.read_pairs(nameless, item=1.5, system_a="A", system_b="B", verdict=None)


def test_a_number_and_a_text_that_print_alike_are_refused_naming_both_rows():
    frame = battles()
    mixed = frame.copy()
    for side in ("A", "B"):
        mixed[side] = mixed[side].map({"w": 1, "x": "1", "y": 3, "z": 4}).astype(object)
    with pytest.raises(InputError) as error:
        debias.read_pairs(mixed, **COLUMNS)
    message = error.value.message
    assert "are different values written alike as the name '1'" in message
    assert "'1' (text" in message and "1 (a number" in message
    named = [error.value.row, int(re.search(r"table: row (\d+)\)", message).group(1))]
    holds = [{type(v) for v in mixed.loc[row - 2, ["A", "B"]]} for row in named]
    assert {str, int} <= holds[0] | holds[1] and named[0] != named[1]
    numbers = frame.copy()  # one type: read
    for side in ("A", "B"):
        numbers[side] = frame[side].map({"w": 1, "x": 2, "y": 3, "z": 4})
    assert sorted(debias.read_pairs(numbers, **COLUMNS).systems) == ["1", "2", "3", "4"]


def test_a_pool_given_as_a_path_is_read_and_anything_else_refused_in_one_line(tmp_path):
    frame = battles(n=200)
    pool = frame.iloc[120:].drop(columns=["winner"])
    path = tmp_path / "pool.csv"
    pool.to_csv(path, index=False)
    by_frame = debias.read_pairs(frame.iloc[:120], **COLUMNS, judges=["gpt4"], pool=pool)
    by_path = debias.read_pairs(frame.iloc[:120], **COLUMNS, judges=["gpt4"], pool=str(path))
    assert by_path.n_battles == by_frame.n_battles == 200
    np.testing.assert_allclose(by_path.judge_verdicts, by_frame.judge_verdicts)
    with pytest.raises(InputError, match=r"^pool: expected a pandas DataFrame or a table file's path, found int$"):
        debias.read_pairs(frame, **COLUMNS, pool=3)
    with pytest.raises(InputError, match="no such file"):
        debias.read_pairs(frame, **COLUMNS, pool=str(tmp_path / "x.csv"))


@pytest.mark.parametrize("function", ["status", "next_battles", "leaderboard", "preferences"])
def test_a_dataframe_given_without_its_columns_is_told_to_be_read_first(function):
    frame = battles()
    arguments = {"status": ("top:1",), "next_battles": ("top:1", 3)}.get(function, ())
    with pytest.raises(InputError) as error:
        getattr(debias, function)(frame, *arguments)
    message = error.value.message
    assert "debias.read_pairs(" in message and "read it first" in message
    assert ("debias.read_ratings(" in message) == (function != "preferences")


def test_a_bad_json_lines_row_is_named_by_its_line(tmp_path):
    path = tmp_path / "t.jsonl"
    rows = battles(n=3).to_dict("records")
    path.write_text("\n".join(pd.Series(rows).map(lambda r: pd.Series(r).to_json())) + "\n{bad\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"t\.jsonl: not a jsonl table: line 4: not JSON"):
        debias.read_pairs(str(path), **COLUMNS)
    path.write_text('{"q": 1}\n[1, 2]\n', encoding="utf-8")
    with pytest.raises(InputError, match="line 2: a JSON list, not an object"):
        debias.read_pairs(str(path), **COLUMNS)


def test_a_question_on_one_system_says_it_needs_two(tmp_path, capsys):
    frame = pd.DataFrame({"seg": [f"s{i}" for i in range(10)], "system": "A", "score": np.arange(10.0)})
    ratings = debias.read_ratings(frame, item="seg", system="system", judgment="score")
    for ask in (lambda: debias.status(ratings, "top:1"), lambda: debias.next_battles(ratings, "top:1", 4)):
        with pytest.raises(
            InputError, match=r"a question needs at least two systems to compare; the table has one, 'A'"
        ):
            ask()
    path = tmp_path / "one.csv"
    frame.to_csv(path, index=False)
    options = ["--item", "seg", "--system", "system", "--judgment", "score", "--question", "top:1"]
    code, err = command(capsys, "status", path, *options)
    assert code == 2 and "at least two systems" in err and "K must be" not in err


@pytest.mark.parametrize("kind", ["folder", "fifo", "device"])
def test_a_figure_refused_for_its_png_leaves_no_pdf_written(kind, tmp_path, capsys):
    table = tmp_path / "b.csv"
    battles().to_csv(table, index=False)
    png = tmp_path / "f.png"
    if kind == "folder":
        png.mkdir()
    elif kind == "fifo":
        os.mkfifo(png)
    else:
        png.symlink_to(os.devnull)
    code, err = command(capsys, "preferences", table, *OPTIONS, "--figure", tmp_path / "f")
    assert code == 2 and f"--figure {png}: is a" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "f.pdf").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.csv", "f.png"]


def test_import_pairs_with_standard_output_closed_is_refused_before_writing(tmp_path):
    battles().to_csv(tmp_path / "b.csv", index=False)
    source = os.path.dirname(os.path.dirname(os.path.abspath(debias.__file__)))  # this package, from tmp_path
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([source, os.environ.get("PYTHONPATH", "")])}
    command = f"{sys.executable} -m debias import-pairs b.csv --task t {' '.join(OPTIONS)} >&-"
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, cwd=tmp_path, timeout=120, env=env)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "standard output is closed" in lines[0], done.stderr
    assert not (tmp_path / "data").exists()
    (tmp_path / "c.yaml").write_text("preferences: {}\n", encoding="utf-8")  # with --config nothing is printed
    done = subprocess.run(
        ["bash", "-c", command.replace(">&-", "--config c.yaml >&-")], cwd=tmp_path, timeout=120, env=env
    )
    assert done.returncode == 0 and (tmp_path / "data" / "t" / "battles.csv").is_file()


def test_a_covariate_without_a_name_or_given_one_column_is_refused_and_systems_as_one_string_is_one_name():
    frame = battles()
    frame["len_a"], frame["len_b"] = np.arange(len(frame)) % 7, np.arange(len(frame)) % 5
    with pytest.raises(InputError, match="a covariate named '': give each covariate a name"):
        debias.read_pairs(frame, **COLUMNS, covariates={"": ("len_a", "len_b")})
    with pytest.raises(InputError) as error:
        debias.read_pairs(frame, **COLUMNS, covariates={"length": "len_a"})
    assert "give a pair of columns" in error.value.message and "got 'len_a'" in error.value.message
    assert "('l', 'e'" not in error.value.message
    pairs = debias.read_pairs(frame, **COLUMNS)
    with pytest.raises(InputError, match="at least two systems, got \\['wx'\\]"):  # one name, not w and x
        debias.head_to_head(pairs, systems="wx")
    shown = debias.head_to_head(pairs, systems=["x", "w"], estimators=["human"])
    assert set(shown["system"]) == {"w", "x"}


def test_a_covariate_scaled_by_1e300_gives_the_coefficient_it_gives_at_scale_1():
    frame = battles(300)
    frame["len_a"], frame["len_b"] = (np.arange(300) * 7) % 23 + 1.0, (np.arange(300) * 5) % 19 + 1.0
    coefficients = []
    for scale in (1.0, 1e300):
        scaled = frame.assign(len_a=frame.len_a * scale, len_b=frame.len_b * scale)
        pairs = debias.read_pairs(scaled, **COLUMNS, covariates={"length": ("len_a", "len_b")})
        table = debias.preferences(pairs, covariates=["length"])
        row = table[(table.estimand == "coefficient:length") & (table.estimator == "human")]
        coefficients.append(row[["estimate", "ci_low", "ci_high"]].to_numpy(dtype=float))
    assert np.isfinite(coefficients[0]).all() and coefficients[0].size == 3
    np.testing.assert_allclose(coefficients[1], coefficients[0], rtol=1e-9)


def test_names_differing_only_by_cyrillic_or_greek_look_alike_letters_are_two_names_with_a_warning(tmp_path, capsys):
    import warnings

    frame = battles()
    frame.loc[frame.A == "x", "A"] = "\u0445"  # Cyrillic small ha, drawn as x, on side A only
    frame.loc[frame.B == "w", "B"] = "gpt-4\u03bf"  # Greek small omicron
    frame.loc[frame.A == "w", "A"] = "gpt-4o"
    first_ha = int(np.flatnonzero(frame.A == "\u0445")[0]) + 2
    with pytest.warns(UserWarning) as caught:
        pairs = debias.read_pairs(frame, **COLUMNS)
    assert len(caught) == 1 and caught[0].category.__name__ == "InputWarning"
    assert len(pairs.systems) == 6 and {"\u0445", "x", "gpt-4o", "gpt-4\u03bf"} <= set(pairs.systems)
    message = str(caught[0].message)
    assert f"'\u0445' (table: row {first_ha})" in message and "cyrillic small letter ha" in message
    assert "'gpt-4o'" in message and "'gpt-4\u03bf'" in message and "greek small letter omicron" in message
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # names in other scripts that look like no Latin name: no warning
        debias.read_pairs(
            battles().replace({"x": "\u043c\u043e\u0434\u0435\u043b\u044c", "w": "\u03b1\u03b2"}), **COLUMNS
        )
    table = tmp_path / "b.csv"
    frame.to_csv(table, index=False)
    code, err = command(capsys, "preferences", table, *OPTIONS)
    lines = [line for line in err.splitlines() if "warning" in line.lower()]
    assert code == 0 and len(lines) == 1 and lines[0].startswith("debias preferences: warning: columns 'A', 'B': ")
    assert "Traceback" not in err and "InputWarning" not in err


def test_next_with_clusters_never_passes_the_budget_and_refuses_one_smaller_than_a_cluster(tmp_path, capsys):
    frame = battles(200).assign(winner="")
    frame.loc[:39, "winner"] = battles(40)["winner"].to_numpy()
    frame["c"] = [f"c{i // 10}" for i in range(200)]  # 20 clusters of 10 battles
    table = tmp_path / "b.csv"
    frame.to_csv(table, index=False)
    out = tmp_path / "next.csv"
    for budget, sent in ((25, 20), (10, 10)):
        code, err = command(capsys, "next", table, *OPTIONS, "--cluster", "c", "--question", "ranks",
                            "--budget", budget, "--output", out)  # fmt: skip
        drawn = pd.read_csv(out)
        assert code == 0 and len(drawn) == sent, err
        assert frame.merge(drawn, on=["q", "A", "B"]).groupby("c").size().eq(10).all()  # whole clusters
    code, err = command(capsys, "next", table, *OPTIONS, "--cluster", "c", "--question", "ranks",
                        "--budget", 3, "--output", tmp_path / "none.csv")  # fmt: skip
    assert code == 2 and "--budget: a cluster is sent whole" in err and "at least 10" in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "none.csv").exists()


def _two_unlinked_groups(n=200, seed=5) -> pd.DataFrame:
    """Battles of w against x and of y against z only: two groups never compared with each other."""
    rng = np.random.default_rng(seed)
    first = rng.integers(0, 2, n).astype(bool)
    return pd.DataFrame(
        {
            "q": [f"q{i}" for i in range(n)],
            "A": np.where(first, "w", "y"),
            "B": np.where(first, "x", "z"),
            "winner": rng.choice(["a", "b"], n),
        }
    )


def test_strengths_of_groups_never_compared_are_refused_alike_naming_the_groups(tmp_path, capsys):
    pairs = debias.read_pairs(_two_unlinked_groups(), **COLUMNS)
    strength = debias.preferences(pairs).query("estimand == 'strength'")
    assert strength.estimate.isna().all() and len(strength) == 4  # no group chosen over the other
    assert strength.note.nunique() == 1
    assert "2 groups never compared with each other ({w, x} and {y, z})" in strength.note.iloc[0]
    table = tmp_path / "b.csv"
    _two_unlinked_groups().to_csv(table, index=False)
    code, err = command(capsys, "status", table, *OPTIONS, "--question", "ranks", "--estimand", "strength")
    assert code == 0 and "2 groups never compared with each other" in err and "estimated gap is 0" not in err
    assert main(["leaderboard", str(table), *OPTIONS]) == 0
    board = pd.read_csv(io.StringIO(capsys.readouterr().out)).query("estimand == 'strength'")
    assert len(board) == 4 and board["rank"].isna().all()  # neither group ranked
    assert board.note.str.contains("2 groups never compared with each other", regex=False).all()


def test_the_strictly_largest_group_keeps_its_strengths_and_the_others_say_why_not():
    rng = np.random.default_rng(9)
    big = [("u", "v"), ("v", "w"), ("u", "w")]
    rows = [
        {"q": f"q{i}", "A": a, "B": b, "winner": rng.choice(["a", "b"])}
        for i, (a, b) in enumerate([big[i % 3] for i in range(150)] + [("y", "z")] * 50)
    ]
    strength = debias.preferences(debias.read_pairs(pd.DataFrame(rows), **COLUMNS)).query("estimand == 'strength'")
    given = strength.set_index("system")
    assert given.loc[["u", "v", "w"], "estimate"].notna().all()  # three systems linked both ways
    assert abs(given.loc[["u", "v", "w"], "estimate"].sum()) < 1e-9  # centred within their own group
    assert given.loc[["y", "z"], "estimate"].isna().all()
    assert given.loc[["y", "z"], "note"].str.contains("2 groups never compared with each other").all()


def test_status_of_within_on_ratings_says_the_intervals_must_narrow_in_judged_items(tmp_path, capsys):
    judged = {"A": [1.0, 3.0, 4.0], "B": [4.0, 1.0, 3.0], "C": [3.0, 4.0, 4.0]}  # three judged items each
    rows = [{"seg": f"s{i}", "system": s, "score": judged[s][i] if i < 3 else np.nan} for i in range(20) for s in "ABC"]
    table = tmp_path / "r.csv"
    pd.DataFrame(rows).to_csv(table, index=False)
    code = main(["status", str(table), "--item", "seg", "--system", "system", "--judgment", "score",
                 "--question", "within:0.5"])  # fmt: skip
    out, err = capsys.readouterr()
    head = err.splitlines()[0]
    assert code == 0 and "estimated gap" not in head and "votes" not in head, head
    assert "more judged items in all" in head  # a number of judged items, no pair's gap
    assert "fewer than 30 judged items" in out and "votes" not in out.splitlines()[1]  # the rows' words too


def _figure_of(names, tmp_path):
    """The preferences figure of battles whose systems w and x are renamed ``names``, saved."""
    import warnings

    from debias.plots import draw_preferences, save_figure

    frame = battles().replace({"w": names[0], "x": names[1]})
    table = debias.preferences(debias.read_pairs(frame, **COLUMNS))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = draw_preferences(table)
        save_figure(fig, tmp_path / "f")
    assert (tmp_path / "f.pdf").is_file() and (tmp_path / "f.png").is_file()
    return fig, caught


def test_names_thousands_of_characters_long_are_drawn_shortened_in_a_figure_of_sane_size(tmp_path):
    long_w, long_x = "w" + "X" * 5000 + "-v1", "x" + "X" * 5000 + "-v2"
    fig, caught = _figure_of([long_w, long_x], tmp_path)
    told = [str(w.message) for w in caught if w.category.__name__ == "InputWarning"]
    assert told == ["2 figure label(s) longer than 48 characters drawn shortened in the middle"]
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert all(len(label) <= 48 for label in labels) and any(label.endswith("-v1") for label in labels)
    assert not [w for w in caught if "collapsed to zero" in str(w.message)]
    assert max(fig.get_size_inches()) < 20


def test_a_label_the_figures_font_lacks_gets_an_installed_font_that_has_it(tmp_path):
    from matplotlib.text import Text

    fig, caught = _figure_of(["\u1d8d-model", "y2"], tmp_path)  # x with palatal hook: not in DejaVu Sans
    assert not [w for w in caught if "Glyph" in str(w.message) or w.category.__name__ == "InputWarning"]
    label = next(t for t in fig.findobj(Text) if t.get_text() == "\u1d8d-model")
    family = label.get_fontfamily()
    assert family[0] == "DejaVu Sans" and len(family) == 2 and not family[1].startswith("Last Resort")


def test_cjk_labels_without_a_font_give_one_warning_naming_them_and_the_package(tmp_path):
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    fonts = [f.fname for f in font_manager.fontManager.ttflist if not f.name.startswith("Last Resort")]
    if any(ord("模") in FT2Font(path).get_charmap() for path in fonts):
        pytest.skip("a CJK font is installed here: the labels are drawn")
    _, caught = _figure_of(["模型甲", "模型乙"], tmp_path)
    assert not [w for w in caught if "Glyph" in str(w.message)]  # not one per character
    told = [str(w.message) for w in caught if w.category.__name__ == "InputWarning"]
    assert len(told) == 1 and "'模型甲'" in told[0] and "'模型乙'" in told[0] and "fonts-noto-cjk" in told[0]


def test_run_with_an_empty_configfile_name_says_the_name_is_empty(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, err = command(capsys, "run", "-n", "--configfile", "")
    assert code == 2 and err.strip() == "debias run: error: --configfile: an empty name, expected a configuration file"


def _pipe(data: bytes) -> str:
    """A path reading ``data`` from a pipe (as ``<(cat file)`` gives one): it cannot be sought in."""
    read, write = os.pipe()
    os.write(write, data)
    os.close(write)
    return f"/dev/fd/{read}"


def test_a_table_read_from_a_pipe_gives_what_the_file_gives(tmp_path, capsys):
    frame = battles()
    frame["gpt4"] = np.where(frame["gpt4"] > 0.5, "a", "b")
    path = tmp_path / "b.csv"
    frame.to_csv(path, index=False)
    options = [*OPTIONS, "--judge", "gpt4"]
    assert main(["preferences", str(path), *options]) == 0
    from_file = capsys.readouterr().out
    for data, fmt in [(path.read_bytes(), "csv"), (gzip.compress(path.read_bytes()), "csv")]:
        assert main(["preferences", _pipe(data), "--input-format", fmt, *options]) == 0
        assert capsys.readouterr().out == from_file
    jsonl = tmp_path / "b.jsonl"
    frame.to_json(jsonl, orient="records", lines=True)
    parquet = tmp_path / "b.parquet"
    frame.to_parquet(parquet)
    for source, fmt in [(jsonl, "jsonl"), (parquet, "parquet")]:
        assert main(["preferences", _pipe(source.read_bytes()), "--input-format", fmt, *options]) == 0
        assert capsys.readouterr().out == from_file
    # the output guard compares files by inode: a pipe is no file an output could overwrite
    out = tmp_path / "o.csv"
    assert main(["preferences", _pipe(path.read_bytes()), "--input-format", "csv", *options, "--output", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == from_file


def test_a_ratings_table_read_from_standard_input_gives_what_the_file_gives(tmp_path):
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"seg": [f"s{i % 40}" for i in range(120)], "system": np.repeat(["A", "B", "C"], 40)}).assign(
        score=rng.integers(1, 6, 120)
    )
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    columns = ["--item", "seg", "--system", "system", "--judgment", "score"]
    command_line = [sys.executable, "-m", "debias"]
    for verb in (["estimate"], ["status", "--question", "top:1"]):
        from_file = subprocess.run([*command_line, *verb, str(path), *columns], capture_output=True, text=True)
        piped = subprocess.run(
            [*command_line, *verb, "/dev/stdin", "--input-format", "csv", *columns],
            input=path.read_text(encoding="utf-8"),
            capture_output=True,
            text=True,
        )
        assert from_file.returncode == 0 and piped.returncode == 0, piped.stderr
        assert piped.stdout == from_file.stdout and "lseek" not in piped.stderr


def test_a_name_that_tells_no_format_is_told_the_option_or_parameter_that_does(tmp_path, capsys):
    path = tmp_path / "battles.dat"
    battles().to_csv(path, index=False)
    code, err = command(capsys, "preferences", path, *OPTIONS)
    assert code == 2 and "give --input-format" in err and "--format" not in err.replace("--input-format", "")
    with pytest.raises(InputError) as raised:
        debias.read_pairs(path, **COLUMNS)
    assert "--" not in str(raised.value) and "pass a pandas DataFrame" in str(raised.value)
    from debias.io.reader import TableColumns, read_evaluation_table

    with pytest.raises(InputError, match="give fmt:"):
        read_evaluation_table(path, TableColumns(item="q", judgment="winner"))


@pytest.mark.parametrize("kind", ["csv", "tsv", "parquet", "frame"])
def test_a_column_named_twice_is_refused_naming_the_file_and_the_column(kind, tmp_path, capsys):
    frame = battles().rename(columns={"gpt4": "winner"})
    frame["winner"] = frame["winner"].astype(str)
    path = tmp_path / f"b.{kind}"
    if kind == "csv":
        frame.to_csv(path, index=False)
    elif kind == "tsv":
        frame.to_csv(path, index=False, sep="\t")
    elif kind == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(
            pa.Table.from_arrays([pa.array(frame.iloc[:, k].astype(str)) for k in range(5)], list(frame.columns)), path
        )
    if kind == "frame":
        with pytest.raises(InputError, match=r"column 'winner' appears twice \(columns 4 and 5\)"):
            debias.read_pairs(frame, **COLUMNS)
        return
    code, err = command(capsys, "preferences", path, *OPTIONS)
    assert code == 2 and f"{path}: column 'winner' appears twice (columns 4 and 5): rename one" in err
    # a column named twice that the command does not use is refused too
    code, err = command(
        capsys, "preferences", path, "--item", "q", "--system-a", "A", "--system-b", "B", "--verdict", "q"
    )
    assert code == 2 and "'winner' appears twice" in err


@pytest.mark.parametrize("control", ["\x00", "\x01", "\x1b", "\x0b"])
def test_a_control_character_in_a_name_is_refused_naming_the_file_row_and_column(control, tmp_path, capsys):
    path = tmp_path / "b.csv"
    path.write_bytes(f"q,A,B,winner\nq1,x,y,a\nq2,y,x{control}z,b\nq3,x,y,b\n".encode())
    code, err = command(capsys, "preferences", path, *OPTIONS)
    shown = repr(f"x{control}z")
    assert code == 2 and err.strip() == (
        f"debias preferences: error: {path}: row 3: column 'B': the name {shown} holds the control character"
        f" U+{ord(control):04X}: remove it (a name holds no control character but the tab and line breaks)"
    )
    ratings = tmp_path / "r.csv"
    ratings.write_bytes(f"seg,system,score\ns1,A,3\ns2,A{control}B,4\n".encode())
    code, err = command(capsys, "estimate", ratings, "--item", "seg", "--system", "system", "--judgment", "score")
    assert code == 2 and f"{ratings}: row 3: column 'system': the name" in err


def test_a_tab_or_a_line_break_inside_a_name_is_still_read(tmp_path):
    path = tmp_path / "b.csv"
    path.write_text('q,A,B,winner\n"q1\nline two",x\ty,z,a\nq2,z,x\ty,b\n', encoding="utf-8")
    read = debias.read_pairs(path, **COLUMNS)
    assert set(read.systems) == {"x\ty", "z"} and read.n_battles == 2


@pytest.mark.parametrize(("battles_at", "kind"), [("/dev/null", "a device"), ("folder", "a folder")])
def test_battles_that_are_no_regular_file_are_called_what_they_are_not_missing(battles_at, kind, tmp_path):
    from debias.config.settings import with_defaults
    from debias.pipeline.inputs import validate_preferences

    (tmp_path / "folder").mkdir()
    path = battles_at if battles_at.startswith("/") else str(tmp_path / battles_at)
    spec = {"label": "T", "battles": path, **{key: key for key in ("item", "system_a", "system_b", "verdict")}}
    with pytest.raises(InputError) as raised:
        validate_preferences(with_defaults({"results_dir": "r", "preferences": {"t": spec}}))
    assert str(raised.value).startswith(f"{path}: file of preference task 't' is {kind}, not a regular file")
    assert "not found" not in str(raised.value)


def test_an_empty_results_dir_is_refused_in_one_line(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text('results_dir: ""\npreferences:\n  t: {label: T, battles: b.csv}\n', encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_config(path, required=())
    assert "results_dir: '' should be non-empty" in str(raised.value) and "\n" not in str(raised.value)


def test_one_judge_or_one_estimator_given_as_a_string_is_one_name_not_its_letters():
    frame = battles()
    frame["gpt4"] = np.where(frame["gpt4"] > 0.5, "a", "b")
    as_string = debias.read_pairs(frame, **COLUMNS, judges="gpt4")
    as_list = debias.read_pairs(frame, **COLUMNS, judges=["gpt4"])
    assert as_string.judges == as_list.judges == ("gpt4",)
    assert np.array_equal(as_string.judge_verdicts, as_list.judge_verdicts, equal_nan=True)
    from debias.io.pairs import read_pair_table

    assert read_pair_table(frame, **COLUMNS, judges="gpt4").judges == ("gpt4",)
    one_call = debias.preferences(frame, **COLUMNS, judges="gpt4")
    assert "judge:gpt4" in set(one_call["estimator"])
    table = debias.head_to_head(as_list, estimators="judge:gpt4")
    pd.testing.assert_frame_equal(table, debias.head_to_head(as_list, estimators=["judge:gpt4"]))
    assert set(table["estimator"]) == {"judge:gpt4"}
    ratings = pd.DataFrame({"seg": ["s1", "s2", "s1", "s2"], "sys": list("aabb"), "score": [3, 4, 5, 4]})
    ratings["bleu"] = [0.1, 0.4, 0.5, 0.3]
    read = debias.read_ratings(ratings, item="seg", system="sys", judgment="score", scores="bleu")
    assert read.metrics == ("bleu",)


def _decomposed_battles(tmp_path):
    """Battles of three systems, one written decomposed ("e" + U+0301)."""
    frame = battles()
    frame[["A", "B"]] = frame[["A", "B"]].replace({"w": "e\u0301clair"})
    path = tmp_path / "b.csv"
    frame.to_csv(path, index=False)
    return frame, path


def test_a_system_named_in_another_unicode_normalisation_is_the_tables_system(tmp_path, capsys):
    frame, path = _decomposed_battles(tmp_path)
    composed = "\u00e9clair"

    def printed(*args):
        assert main([str(a) for a in args]) == 0
        return capsys.readouterr().out

    out = printed("status", path, *OPTIONS, "--question", f"better:{composed},x")
    assert out == printed("status", path, *OPTIONS, "--question", "better:e\u0301clair,x") and "e\u0301clair" in out
    table = pd.read_csv(io.StringIO(printed("preferences", path, *OPTIONS, "--baseline", composed)))
    assert (table["estimand"] == "baseline_win_rate").sum() >= 3
    pairs = debias.read_pairs(frame, **COLUMNS)
    assert debias.preferences(pairs, baseline=composed).equals(debias.preferences(pairs, baseline="e\u0301clair"))
    matrix = debias.head_to_head(pairs, systems=[composed, "x"])
    assert set(matrix["system"]) == {"e\u0301clair", "x"}
    assert str(debias.status(pairs, f"better:{composed},x")) == str(debias.status(pairs, "better:e\u0301clair,x"))


def test_an_unknown_name_shows_the_tables_names_with_combining_marks_escaped(tmp_path, capsys):
    _, path = _decomposed_battles(tmp_path)
    code, err = command(capsys, "status", path, *OPTIONS, "--question", "better:eclair,x")
    assert code == 2 and "unknown system 'eclair'; the systems: " in err
    assert "'e\\u0301clair'" in err and "e\u0301" not in err  # the two spellings differ on screen
    code, err = command(capsys, "preferences", path, *OPTIONS, "--baseline", "eclair")
    assert code == 2 and "--baseline: no system 'eclair'" in err and "'e\\u0301clair'" in err


@pytest.mark.parametrize("level", ["1e-300", "0.3", "0.4999", "1", "0"])
def test_a_level_below_one_half_or_not_below_1_is_refused_in_one_line(level, tmp_path, capsys):
    path = tmp_path / "b.csv"
    battles().to_csv(path, index=False)
    code, err = command(capsys, "preferences", path, *OPTIONS, "--level", level)
    assert code == 2 and err.strip().endswith(f"argument --level: expected a number in [0.5, 1), got '{level}'")
    ratings = tmp_path / "r.csv"
    ratings.write_text("seg,system,score\ns1,A,3\ns2,A,4\ns1,B,2\ns2,B,5\n", encoding="utf-8")
    for verb in (["estimate"], ["status", "--question", "top:1"]):
        code, err = command(
            capsys, *verb, ratings, "--item", "seg", "--system", "system", "--judgment", "score", "--level", level
        )
        assert code == 2 and err.strip().splitlines()[-1].endswith(f"expected a number in [0.5, 1), got '{level}'")
    with pytest.raises(InputError, match="estimates.level"):
        debias.preferences(debias.read_pairs(battles().drop(columns="gpt4"), **COLUMNS), level=float(level))


def test_a_level_of_one_half_is_taken_and_the_level_column_shows_every_digit(tmp_path, capsys):
    path = tmp_path / "b.csv"
    battles().drop(columns="gpt4").to_csv(path, index=False)
    for level, words in [("0.5", "50% intervals"), ("0.9999999999", "99.99999999% intervals")]:
        assert main(["preferences", str(path), *OPTIONS, "--level", level]) == 0
        printed = capsys.readouterr()
        assert printed.err.strip() == f"debias preferences: {words}"
        table = pd.read_csv(io.StringIO(printed.out), dtype={"level": str})
        assert set(table["level"]) == {level}
        assert table.loc[table["estimand"] == "win_rate", "ci_low"].notna().all()
