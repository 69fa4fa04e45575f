"""Logging for rule scripts: progress, and any error with its traceback, in the job's own log."""

from __future__ import annotations

import logging
import os
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["end_job_process", "run_script", "setup_logging"]

# When a rule script imported this module: its own imports come first.
_STARTED = time.monotonic()


def setup_logging(log_path: str | None = None, name: str = "debias") -> logging.Logger:
    """Log to standard error and, when given, to ``log_path`` (overwritten): the package's
    progress and every library's warnings (a library's own progress, such as the font
    subsetting of every PDF figure, stays out of the job's log)."""
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(log_path, mode="w", encoding="utf-8"))
    layout = "%(asctime)s %(name)s: %(message)s"
    logging.basicConfig(level=logging.WARNING, format=layout, handlers=handlers, force=True)
    logging.getLogger("debias").setLevel(logging.INFO)
    log = logging.getLogger(name)
    log.setLevel(logging.INFO)
    return log


def run_script(main: Callable, smk, end_process: bool = True) -> None:
    """Run a rule script's ``main(smk, log)`` with logging to the job's log file.

    An exception is written to the log with its traceback before it propagates, so the file
    Snakemake points at after a failure says what went wrong. A job that succeeds ends its log
    with what it cost: processor time of the job's process (start-up and imports included)
    and of the programs it ran, and the wall time since the script began (after its imports).

    Then, with ``end_process`` (a rule script is the whole of its process), the process ends
    at once with exit status 0 (:func:`end_job_process`): its outputs are written and closed,
    its log and standard streams flushed, and nothing is left for the interpreter's teardown
    to do but free every object of every imported module, one at a time.
    """
    log = setup_logging(smk.log[0] if smk.log else None)
    try:
        main(smk, log)
    except BaseException as error:
        log.error("job failed: %s: %s", type(error).__name__, error, exc_info=True)
        raise
    own, children = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    log.info(
        "done: %.2f s CPU in this process, %.2f s in the programs it ran, %.2f s since the script began",
        own.ru_utime + own.ru_stime,
        children.ru_utime + children.ru_stime,
        time.monotonic() - _STARTED,
    )
    if end_process:
        end_job_process()


def end_job_process() -> None:
    """End a finished job's process with exit status 0, skipping the interpreter's teardown.

    The teardown frees, object by object, everything the job imported and loaded: 0.1-0.2 s of
    CPU for a job with pandas and matplotlib, 0.8 s for a metrics job (NLTK's WordNet maps), a
    third of a small job's own cost, for memory the operating system takes back at once anyway.
    The log handlers are flushed and closed and the standard streams flushed first; ``atexit``
    handlers do not run, so this is for a process whose work is done (every output file
    written and closed, every thread and child process finished), as a rule script's is.
    """
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed or broken stream has nothing left to write
            pass
    os._exit(0)
