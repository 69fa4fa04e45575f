"""Checks of a YAML file's text before its values are read, in one line each: aliases that would
expand to millions of values, nesting deeper than a configuration's, and a key given twice (YAML
keeps the last without a word). Used by the configuration's reader, ``debias run`` and the
imports that add a task to a configuration."""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "DEEPEST_NESTING",
    "MOST_EXPANDED_VALUES",
    "alias_expansion_problem",
    "nesting_problem",
    "repeated_key_problem",
    "yaml_problem",
]


#: A configuration whose aliases (``*name``) would expand to more values than this is refused:
#: a few hundred bytes of nested aliases can stand for 10^8 values.
MOST_EXPANDED_VALUES = 1_000_000


def yaml_problem(path: str | Path, *, named: bool = True) -> str | None:
    """What is wrong with a YAML configuration's text before its values are read: nesting deeper
    than :data:`DEEPEST_NESTING` (:func:`nesting_problem`), aliases that expand beyond
    :data:`MOST_EXPANDED_VALUES` values (:func:`alias_expansion_problem`), or a key given twice
    (:func:`repeated_key_problem`); ``None`` when none of these."""
    return (
        nesting_problem(path, named=named)
        or alias_expansion_problem(path, named=named)
        or repeated_key_problem(path, named=named)
    )


#: The deepest nesting of mappings and lists read in a configuration (its own keys nest six deep):
#: Snakemake's reader recurses once a level, and a few kilobytes of brackets exhaust Python's stack.
DEEPEST_NESTING = 64


def nesting_problem(path: str | Path, *, named: bool = True) -> str | None:
    """Where a YAML file nests mappings or lists deeper than :data:`DEEPEST_NESTING` levels:
    ``"<file>: line <n>: ..."`` (without the file when not ``named``); ``None`` otherwise."""
    import yaml

    root = _composed(path)
    stack = [(root, 1)] if root is not None else []
    seen: set[int] = set()
    while stack:
        node, depth = stack.pop()
        if id(node) in seen or not isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
            continue
        seen.add(id(node))
        if depth > DEEPEST_NESTING:
            where = f"{path}: line {node.start_mark.line + 1}" if named else f"line {node.start_mark.line + 1}"
            return f"{where}: nested over {DEEPEST_NESTING} levels deep; a configuration's keys nest a few levels"
        children = [c for pair in node.value for c in pair] if isinstance(node, yaml.MappingNode) else node.value
        stack.extend((child, depth + 1) for child in children)
    return None


def _composed(path: str | Path):
    """The YAML node graph of ``path`` (aliases still shared), or ``None`` when it cannot be read."""
    import yaml

    try:
        return yaml.compose(
            Path(path).read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        )
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return None


def alias_expansion_problem(path: str | Path, *, named: bool = True) -> str | None:
    """Where the values of a YAML file, every alias expanded, would number more than
    :data:`MOST_EXPANDED_VALUES`: ``"<file>: ..."`` (without the file when not ``named``);
    ``None`` otherwise. Counted on the node graph, each node once, so the count itself is quick."""
    import yaml

    root = _composed(path)
    if root is None:
        return None
    size: dict[int, int] = {}
    order, stack = [], [root]
    while stack:  # every node once, children before parents in ``order`` reversed
        node = stack.pop()
        if id(node) in size:
            continue
        size[id(node)] = 1
        order.append(node)
        if isinstance(node, yaml.MappingNode):
            stack.extend(child for pair in node.value for child in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    for node in reversed(order):
        if isinstance(node, yaml.MappingNode):
            children = [child for pair in node.value for child in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = node.value
        else:
            continue
        size[id(node)] = min(1 + sum(size[id(child)] for child in children), MOST_EXPANDED_VALUES + 1)
    if size[id(root)] <= MOST_EXPANDED_VALUES:
        return None
    where = f"{path}: " if named else ""
    return (
        f"{where}its aliases (*name) expand to over {MOST_EXPANDED_VALUES:,} values: write the values out,"
        " or alias fewer levels"
    )


def repeated_key_problem(path: str | Path, *, named: bool = True) -> str | None:
    """Where a YAML file gives one key twice in a mapping, ``"<file>: line <n>: ..."`` (without
    the file when not ``named``); ``None`` when it does not (or it cannot be read: other checks
    say why). YAML keeps the last of two
    equal keys without a word, and Python counts ``1``, ``1.0`` and ``true`` as one key: a
    verdict mapping ``{1: a, 1.0: b}`` would silently map 1 to b."""
    import yaml

    root = _composed(path)
    loader = yaml.SafeLoader("")
    stack = [root] if root is not None else []
    visited: set[int] = set()  # a node reached again through an alias is checked once
    while stack:
        node = stack.pop()
        if id(node) in visited:
            continue
        visited.add(id(node))
        if isinstance(node, yaml.MappingNode):
            seen = {}
            for key_node, value_node in node.value:
                stack.append(value_node)
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                    continue  # a merge key (<<) brings another mapping's keys: YAML's own rule
                try:
                    key = loader.construct_object(key_node)
                except yaml.YAMLError:
                    continue
                try:
                    first = seen.get(key)
                except TypeError:
                    continue
                if first is not None:
                    line = key_node.start_mark.line + 1
                    where = f"{path}: line {line}" if named else f"line {line}"
                    return (
                        f"{where}: key {key_node.value!r} repeats the key {first.value!r} of line"
                        f" {first.start_mark.line + 1} (YAML would keep only the last); give each key once"
                    )
                seen[key] = key_node
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return None
