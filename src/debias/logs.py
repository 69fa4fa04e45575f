"""Logging for rule scripts: progress to the job's log file and to the terminal."""

from __future__ import annotations

import logging
import sys
from pathlib import Path


def setup_logging(log_path: str | None = None, name: str = "debias") -> logging.Logger:
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(log_path, mode="w", encoding="utf-8"))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", handlers=handlers, force=True)
    return logging.getLogger(name)
