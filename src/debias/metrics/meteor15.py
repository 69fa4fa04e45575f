"""METEOR 1.5, the original Java implementation, as the paper's code ran it.

``meteor-1.5.jar`` and its English paraphrase table ship in the ``pycocoevalcap`` package;
running it needs Java (Debian package ``default-jre-headless``). The authors ran
``java -jar meteor-1.5.jar - - -stdio -l en -norm`` and scored each output against its
single reference: ``-l en`` English (exact, stem, synonym and paraphrase matching with
the language's default weights), ``-norm`` tokenise and lowercase both texts.

One Java process scores every pair of a call: all ``SCORE ||| reference ||| output``
requests first (one line of sufficient statistics back for each), then a single ``EVAL``
request with every pair's statistics, which prints one score per pair and then the
score of the whole set (so a request for one pair prints *two* lines).

References
----------
M. Denkowski and A. Lavie. 2014. Meteor Universal: Language specific translation evaluation
for any target language. In *Proceedings of the Ninth Workshop on Statistical Machine
Translation*, pages 376-380.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Mapping, Sequence
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path

import numpy as np

__all__ = [
    "EXTERNAL_PROCESS",
    "JAVA_OPTIONS",
    "OPTIONS",
    "SYSTEM_PACKAGES",
    "VARIANTS",
    "score",
    "unavailable",
    "versions",
]

OPTIONS = ("-l", "en", "-norm")
JAVA_OPTIONS = ("-Xmx2G", "-Dfile.encoding=UTF-8", "-Dstdout.encoding=UTF-8")
#: Scores are computed by a Java process: :func:`debias.metrics.score_outputs` runs this family
#: beside the others instead of after them.
EXTERNAL_PROCESS = True
VARIANTS = ("meteor",)
SYSTEM_PACKAGES = ("default-jre-headless",)


def _jar() -> Path:
    spec = find_spec("pycocoevalcap")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("pycocoevalcap is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "meteor" / "meteor-1.5.jar"


def unavailable() -> str | None:
    """Why METEOR 1.5 cannot run here (naming what to install), or None when it can."""
    if shutil.which("java") is None:
        return "Java is not installed (Debian package default-jre-headless)"
    try:
        jar = _jar()
    except ImportError:
        return "the Python package pycocoevalcap is not installed (pip install 'debias-eval[paper]', or `make setup`)"
    if not jar.is_file() or not (jar.parent / "data" / "paraphrase-en.gz").is_file():
        return f"{jar} or its data/paraphrase-en.gz is missing (reinstall pycocoevalcap)"
    return None


def _clean(text: str) -> str:
    """One line without METEOR's field separator."""
    return " ".join(text.replace("|||", " ").split())


def _write_all(stdin, lines: list[str]) -> None:
    try:
        for line in lines:
            stdin.write(line + "\n")
        stdin.flush()
    except BrokenPipeError:  # the process died; its exit status is reported by the reader
        pass


def _read_line(proc: subprocess.Popen, what: str) -> str:
    line = proc.stdout.readline()
    if not line:
        proc.kill()
        error = proc.stderr.read().strip()[-500:]
        raise RuntimeError(f"METEOR 1.5 stopped before printing {what}: {error}")
    return line.strip()


def score(
    outputs: Sequence[str], references: Sequence[str], variants: Sequence[str] = VARIANTS, context: Mapping = None
) -> dict[str, np.ndarray]:
    """METEOR 1.5 score of every output against its single reference, in one Java process."""
    reason = unavailable()
    if reason:
        raise RuntimeError(f"METEOR 1.5 cannot run: {reason}")
    n = len(outputs)
    if n == 0:
        return {"meteor": np.zeros(0)}
    jar = _jar()
    command = ["java", *JAVA_OPTIONS, "-jar", str(jar), "-", "-", "-stdio", *OPTIONS]
    proc = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        cwd=jar.parent,
    )
    requests = [f"SCORE ||| {_clean(r)} ||| {_clean(o)}" for o, r in zip(outputs, references)]
    # A writer thread keeps the pipes flowing both ways: the answers are read while the
    # requests are still being written.
    writer = threading.Thread(target=_write_all, args=(proc.stdin, requests), daemon=True)
    writer.start()
    try:
        stats = [_read_line(proc, f"statistics for pair {i + 1} of {n}") for i in range(n)]
        writer.join()
        proc.stdin.write("EVAL ||| " + " ||| ".join(stats) + "\n")
        proc.stdin.close()
        values = np.array([float(_read_line(proc, f"the score of pair {i + 1} of {n}")) for i in range(n)])
        _read_line(proc, "the score of the whole set")
        proc.wait(timeout=60)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return {"meteor": values}


def versions(context: Mapping) -> dict:
    """What produced the scores: jar, options, Java and package versions."""
    java = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False)
    first = (java.stderr or java.stdout).strip().splitlines()
    return {
        "jar": "meteor-1.5.jar from pycocoevalcap " + metadata.version("pycocoevalcap"),
        "options": " ".join(OPTIONS) + " (one reference; -stdio, one process per job)",
        "java": first[0] if first else "unknown",
    }
