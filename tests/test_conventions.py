"""Conventions of the repository that no linter checks, read from its files.

- Every ``pytest.raises`` names the message it expects (``match=``): an error of the
  right type but for the wrong reason (a typo in a key, a different failed check) would
  otherwise pass the test, and a message that tells the user what to do is part of the
  behaviour.
- The version is written in one place, ``prime_nb/_version.py``: the wheel's metadata
  (hatch reads that file) and the corpus cache take it from there, so copies elsewhere
  could only drift.
- No module of the package or of the widget's source is over ``MAX_MODULE_LINES``
  lines: a module that grew past that has grown past one idea, and a newcomer should
  find the room for a change in one look.
"""

from __future__ import annotations

import ast
import json
import os
import re
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"


def bare_raises(source: str) -> list[int]:
    """Lines of ``pytest.raises(...)`` (or ``raises(...)`` imported from pytest) calls with
    no ``match=``, or with one that matches anything (empty, ``.*``)."""
    tree = ast.parse(source)
    imported = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "pytest"
        for alias in node.names
        if alias.name == "raises"
    }
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        is_raises = (
            isinstance(func, ast.Attribute)
            and func.attr == "raises"
            and isinstance(func.value, ast.Name)
            and func.value.id == "pytest"
        ) or (isinstance(func, ast.Name) and func.id in imported)
        if not is_raises:
            continue
        match = next((k.value for k in node.keywords if k.arg == "match"), None)
        if match is None or (
            isinstance(match, ast.Constant) and str(match.value).strip("^$") in ("", ".*", ".+")
        ):
            out.append(node.lineno)
    return out


def test_every_pytest_raises_names_its_message() -> None:
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        name = path.relative_to(REPO).as_posix()
        if name.startswith("tests/fixtures/"):
            continue
        found += [f"{name}:{line}" for line in bare_raises(path.read_text())]
    assert not found, (
        "pytest.raises without a match= (or with one that matches anything): add a "
        f"fragment of the expected message at {found}"
    )


@pytest.mark.parametrize(
    ("source", "lines"),
    [
        ("import pytest\nwith pytest.raises(ValueError):\n    f()\n", [2]),
        ("import pytest\nwith pytest.raises(ValueError, match='.*'):\n    f()\n", [2]),
        ("from pytest import raises as r\nwith r(KeyError):\n    f()\n", [2]),
        (
            "import pytest\nwith pytest.raises(\n    ValueError,\n    match='no entry'\n):\n"
            "    f()\n",
            [],
        ),
        ("import pytest\nwith pytest.raises(ValueError, match=rf'^{x}$'):\n    f()\n", []),
    ],
)
def test_the_raises_check_sees_a_bare_one(source: str, lines: list[int]) -> None:
    assert bare_raises(source) == lines


def version() -> str:
    tree = ast.parse((REPO / "prime_nb" / "_version.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__version__":
            value = ast.literal_eval(node.value)
            assert isinstance(value, str)
            return value
    raise AssertionError("prime_nb/_version.py sets no __version__ = '...'")


#: Folders of built, installed, cached or recorded files, not the repository's sources.
NOT_SOURCES = {
    ".git",
    ".venv",  # and every .venv-* beside it (Phoenix's, Harbor's: see .ci/test)
    "node_modules",
    "static",
    "fixtures",
    "build",
    "dist",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
    ".ipynb_checkpoints",
}
SOURCE_SUFFIXES = {".py", ".pyi", ".toml", ".cfg", ".ini", ".json", ".ts", ".mjs", ".js", ".sh"}


def places_of(text: str, root: Path) -> list[str]:
    """``path:line`` of every place under ``root`` where ``text`` is written as a whole
    version (not as part of a longer one such as ``10.1.0`` or ``0.1.0.1``)."""
    pattern = re.compile(rf"(?<![\w.]){re.escape(text)}(?![\w.]*\d)")
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in NOT_SOURCES and not d.startswith(".venv-"))
        for name in sorted(files):
            path = Path(folder) / name
            if path.suffix not in SOURCE_SUFFIXES and path.parent.name != ".ci":
                continue
            for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                if pattern.search(line):
                    out.append(f"{path.relative_to(root).as_posix()}:{n}")
    return sorted(out)


def test_the_version_is_written_in_one_place() -> None:
    assert places_of(version(), REPO) == ["prime_nb/_version.py:4"], (
        "the version is written only in prime_nb/_version.py: pyproject.toml reads it "
        "(dynamic, [tool.hatch.version]) and js/package.json, a private package, has none"
    )
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["hatch"]["version"]["path"] == "prime_nb/_version.py"
    for name in ("package.json", "package-lock.json"):
        lock = json.loads((REPO / "js" / name).read_text())
        assert "version" not in lock and "version" not in lock.get("packages", {}).get("", {})


def test_the_version_check_sees_a_second_copy(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text('__version__ = "1.2.3"\n')
    (tmp_path / "pyproject.toml").write_text('version = "1.2.3"\nother = "11.2.3"\n')
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "x.json").write_text('{"version": "1.2.3"}')
    (tmp_path / "b.ts").write_text('const v = "1.2.3.4"; const w = "v1.2.30";\n')
    assert places_of("1.2.3", tmp_path) == ["a.py:1", "pyproject.toml:1"]


def test_test_modules_have_names_of_their_own() -> None:
    """pytest imports test modules by their base name (the folders have no
    ``__init__.py``): two ``test_search.py`` in different folders stop the whole run at
    collection."""
    names = [path.name for path in TESTS.rglob("test_*.py") if "fixtures" not in path.parts]
    repeated = sorted({name for name in names if names.count(name) > 1})
    assert repeated == [], f"rename one of each: {repeated}"


#: the most lines one module of the package (Python) or the widget (TypeScript) holds
MAX_MODULE_LINES = 600


def long_modules(root: Path, pattern: str) -> list[str]:
    """The modules below ``root`` matching ``pattern`` over ``MAX_MODULE_LINES`` lines."""
    return sorted(
        f"{path.relative_to(root)}: {lines} lines"
        for path in root.rglob(pattern)
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    )


def test_no_module_is_over_the_line_limit() -> None:
    found = long_modules(REPO / "prime_nb", "*.py") + long_modules(REPO / "js" / "src", "*.ts")
    assert not found, f"split these by concern (at most {MAX_MODULE_LINES} lines): {found}"


def test_the_line_limit_check_sees_a_long_module(tmp_path: Path) -> None:
    (tmp_path / "short.py").write_text("x = 1\n" * MAX_MODULE_LINES)
    (tmp_path / "long.ts").write_text("let x = 1;\n" * (MAX_MODULE_LINES + 1))
    assert long_modules(tmp_path, "*.py") == []
    assert len(long_modules(tmp_path, "*.ts")) == 1
