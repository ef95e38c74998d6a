"""`FamilyWidget` (anywidget): one lane per session of a family, linked at the fork points.

A separate widget with its own small bundle (``static/family.js``), so that the session
widget's front end can change without it. Clicking a session sets ``selected_session``;
:meth:`FamilyWidget.open_session` (or a callback given to :meth:`FamilyWidget.on_open`) turns
that into the session's own :class:`~prime_nb.widget.SessionWidget`, and
:func:`show_family` puts that widget under the family view as soon as a session is clicked.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import anywidget
import ipywidgets
import traitlets

from ..family import Family, load_family
from ._family_data import family_payload
from ._session_widget import SessionWidget, _asset


class FamilyWidget(anywidget.AnyWidget):
    """The sessions of a family as lanes: forks solid, sub-agents dashed; click to pick.

    ``selected_session`` (a name from ``family.sessions['session']``) syncs both ways.
    """

    _esm = _asset("family.js", "family view's")
    _css = _asset("family.css")

    _family = traitlets.Dict().tag(sync=True)
    selected_session = traitlets.Unicode(None, allow_none=True).tag(sync=True)

    def __init__(self, family: Family | str | os.PathLike[str], **kwargs: Any) -> None:
        if not isinstance(family, Family | str | os.PathLike):
            raise TypeError(
                "FamilyWidget takes a Family (prime_nb.load_family(path)) or the path of a "
                f"session file or folder, not {type(family).__name__}"
            )
        self.family = family if isinstance(family, Family) else load_family(os.fspath(family))
        super().__init__(_family=family_payload(self.family), **kwargs)

    @traitlets.validate("selected_session")
    def _check_selected(self, proposal: dict[str, Any]) -> str | None:
        value = proposal["value"]
        if value is not None and value not in set(self.family.sessions["session"]):
            raise traitlets.TraitError(f"no session named {value!r} in this family")
        return value  # type: ignore[no-any-return]

    def open_session(self, session: str | None = None, **kwargs: Any) -> SessionWidget:
        """The :class:`SessionWidget` of ``session`` (default: the selected one)."""
        key = session if session is not None else self.selected_session
        if key is None:
            raise ValueError("no session selected; click one, or pass its name")
        return SessionWidget(self.family.session(key), **kwargs)

    def on_open(self, callback: Callable[[SessionWidget], Any]) -> None:
        """Call ``callback(session_widget)`` each time a session is clicked (selected)."""

        def opened(change: dict[str, Any]) -> None:
            if change["new"] is not None:
                callback(self.open_session(change["new"]))

        self.observe(opened, names="selected_session")


def show_family(family: Family | str | os.PathLike[str], **kwargs: Any) -> ipywidgets.VBox:
    """The family view with the clicked session's own tree below it (a VBox).

    ``kwargs`` go to each :class:`SessionWidget` (``height``, ``filter``...). The family
    view is ``box.children[0]``; the open session's widget, once one is clicked, is
    ``box.children[1]``.
    """
    view = FamilyWidget(family)
    box = ipywidgets.VBox([view])

    def opened(session: str | None) -> None:
        box.children = (view,) if session is None else (view, view.open_session(session, **kwargs))

    view.observe(lambda change: opened(change["new"]), names="selected_session")
    return box
