"""The package's layers, read from its imports: lower layers never import higher ones.

ARCHITECTURE.md explains the layers; this test keeps them true. It reads every import
statement in ``prime_nb/`` with ``ast`` (imports inside functions included, since a lazy
import is still a dependency; imports under ``if TYPE_CHECKING:`` excluded, since they
never run), and checks two rules:

- a module may import only from its own layer's package or from a lower layer;
- the module import graph has no cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "prime_nb"

# Lowest first. Packages on one layer are siblings: neither may import the other.
LAYERS: dict[str, int] = {
    "errors": 0,
    "_names": 0,
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
    "datasets": 7,
    "cli": 8,
    "__init__": 9,
    "__main__": 9,
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def in_type_checking(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports_of(path: Path) -> set[str]:
    """The prime_nb modules ``path`` imports (absolute dotted names)."""
    tree = ast.parse(path.read_text(), str(path))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    here = module_name(path).split(".")
    base = here if is_package(path) else here[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if in_type_checking(node, parents):
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "prime_nb")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base[: len(base) - (node.level - 1)]
                target = ".".join([*anchor, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target.split(".")[0] != "prime_nb":
                continue
            # `from . import _tables` names a module: depend on it, not on the package
            submodules = {f"{target}.{alias.name}" for alias in node.names}
            if all(module_file(candidate) is not None for candidate in submodules):
                found.update(submodules)
            else:
                found.add(target)
    return found


def module_file(name: str) -> Path | None:
    rel = Path(*name.split(".")[1:])
    for path in (PACKAGE / rel / "__init__.py", (PACKAGE / rel).with_suffix(".py")):
        if path.is_file():
            return path
    return None


def layer_of(name: str) -> tuple[str, int]:
    parts = name.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    assert top in LAYERS, f"{name}: not in any layer; add its package to LAYERS"
    return top, LAYERS[top]


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
    graph = nx.DiGraph()
    for path in MODULES:
        name = module_name(path)
        for target in imports_of(path):
            if module_file(target) is not None and target != name:
                graph.add_edge(name, target)
    cycles = list(nx.simple_cycles(graph))
    assert cycles == [], f"import cycles: {cycles}"


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    """The rules above are not vacuous: a planted upward import is found."""
    fake = PACKAGE / "format" / "_planted_for_test.py"
    fake.write_text("from ..session import Session\n")
    try:
        with pytest.raises(AssertionError, match=r"imports prime_nb\.session"):
            test_lower_layers_never_import_higher_ones(fake)
    finally:
        fake.unlink()


# -- private modules stay private to their sub-package ---------------------------------------
#: sub-packages whose code imports only public names of the others (the rest follow)
PUBLIC_ONLY = ("corpus",)


def private_imports(path: Path) -> list[str]:
    """The modules ``path`` imports that are another sub-package's private ``_module``
    (``prime_nb.session._session`` from corpus/; the package's own top-level helpers such
    as ``prime_nb._names`` belong to no sub-package and are not counted)."""
    own = module_name(path).split(".")[1]
    found = []
    for target in imports_of(path):
        parts = target.split(".")
        if len(parts) > 2 and parts[1] != own and parts[2].startswith("_"):
            found.append(target)
    return sorted(found)


@pytest.mark.parametrize(
    "path",
    [p for p in MODULES if module_name(p).split(".")[1:2] in ([name] for name in PUBLIC_ONLY)],
    ids=lambda p: module_name(p),
)
def test_code_imports_only_public_names_of_other_sub_packages(path: Path) -> None:
    assert private_imports(path) == [], f"{module_name(path)} imports private modules"


def test_the_private_import_check_sees_one(tmp_path: Path) -> None:
    fake = PACKAGE / "corpus" / "_planted_for_test.py"
    fake.write_text("from ..session._session import Session\nfrom .._names import shown_name\n")
    try:
        assert private_imports(fake) == ["prime_nb.session._session"]
    finally:
        fake.unlink()
