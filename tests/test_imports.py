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
        "import sys, debias.stats.estimators, debias.stats.coverage, debias.stats.paired_coverage, "
        "debias.stats.plan_check, debias.stats.bootstrap, debias.data; print('pandas' in sys.modules)"
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
    assert layer_of("debias.stats.estimators") < layer_of("debias.tables.joined") < layer_of("debias.cli.analyse")
    assert layer_of("debias.somewhere_new") is None


def test_at_most_four_modules_loose_beside_the_subpackages():
    loose = sorted(p.name for p in (SRC / "debias").glob("*.py"))
    assert len(loose) <= 4, f"loose modules at src/debias/: {loose}"
