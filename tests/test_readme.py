"""The README's Python examples run as written and print what they say."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_readme_python_examples_run(capsys):
    blocks = python_blocks()
    assert len(blocks) >= 2
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)  # noqa: S102
    out = capsys.readouterr().out
    assert "cv:bleu" in out and "ppi++" not in out  # every output judged: no PPI++ row
    estimates, comparisons = namespace["estimates"], namespace["comparisons"]
    assert set(estimates["system"]) == {"A", "B"}
    assert (estimates["ci_low"] <= estimates["estimate"]).all() and (
        estimates["estimate"] <= estimates["ci_high"]
    ).all()
    assert list(comparisons["estimator"]) == ["mean", "cv:bleu"]
    assert (comparisons["p_holm"] >= comparisons["p_value"]).all()
    board = namespace["board"]
    assert sorted(board["system"]) == ["A", "B"] and (board["rank_low"] <= board["rank_high"]).all()
    result = namespace["result"]
    assert result.n_judged == 5 and result.n_outputs == 100
    assert float(namespace["debias"].data_efficiency(rho=0.5, gamma=0.25)) == 1.25
