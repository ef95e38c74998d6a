"""Keep plotly figures in step with the session widget's selection.

Why: a researcher looks at a spike in a figure, clicks it, and wants the widget to jump to
that entry; or selects an entry in the widget and wants to see where it sits in the figure.
Figures from :mod:`prime_nb.plots` put the entry id in ``customdata[0]`` of each point; any
figure that does the same can be linked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go


def point_ids(trace: Any) -> list[str | None]:
    """The entry id of each point of a trace (customdata[0]), or [] when it has none."""
    data = getattr(trace, "customdata", None)
    if data is None:
        return []
    out: list[str | None] = []
    for item in data:
        value = item if isinstance(item, str) or not hasattr(item, "__len__") else item[0]
        out.append(str(value) if value is not None else None)
    return out


def highlight(figure: go.Figure, entry_id: str | None) -> int:
    """Select the points of ``entry_id`` in every trace (clears the selection for None).

    Returns how many points matched.
    """
    matched = 0
    with figure.batch_update():
        for trace in figure.data:
            ids = point_ids(trace)
            if not ids or not hasattr(trace, "selectedpoints"):
                continue
            if entry_id is None:
                trace.selectedpoints = None
                continue
            hits = [k for k, value in enumerate(ids) if value == entry_id]
            matched += len(hits)
            trace.selectedpoints = hits
    return matched


@dataclass
class Link:
    """A live link between a widget and a FigureWidget; ``unlink()`` undoes it."""

    widget: Any
    figure: go.FigureWidget
    _observer: Callable[[dict[str, Any]], None]

    def unlink(self) -> None:
        self.widget.unobserve(self._observer, names="selected_id")
        for trace in self.figure.data:
            if point_ids(trace):
                trace.on_click(None)


def link(widget: Any, figure: go.Figure, *, clicks: bool = True) -> go.FigureWidget:
    """Make ``figure`` follow ``widget.selected_id`` (and, with ``clicks``, lead it).

    ``widget`` is a :class:`prime_nb.widget.SessionWidget` or any traitlets object with a
    ``selected_id`` trait. A plain ``go.Figure`` is turned into a ``go.FigureWidget``, which
    is returned: display the returned object, not the original figure. The link is kept on
    the figure as ``figure._prime_nb_link`` (call its ``unlink()`` to undo it).
    """
    live = figure if isinstance(figure, go.FigureWidget) else go.FigureWidget(figure)

    def on_change(change: dict[str, Any]) -> None:
        value = change.get("new")
        highlight(live, value if isinstance(value, str) and value else None)

    widget.observe(on_change, names="selected_id")
    if clicks:
        for trace in live.data:
            ids = point_ids(trace)
            if not ids:
                continue

            def on_click(trace: Any, points: Any, state: Any, ids: list[str | None] = ids) -> None:
                indices = list(getattr(points, "point_inds", []) or [])
                if indices and ids[indices[0]] is not None:
                    widget.selected_id = ids[indices[0]]

            trace.on_click(on_click)
    current = getattr(widget, "selected_id", None)
    if isinstance(current, str) and current:
        highlight(live, current)
    live._prime_nb_link = Link(widget, live, on_change)
    return live
