"""The view state a widget or an exported page starts in, and its check.

``show`` and ``export_html`` take the state as keyword arguments; a misspelt keyword
(``selected=`` for ``selected_id=``) or an unknown view (``view="graph"``) would otherwise
be dropped without a word, and the page open in a state the caller did not ask for.
"""

from __future__ import annotations

from typing import Any

FILTERS = ("default", "no-tools", "user-only", "labeled-only", "all")
VIEWS = ("tree", "branches", "transcript")
STATE_KEYS = ("selected_id", "filter", "search", "view")


def check_state(state: dict[str, Any], who: str) -> None:
    """Raise if ``state`` holds a keyword, view or filter the widget does not know."""
    unknown = [k for k in state if k not in STATE_KEYS]
    if unknown:
        raise TypeError(
            f"{who}: unknown keyword {', '.join(map(repr, unknown))}; use {', '.join(STATE_KEYS)}"
        )
    view = state.get("view")
    if view is not None and view not in VIEWS:
        raise ValueError(f"{who}: unknown view {view!r}; use one of {', '.join(VIEWS)}")
    mode = state.get("filter")
    if mode is not None and mode not in FILTERS:
        raise ValueError(f"{who}: unknown filter {mode!r}; use one of {', '.join(FILTERS)}")
    sel = state.get("selected_id")
    if sel is not None and not isinstance(sel, str):
        raise TypeError(f"{who}: selected_id must be an entry id (a string), not {sel!r}")
    search = state.get("search")
    if search is not None and not isinstance(search, str):
        raise TypeError(f"{who}: search must be a string, not {search!r}")
