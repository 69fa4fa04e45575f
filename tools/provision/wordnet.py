"""Provision WordNet 3.0 for NLTK into a project-local data directory (``python -m tools.provision.wordnet``).

METEOR matches synonyms through WordNet, so the pipeline needs an NLTK-readable WordNet 3.0 under
``<target>/corpora/wordnet``. Sources are tried in order (:mod:`.wordnet_sources`): a WordNet NLTK
can already load, in the target or on NLTK's search path (copied into the target); NLTK's
downloader, with a short timeout; Debian's ``wordnet-base`` and ``wordnet-sense-index``,
installed with apt-get when missing and running as root. Otherwise the command exits non-zero
and says how to get WordNet.

Everything is built in a staging directory beside the destination and moved into place only once
NLTK has read it, so no half-written WordNet is ever left behind; the stamp file ``.provisioned``
is written last. A second run finds the stamp and does nothing but refresh its modification time
(so that ``make`` sees the target as up to date).

Usage::

    python -m tools.provision.wordnet --target nltk_data
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools.provision.wordnet_sources import (
    STAMP_NAME,
    ProvisionError,
    check_wordnet_dir,
    from_debian,
    from_downloader,
    from_existing,
    log,
    missing_files,
)

__all__ = ["main", "provision"]

HOW_TO_GET_WORDNET = """\
WordNet 3.0 for NLTK could not be provisioned. Any one of these fixes it:
  * with access to NLTK's download host:
      python -m nltk.downloader -d {target} wordnet
  * on Debian/Ubuntu (as root), install the two WordNet 3.0 packages, then run
    this command again:
      apt-get update && apt-get install -y wordnet-base wordnet-sense-index
      python -m tools.provision.wordnet --target {target}
  * copy an existing NLTK 'wordnet' directory (the one holding data.noun,
    index.sense, lexnames, ...) to {target}/corpora/wordnet and run this command
    again to check it and write the stamp."""


def write_stamp(wordnet_dir: Path, source: str, version: str) -> None:
    payload = {
        "source": source,
        "wordnet_version": version,
        "files": sorted(p.name for p in wordnet_dir.iterdir() if p.is_file()),
        "provisioned_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }
    tmp = wordnet_dir / (STAMP_NAME + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, wordnet_dir / STAMP_NAME)


def _already_in_target(wordnet_dir: Path, force: bool) -> bool:
    """A complete WordNet put into the target by hand: check it and stamp it."""
    if force or not wordnet_dir.is_dir() or missing_files(wordnet_dir):
        return False
    log(f"found WordNet files in {wordnet_dir}; checking them")
    try:
        version = check_wordnet_dir(wordnet_dir)
    except ProvisionError as exc:
        log(f"  not usable ({exc}); looking for another source")
        return False
    write_stamp(wordnet_dir, f"already present in {wordnet_dir}", version)
    log(f"WordNet {version} found in {wordnet_dir}; stamp written")
    return True


def provision(target: Path, force: bool = False) -> int:
    """Make ``<target>/corpora/wordnet`` a checked WordNet 3.0; return a process exit code."""
    started = time.monotonic()
    target = target.resolve()
    wordnet_dir = target / "corpora" / "wordnet"
    stamp = wordnet_dir / STAMP_NAME
    if stamp.is_file() and not missing_files(wordnet_dir) and not force:
        os.utime(stamp)
        log(f"WordNet already provisioned in {wordnet_dir}; nothing to do")
        return 0
    if _already_in_target(wordnet_dir, force):
        return 0
    (target / "corpora").mkdir(parents=True, exist_ok=True)
    staging_root = Path(tempfile.mkdtemp(prefix=".wordnet-staging-", dir=target / "corpora"))
    staged = staging_root / "corpora" / "wordnet"  # the staging directory is itself an NLTK data root
    try:
        source = None
        for step in (
            lambda: from_existing(target, staged),
            lambda: from_downloader(staging_root, staged),
            lambda: from_debian(staging_root, staged),
        ):
            try:
                source = step()
            except (ProvisionError, RuntimeError, OSError, subprocess.SubprocessError) as exc:
                log(f"  failed: {type(exc).__name__}: {exc}")
                shutil.rmtree(staged, ignore_errors=True)
                source = None
            if source is not None:
                break
        if source is None:
            print(HOW_TO_GET_WORDNET.format(target=target), file=sys.stderr)
            return 1
        version = check_wordnet_dir(staged)
        if wordnet_dir.exists():
            os.replace(wordnet_dir, staging_root / "previous")
        os.replace(staged, wordnet_dir)
        write_stamp(wordnet_dir, source, version)
    finally:
        shutil.rmtree(staging_root, ignore_errors=True)
    log(f"WordNet {version} from {source} provisioned in {wordnet_dir} ({time.monotonic() - started:.1f} s)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.provision.wordnet", description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", default="nltk_data", type=Path, help="NLTK data directory (default: nltk_data)")
    parser.add_argument("--force", action="store_true", help="provision again even if the stamp file is present")
    args = parser.parse_args(argv)
    return provision(args.target, force=args.force)


if __name__ == "__main__":
    sys.exit(main())
