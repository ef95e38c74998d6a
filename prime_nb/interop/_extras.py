"""The optional packages each export needs, imported on first use.

Why: the core install stays light (no pydantic models of ATIF, no Inspect). A missing
package is named with the install command of the extra that brings it, the import
error chained as the cause, as anywidget does for its optional parts.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType


def require(module: str, extra: str, what: str) -> ModuleType:
    """``module`` imported, or an ImportError that says which extra ``what`` needs."""
    try:
        return import_module(module)
    except ImportError as error:
        raise ImportError(
            f"{what} needs the package {module.split('.')[0]!r}, which is not installed; "
            f"install it with: pip install 'prime-nb[{extra}]'",
            name=module,
        ) from error
