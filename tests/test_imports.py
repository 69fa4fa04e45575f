"""The package's shape: the statistics core needs no pandas, and no module imports itself back."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGES = ("debias",)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for package in PACKAGES for p in (SRC / package).rglob("*.py")}


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports anywhere in its text (functions included)."""
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        targets = set()
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + [base]).strip(".")
                candidates = [base] + [f"{base}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                candidates = [alias.name for alias in node.names]
            else:
                continue
            for candidate in candidates:
                while candidate and candidate not in modules:
                    candidate = candidate.rpartition(".")[0]
                if candidate and candidate != name and candidate not in PACKAGES:
                    targets.add(candidate)
        graph[name] = targets
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return stack[stack.index(target) :] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_circle_in_the_package():
    assert find_cycle(import_graph()) is None


def test_the_cycle_finder_finds_a_circle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_statistics_core_imports_no_pandas_and_no_file_format():
    graph = import_graph()
    core = [name for name in graph if name.startswith("debias.stats")]
    assert core, "no statistics core found"
    for name in core:
        outside = {t for t in graph[name] if not t.startswith("debias.stats") and t != "debias.data"}
        assert not outside, f"{name} imports {outside}"
    code = (
        "import sys, debias.stats.ratings.estimators, debias.stats.checks.coverage, "
        "debias.stats.checks.paired_coverage, "
        "debias.stats.checks.plan_check, debias.stats.checks.bootstrap, debias.data; print('pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


#: The package's layers, lowest first: a module may import from its own layer and the ones below.
LAYERS = (
    # The data model; which extra installs an optional package; where the shipped workflow is.
    ("debias.data", "debias.distribution"),
    ("debias.stats",),
    ("debias.io",),
    ("debias.config",),
    ("debias.metrics",),
    ("debias.tables",),
    ("debias.plots", "debias.report"),
    ("debias.pipeline",),
    ("debias.api",),
    ("debias.cli", "debias.__main__"),
)


def layer_of(module: str) -> int | None:
    for index, names in enumerate(LAYERS):
        if any(module == name or module.startswith(name + ".") for name in names):
            return index
    return None


def test_every_module_has_a_layer_and_imports_none_above_it():
    graph = import_graph()
    unplaced = sorted(name for name in graph if name != "debias" and layer_of(name) is None)
    assert not unplaced, f"modules outside every layer: {unplaced}"
    upward = sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        if name != "debias"
        for target in targets
        if layer_of(target) > layer_of(name)
    )
    assert not upward, f"imports from a layer above: {upward}"


def test_the_layer_check_sees_an_upward_import():
    assert (
        layer_of("debias.stats.ratings.estimators") < layer_of("debias.tables.joined") < layer_of("debias.cli.analyse")
    )
    assert layer_of("debias.somewhere_new") is None


def test_at_most_four_modules_loose_beside_the_subpackages():
    loose = sorted(p.name for p in (SRC / "debias").glob("*.py"))
    assert len(loose) <= 4, f"loose modules at src/debias/: {loose}"


#: The folders of the statistics: the contract every shape shares, one folder per shape of data,
#: and the simulation checks.
COMMON, SHAPES, CHECKS = (
    "debias.stats.common",
    ("debias.stats.ratings", "debias.stats.preferences"),
    "debias.stats.checks",
)


def _folder(module: str) -> str | None:
    for folder in (COMMON, *SHAPES, CHECKS):
        if module == folder or module.startswith(folder + "."):
            return folder
    return None


def test_every_statistics_module_lives_in_a_concept_folder():
    loose = sorted(n for n in import_graph() if n.startswith("debias.stats.") and _folder(n) is None)
    assert not loose, f"statistics modules outside common/, ratings/, preferences/, checks/: {loose}"


def test_the_shapes_never_import_each_other_and_the_contract_imports_no_shape():
    graph = import_graph()
    wrong = []
    for name, targets in graph.items():
        home = _folder(name)
        if home is None:
            continue
        for target in targets:
            there = _folder(target)
            if home in SHAPES and there in SHAPES and there != home:
                wrong.append(f"{name} -> {target} (one shape imports another)")
            if home == COMMON and there not in (None, COMMON):
                wrong.append(f"{name} -> {target} (the contract imports {there})")
            if home in (COMMON, *SHAPES) and there == CHECKS:
                wrong.append(f"{name} -> {target} (the estimators import a simulation check)")
    assert not wrong, "\n".join(wrong)


def test_nothing_above_the_statistics_reaches_into_a_shapes_modules():
    graph = import_graph()
    wrong = sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        if not name.startswith("debias.stats")
        for target in targets
        if any(target.startswith(shape + ".") for shape in SHAPES)
    )
    assert not wrong, "import the shape's package (its public names), not its modules:\n" + "\n".join(wrong)


def test_the_guards_see_a_crossing():
    assert _folder("debias.stats.ratings.estimators") in SHAPES
    assert _folder("debias.stats.common.joint") == COMMON
    assert _folder("debias.stats.loose") is None


def test_a_shapes_public_names_resolve_and_none_is_shadowed_by_a_module():
    import importlib
    import pkgutil

    for shape in SHAPES:
        package = importlib.import_module(shape)
        modules = {m.name for m in pkgutil.iter_modules(package.__path__)}
        shadowed = sorted(set(package.__all__) & modules)
        assert not shadowed, f"{shape}: public names that are also module names: {shadowed}"
        for name in package.__all__:
            assert getattr(package, name) is not None
        assert sorted(dir(package)) == sorted(package.__all__)
