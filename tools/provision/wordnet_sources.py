"""Where WordNet 3.0 for NLTK can come from: another NLTK WordNet on the machine, NLTK's
downloader, or Debian's ``wordnet-base`` and ``wordnet-sense-index`` packages.

Each ``from_*`` function fills a staging directory (laid out as ``<root>/corpora/wordnet``)
and returns a description of the source, or ``None`` when that source is not available.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import re
import shutil
import socket
import time
import zipfile
from pathlib import Path

from debias.metrics.wordnet import WordNetUnavailableError, read_wordnet
from tools.provision.apt import apt_available, apt_install, debian_installed, extract_from_package, package_files

#: Files NLTK's ``WordNetCorpusReader`` opens (its ``_FILES``).
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
DOWNLOADER_TIMEOUT_S = 10.0

#: Syntactic category numbers of the third column of ``lexnames`` (``lexnames(5WN)``).
LEXNAME_CATEGORIES = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
LEXNAMES_COUNT = 45
_LEXNAME_ROW = re.compile(r"^\s*(\d{2})\s+((adj|adv|noun|verb)\.[A-Za-z]+)\s")


class ProvisionError(RuntimeError):
    """A source of WordNet was found but could not be turned into a corpus."""


def log(message: str) -> None:
    print(f"[wordnet] {message}", flush=True)


def parse_lexnames_manpage(text: str) -> list[str]:
    """The lines of NLTK's ``lexnames`` file, built from the ``lexnames(5WN)`` manual page.

    The page lists the 45 lexicographer files as ``NN name description`` rows; NLTK expects
    ``NN<TAB>name<TAB>category`` numbered 00..44, the category (1 noun, 2 verb, 3 adjective,
    4 adverb) given by the name's prefix. Raises ``ValueError`` unless exactly 00..44 are found.
    """
    entries: dict[int, str] = {}
    for line in text.splitlines():
        match = _LEXNAME_ROW.match(line)
        if match is None:
            continue
        number, name = int(match.group(1)), match.group(2)
        if entries.get(number, name) != name:
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
    return [f"{n:02d}\t{entries[n]}\t{LEXNAME_CATEGORIES[entries[n].split('.', 1)[0]]}" for n in expected]


def missing_files(directory: Path) -> list[str]:
    """NLTK WordNet files absent (or empty) in ``directory``."""
    return [
        name
        for name in NLTK_WORDNET_FILES
        if not (directory / name).is_file() or (directory / name).stat().st_size == 0
    ]


def check_wordnet_dir(directory: Path) -> str:
    """Check a candidate ``<root>/corpora/wordnet`` with the reader METEOR uses; return its version."""
    missing = missing_files(directory)
    if missing:
        raise ProvisionError(f"{directory} lacks {', '.join(missing)}")
    if directory.name != "wordnet" or directory.parent.name != "corpora":
        raise ProvisionError(f"{directory} is not laid out as <root>/corpora/wordnet")
    import nltk

    # NLTK opens corpus files only inside its data roots: make this one a root while checking.
    saved_path = list(nltk.data.path)
    nltk.data.path.insert(0, str(directory.parent.parent))
    try:
        return str(read_wordnet(directory).get_version())
    except WordNetUnavailableError as error:
        raise ProvisionError(str(error).splitlines()[0]) from error
    finally:
        nltk.data.path[:] = saved_path


def copy_regular(src: Path, dst: Path) -> None:
    """Copy file contents into a new inode (never a link: NLTK refuses links leaving its roots)."""
    shutil.copyfile(src, dst, follow_symlinks=True)
    os.chmod(dst, 0o644)


def copy_wordnet_dir(src: Path, dst: Path) -> None:
    dst.mkdir(parents=True, exist_ok=True)
    for entry in sorted(src.iterdir()):
        if entry.name != STAMP_NAME and entry.is_file():
            copy_regular(entry, dst / entry.name)


def extract_wordnet_zip(archive: Path, dst: Path) -> None:
    """Extract the plain files directly under ``wordnet/`` of NLTK's ``wordnet.zip`` into ``dst``."""
    dst.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            parts = info.filename.split("/")
            # Only plain files directly under the top-level folder: no member escapes dst.
            if info.is_dir() or len(parts) != 2 or parts[1] in ("", ".", ".."):
                continue
            with zf.open(info) as fin, open(dst / parts[1], "wb") as fout:
                shutil.copyfileobj(fin, fout)


def _unpack_candidate(candidate: Path, staged: Path) -> None:
    if candidate.is_dir():
        copy_wordnet_dir(candidate, staged)
    else:
        extract_wordnet_zip(candidate, staged)
    check_wordnet_dir(staged)


def from_existing(target: Path, staged: Path) -> str | None:
    """An NLTK WordNet elsewhere on NLTK's search path, copied so the project does not depend on it."""
    import nltk

    seen: set[Path] = set()
    for entry in nltk.data.path:
        base = Path(str(getattr(entry, "path", entry))).expanduser()
        if base.resolve() == target.resolve():
            continue
        for candidate in (base / "corpora" / "wordnet", base / "corpora" / "wordnet.zip"):
            if not candidate.exists() or candidate.resolve() in seen:
                continue
            seen.add(candidate.resolve())
            log(f"found an NLTK WordNet at {candidate}; checking it")
            try:
                _unpack_candidate(candidate, staged)
            except (ProvisionError, OSError, zipfile.BadZipFile) as exc:
                log(f"  not usable: {exc}")
                shutil.rmtree(staged, ignore_errors=True)
                continue
            return f"existing NLTK WordNet at {candidate}"
    log("no other NLTK WordNet on NLTK's search path")
    return None


def from_downloader(staging_root: Path, staged: Path) -> str | None:
    """NLTK's downloader, with a short socket timeout so that it fails fast offline."""
    import nltk

    download_dir = staging_root / "download"
    download_dir.mkdir()
    log(f"trying NLTK's downloader (socket timeout {DOWNLOADER_TIMEOUT_S:.0f} s)")
    previous_timeout, saved_path = socket.getdefaulttimeout(), list(nltk.data.path)
    socket.setdefaulttimeout(DOWNLOADER_TIMEOUT_S)
    chatter, started = io.StringIO(), time.monotonic()
    try:
        with contextlib.redirect_stdout(chatter), contextlib.redirect_stderr(chatter):
            ok = nltk.download(
                "wordnet", download_dir=str(download_dir), quiet=True, raise_on_error=True, print_error_to=chatter
            )
    except Exception as exc:  # network errors surface as many exception types
        first = (str(exc).strip().splitlines() or [""])[0]
        log(f"  downloader failed after {time.monotonic() - started:.1f} s: {type(exc).__name__}: {first[:200]}")
        return None
    finally:
        socket.setdefaulttimeout(previous_timeout)
        nltk.data.path[:] = saved_path  # the downloader appends its directory
    candidates = [download_dir / "corpora" / "wordnet", download_dir / "corpora" / "wordnet.zip"]
    found = next((c for c in candidates if c.exists()), None)
    if not ok or found is None:
        log("  downloader reported failure or left no corpora/wordnet")
        return None
    try:
        _unpack_candidate(found, staged)
    except (ProvisionError, OSError, zipfile.BadZipFile) as exc:
        log(f"  downloaded WordNet not usable: {exc}")
        shutil.rmtree(staged, ignore_errors=True)
        return None
    return "NLTK downloader"


def _read_manpage(path: Path) -> str:
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8", errors="replace")


def from_debian(staging_root: Path, staged: Path) -> str | None:
    """Debian's WordNet 3.0 packages (installed with apt-get as root), ``lexnames`` rebuilt
    from the ``lexnames(5WN)`` manual page, which Debian ships instead of the file."""
    if not apt_available():
        log("not a Debian-based system (no dpkg/apt-get); skipping the Debian packages")
        return None
    missing = [p for p in DEBIAN_PACKAGES if not debian_installed(p)]
    if missing and os.geteuid() != 0:
        log(f"Debian packages {', '.join(missing)} are not installed and this is not root; skipping them")
        return None
    if missing:
        log(f"installing Debian packages: {', '.join(missing)}")
        started = time.monotonic()
        if not apt_install(tuple(missing), log):
            return None
        log(f"  installed in {time.monotonic() - started:.1f} s")
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
        log("  lexnames(5WN) manual page not installed; extracting it from the package")
        manpage = extract_from_package("wordnet-base", "lexnames.5*", staging_root, log)
    try:
        if manpage is None:
            raise ProvisionError("cannot find the lexnames(5WN) manual page to build 'lexnames'")
        lines = parse_lexnames_manpage(_read_manpage(manpage))
        (staged / "lexnames").write_text("\n".join(lines) + "\n", encoding="utf-8")
        log(f"  built lexnames ({len(lines)} lexicographer files) from {manpage}")
        copyright_file = Path("/usr/share/doc/wordnet-base/copyright")
        if copyright_file.is_file():
            copy_regular(copyright_file, staged / "LICENSE")
        check_wordnet_dir(staged)
    except (ProvisionError, ValueError) as exc:
        log(f"  {exc}")
        shutil.rmtree(staged, ignore_errors=True)
        return None
    return f"Debian packages {' + '.join(DEBIAN_PACKAGES)} ({by_name['data.noun'].parent})"
