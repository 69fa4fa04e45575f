"""The one vocabulary of estimator names: what each name means, and that only the statistics
core reads a name (everything else asks :func:`debias.stats.common.vocabulary.describe`)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from debias.stats.common.vocabulary import (
    ESTIMAND_LABELS,
    FAMILIES,
    TIES,
    UnknownEstimator,
    baseline,
    check_ties,
    describe,
    estimand_axis,
    estimator_name,
    is_biased,
    is_control_variate,
    is_people_only,
)

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("name", "people_only", "biased", "proxy", "combined", "control_variate"),
    [
        ("mean", True, False, None, False, False),
        ("human", True, False, None, False, False),
        ("cv:bleu", False, False, "bleu", False, True),
        ("cv:combined", False, False, None, True, True),
        ("ppi++:rouge_l", False, False, "rouge_l", False, False),
        ("ppi++fpc:rouge_l", False, False, "rouge_l", False, False),
        ("judge:gpt-4", False, True, "gpt-4", False, False),
        ("ppi++:combined", False, False, None, True, False),
        ("judge:a:b", False, True, "a:b", False, False),  # a proxy name may hold a colon
    ],
)
def test_every_name_is_described(name, people_only, biased, proxy, combined, control_variate):
    info = describe(name)
    assert (info.people_only, info.biased, info.proxy, info.combined) == (people_only, biased, proxy, combined)
    assert info.control_variate is control_variate
    assert (is_people_only(name), is_biased(name), is_control_variate(name)) == (people_only, biased, control_variate)
    assert info.name == name


@pytest.mark.parametrize("name", ["", "cv", "cv:", "judge", "bogus", "mean:bleu", "human:x", ":bleu"])
def test_names_no_family_writes_are_refused(name):
    with pytest.raises(UnknownEstimator, match="estimator"):
        describe(name)
    assert issubclass(UnknownEstimator, ValueError)


def test_names_are_written_and_read_back():
    for family in FAMILIES.values():
        name = estimator_name(family.family, "m1" if family.per_proxy else None)
        assert describe(name).family is family
        if family.combined:
            assert describe(estimator_name(family.family)).combined
    assert estimator_name("cv", "bleu") == "cv:bleu" and estimator_name("ppi++") == "ppi++:combined"
    with pytest.raises(UnknownEstimator):
        estimator_name("mean", "bleu")
    with pytest.raises(UnknownEstimator):
        estimator_name("judge")


def test_each_shape_has_one_people_only_baseline():
    assert baseline("ratings") == "mean" and baseline("preferences") == "human"
    with pytest.raises(ValueError):
        baseline("rankings")


def test_labels_name_the_proxy_and_say_when_every_proxy_is_used():
    assert describe("judge:gpt4").label("GPT-4") == "judge alone, GPT-4"
    assert describe("ppi++:combined").label(all_proxies="all judges") == "PPI++, all judges"
    assert describe("cv:bleu").label() == "control variate, bleu"
    assert describe("human").label("ignored") == "people alone"


# Nothing outside the statistics core parses an estimator name -------------------------------------

#: Family prefixes of per-proxy names ("cv:", "judge:", ...).
PREFIXES = tuple(f"{f.family}:" for f in FAMILIES.values() if f.per_proxy)
#: Names that are a whole estimator without a proxy.
WHOLE = {f.family for f in FAMILIES.values() if not f.per_proxy}


def _estimator_literal(value) -> bool:
    if not isinstance(value, str):
        return False
    return value.startswith(PREFIXES)


def name_parsing(source: str) -> list[str]:
    """Places in ``source`` that read an estimator name by its spelling: a comparison with a
    per-proxy name (``== "cv:combined"``), a comparison of an ``estimator`` with a whole name
    (``estimator == "mean"``), ``startswith`` of a family prefix, splitting at ``":"``, and
    names put together by hand (``f"cv:{metric}"``, ``"ppi++fpc" + ...``)."""
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            constants = []
            for side in sides:
                if isinstance(side, ast.Constant):
                    constants.append(side.value)
                elif isinstance(side, ast.Tuple | ast.List | ast.Set):
                    constants += [e.value for e in side.elts if isinstance(e, ast.Constant)]
            if any(_estimator_literal(c) for c in constants):
                found.append(f"{where}: comparison with a per-proxy estimator name")
            whole = any(isinstance(c, str) and c in WHOLE for c in constants)
            if whole and "estimator" in (ast.get_source_segment(source, node) or ""):
                found.append(f"{where}: an estimator compared with a whole name")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            args = [a.value for a in node.args if isinstance(a, ast.Constant)]
            if node.func.attr in ("startswith", "endswith") and any(
                isinstance(a, str) and (a.startswith(PREFIXES) or a.rstrip(":") in FAMILIES) for a in args
            ):
                found.append(f"{where}: {node.func.attr} of an estimator family")
            if node.func.attr in ("partition", "split", "rpartition", "rsplit") and ":" in args:
                found.append(f"{where}: {node.func.attr} at ':'")
        elif isinstance(node, ast.JoinedStr) and node.values:
            head = node.values[0]
            if isinstance(head, ast.Constant) and isinstance(head.value, str) and head.value.startswith(PREFIXES):
                found.append(f"{where}: an estimator name put together by hand")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            for side in (node.left, node.right):
                if (
                    isinstance(side, ast.Constant)
                    and isinstance(side.value, str)
                    and side.value.rstrip(":") in FAMILIES
                ):
                    found.append(f"{where}: an estimator name put together by hand")
    return found


def test_nothing_outside_the_statistics_core_parses_an_estimator_name():
    files = [p for p in (ROOT / "src" / "debias").rglob("*.py") if "stats" not in p.relative_to(ROOT / "src").parts]
    files += list((ROOT / "workflow").rglob("*.py")) + list((ROOT / "workflow").rglob("*.smk"))
    assert len(files) > 50
    problems = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        try:
            ast.parse(text)
        except SyntaxError:  # Snakemake's own syntax: its Python parts are checked line by line
            lines = [line.strip() for line in text.splitlines()]
            text = "\n".join(line for line in lines if line and not line.endswith(":") and "(" in line)
            try:
                ast.parse(text)
            except SyntaxError:
                continue
        problems += [f"{path.relative_to(ROOT)} {p}" for p in name_parsing(text)]
    assert not problems, "estimator names read outside debias.stats:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "code",
    [
        'rows[rows["estimator"] == "mean"]',
        'estimator != "human"',
        'x = name == "cv:combined"',
        'if estimator in ("mean", "ppi++:combined"): pass',
        'rows["estimator"].str.startswith("cv:")',
        'name.startswith("judge:")',
        'kind, _, proxy = estimator.partition(":")',
        'metric = estimator.split(":", 1)[1]',
        'name = f"cv:{best}"',
        'other = "ppi++fpc" + name[5:]',
    ],
)
def test_the_name_parsing_check_sees_each_kind(code):
    assert name_parsing(code), code


@pytest.mark.parametrize(
    "code",
    [
        "describe(name).people_only",
        'rows[rows["estimator"].map(is_people_only)]',
        'condition != "mean"',  # a curve's condition, not an estimator
        'frame.agg("mean")',
        'estimator_name("cv", best)',
    ],
)
def test_the_name_parsing_check_lets_the_vocabulary_through(code):
    assert not name_parsing(code), code


# The preference kernels branch on the vocabulary's words, not on a kind of their own --------------

#: The private kinds the preference estimators once turned a name into (people alone, a judge
#: alone, people with judges): a kernel asks the name's description instead
#: (``info.people_only``, ``info.proxy_only``, ``info.uses_proxies``, ...).
PRIVATE_KINDS = {"human", "judge", "ppi"}


def _kind_literals(node) -> list[str]:
    """The private kinds written in ``node``: a constant, in a tuple or list, or either branch of
    a conditional expression."""
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, str) and node.value in PRIVATE_KINDS else []
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [k for e in node.elts for k in _kind_literals(e)]
    if isinstance(node, ast.IfExp):
        return _kind_literals(node.body) + _kind_literals(node.orelse)
    return []


def private_kinds(source: str) -> list[str]:
    """Places in ``source`` that compare something with a private kind (``kind == "judge"``,
    ``kind in ("human", "ppi")``) or return one (``return "ppi", columns``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Compare):
            kinds = [k for side in (node.left, *node.comparators) for k in _kind_literals(side)]
            if kinds:
                found.append(f"{where}: compared with the kind {kinds[0]!r}")
        elif isinstance(node, ast.Return) and node.value is not None:
            kinds = _kind_literals(node.value)
            if kinds:
                found.append(f"{where}: returns the kind {kinds[0]!r}")
    return found


def test_the_preference_kernels_branch_on_the_vocabulary_not_on_a_kind_of_their_own():
    folder = ROOT / "src" / "debias" / "stats" / "preferences"
    files = sorted(folder.glob("*.py"))
    assert {p.stem for p in files} >= {"battles", "win_rate", "bradley_terry", "estimands", "agreement"}
    problems = [
        f"{path.relative_to(ROOT)} {p}" for path in files for p in private_kinds(path.read_text(encoding="utf-8"))
    ]
    assert not problems, "private estimator kinds in debias.stats.preferences:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "code",
    [
        'if kind == "judge": pass',
        'x = 0 if kind != "ppi" else 1',
        'ok = kind in ("human", "ppi")',
        'def f(): return "human", []',
        'def f(): return ("judge" if info.proxy_only else "ppi"), [0]',
    ],
)
def test_the_private_kind_check_sees_each_form(code):
    assert private_kinds(code), code


@pytest.mark.parametrize(
    "code",
    [
        "if info.proxy_only: pass",
        'def f(pairs, estimator="human"): return estimator_name("human")',
        'def f(self, j): return self._memo(("judge", j), build)',
        'if question.kind == "better": pass',
    ],
)
def test_the_private_kind_check_lets_the_vocabulary_through(code):
    assert not private_kinds(code), code


# Estimand labels and the tie rule: one home, in the vocabulary -------------------------------------


def test_every_estimand_has_a_label_and_an_axis():
    from debias.stats.preferences import ESTIMANDS

    assert set(ESTIMANDS) | {"mean"} == set(ESTIMAND_LABELS)
    assert estimand_axis("win_rate") == "win rate (ties counted as half a win)"
    assert estimand_axis("win_rate", "drop") == "win rate (ties left out of the win rates)"
    assert estimand_axis("strength") == "Bradley-Terry strength (log-odds, mean 0)"
    assert estimand_axis("mean") == ESTIMAND_LABELS["mean"] == "mean human score"
    assert estimand_axis("other") == "other"


@pytest.mark.parametrize("ties", ["third", "", None, ["half"], 0.5])
def test_only_the_named_tie_rules_pass(ties):
    with pytest.raises(ValueError, match="ties must be 'half' .* or 'drop'"):
        check_ties(ties)


def test_the_schema_allows_the_tie_rules_of_the_vocabulary_the_first_by_default():
    from debias.config.settings import schema
    from debias.stats.common.vocabulary import TIE_MODELS

    spec = schema()["properties"]["preferences"]["additionalProperties"]["properties"]["ties"]
    assert spec["enum"] == list(TIES) + list(TIE_MODELS)  # the rules, then the models of ties
    assert spec["default"] == next(iter(TIES))
    for rule in TIES:
        check_ties(rule)


def vocabulary_copies(source: str) -> list[str]:
    """Places in ``source`` that write down the vocabulary's words themselves: the tie rules
    listed (``("half", "drop")``, ``ties not in ...``) or estimands written for a reader by hand
    (``{"win_rate": "win rate ..."}``, ``estimand.replace("_", " ")``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            values = {e.value for e in node.elts if isinstance(e, ast.Constant)}
            if set(TIES) <= values:
                found.append(f"{where}: the tie rules listed")
        elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == "ties":
            if any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
                found.append(f"{where}: the tie rule checked by hand")
        elif isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            words = [v for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
            if any(k in ESTIMAND_LABELS and k != "mean" for k in keys) and words:  # "mean" is many things
                found.append(f"{where}: estimands written for a reader")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "replace":
            if [a.value for a in node.args if isinstance(a, ast.Constant)] == ["_", " "]:
                found.append(f"{where}: a name written for a reader by hand")
    return found


def test_the_tie_rules_and_estimand_labels_are_written_only_in_the_vocabulary():
    home = ROOT / "src" / "debias" / "stats" / "common" / "vocabulary.py"
    files = [p for p in (ROOT / "src" / "debias").rglob("*.py") if p != home]
    problems = [
        f"{path.relative_to(ROOT)} {p}" for path in files for p in vocabulary_copies(path.read_text(encoding="utf-8"))
    ]
    assert not problems, "copies of the vocabulary's words:\n" + "\n".join(problems)
    assert vocabulary_copies(home.read_text(encoding="utf-8"))  # the check sees the home itself


@pytest.mark.parametrize(
    "code",
    [
        'TIES = ("half", "drop")',
        'p.add_argument("--ties", choices=["half", "drop"])',
        "if ties not in RULES: raise ValueError(ties)",
        '_AXIS = {"win_rate": "win rate (a tie is half a win)", "strength": "strength"}',
        'title = estimand.replace("_", " ")',
    ],
)
def test_the_copy_check_sees_each_form(code):
    assert vocabulary_copies(code), code


@pytest.mark.parametrize(
    "code",
    [
        'p.add_argument("--ties", choices=tuple(TIES))',
        'if ties == "half": pass',
        'ESTIMANDS = {"win_rate": win_rate_estimate, "strength": strength_estimate}',
        'axis = estimand_axis("strength")',
    ],
)
def test_the_copy_check_lets_the_vocabulary_through(code):
    assert not vocabulary_copies(code), code
