"""The set-up step for Debian packages: what it finds, installs, and says when it cannot install."""

from __future__ import annotations

import pytest

from tools.provision import system


def test_missing_packages_are_found_by_what_they_provide(monkeypatch):
    monkeypatch.setattr(system, "_works", lambda command: command[0] == "perl")
    assert system.missing_packages(["perl", "libxml-parser-perl", "default-jre-headless"]) == ["default-jre-headless"]
    with pytest.raises(ValueError, match="no check known"):
        system.missing_packages(["cowsay"])


def test_without_root_the_step_fails_naming_the_packages(monkeypatch, capsys):
    monkeypatch.setattr(system, "_works", lambda command: False)
    monkeypatch.setattr(system, "apt_available", lambda: True)
    monkeypatch.setattr(system.os, "geteuid", lambda: 1000)
    installed = []
    monkeypatch.setattr(system, "apt_install", lambda packages, log: installed.append(packages) or True)
    assert system.main(["--packages", "libxml-parser-perl", "default-jre-headless"]) == 1
    err = capsys.readouterr().err
    assert "libxml-parser-perl default-jre-headless" in err and "not running as root" in err.lower()
    assert installed == []


def test_as_root_missing_packages_are_installed_and_checked_again(monkeypatch):
    state = {"installed": False}
    monkeypatch.setattr(system, "_works", lambda command: state["installed"] or command[0] == "perl")
    monkeypatch.setattr(system, "apt_available", lambda: True)
    monkeypatch.setattr(system.os, "geteuid", lambda: 0)

    def install(packages, log):
        assert packages == ("default-jre-headless",)
        state["installed"] = True
        return True

    monkeypatch.setattr(system, "apt_install", install)
    assert system.main(["--packages", "perl", "default-jre-headless"]) == 0


def test_present_packages_need_nothing(monkeypatch):
    monkeypatch.setattr(system, "_works", lambda command: True)
    monkeypatch.setattr(system, "apt_install", lambda packages, log: pytest.fail("nothing to install"))
    assert system.main(["--packages", "perl"]) == 0
