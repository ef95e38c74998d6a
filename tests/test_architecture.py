"""The package's layers, read from its imports: lower layers never import higher ones.

ARCHITECTURE.md explains the layers; this test keeps them true. It reads every import
statement in ``prime_nb/`` with ``ast`` (imports inside functions included, since a lazy
import is still a dependency), and checks four rules:

- a module may import only from its own layer's package or from a lower layer (imports
  under ``if TYPE_CHECKING:`` excluded here, since they never run);
- the module import graph has no cycle, within a sub-package as between them; here
  imports for type checking count too (two modules that name each other's types are
  still a circle to read), and a name imported from a package's ``__init__`` counts as
  an import of the module that defines it, so no cycle hides behind a package's face;
- a module imports another sub-package only by its public face (its ``__init__``),
  never one of its ``_private`` modules;
- the checkers are not vacuous: a planted violation of each rule is found.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "prime_nb"

# Lowest first. Packages on one layer are siblings: neither may import the other.
LAYERS: dict[str, int] = {
    "errors": 0,
    "_cut": 0,
    "_figures": 0,  # how plots builds its figures (plotly only)
    "_names": -1,  # below errors, whose messages show names and session text with it
    "_version": 0,
    "_words": 0,
    "format": 1,
    "_paths": 1,  # path arguments; reads shown names back with _names
    "write": 2,
    "session": 3,
    "analysis": 4,
    "redact": 4,
    "plots": 5,
    "family": 5,
    "widget": 6,
    "corpus": 6,
    "interop": 6,
    "datasets": 7,
    "cli": 8,
    "__init__": 9,
    "__main__": 9,
}

# Sub-packages whose own modules may still import other sub-packages' private modules:
# none (corpus/ reads through session's one reading interface, ``read_columns``).
MAY_IMPORT_PRIVATE_MODULES: set[str] = set()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def is_package(path: Path) -> bool:
    return path.name in ("__init__.py", "__init__.pyi")


def in_type_checking(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


@dataclass(frozen=True)
class Import:
    """One prime_nb module an import statement names, as written (not through faces)."""

    target: str  # absolute dotted module name
    names: tuple[str, ...]  # the names taken from it (empty for ``import x.y``)
    typing_only: bool  # under ``if TYPE_CHECKING:``
    line: int


def imports_in(path: Path) -> Iterator[Import]:
    """The prime_nb modules each import statement of ``path`` names (each file is parsed
    once while it stays the same: the graph checks and the face lookups read it again)."""
    stat = path.stat()
    return iter(_parsed_imports(path, stat.st_mtime_ns, stat.st_size))


@functools.cache
def _parsed_imports(path: Path, mtime_ns: int, size: int) -> tuple[Import, ...]:
    return tuple(_read_imports(path))


def _read_imports(path: Path) -> Iterator[Import]:
    tree = ast.parse(path.read_text(), str(path))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    here = module_name(path).split(".")
    base = here if is_package(path) else here[:-1]
    for node in ast.walk(tree):
        typing_only = in_type_checking(node, parents)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "prime_nb":
                    yield Import(alias.name, (), typing_only, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base[: len(base) - (node.level - 1)]
                target = ".".join([*anchor, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target.split(".")[0] != "prime_nb":
                continue
            names = tuple(alias.name for alias in node.names)
            # `from . import _tables` names a module: depend on it, not on the package
            submodules = [f"{target}.{name}" for name in names]
            if all(module_file(candidate) is not None for candidate in submodules):
                for submodule in submodules:
                    yield Import(submodule, (), typing_only, node.lineno)
            else:
                yield Import(target, names, typing_only, node.lineno)


def imports_of(path: Path) -> set[str]:
    """The prime_nb modules ``path`` imports when it runs (absolute dotted names)."""
    return {i.target for i in imports_in(path) if not i.typing_only}


def module_file(name: str) -> Path | None:
    rel = Path(*name.split(".")[1:])
    for path in (PACKAGE / rel / "__init__.py", (PACKAGE / rel).with_suffix(".py")):
        if path.is_file():
            return path
    return None


def face(package: str) -> dict[str, str]:
    """Where a package's ``__init__`` takes each name from: name -> defining module.

    A package that loads its names lazily lists them in ``__init__.pyi``; the others
    import them in ``__init__.py``. Both are read."""
    folder = PACKAGE / Path(*package.split(".")[1:])
    out: dict[str, str] = {}
    for init in (folder / "__init__.py", folder / "__init__.pyi"):
        if init.is_file():
            for found in imports_in(init):
                if found.names:
                    out.update(dict.fromkeys(found.names, found.target))
                else:
                    out[found.target.rsplit(".", 1)[-1]] = found.target
    return out


def defining_modules(found: Import) -> set[str]:
    """The modules an import depends on: through a package's face, the ones that define
    the names it takes (a name the face does not list stays on the package)."""
    if not found.names or module_file(found.target) is None:
        return {found.target}
    if not is_package(module_file(found.target) or Path()):
        return {found.target}
    listed = face(found.target)
    return {listed.get(name, found.target) for name in found.names}


def module_graph() -> nx.DiGraph:
    """Every module -> the modules it depends on, type-only imports included."""
    graph = nx.DiGraph()
    for path in MODULES:
        name = module_name(path)
        graph.add_node(name)
        for found in imports_in(path):
            for target in defining_modules(found):
                if module_file(target) is not None and target != name:
                    graph.add_edge(name, target)
    return graph


def layer_of(name: str) -> tuple[str, int]:
    parts = name.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    assert top in LAYERS, f"{name}: not in any layer; add its package to LAYERS"
    return top, LAYERS[top]


def subpackage_of(name: str) -> str | None:
    """The sub-package (``session``, ``write``...) a module is in; None for a module of
    the root package itself (``plots``, ``errors``, ``_names``...)."""
    parts = name.split(".")
    if len(parts) < 2 or not (PACKAGE / parts[1]).is_dir():
        return None
    return parts[1]


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_has_a_layer() -> None:
    for path in MODULES:
        layer_of(module_name(path))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_lower_layers_never_import_higher_ones(path: Path) -> None:
    name = module_name(path)
    package, level = layer_of(name)
    for target in imports_of(path):
        if target == "prime_nb":  # `from prime_nb import __version__`, `from . import x`
            assert package in ("__init__", "__main__", "cli"), f"{name} imports prime_nb itself"
            continue
        other, other_level = layer_of(target)
        if other == package:
            continue
        assert other_level < level, (
            f"{name} (layer {level}, {package}) imports {target} (layer {other_level}, {other})"
        )


def test_no_import_cycles() -> None:
    cycles = list(nx.simple_cycles(module_graph()))
    assert cycles == [], f"import cycles: {cycles}"


def test_no_import_cycles_within_a_subpackage() -> None:
    """Said apart from the whole graph's check, per sub-package, so that a circle inside
    one (two modules of ``session/`` naming each other) names its package."""
    graph = module_graph()
    found = {}
    for package in sorted({subpackage_of(n) for n in graph} - {None}):
        inside = graph.subgraph(n for n in graph if subpackage_of(n) == package)
        cycles = list(nx.simple_cycles(inside))
        if cycles:
            found[package] = cycles
    assert found == {}, f"import cycles inside a sub-package: {found}"


def private_reaches(path: Path) -> list[str]:
    """Imports in ``path`` of another sub-package's private module, as messages."""
    name = module_name(path)
    mine = subpackage_of(name)
    out = []
    for found in imports_in(path):
        theirs = subpackage_of(found.target)
        if theirs is None or theirs == mine:
            continue
        inside = found.target.split(".")[2:]
        if any(part.startswith("_") for part in inside):
            out.append(
                f"{name} (line {found.line}) imports {found.target}: import its names from "
                f"prime_nb.{theirs} (add them to its __init__ and __all__) or move the helper"
            )
    return out


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_other_subpackages_only_by_their_face(path: Path) -> None:
    if subpackage_of(module_name(path)) in MAY_IMPORT_PRIVATE_MODULES:
        return
    assert private_reaches(path) == []


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    """The rules above are not vacuous: a planted upward import is found."""
    fake = PACKAGE / "format" / "_planted_for_test.py"
    fake.write_text("from ..session import Session\n")
    try:
        with pytest.raises(AssertionError, match=r"imports prime_nb\.session"):
            test_lower_layers_never_import_higher_ones(fake)
    finally:
        fake.unlink()


def test_the_checker_sees_a_cycle_inside_a_subpackage(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two planted modules of write/ that import each other, one only for its types,
    make a circle that both cycle checks report."""
    first = PACKAGE / "write" / "_planted_a_for_test.py"
    second = PACKAGE / "write" / "_planted_b_for_test.py"
    first.write_text("from ._planted_b_for_test import B\n\nA = 1\n")
    second.write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
        "    from ._planted_a_for_test import A\n\nB = 2\n"
    )
    monkeypatch.setitem(globals(), "MODULES", [*MODULES, first, second])
    try:
        with pytest.raises(AssertionError, match=r"inside a sub-package: \{'write'"):
            test_no_import_cycles_within_a_subpackage()
        with pytest.raises(AssertionError, match=r"_planted_a_for_test"):
            test_no_import_cycles()
    finally:
        first.unlink()
        second.unlink()


def test_the_checker_sees_a_cycle_behind_a_face() -> None:
    """An import of a package's public name is an import of the module defining it,
    whether the package imports its names (write/) or lists them for lazy loading
    (session/'s ``__init__.pyi``)."""
    eager = Import("prime_nb.write", ("append_label",), False, 1)
    assert defining_modules(eager) == {"prime_nb.write._api"}
    lazy = Import("prime_nb.session", ("Session", "find_session_files"), False, 1)
    assert defining_modules(lazy) == {"prime_nb.session._session", "prime_nb.session._discovery"}


def test_the_checker_sees_a_private_reach() -> None:
    fake = PACKAGE / "widget" / "_planted_for_test.py"
    fake.write_text("from ..session._text import entry_text\nfrom ..session import load\n")
    try:
        [message] = private_reaches(fake)
        assert message.startswith("prime_nb.widget._planted_for_test (line 1) imports ")
        assert "prime_nb.session._text: import its names from prime_nb.session" in message
    finally:
        fake.unlink()
