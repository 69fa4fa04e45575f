"""The one reader of evaluation tables: the same table gives the same judgments, or the same
error, through `debias import` (then the canonical files) and through the Python API; and what
real and hostile tables hold ends in a task that runs or a clear error with nothing written."""

from __future__ import annotations

import json
import os
import re
import stat

import numpy as np
import pandas as pd
import pytest
import yaml

import debias
from debias.cli import main
from debias.io.canonical import InputError, read_system
from debias.io.reader import TableColumns, read_evaluation_table


def run(capsys, *argv):
    code = main(["import", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def ratings(seed=0, systems=("a", "b", "c"), items=25, raters=("r2", "r1", "r3")) -> pd.DataFrame:
    """Padded names, several raters in no order, a few outputs nobody judged, a metric score."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in systems:
        for i in range(items):
            score = round(float(rng.normal()), 4)
            for r in raters if i % 5 else raters[:1]:
                judged = i % 7 != 3
                rows.append(
                    {
                        "seg": f" item {i}" if i % 2 else f"item {i}",
                        "sys": f"{s} " if i % 3 else s,
                        "who": r,
                        "rating": float(rng.integers(1, 6)) if judged else np.nan,
                        "bleu": score,
                    }
                )
    return pd.DataFrame(rows).sample(frac=1.0, random_state=seed).reset_index(drop=True)


COLUMNS = {"item": "seg", "system": "sys", "judgment": "rating", "rater": "who", "scores": ["bleu"]}
OPTIONS = ["--item", "seg", "--system", "sys", "--judgment", "rating", "--rater", "who", "--score", "bleu"]


def through_import(tmp_path, capsys, frame):
    """``{(system, item, prompt): judgments}`` of the canonical files, and the outputs' scores; or
    the error's text after the file name."""
    frame.to_csv(tmp_path / "t.csv", index=False)
    out = tmp_path / "out"
    code, printed, err = run(capsys, tmp_path / "t.csv", "--task", "t", "--out", out, *OPTIONS)
    if code != 0:
        assert not out.exists(), "an import that failed wrote files"
        return err.strip().removeprefix(f"debias import: error: {tmp_path / 't.csv'}")
    task = yaml.safe_load(printed)["tasks"]["t"]
    judgments, scores = {}, {}
    for safe, system in task["systems"].items():
        for line in read_system(out / "systems" / f"{safe}.jsonl.gz", task["prompts"], provided=["bleu"]):
            scores[(system["label"], line.id)] = line.scores["bleu"]
            for prompt, values in line.judgments.items():
                judgments[(system["label"], line.id, task["prompts"][prompt]["label"])] = values
    return judgments, scores


def _joined(ratings):
    """The joined tables the API builds of read ratings, their prompts by task and metrics."""
    from debias.api import _joined as joined_of

    return joined_of(ratings)


def through_api(frame):
    try:
        tables = _joined(debias.read_ratings(frame, **COLUMNS))[0]
    except InputError as error:
        return str(error).removeprefix("table")
    joined = pd.concat(tables, ignore_index=True)
    judged = joined[joined["n_judgments"] > 0]
    judgments = {(r.system, r.id, r.prompt): r.judgments.tolist() for r in judged.itertuples()}
    return judgments, dict(zip(zip(joined["system"], joined["id"]), joined["bleu"]))


def test_the_same_table_gives_the_same_judgments_through_both_routes(tmp_path, capsys):
    frame = ratings()
    imported, api = through_import(tmp_path, capsys, frame), through_api(frame)
    assert imported == api
    judgments, scores = api
    assert ("a", "item 1", "score") in judgments  # names trimmed: " item 1" and "a " are item 1 of a
    assert len(scores) == 3 * 25  # every output, judged or not, with its score
    assert len({(s, i) for s, i, _ in judgments}) == 3 * (25 - 4)  # items 3, 10, 17, 24 unjudged
    first = frame[(frame["sys"].str.strip() == "a") & (frame["seg"].str.strip() == "item 1")]
    assert judgments[("a", "item 1", "score")] == first.sort_values("who")["rating"].tolist()  # rater order


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: pd.concat([f, f.iloc[[0]]]), "judged this item, system and prompt twice"),
        (lambda f: f.assign(rating=f["rating"].astype(object).where(f.index != 7, "x")), "found 'x'"),
        (lambda f: f.assign(seg=f["seg"].where(f.index != 4, None)), "column 'seg' is empty"),
        (lambda f: f.assign(sys=f["sys"].replace({"a": "my sys", "b": "my/sys"})), "would both be named 'my_sys'"),
        (lambda f: f.assign(rating=f["rating"].where(f["sys"].str.strip() != "c", f["rating"] * 20)), "rating scale"),
        (lambda f: f.assign(bleu=f["bleu"].where(f.index != 9, 7.0)), "column 'bleu' differs"),
        (lambda f: f.assign(sys=f["sys"].replace({"a": "x" * 300})), "longer than 100 characters"),
        (lambda f: f.assign(sys=f["sys"].replace({"a": ".."})), "not a usable file name"),
    ],
)
def test_the_same_table_gives_the_same_error_through_both_routes(tmp_path, capsys, change, message):
    frame = change(ratings()).reset_index(drop=True)
    imported, api = through_import(tmp_path, capsys, frame), through_api(frame)
    assert isinstance(imported, str) and imported == api, (imported, api)
    assert message in api


def test_errors_carry_file_row_and_column():
    frame = ratings().reset_index(drop=True).astype({"rating": object})
    frame.loc[11, "rating"] = "five"
    with pytest.raises(InputError) as caught:
        read_evaluation_table(frame, TableColumns(item="seg", judgment="rating", system="sys"))
    assert (caught.value.file, caught.value.row, caught.value.column) == ("table", 13, "rating")


def _table(tmp_path, rows, name="t.csv") -> str:
    path = tmp_path / name
    pd.DataFrame(rows).to_csv(path, index=False) if name.endswith(".csv") else pd.DataFrame(rows).to_parquet(path)
    return str(path)


def _rows(n=6, systems=("a", "b"), **extra):
    return [
        {"item": f"i{i}", "system": s, "score": 1 + (i % 5), "m": 0.1 * i, **extra} for s in systems for i in range(n)
    ]


def _nothing_written(tmp_path):
    leftovers = [p for p in tmp_path.rglob("*") if p.suffix not in (".csv", ".parquet", ".yaml")]
    assert not leftovers, leftovers


BASIC = ["--task", "t", "--item", "item", "--system", "system", "--judgment", "score"]


def test_parquet_null_item_names_the_row_and_null_judgment_is_unjudged(tmp_path, capsys):
    rows = _rows()
    rows[3]["item"] = None
    code, _, err = run(capsys, _table(tmp_path, rows, "t.parquet"), *BASIC, "--score", "m", "--out", tmp_path / "o")
    assert code == 2 and "row 5: column 'item' is empty" in err and "NaN" not in err
    _nothing_written(tmp_path)
    rows = _rows()
    rows[3]["score"] = None
    code, printed, _ = run(capsys, _table(tmp_path, rows, "u.parquet"), *BASIC, "--score", "m", "--out", tmp_path / "o")
    assert code == 0
    lines = [json.loads(line) for line in _lines(tmp_path / "o" / "systems" / "a.jsonl.gz")]
    assert lines[3] == {"id": "i3", "output": "", "judgments": {}, "scores": {"m": rows[3]["m"]}}
    assert not (tmp_path / "o" / "references.jsonl.gz").exists()  # no texts: no references


def _lines(path):
    import gzip

    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return handle.read().splitlines()


def test_a_table_with_neither_text_nor_scores_is_refused(tmp_path, capsys):
    code, _, err = run(
        capsys, _table(tmp_path, _rows()), *BASIC, "--out", tmp_path / "o", "--config", tmp_path / "c.yaml"
    )
    assert code == 2 and "--score" in err and "--output" in err
    _nothing_written(tmp_path)
    assert not (tmp_path / "c.yaml").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--task", ".."], "task name '..' is not a usable file name"),
        (["--task", "t" * 300], "longer than 100 characters"),
        (["--scale", "1", "4"], "row 6: column 'score': judgment 5 is outside the declared scale [1, 4]"),
        (["--scale", "5", "1"], "MIN must be below MAX"),
    ],
)
def test_bad_names_and_scales(tmp_path, capsys, options, message):
    code, _, err = run(capsys, _table(tmp_path, _rows()), *BASIC, "--score", "m", "--out", tmp_path / "o", *options)
    assert code == 2 and message in err, err
    _nothing_written(tmp_path)


@pytest.mark.parametrize(
    ("rows", "options", "message"),
    [
        (_rows(systems=("my sys", "my/sys")), [], "systems 'my sys' and 'my/sys' would both be named 'my_sys'"),
        (
            [{**r, "p": "fluency/score" if k % 2 else "fluency score"} for k, r in enumerate(_rows())],
            ["--prompt", "p"],
            "prompts 'fluency score' and 'fluency/score' would both be named 'fluency_score'",
        ),
        (
            [{**r, "BLEU-4": 0.1, "BLEU 4": 0.2} for r in _rows()],
            ["--score", "BLEU-4", "--score", "BLEU 4"],
            "score columns 'BLEU-4' and 'BLEU 4' would both be named 'BLEU_4'",
        ),
    ],
)
def test_names_that_collide_are_refused(tmp_path, capsys, rows, options, message):
    code, _, err = run(capsys, _table(tmp_path, rows), *BASIC, "--score", "m", "--out", tmp_path / "o", *options)
    assert code == 2 and message in err, err
    _nothing_written(tmp_path)


def test_declared_scale_and_inferred_scale(tmp_path, capsys):
    table = _table(tmp_path, _rows())
    code, printed, err = run(capsys, table, *BASIC, "--score", "m", "--out", tmp_path / "o", "--scale", "0", "10")
    assert code == 0 and "inferred" not in err
    prompt = yaml.safe_load(printed)["tasks"]["t"]["prompts"]["score"]
    assert (prompt["min"], prompt["max"]) == (0.0, 10.0)
    code, printed, err = run(capsys, table, *BASIC, "--score", "m", "--out", tmp_path / "p")
    assert code == 0 and "scale inferred as [1, 5]" in err
    rows = [{**r, "score": r["score"] * 20} if r["system"] == "b" else r for r in _rows(20, ("a", "b", "c"))]
    code, _, err = run(capsys, _table(tmp_path, rows, "odd.csv"), *BASIC, "--score", "m", "--out", tmp_path / "q")
    assert code == 2 and "system 'b'" in err and "--scale MIN MAX" in err


def test_writes_are_all_or_nothing_and_existing_files_need_force(tmp_path, capsys):
    table = _table(tmp_path, _rows())
    out, config = tmp_path / "o", tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({"metrics": {"m": {"label": "M", "provided": True}}}))
    code, _, err = run(capsys, table, *BASIC, "--score", "m", "--out", out, "--config", config)
    assert code == 2 and "metrics already has ['m']" in err  # a refused config ...
    assert not out.exists()  # ... leaves no data file written
    assert run(capsys, table, *BASIC, "--score", "m", "--out", out)[0] == 0
    before = (out / "systems" / "a.jsonl.gz").read_bytes()
    rows = [{**r, "m": r["m"] + 1} for r in _rows()]
    again = _table(tmp_path, rows, "again.csv")
    code, _, err = run(capsys, again, *BASIC, "--score", "m", "--out", out)
    assert code == 2 and "--force" in err and str(out / "references.jsonl.gz") not in err
    assert (out / "systems" / "a.jsonl.gz").read_bytes() == before
    assert run(capsys, again, *BASIC, "--score", "m", "--out", out, "--force")[0] == 0
    assert (out / "systems" / "a.jsonl.gz").read_bytes() != before


def test_out_naming_a_file_and_read_only_places(tmp_path, capsys):
    table = _table(tmp_path, _rows())
    (tmp_path / "file").write_text("")
    code, _, err = run(capsys, table, *BASIC, "--score", "m", "--out", tmp_path / "file")
    assert code == 2 and "is a file, not a folder" in err
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        code, _, err = run(capsys, table, *BASIC, "--score", "m", "--out", locked / "o")
        assert code == 2 and "read-only" in err and not (locked / "o").exists()
    finally:
        locked.chmod(0o755)
    config = tmp_path / "c.yaml"
    config.write_text("tasks: {}\n")
    os.chmod(config, stat.S_IRUSR)
    code, _, err = run(capsys, table, *BASIC, "--score", "m", "--out", tmp_path / "o2", "--config", config)
    assert code == 2 and "read-only" in err and not (tmp_path / "o2").exists()
    assert config.read_text() == "tasks: {}\n"


def test_the_api_refuses_what_it_cannot_read():
    frame = pd.DataFrame(_rows())
    with pytest.raises(InputError, match="expected a pandas DataFrame.*found list"):
        debias.estimate(frame.to_dict("records"), item="item", judgment="score")
    one = debias.estimate(frame, item="item", system="system", judgment="score", scores="m")
    listed = debias.estimate(frame, item="item", system="system", judgment="score", scores=["m"])
    pd.testing.assert_frame_equal(one, listed)  # a str is one column name
    with pytest.raises(InputError, match="row 4: column 'item' is empty"):
        debias.estimate(frame.assign(item=frame["item"].where(frame.index != 2)), item="item", judgment="score")
    for settings, key in (({"target_widths": [-1.0]}, "plan.target_widths"), ({"budget": 3}, "budget")):
        with pytest.raises(InputError, match=key):
            debias.plan(frame, item="item", system="system", judgment="score", settings=settings)
    with pytest.raises(InputError, match="min_judged_items"):
        debias.compare(frame, item="item", system="system", judgment="score", min_items=1)
    with pytest.raises(ValueError, match="rho"):
        debias.data_efficiency(2, 0.5)
    assert float(debias.data_efficiency(0.5, 0.25)) == pytest.approx(1.25)


def test_the_api_reads_unjudged_rows_as_the_population():
    frame = pd.DataFrame(_rows(40))
    frame["score"] = frame["score"].astype(float)
    unjudged = frame.assign(score=np.nan, item="x" + frame["item"])
    both = debias.estimate(pd.concat([frame, unjudged]), item="item", system="system", judgment="score", scores=["m"])
    given = debias.estimate(
        frame, item="item", system="system", judgment="score", scores=["m"], population=unjudged.drop(columns="score")
    )
    pd.testing.assert_frame_equal(both, given)
    assert (both["n_outputs"] == 80).all() and (both["n_judged"] == 40).all()


def test_a_config_that_cannot_be_written_takes_the_data_files_back(tmp_path, capsys, monkeypatch):
    """The data files move into place first; when the config then cannot be replaced, the files
    moved are taken back (new ones removed, replaced ones restored)."""
    import debias.io.importer as importer

    table, out, config = _table(tmp_path, _rows()), tmp_path / "o", tmp_path / "c.yaml"
    replace = os.replace

    def failing(source, target):
        if str(target) == str(config):
            raise PermissionError(13, "Permission denied", str(target))
        return replace(source, target)

    monkeypatch.setattr(importer.os, "replace", failing)
    code, _, err = run(capsys, table, *BASIC, "--score", "m", "--out", out, "--config", config)
    assert code == 2 and "Permission denied" in err
    assert not out.exists() and not config.exists()
    monkeypatch.setattr(importer.os, "replace", replace)
    assert run(capsys, table, *BASIC, "--score", "m", "--out", out)[0] == 0
    before = {p: p.read_bytes() for p in out.rglob("*.gz")}
    monkeypatch.setattr(importer.os, "replace", failing)
    again = _table(tmp_path, [{**r, "m": r["m"] + 1} for r in _rows()], "again.csv")
    code, _, err = run(capsys, again, *BASIC, "--score", "m", "--out", out, "--config", config, "--force")
    assert code == 2 and {p: p.read_bytes() for p in out.rglob("*.gz")} == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging folder left


def test_an_empty_prompt_or_rater_on_an_unjudged_first_row_codes_the_other_names_right():
    """An unjudged row may leave its prompt and rater empty; the names after it keep their own
    codes (the empty name is no name), so every judgment stays with its prompt and rater."""
    frame = pd.DataFrame(
        {
            "seg": ["a", "a", "b", "b", "c", "c"],
            "p": ["", "p1", "p2", "p1", "p2", "p1"],
            "who": ["", "r2", "r2", "r1", "r1", "r1"],
            "score": [np.nan, 3.0, 4.0, 5.0, 2.0, 1.0],
        }
    )
    table = read_evaluation_table(frame, TableColumns(item="seg", judgment="score", prompt="p", rater="who"))
    assert table.prompts == ("p1", "p2")
    by_cell = {(table.output_item[o], table.prompts[p]): v for (o, p), v in table.judgment_lists().items()}
    assert by_cell == {
        ("a", "p1"): [3.0],
        ("b", "p2"): [4.0],
        ("b", "p1"): [5.0],
        ("c", "p2"): [2.0],
        ("c", "p1"): [1.0],
    }
    with pytest.raises(InputError) as error:
        read_evaluation_table(
            frame.assign(p=["", "p1", "p2", "p1", "p2", "p2"], who=["", "r2", "r2", "r1", " r1", "r1 "]),
            TableColumns("seg", "score", prompt="p", rater="who"),
        )
    assert (error.value.row, error.value.message) == (
        7,
        "rater 'r1' judged this item, system and prompt twice (first on row 6)",
    )


def test_the_api_hands_the_judgments_on_as_numbers_not_text(tmp_path):
    """The joined tables the API builds hold each output's judgments as a float array (no JSON
    text in memory); written to a file they are the JSON lists the workflow reads, and the
    estimates from the frames and from the files are the same to the last bit, for judgments
    such as 0.1 + 0.2 that are not short decimals."""
    from debias.tables.estimates import system_estimates_table
    from debias.tables.joined import read_joined, write_joined

    frame = ratings()
    frame["rating"] = frame["rating"] + 0.1 + 0.2 / 3
    tables, by_task, _ = _joined(debias.read_ratings(frame, **COLUMNS))
    prompts = by_task["evaluation"]
    for table in tables:
        cells = table["judgments"].to_list()
        assert all(isinstance(cell, np.ndarray) and cell.dtype == float for cell in cells)
        assert [len(cell) for cell in cells] == table["n_judgments"].tolist()
    judged = pd.concat(tables).query("n_judgments > 0")
    assert judged["judgments"].map(len).sum() == frame["rating"].notna().sum()
    read_back = []
    for k, table in enumerate(tables):
        write_joined(table, tmp_path / f"{k}.csv")
        read_back.append(read_joined(tmp_path / f"{k}.csv"))
        texts = read_back[-1]["judgments"]
        assert texts.tolist() == [json.dumps(cell.tolist()) for cell in table["judgments"]]
    in_memory = system_estimates_table(tables, {"evaluation": prompts}, ["bleu"], level=0.9)
    from_files = system_estimates_table(read_back, {"evaluation": prompts}, ["bleu"], level=0.9)
    pd.testing.assert_frame_equal(in_memory, from_files, check_exact=True)
    api = debias.estimate(frame, item="seg", system="sys", judgment="rating", rater="who", scores=["bleu"], level=0.9)
    pd.testing.assert_frame_equal(api, in_memory, check_exact=True)


def test_names_in_other_scripts_stay_distinct_and_usable_as_keys():
    from debias.io.reader import metric_name, safe_name

    names = [metric_name(n) for n in ("BLEU Ξ§", "BLEU Ξε", "評価")]
    assert len(set(names)) == 3 and all(re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", n) for n in names)
    assert safe_name("my sys") == "my_sys" and safe_name("מערכת") != safe_name("نظام")
