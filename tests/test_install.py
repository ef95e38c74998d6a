"""What each install brings: the library alone, the demo's ``lab`` extra (what
``.ci/setup`` installs), the test stack (``.ci/test``), and the lowest versions the
library claims, which ``.ci/test-floors`` tests.
"""

from __future__ import annotations

import re
import tomllib

import pytest
from conftest import REPO

from prime_nb.cli import _demo, main

PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
REQUIREMENT = re.compile(r"^([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*(?:>=\s*([0-9.]+))?")


def _name(requirement: str) -> str:
    found = REQUIREMENT.match(requirement)
    assert found, requirement
    return found.group(1).lower()


def _version(text: str) -> tuple[int, ...]:
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def _ci(name: str) -> str:
    return (REPO / ".ci" / name).read_text("utf-8")


def _commands(script: str) -> list[str]:
    return [line for line in script.splitlines() if line and not line.lstrip().startswith("#")]


def test_the_library_needs_no_jupyterlab_and_the_lab_extra_brings_it() -> None:
    assert "jupyterlab" not in {_name(r) for r in PROJECT["dependencies"]}
    assert {_name(r) for r in PROJECT["optional-dependencies"]["lab"]} == {"jupyterlab"}


def test_setup_installs_the_demo_and_test_installs_the_test_stack() -> None:
    setup, test = _commands(_ci("setup")), _commands(_ci("test"))
    installs = [line for line in setup if "pip install" in line and "-e" in line]
    assert installs == [".venv/bin/python -m pip install -q -e '.[lab]'"]
    assert not any("chromium" in line or "[test]" in line for line in setup)
    at = {line: i for i, line in enumerate(test)}
    assert at["bash .ci/setup"] < at[".venv/bin/python -m pip install -q -e '.[test]'"]
    assert any("install" in line and "chromium" in line for line in test)
    assert test[-1] == "bash .ci/test-floors"


def test_the_floors_job_installs_exactly_pyprojects_floors() -> None:
    pins = {}
    for line in _commands(_ci("floors.txt")):
        name, _, version = line.partition("==")
        pins[name.strip().lower()] = _version(version.strip())
    floors = {}
    for requirement in PROJECT["dependencies"]:
        found = REQUIREMENT.match(requirement)
        assert found and found.group(2), f"{requirement}: give a floor (>=) that CI tests"
        floors[found.group(1).lower()] = _version(found.group(2))
    assert pins == floors
    assert floors["pandas"] >= (3, 0, 0)  # the tables' str columns
    assert "-r .ci/floors.txt" in _ci("test-floors")


def test_demo_without_jupyterlab_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(_demo, "find_spec", lambda name: None)
    assert main(["demo", "--no-browser"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "prime-nb: error: demo: JupyterLab is not installed; pip install 'prime-nb[lab]' "
        "(in a checkout: pip install -e '.[lab]')"
    ]
