#!/usr/bin/env python3
"""Provision WordNet 3.0 for NLTK into a project-local ``nltk_data`` directory.

METEOR (one of the automatic metrics of the pipeline) matches synonyms through
WordNet, so the pipeline needs an NLTK-readable WordNet 3.0 under
``<target>/corpora/wordnet``.  Sources are tried in this order:

1. a WordNet that NLTK can already load, in the target directory or on NLTK's
   default search paths (copied into the target so the project does not depend
   on a machine-wide copy);
2. NLTK's own downloader, guarded by a short socket timeout so that it fails
   fast on a machine without access to NLTK's download host;
3. Debian's ``wordnet-base`` and ``wordnet-sense-index`` packages (WordNet 3.0),
   installed with apt-get when missing and when running as root.  Their
   database files are *copied* (NLTK refuses symlinks and hard links that leave
   its data roots), and the ``lexnames`` file, which Debian does not ship, is
   rebuilt from the ``lexnames(5WN)`` manual page;
4. otherwise the script exits non-zero and explains how to get WordNet.

Everything is built in a staging directory beside the destination and moved
into place only once NLTK has loaded it successfully, so no half-written
WordNet is ever left behind.  The stamp file ``.provisioned`` is written last.
Running the script again finds the stamp and does nothing (it only refreshes
the stamp's modification time so that ``make`` sees it as up to date).

Usage::

    python scripts/provision_wordnet.py --target nltk_data
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import gzip
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import warnings
import zipfile
from pathlib import Path

#: Files NLTK's ``WordNetCorpusReader`` opens (its ``_FILES``), kept here so
#: that the structural check does not need to import NLTK.
NLTK_WORDNET_FILES = (
    "cntlist.rev",
    "lexnames",
    "index.sense",
    "index.adj",
    "index.adv",
    "index.noun",
    "index.verb",
    "data.adj",
    "data.adv",
    "data.noun",
    "data.verb",
    "adj.exc",
    "adv.exc",
    "noun.exc",
    "verb.exc",
)

DEBIAN_PACKAGES = ("wordnet-base", "wordnet-sense-index")
STAMP_NAME = ".provisioned"
EXPECTED_VERSION = "3.0"
DOWNLOADER_TIMEOUT_S = 10.0
APT_TIMEOUT_S = 900

#: Syntactic category numbers used in the third column of ``lexnames``
#: (``lexnames(5WN)``: 1 NOUN, 2 VERB, 3 ADJECTIVE, 4 ADVERB).
LEXNAME_CATEGORIES = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
LEXNAMES_COUNT = 45

_LEXNAME_ROW = re.compile(r"^\s*(\d{2})\s+((adj|adv|noun|verb)\.[A-Za-z]+)\s")

HOW_TO_GET_WORDNET = """\
WordNet 3.0 for NLTK could not be provisioned. Any one of these fixes it:
  * with access to NLTK's download host:
      python -m nltk.downloader -d {target} wordnet
  * on Debian/Ubuntu (as root), install the two WordNet 3.0 packages, then run
    this script again:
      apt-get update && apt-get install -y wordnet-base wordnet-sense-index
      python scripts/provision_wordnet.py --target {target}
  * copy an existing NLTK 'wordnet' directory (the one holding data.noun,
    index.sense, lexnames, ...) to {target}/corpora/wordnet and run this script
    again to check it and write the stamp."""


class ProvisionError(RuntimeError):
    """A source of WordNet was found but could not be turned into a corpus."""


def log(message: str) -> None:
    print(f"[wordnet] {message}", flush=True)


# ---------------------------------------------------------------------------
# lexnames from the lexnames(5WN) manual page
# ---------------------------------------------------------------------------


def parse_lexnames_manpage(text: str) -> list[str]:
    """Return the lines of NLTK's ``lexnames`` file built from ``lexnames(5WN)``.

    The manual page lists the 45 lexicographer files as ``NN<TAB>name<TAB>
    description`` table rows.  NLTK expects one ``NN<TAB>name<TAB>category``
    line per file, numbered 00..44 in order, where *category* is the syntactic
    category number (1 noun, 2 verb, 3 adjective, 4 adverb) given by the
    name's prefix.  Raises ``ValueError`` unless exactly the 45 files numbered
    00..44 are found.
    """
    entries: dict[int, str] = {}
    for line in text.splitlines():
        match = _LEXNAME_ROW.match(line)
        if match is None:
            continue
        number = int(match.group(1))
        name = match.group(2)
        if number in entries and entries[number] != name:
            raise ValueError(f"lexnames manual page lists file {number:02d} twice ({entries[number]!r} and {name!r})")
        entries[number] = name
    expected = list(range(LEXNAMES_COUNT))
    if sorted(entries) != expected:
        missing = sorted(set(expected) - set(entries))
        extra = sorted(set(entries) - set(expected))
        raise ValueError(
            f"lexnames manual page: expected files 00..{LEXNAMES_COUNT - 1}, "
            f"found {len(entries)} (missing {missing}, unexpected {extra})"
        )
    return [
        f"{number:02d}\t{entries[number]}\t{LEXNAME_CATEGORIES[entries[number].split('.', 1)[0]]}"
        for number in expected
    ]


def read_manpage(path: Path) -> str:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return data.decode("utf-8", errors="replace")


# ---------------------------------------------------------------------------
# Checking a candidate WordNet directory
# ---------------------------------------------------------------------------


def missing_files(directory: Path) -> list[str]:
    """NLTK WordNet files absent (or empty) in *directory*."""
    return [
        name
        for name in NLTK_WORDNET_FILES
        if not (directory / name).is_file() or (directory / name).stat().st_size == 0
    ]


def load_check(directory: Path) -> str:
    """Load *directory* with NLTK's WordNet reader, check it, return its version.

    The directory must lie under an entry of ``nltk.data.path`` (NLTK only
    opens files inside its data roots).  Raises ``ProvisionError`` when NLTK
    cannot read it or it does not know the word "dog".
    """
    missing = missing_files(directory)
    if missing:
        raise ProvisionError(f"{directory} lacks {', '.join(missing)}")
    if directory.name != "wordnet" or directory.parent.name != "corpora":
        raise ProvisionError(f"{directory} is not laid out as <root>/corpora/wordnet")
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    # While it is built, NLTK's reader maps its synsets onto those of the
    # resource 'corpora/wordnet' found on nltk.data.path, so the root holding
    # *directory* must come first there for the check to test *directory*.
    root = str(directory.parent.parent)
    saved_path = list(nltk.data.path)
    nltk.data.path.insert(0, root)
    try:
        with warnings.catch_warnings():
            # Without the Open Multilingual WordNet NLTK warns that the
            # multilingual functions are unavailable; they are not needed.
            warnings.simplefilter("ignore")
            reader = WordNetCorpusReader(str(directory), None)
        synsets = reader.synsets("dog")
        version = reader.get_version()
    except Exception as exc:  # any failure means "not a usable WordNet"
        first_line = next((ln for ln in str(exc).splitlines() if ln.strip()), "")
        raise ProvisionError(
            f"NLTK cannot read WordNet in {directory}: {type(exc).__name__}: {first_line.strip()}"
        ) from exc
    finally:
        nltk.data.path[:] = saved_path
    if not synsets:
        raise ProvisionError(f"WordNet in {directory} has no synset for 'dog'")
    return str(version)


def copy_regular(src: Path, dst: Path) -> None:
    """Copy file contents into a new inode (never a link), following *src* links."""
    shutil.copyfile(src, dst, follow_symlinks=True)
    os.chmod(dst, 0o644)


def copy_wordnet_dir(src: Path, dst: Path) -> None:
    """Copy the regular files of an NLTK wordnet directory into *dst*."""
    dst.mkdir(parents=True, exist_ok=True)
    for entry in sorted(src.iterdir()):
        if entry.name == STAMP_NAME or not entry.is_file():
            continue
        copy_regular(entry, dst / entry.name)


def extract_wordnet_zip(archive: Path, dst: Path) -> None:
    """Extract the files of ``wordnet.zip`` (members ``wordnet/<file>``) into *dst*."""
    dst.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            parts = info.filename.split("/")
            # Only plain files directly under the top-level folder; this also
            # keeps any odd member name from escaping *dst*.
            if info.is_dir() or len(parts) != 2 or parts[1] in ("", ".", ".."):
                continue
            with zf.open(info) as fin, open(dst / parts[1], "wb") as fout:
                shutil.copyfileobj(fin, fout)


# ---------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------


def find_existing(target: Path) -> list[Path]:
    """Candidate NLTK WordNets on NLTK's search path (directories or zips)."""
    import nltk

    candidates: list[Path] = []
    seen: set[Path] = set()
    for entry in nltk.data.path:
        raw = entry.path if hasattr(entry, "path") else entry
        base = Path(str(raw)).expanduser()
        try:
            if base.resolve() == target.resolve():
                continue
        except OSError:
            continue
        for candidate in (base / "corpora" / "wordnet", base / "corpora" / "wordnet.zip"):
            if candidate.exists() and candidate.resolve() not in seen:
                seen.add(candidate.resolve())
                candidates.append(candidate)
    return candidates


def from_existing(target: Path, staged: Path) -> str | None:
    for candidate in find_existing(target):
        log(f"found an NLTK WordNet at {candidate}; checking it")
        try:
            if candidate.is_dir():
                copy_wordnet_dir(candidate, staged)
            else:
                extract_wordnet_zip(candidate, staged)
            load_check(staged)
        except (ProvisionError, OSError, zipfile.BadZipFile) as exc:
            log(f"  not usable: {exc}")
            shutil.rmtree(staged, ignore_errors=True)
            continue
        return f"existing NLTK WordNet at {candidate}"
    log("no other NLTK WordNet on NLTK's search path")
    return None


def from_downloader(staging_root: Path, staged: Path) -> str | None:
    import nltk

    download_dir = staging_root / "download"
    download_dir.mkdir()
    log(f"trying NLTK's downloader (socket timeout {DOWNLOADER_TIMEOUT_S:.0f} s)")
    previous_timeout = socket.getdefaulttimeout()
    saved_path = list(nltk.data.path)
    socket.setdefaulttimeout(DOWNLOADER_TIMEOUT_S)
    chatter = io.StringIO()
    started = time.monotonic()
    try:
        with contextlib.redirect_stdout(chatter), contextlib.redirect_stderr(chatter):
            ok = nltk.download(
                "wordnet",
                download_dir=str(download_dir),
                quiet=True,
                raise_on_error=True,
                print_error_to=chatter,
            )
    except Exception as exc:  # network errors surface as many exception types
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        log(f"  downloader failed after {time.monotonic() - started:.1f} s: {type(exc).__name__}: {first_line[:200]}")
        return None
    finally:
        socket.setdefaulttimeout(previous_timeout)
        nltk.data.path[:] = saved_path  # the downloader appends its directory
    if not ok:
        log("  downloader reported failure")
        return None
    unpacked = download_dir / "corpora" / "wordnet"
    archive = download_dir / "corpora" / "wordnet.zip"
    try:
        if unpacked.is_dir():
            copy_wordnet_dir(unpacked, staged)
        elif archive.is_file():
            extract_wordnet_zip(archive, staged)
        else:
            log("  downloader finished but left no corpora/wordnet")
            return None
        load_check(staged)
    except (ProvisionError, OSError, zipfile.BadZipFile) as exc:
        log(f"  downloaded WordNet not usable: {exc}")
        shutil.rmtree(staged, ignore_errors=True)
        return None
    return "NLTK downloader"


def _run(cmd: list[str], timeout: float = APT_TIMEOUT_S) -> subprocess.CompletedProcess:
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False)


def _tail(proc: subprocess.CompletedProcess, lines: int = 5) -> str:
    text = (proc.stderr or proc.stdout or "").strip().splitlines()
    return " | ".join(text[-lines:])


def debian_installed(package: str) -> bool:
    proc = _run(["dpkg-query", "-W", "-f=${Status}", package], timeout=60)
    return proc.returncode == 0 and "install ok installed" in proc.stdout


def apt_has_candidate(package: str) -> bool:
    proc = _run(["apt-cache", "policy", package], timeout=120)
    match = re.search(r"Candidate:\s*(\S+)", proc.stdout)
    return proc.returncode == 0 and match is not None and match.group(1) != "(none)"


def apt_install(packages: tuple[str, ...]) -> bool:
    """Install *packages* with apt-get, running ``apt-get update`` only if needed."""
    updated = False
    if not all(apt_has_candidate(p) for p in packages):
        log("  package lists lack the WordNet packages; running apt-get update")
        proc = _run(["apt-get", "update"])
        updated = True
        if proc.returncode != 0:
            log(f"  apt-get update failed: {_tail(proc)}")
            return False
    cmd = ["apt-get", "install", "-y", "--no-install-recommends", *packages]
    log(f"  running: {' '.join(cmd)}")
    proc = _run(cmd)
    if proc.returncode != 0 and not updated:
        # Stale package lists point at files the archive no longer has.
        log("  install failed; running apt-get update and retrying once")
        update = _run(["apt-get", "update"])
        if update.returncode != 0:
            log(f"  apt-get update failed: {_tail(update)}")
            return False
        proc = _run(cmd)
    if proc.returncode != 0:
        log(f"  apt-get install failed: {_tail(proc)}")
        return False
    return True


def package_files(packages: tuple[str, ...]) -> list[Path]:
    proc = _run(["dpkg", "-L", *packages], timeout=60)
    if proc.returncode != 0:
        raise ProvisionError(f"dpkg -L {' '.join(packages)} failed: {_tail(proc)}")
    return [Path(line.strip()) for line in proc.stdout.splitlines() if line.strip()]


def lexnames_manpage_from_archive(workdir: Path) -> Path | None:
    """Fetch the wordnet-base .deb and extract its manual page.

    Used when the package is installed without its manual pages (e.g. a dpkg
    configuration that excludes /usr/share/man).
    """
    log("  lexnames(5WN) manual page not installed; extracting it from the package")
    fetch = subprocess.run(
        ["apt-get", "download", "wordnet-base"],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=APT_TIMEOUT_S,
        check=False,
    )
    debs = sorted(workdir.glob("wordnet-base_*.deb"))
    if fetch.returncode != 0 or not debs:
        log(f"  apt-get download wordnet-base failed: {_tail(fetch)}")
        return None
    unpacked = workdir / "unpacked"
    proc = _run(["dpkg-deb", "-x", str(debs[0]), str(unpacked)], timeout=120)
    if proc.returncode != 0:
        log(f"  dpkg-deb -x failed: {_tail(proc)}")
        return None
    pages = sorted(unpacked.rglob("lexnames.5*"))
    return pages[0] if pages else None


def from_debian(staging_root: Path, staged: Path) -> str | None:
    if shutil.which("dpkg-query") is None or shutil.which("apt-get") is None:
        log("not a Debian-based system (no dpkg/apt-get); skipping the Debian packages")
        return None
    missing = [p for p in DEBIAN_PACKAGES if not debian_installed(p)]
    if missing:
        if os.geteuid() != 0:
            log(
                f"Debian packages {', '.join(missing)} are not installed and this "
                "script is not running as root; skipping them"
            )
            return None
        log(f"installing Debian packages: {', '.join(missing)}")
        started = time.monotonic()
        if not apt_install(tuple(missing)):
            return None
        log(f"  installed in {time.monotonic() - started:.1f} s")
    else:
        log(f"Debian packages {', '.join(DEBIAN_PACKAGES)} already installed")

    files = package_files(DEBIAN_PACKAGES)
    by_name: dict[str, Path] = {}
    for path in files:
        if path.parent.name == "wordnet" and path.is_file():
            by_name.setdefault(path.name, path)
    needed = [name for name in NLTK_WORDNET_FILES if name != "lexnames"]
    absent = [name for name in needed if name not in by_name]
    if absent:
        log(f"  the Debian packages lack {', '.join(absent)}")
        return None
    staged.mkdir(parents=True)
    for name in needed:
        copy_regular(by_name[name], staged / name)
    log(f"  copied {len(needed)} database files from {by_name['data.noun'].parent}")

    manpage = next((p for p in files if p.name.startswith("lexnames.5") and p.is_file()), None)
    if manpage is None:
        manpage = lexnames_manpage_from_archive(staging_root)
    if manpage is None:
        log("  cannot find the lexnames(5WN) manual page to build 'lexnames'")
        shutil.rmtree(staged, ignore_errors=True)
        return None
    try:
        lines = parse_lexnames_manpage(read_manpage(manpage))
    except ValueError as exc:
        log(f"  cannot build 'lexnames' from {manpage}: {exc}")
        shutil.rmtree(staged, ignore_errors=True)
        return None
    (staged / "lexnames").write_text("\n".join(lines) + "\n", encoding="utf-8")
    log(f"  built lexnames ({len(lines)} lexicographer files) from {manpage}")

    for doc in (Path("/usr/share/doc/wordnet-base/copyright"),):
        if doc.is_file():
            copy_regular(doc, staged / "LICENSE")
    try:
        load_check(staged)
    except ProvisionError as exc:
        log(f"  {exc}")
        shutil.rmtree(staged, ignore_errors=True)
        return None
    return f"Debian packages {' + '.join(DEBIAN_PACKAGES)} ({by_name['data.noun'].parent})"


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def write_stamp(wordnet_dir: Path, source: str, version: str) -> None:
    payload = {
        "source": source,
        "wordnet_version": version,
        "files": sorted(p.name for p in wordnet_dir.iterdir() if p.is_file()),
        "provisioned_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }
    tmp = wordnet_dir / (STAMP_NAME + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, wordnet_dir / STAMP_NAME)


def install_staged(staged: Path, wordnet_dir: Path, staging_root: Path) -> None:
    """Move the checked *staged* directory to *wordnet_dir*, replacing any old one."""
    if wordnet_dir.exists():
        old = staging_root / "previous"
        os.replace(wordnet_dir, old)
    os.replace(staged, wordnet_dir)


def provision(target: Path, force: bool = False) -> int:
    started = time.monotonic()
    target = target.resolve()
    wordnet_dir = target / "corpora" / "wordnet"
    stamp = wordnet_dir / STAMP_NAME

    if stamp.is_file() and not missing_files(wordnet_dir) and not force:
        os.utime(stamp)
        log(f"WordNet already provisioned in {wordnet_dir}; nothing to do")
        return 0
    if stamp.is_file() and not force:
        log(f"stamp present but {wordnet_dir} is incomplete; provisioning again")

    import nltk

    # NLTK opens corpus files only inside its data roots: make the target one.
    if str(target) not in nltk.data.path:
        nltk.data.path.insert(0, str(target))

    # 1a. A WordNet already in the target (e.g. copied by hand) that loads.
    if wordnet_dir.is_dir() and not missing_files(wordnet_dir) and not force:
        log(f"found WordNet files in {wordnet_dir}; checking them")
        try:
            version = load_check(wordnet_dir)
        except ProvisionError as exc:
            log(f"  not usable ({exc}); looking for another source")
        else:
            write_stamp(wordnet_dir, f"already present in {wordnet_dir}", version)
            log(f"WordNet {version} found in {wordnet_dir}; stamp written ({time.monotonic() - started:.1f} s)")
            return 0

    (target / "corpora").mkdir(parents=True, exist_ok=True)
    staging_root = Path(tempfile.mkdtemp(prefix=".wordnet-staging-", dir=target / "corpora"))
    # The staging directory is itself laid out as an NLTK data root.
    staged = staging_root / "corpora" / "wordnet"
    try:
        source = None
        for step in (
            lambda: from_existing(target, staged),
            lambda: from_downloader(staging_root, staged),
            lambda: from_debian(staging_root, staged),
        ):
            try:
                source = step()
            except (ProvisionError, OSError, subprocess.SubprocessError) as exc:
                log(f"  failed: {type(exc).__name__}: {exc}")
                shutil.rmtree(staged, ignore_errors=True)
                source = None
            if source is not None:
                break
        if source is None:
            print(HOW_TO_GET_WORDNET.format(target=target), file=sys.stderr)
            return 1
        version = load_check(staged)
        if version != EXPECTED_VERSION:
            log(f"warning: WordNet version is {version}, expected {EXPECTED_VERSION}")
        install_staged(staged, wordnet_dir, staging_root)
        write_stamp(wordnet_dir, source, version)
    finally:
        shutil.rmtree(staging_root, ignore_errors=True)
    log(f"WordNet {version} from {source} provisioned in {wordnet_dir} ({time.monotonic() - started:.1f} s)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--target",
        default="nltk_data",
        type=Path,
        help="NLTK data directory to provision (default: nltk_data)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="provision again even if the stamp file is present",
    )
    args = parser.parse_args(argv)
    return provision(args.target, force=args.force)


if __name__ == "__main__":
    sys.exit(main())
