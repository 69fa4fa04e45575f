"""Shared fixtures: paths into the repository, a small synthetic canonical dataset, and the one
base run of the workflow that every test reading its outputs shares."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from workflow_runs import make_run_dir, snakemake

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def repo() -> Path:
    return REPO


def write_jsonl(path: Path, records) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


WORDS = (
    "the cat sat on a mat while dogs ran past quickly and birds sang loudly in green trees "
    "near an old house by the river under blue skies"
).split()


def synthetic_task(root: Path, task: str, systems, n_items: int = 40, seed: int = 0, prompts=("quality",)):
    """A small canonical task whose judgments depend on word overlap with the reference, so
    metrics correlate with humans. Returns the task directory."""
    rng = np.random.default_rng(seed)
    refs = []
    for i in range(n_items):
        refs.append({"id": f"{i:03d}", "reference": " ".join(rng.choice(WORDS, size=8))})
    write_jsonl(root / task / "references.jsonl", refs)
    for _s, system in enumerate(systems):
        lines = []
        for ref in refs:
            words = ref["reference"].split()
            keep = rng.random(len(words)) < rng.uniform(0.2, 0.9)
            out = [w if k else str(rng.choice(WORDS)) for w, k in zip(words, keep)]
            quality = keep.mean()
            judgments = {}
            for p in prompts:
                k = int(rng.choice([2, 3]))
                judgments[p] = [float(np.clip(round(quality * 2 - 1 + rng.normal(0, 0.5)), -1, 1)) for _ in range(k)]
            lines.append({"id": ref["id"], "output": " ".join(out), "judgments": judgments})
        write_jsonl(root / task / "systems" / f"{system}.jsonl", lines)
    return root / task


# The paper's tasks, systems, prompts and panels, as the figure and report tests see them
# (independent of config/config.yaml, which users edit).
PAPER_CONFIG = {
    "metrics": {
        "bleu": {"label": "BLEU"},
        "rouge1": {"label": "ROUGE-1"},
        "rouge2": {"label": "ROUGE-2"},
        "rougeL": {"label": "ROUGE-L"},
        "meteor": {"label": "METEOR"},
    },
    "tasks": {
        "cnndm": {
            "label": "CNN/Daily Mail",
            "systems": {s: {"label": s} for s in ("seq2seq", "pointer", "ml", "ml+rl")},
            "prompts": {
                "fluency": {"label": "Fluency"},
                "redundancy": {"label": "Redundancy"},
                "overall": {"label": "Overall"},
                "edit": {"label": "Edit", "higher_is_better": False},
            },
        },
        "msmarco": {
            "label": "MS MARCO",
            "systems": {
                "fastqa": {"label": "fastqa"},
                "fastqa_ext": {"label": "fastqa_ext"},
                "snet.single": {"label": "snet"},
                "snet.ensemble": {"label": "snet.ens"},
            },
            "prompts": {"any_correct": {"label": "AnyCorrect"}, "avg_correct": {"label": "AvgCorrect"}},
        },
    },
    "bootstrap": {"replicates": 1000, "seed": 1, "level": 0.8, "de_range": [0.2, 0.9]},
    "figures": {
        "figure5": {"msmarco": "any_correct", "cnndm": "edit"},
        "figure6": {
            "a": {"task": "cnndm", "prompt": "overall", "system": "seq2seq", "metric": "best"},
            "b": {"task": "cnndm", "prompt": "edit", "system": "seq2seq", "metric": "best"},
            "c": {"task": "msmarco", "prompt": "any_correct", "system": "fastqa_ext", "metric": "rouge1"},
        },
    },
}


def _run_state(root: Path) -> dict[str, tuple[int, int]]:
    """Every file of a run directory but Snakemake's own records, with its size and mtime."""
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file() and ".snakemake" not in p.relative_to(root).parts
    }


@pytest.fixture(scope="session")
def base_run(tmp_path_factory) -> Path:
    """The workflow run once, from scratch, on the committed test configuration (.test/), for
    every test of the session that reads its outputs. Tests that change anything or run
    Snakemake again work on a copy (workflow_runs.clone); a test that changed the run itself
    fails the session's teardown."""
    root = make_run_dir(tmp_path_factory.mktemp("base"))
    snakemake(root)
    state = _run_state(root)
    yield root
    after = _run_state(root)
    changed = sorted(path for path in state.keys() | after.keys() if state.get(path) != after.get(path))
    assert not changed, f"a test changed the shared base run (work on a copy): {changed[:10]}"
