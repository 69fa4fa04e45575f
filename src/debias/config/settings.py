"""The configuration: checked against the workflow's schema, defaults filled in from it.

The schema (``schema.yaml`` beside this module, shipped with the package) is the one home of every default: the
workflow validates ``config/config.yaml`` against it, and :func:`load_config` and
:func:`with_defaults` give the ``debias`` command and the Python API the same checks and the same
defaults. :func:`section_defaults` reads one section's defaults (``estimates``, ``compare``,
``plan``, ...) off the schema.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from debias.io.yaml_checks import repeated_key_problem, yaml_problem

__all__ = [
    "SCHEMA_PATH",
    "ConfigError",
    "default",
    "key_rules",
    "load_config",
    "repeated_key_problem",
    "schema",
    "schema_problem",
    "section_defaults",
    "with_defaults",
    "yaml_problem",
]

#: The configuration schema, shipped with the package and shared with the workflow.
SCHEMA_PATH = Path(__file__).resolve().with_name("schema.yaml")
#: The base seed of every random draw when nothing sets ``bootstrap.seed``: what ``debias import``
#: writes into a new configuration and what the Python API and the commands use by default, so that
#: a table gives the same numbers through each of them.
DEFAULT_SEED = 20180715


class ConfigError(ValueError):
    """A configuration that cannot be used: names the file or key and what was expected."""


@cache
def schema() -> dict:
    """The configuration schema, parsed once."""
    import yaml

    return yaml.safe_load(SCHEMA_PATH.read_text(encoding="utf-8"))


def _object_branch(spec: Mapping) -> Mapping | None:
    """The spec itself when it describes an object, else its ``anyOf`` branch that does."""
    if spec.get("properties"):
        return spec
    for branch in spec.get("anyOf") or ():
        if branch.get("type") == "object" and branch.get("properties"):
            return branch
    return None


def _defaults(node: Mapping) -> dict:
    out = {}
    for key, spec in (node.get("properties") or {}).items():
        if "default" in spec:
            out[key] = copy.deepcopy(spec["default"])
        elif (branch := _object_branch(spec)) is not None:
            nested = _defaults(branch)
            if nested:
                out[key] = nested
    return out


def section_defaults(section: str) -> dict:
    """The defaults the schema gives the keys of a top-level section, e.g. ``"estimates"``; a
    key that is itself a section (``plan.check``) gets its own defaults as a mapping."""
    return _defaults(schema()["properties"][section])


def default(key: str):
    """The schema's default of a top-level key, e.g. ``"min_judged_items"``."""
    return copy.deepcopy(schema()["properties"][key]["default"])


def _fill(node: Mapping, instance) -> None:
    """Set every missing key that has a schema default, recursively (what the workflow's
    validation does to its config)."""
    if not isinstance(instance, dict):
        return
    for key, spec in (node.get("properties") or {}).items():
        if key not in instance and "default" in spec:
            instance[key] = copy.deepcopy(spec["default"])
        if key in instance:
            branch = _object_branch(spec)
            _fill(branch if branch is not None else spec, instance[key])
    extra = node.get("additionalProperties")
    if isinstance(extra, Mapping):
        for key, value in instance.items():
            if key not in (node.get("properties") or {}):
                _fill(extra, value)


def _key_path(path) -> str:
    """A dotted config key (``plan.check``) from a JSON-schema path."""
    return ".".join(str(part) for part in path) or "(top level)"


def _scalar_form(rule) -> bool:
    """Whether a schema alternative accepts single values only (a text, a number, null, a choice)."""
    if not isinstance(rule, Mapping):
        return False
    scalar = ("string", "number", "integer", "null", "boolean")
    return rule.get("type") in scalar or "enum" in rule or "const" in rule


def _within_alternatives(error):
    """For a value none of a key's alternatives (``anyOf``) accepts: the problem inside the
    alternative of the value's own type (``plan.check.pilots`` of a mapping), if there is one."""
    from jsonschema.exceptions import best_match

    while error.validator in ("anyOf", "oneOf"):
        alternatives = error.validator_value if isinstance(error.validator_value, list) else []
        if isinstance(error.schema, Mapping) and error.schema.get("description"):
            # a value of scalar forms only (a verdict target, say): its description lists them all
            if alternatives and all(_scalar_form(a) for a in alternatives):
                break
        inside = [e for e in error.context if not (e.validator == "type" and e.absolute_path == error.absolute_path)]
        if not inside:
            break
        error = best_match(inside)
    return error


def _first_nan(value, path=()):
    """The key path of the first NaN in a configuration (``None`` when there is none)."""
    if isinstance(value, float) and value != value:
        return path
    if isinstance(value, Mapping):
        items = value.items()
    elif isinstance(value, list | tuple):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        found = _first_nan(item, (*path, key))
        if found is not None:
            return found
    return None


def schema_problem(config: Mapping, schema: Mapping | str | Path | None = None) -> str | None:
    """The first way ``config`` breaks ``schema``, naming the config key and what it accepts.

    Parameters
    ----------
    config : mapping
        The configuration as loaded, before any default is filled in.
    schema : mapping, str or path, optional
        The JSON schema, parsed or as the path of its YAML file; default the project's
        (:data:`SCHEMA_PATH`).

    Returns
    -------
    str or None
        ``"config key <dotted.key>: <what is wrong>"`` followed by the key's description from
        the schema when it has one; ``None`` when the configuration is valid.

    Notes
    -----
    Snakemake's own validation fills in the schema's defaults as it goes and fails with an
    ``AttributeError`` on a value of the wrong type where a mapping with defaults is expected
    (``plan.check: 0``); checking without defaults first refuses such a value with its key.
    """
    import yaml
    from jsonschema import Draft202012Validator

    if schema is None:
        schema = globals()["schema"]()
    elif not isinstance(schema, Mapping):
        schema = yaml.safe_load(Path(schema).read_text(encoding="utf-8"))
    nan = _first_nan(config)
    if nan is not None:  # NaN passes every bound of a JSON schema (each comparison is false)
        return f"config key {_key_path(nan)}: .nan is not a number (a setting needs a value)"
    errors = sorted(
        Draft202012Validator(schema).iter_errors(config), key=lambda e: [str(part) for part in e.absolute_path]
    )
    if not errors:
        return None
    error = _within_alternatives(errors[0])
    message = error.message
    if error.validator in ("anyOf", "oneOf"):
        message = f"{json.dumps(error.instance)} is none of the accepted forms"
    text = f"config key {_key_path(error.absolute_path)}: {message}"
    description = error.schema.get("description") if isinstance(error.schema, Mapping) else None
    if description:
        text += f" (expected: {' '.join(str(description).split())})"
    return text


def key_rules() -> dict:
    """The schema's rules for the keys that are there, none required: what checks a part of a
    configuration (an imported task's block, the settings given to the Python API)."""
    return {**{k: v for k, v in schema().items() if k != "anyOf"}, "required": []}


def with_defaults(config: Mapping, *, where: str = "config", required: tuple[str, ...] | None = None) -> dict:
    """A checked copy of ``config`` with the schema's defaults filled in.

    ``required`` replaces the schema's required top-level keys (the ``debias`` command
    needs ``tasks`` and ``metrics`` only, not the workflow's folders and figures); every key
    that is present is checked by the same rules. Raises :class:`ConfigError` naming the key
    path and the rule it breaks.
    """
    rules = schema()
    if required is not None:  # the schema's required keys and its alternatives of them replaced
        rules = {**{k: v for k, v in rules.items() if k != "anyOf"}, "required": list(required)}
    problem = schema_problem(config, rules)
    if problem:
        raise ConfigError(f"{where}: {problem}")
    filled = copy.deepcopy(dict(config))
    _fill(schema(), filled)
    return filled


def load_config(path: str | Path, *, required: tuple[str, ...] | None = None) -> dict:
    """Read, check and complete a configuration file (YAML), with errors that name the file;
    ``required`` as in :func:`with_defaults`."""
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: not a file")
    try:
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: not valid YAML ({str(error).splitlines()[0]})") from None
    if not isinstance(config, dict):
        raise ConfigError(f"{path}: expected a mapping of configuration keys, got {type(config).__name__}")
    problem = yaml_problem(path)
    if problem:
        raise ConfigError(problem)
    return with_defaults(config, where=str(path), required=required)
