"""Time and peak memory of each metric implementation family on the released data.

Each family scores every configured system's outputs of a task, in a fresh process (so that
peak memory is the family's own), as one metrics job per task would. Prints one line per
family and task: pairs scored, wall time, peak resident memory of the Python process and of
its child processes (Perl, Java).

    .venv/bin/python benchmarks/bench_metrics.py [--families modern rouge155 ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

FAMILIES = {
    "modern": ["sacrebleu", "rouge-score-1", "rouge-score-2", "rouge-score-L", "nltk-meteor"],
    "rouge155": ["rouge155-1", "rouge155-2", "rouge155-L", "rouge155-SU4"],
    "meteor15": ["meteor15"],
    "rouge021": ["rouge021-1", "rouge021-2", "rouge021-L"],
    "vecsim": ["vecsim-minilm"],
}

CHILD = """
import json, resource, sys, time
import yaml
from debias.config.tasks import load_task
from debias.metrics import score_outputs
task, implementations, cache = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
config = yaml.safe_load(open("config/config.yaml"))
references, systems = load_task(config, task, list(config["tasks"][task]["systems"]))
items = [item for system in systems.values() for item in system]
started = time.perf_counter()
score_outputs([i.output for i in items], [references[i.id] for i in items], config["nltk_data"],
              {name: name for name in implementations}, cache_dir=cache)
elapsed = time.perf_counter() - started
usage = lambda who: resource.getrusage(who).ru_maxrss / 1024
print(json.dumps({"pairs": len(items), "seconds": elapsed,
                  "peak_mb": usage(resource.RUSAGE_SELF), "children_peak_mb": usage(resource.RUSAGE_CHILDREN)}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=list(FAMILIES))
    parser.add_argument("--tasks", nargs="+", default=["msmarco", "cnndm"])
    args = parser.parse_args()
    from debias.metrics import implementation_unavailable

    print(f"{'family':<10} {'task':<8} {'pairs':>6} {'seconds':>8} {'peak MB':>8} {'child MB':>9}")
    for family in args.families:
        reason = implementation_unavailable(FAMILIES[family][0])
        if reason:
            print(f"{family:<10} skipped: {reason}")
            continue
        for task in args.tasks:
            with tempfile.TemporaryDirectory() as cache:  # a cold cache: every text encoded
                command = [sys.executable, "-c", CHILD, task, ",".join(FAMILIES[family]), cache]
                result = subprocess.run(command, capture_output=True, text=True, cwd=REPO, check=True)
            numbers = json.loads(result.stdout.strip().splitlines()[-1])
            print(
                f"{family:<10} {task:<8} {numbers['pairs']:>6} {numbers['seconds']:>8.1f} "
                f"{numbers['peak_mb']:>8.0f} {numbers['children_peak_mb']:>9.0f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
