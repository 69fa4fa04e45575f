"""config/README.md's key table documents every key the configuration schema accepts."""

import re

import yaml
from conftest import REPO


def schema_keys(node, path=()):
    """Dotted paths of every key the schema accepts; ``<>`` stands for a name the user chooses."""
    branches = [node] + [b for b in node.get("anyOf", []) if isinstance(b, dict)]
    found = []
    for branch in branches:
        for name, child in (branch.get("properties") or {}).items():
            found += schema_keys(child, (*path, name)) or [".".join((*path, name))]
        extra = branch.get("additionalProperties")
        if isinstance(extra, dict):
            found += schema_keys(extra, (*path, "<>")) or [".".join((*path, "<>"))]
        items = branch.get("items")
        if isinstance(items, dict) and items.get("properties"):
            found += schema_keys(items, path)
    return found


def readme_rows():
    """(key cells, type cell) of every row of the key table, names in <...> written as <>."""
    text = (REPO / "config/README.md").read_text(encoding="utf-8")
    table = text.split("## Keys", 1)[1].split("\n\n", 2)[1]
    rows = []
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        keys = [re.sub(r"<[^>]*>", "<>", k.strip("` ")) for k in cells[0].split(",")]
        rows.append((keys, cells[1]))
    return rows


def documented(path, rows):
    for keys, kind in rows:
        for key in keys:
            if key == path:
                return True
            if path.startswith(key + "."):
                rest = [part for part in path[len(key) + 1 :].split(".") if part != "<>"]
                if all(re.search(rf"\b{re.escape(part)}\b", kind) for part in rest):
                    return True
    return False


def test_every_schema_key_is_in_the_readme_table():
    schema = yaml.safe_load((REPO / "src/debias/config/schema.yaml").read_text())
    rows = readme_rows()
    keys = schema_keys(schema)
    assert "tasks.<>.prompts.<>.null_as" in keys and "estimates.ppi" in keys
    missing = [key for key in keys if not documented(key, rows)]
    assert not missing, f"config/README.md does not document {missing}"
