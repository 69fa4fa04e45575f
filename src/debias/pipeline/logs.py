"""Logging for rule scripts: progress, and any error with its traceback, in the job's own log."""

from __future__ import annotations

import logging
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["run_script", "setup_logging"]

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


def run_script(main: Callable, smk) -> None:
    """Run a rule script's ``main(smk, log)`` with logging to the job's log file.

    An exception is written to the log with its traceback before it propagates, so the file
    Snakemake points at after a failure says what went wrong. A job that succeeds ends its log
    with what it cost: processor time of the job's process (start-up and imports included)
    and of the programs it ran, and the wall time since the script began (after its imports).
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
