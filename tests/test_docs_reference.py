"""docs/tables.md is generated from the schema modules and must be current."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from conftest import REPO

from prime_nb.analysis._schemas import SCHEMAS as RESEARCH
from prime_nb.session._schema import INDEX, SCHEMAS


def _generator() -> ModuleType:
    path = REPO / "docs" / "make_reference.py"
    spec = importlib.util.spec_from_file_location("make_reference", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_column_is_described() -> None:
    assert _generator().missing_descriptions() == []


def test_the_reference_is_current() -> None:
    written = (REPO / "docs" / "tables.md").read_text("utf-8")
    assert written == _generator().render(), "run: python docs/make_reference.py"


def test_the_reference_lists_each_schema_with_its_dtypes() -> None:
    text = _generator().render()
    for table, schema in SCHEMAS.items():
        index = INDEX[table]
        for column, dtype in ([index] if index else []) + list(schema.items()):
            assert f"| `{column}` | `{dtype}` |" in text, (table, column)
        assert f"## `session.{table}`" in text
    for table in RESEARCH:
        assert f"## `analysis.{table}`" in text


def test_a_changed_schema_makes_the_reference_stale() -> None:
    generator = _generator()
    before = generator.render()
    SCHEMAS["leaves"]["extra"] = "int64"
    try:
        assert generator.missing_descriptions() == ["leaves.extra"]
        generator.DESCRIPTIONS["leaves"]["extra"] = "a new column"
        assert "| `extra` | `int64` | a new column |" in generator.render() != before
    finally:
        del SCHEMAS["leaves"]["extra"]
    assert Path(REPO / "docs" / "tables.md").read_text("utf-8") == generator.render()
