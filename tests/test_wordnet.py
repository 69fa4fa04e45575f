"""WordNet for METEOR: loading it, refusing to go on without it, and provisioning it."""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import nltk
import pytest

from debias.metrics.wordnet import WordNetUnavailableError, use_wordnet, wordnet_version
from tools.provision import wordnet as provision_wordnet
from tools.provision import wordnet_sources as sources

REPO = Path(__file__).resolve().parent.parent
NLTK_DATA = REPO / "nltk_data"
WORDNET_DIR = NLTK_DATA / "corpora" / "wordnet"
COMMAND = [sys.executable, "-m", "tools.provision.wordnet"]


@pytest.fixture(scope="module")
def provisioned() -> Path:
    if not (WORDNET_DIR / ".provisioned").is_file():
        pytest.fail(f"WordNet is not provisioned in {NLTK_DATA}: run `make setup`")
    return NLTK_DATA


@pytest.fixture
def isolated_data_path(monkeypatch):
    """nltk.data.path without the project's directory, restored after the test."""
    project = str(NLTK_DATA.resolve())
    monkeypatch.setattr(nltk.data, "path", [p for p in nltk.data.path if p != project])
    return nltk.data.path


def lexnames_manpage() -> Path | None:
    candidates = []
    try:
        listed = subprocess.run(
            ["dpkg", "-L", "wordnet-base"], capture_output=True, text=True, timeout=60, check=False
        ).stdout.split()
        candidates += [Path(p) for p in listed if Path(p).name.startswith("lexnames.5")]
    except (OSError, subprocess.SubprocessError):
        pass
    candidates += [Path("/usr/share/man/man5/lexnames.5WN.gz"), Path("/usr/share/man/man5/lexnames.5WN")]
    return next((p for p in candidates if p.is_file()), None)


# --- use_wordnet -----------------------------------------------------------------------------


def test_use_wordnet_loads_the_provisioned_wordnet(provisioned):
    reader = use_wordnet(provisioned)
    assert nltk.data.path[0] == str(provisioned.resolve())
    assert wordnet_version(reader) == "3.0"
    assert "dog.n.01" in [s.name() for s in reader.synsets("dog")]
    assert "automobile" in {lemma.name() for lemma in reader.synset("car.n.01").lemmas()}
    assert Path(reader.root.path) == WORDNET_DIR.resolve()
    assert use_wordnet(provisioned) is reader  # cached, not loaded twice
    assert nltk.data.path.count(str(provisioned.resolve())) == 1


def test_fast_index_reading_gives_nltks_own_maps(provisioned):
    """The reader opens the index and exception files with Python's text reader: the lemma
    and exception maps, and so every synset lookup, are those of NLTK's own reader."""
    import warnings

    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    ours = use_wordnet(provisioned)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nltks = WordNetCorpusReader(nltk.data.find("corpora/wordnet"), None)
    assert len(ours._lemma_pos_offset_map) > 100_000
    assert ours._lemma_pos_offset_map == nltks._lemma_pos_offset_map
    assert ours._exception_map == nltks._exception_map
    for word in ("geese", "running", "better", "went", "dog"):
        assert [s.name() for s in ours.synsets(word)] == [s.name() for s in nltks.synsets(word)]


def test_use_wordnet_raises_clear_error_without_wordnet(tmp_path, isolated_data_path):
    empty = tmp_path / "empty-nltk-data"
    empty.mkdir()
    try:
        other = nltk.data.find("corpora/wordnet")
    except LookupError:
        other = None
    if other is not None:
        pytest.skip(f"NLTK finds another WordNet on this machine ({other}), so none is missing")
    with pytest.raises(WordNetUnavailableError) as info:
        use_wordnet(empty)
    message = str(info.value)
    assert str(empty.resolve()) in message
    assert "make setup" in message
    assert "python -m tools.provision.wordnet --target nltk_data" in message
    assert "python -m nltk.downloader -d nltk_data wordnet" in message


def test_use_wordnet_rejects_a_broken_wordnet(tmp_path, isolated_data_path):
    broken = tmp_path / "broken" / "corpora" / "wordnet"
    broken.mkdir(parents=True)
    (broken / "lexnames").write_text("00\tadj.all\t3\n", encoding="utf-8")
    with pytest.raises(WordNetUnavailableError, match="cannot be read"):
        use_wordnet(tmp_path / "broken")


# --- provisioning -----------------------------------------------------------------------------


def test_lexnames_from_the_man_page():
    page = lexnames_manpage()
    if page is None:
        pytest.skip("the lexnames(5WN) man page of Debian's wordnet-base is not installed here")
    text = gzip.decompress(page.read_bytes()).decode() if page.suffix == ".gz" else page.read_text()
    lines = sources.parse_lexnames_manpage(text)
    assert len(lines) == 45
    pattern = re.compile(r"^(\d{2})\t(adj|adv|noun|verb)\.[A-Za-z]+\t([1-4])$")
    category = {"noun": "1", "verb": "2", "adj": "3", "adv": "4"}
    for i, line in enumerate(lines):
        match = pattern.match(line)
        assert match, line
        assert int(match.group(1)) == i
        assert match.group(3) == category[match.group(2)]
    assert lines[0] == "00\tadj.all\t3"
    assert lines[3] == "03\tnoun.Tops\t1"
    assert lines[18] == "18\tnoun.person\t1"  # trailing blanks after the name on the page
    assert lines[29] == "29\tverb.body\t2"
    assert lines[44] == "44\tadj.ppl\t3"


def test_lexnames_parser_rejects_an_incomplete_table():
    text = "\n".join(f"{i:02d}\tnoun.x{'y' * i}\tnouns" for i in range(44))  # 00..43 only
    with pytest.raises(ValueError, match="missing \\[44\\]"):
        sources.parse_lexnames_manpage(text)
    completed = sources.parse_lexnames_manpage(text + "\n44\tadv.all\tadverbs")
    assert len(completed) == 45
    assert completed[43] == f"43\tnoun.x{'y' * 43}\t1"
    assert completed[44] == "44\tadv.all\t4"


def test_provisioned_directory_is_complete_and_readable_by_nltk(provisioned):
    assert sources.missing_files(WORDNET_DIR) == []
    lexnames = (WORDNET_DIR / "lexnames").read_text().splitlines()
    assert len(lexnames) == 45
    for path in WORDNET_DIR.iterdir():
        # NLTK refuses symlinks and hard links in its data roots.
        assert not path.is_symlink(), path
        assert path.stat().st_nlink == 1, path
    assert not list((NLTK_DATA / "corpora").glob(".wordnet-staging-*"))  # nothing half-written


def test_second_run_does_nothing(provisioned):
    stamp = WORDNET_DIR / ".provisioned"
    content = stamp.read_text()
    started = time.monotonic()
    proc = subprocess.run(
        [*COMMAND, "--target", str(NLTK_DATA)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "nothing to do" in proc.stdout
    assert time.monotonic() - started < 30
    assert stamp.read_text() == content


def test_wordnet_already_in_target_gets_checked_and_stamped(tmp_path, provisioned, monkeypatch):
    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    target = tmp_path / "nltk_data"
    (target / "corpora" / "wordnet").mkdir(parents=True)
    for name in sources.NLTK_WORDNET_FILES:
        sources.copy_regular(WORDNET_DIR / name, target / "corpora" / "wordnet" / name)
    assert provision_wordnet.provision(target) == 0
    stamp = (target / "corpora" / "wordnet" / ".provisioned").read_text()
    assert '"wordnet_version": "3.0"' in stamp
    assert "already present" in stamp


def test_zip_extraction_keeps_members_inside(tmp_path):
    archive = tmp_path / "wordnet.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("wordnet/lexnames", "00\tadj.all\t3\n")
        zf.writestr("wordnet/../../escaped", "no")
        zf.writestr("wordnet/sub/nested", "no")
    out = tmp_path / "out"
    sources.extract_wordnet_zip(archive, out)
    assert sorted(p.name for p in out.iterdir()) == ["lexnames"]
    assert not (tmp_path / "escaped").exists()


def test_failure_explains_how_to_get_wordnet(tmp_path):
    """Without NLTK's downloader, Debian's tools or another WordNet, provisioning fails helpfully."""
    bare_bin = tmp_path / "bin"
    bare_bin.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "PATH": str(bare_bin), "HOME": str(home), "NLTK_DATA": ""}
    proc = subprocess.run(
        [*COMMAND, "--target", str(tmp_path / "nd")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    if proc.returncode == 0:
        pytest.skip(
            "WordNet could be provisioned here without Debian's tools "
            "(another NLTK WordNet or NLTK's downloader), so this failure cannot be shown"
        )
    for hint in ("nltk.downloader", "wordnet-base wordnet-sense-index", "corpora/wordnet"):
        assert hint in proc.stderr
    assert not (tmp_path / "nd" / "corpora" / "wordnet").exists()
