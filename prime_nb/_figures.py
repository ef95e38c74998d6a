"""How :mod:`prime_nb.plots` builds its figures: layout shapes and notes as dicts, the
subplot grids made once per arguments, and traces as the dicts a figure reads, so that
plotly checks each value once."""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots


def vline(x: float | str, dash: str, color: str) -> dict[str, Any]:
    """A vertical line across the plot, as one shape dict: many of them go into the layout
    in one assignment, where one ``add_vline`` call each grows slow with many lines."""
    return {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": x,
        "x1": x,
        "y0": 0,
        "y1": 1,
        "line": {"dash": dash, "color": color, "width": 1},
    }


def note(x: float | str, text: str, y: float) -> dict[str, Any]:
    return {
        "x": x,
        "xref": "x",
        "y": y,
        "yref": "paper",
        "text": text,
        "showarrow": False,
        "xanchor": "left",
        "yanchor": "bottom" if y >= 1 else "top",
        "font": {"size": 10},
    }


@cache
def grid(**subplots: Any) -> dict[str, Any]:
    """What ``make_subplots(**subplots)`` makes: its layout (axes' domains and anchors,
    the subplots' titles) and its grid (which ``row``/``col`` later calls on the figure
    read), made once per arguments: plotly builds it slowly, and a figure is then made in
    one step from its traces (each given its axes, ``xaxis="x2"``) and this layout,
    instead of trace by trace."""
    fig = make_subplots(**subplots)
    layout = fig.layout.to_plotly_json()
    # not the template make_subplots wrote out: each figure would copy and check it anew,
    # where one without a template takes plotly's default (the same one) at no cost
    layout.pop("template", None)
    # the keys go.Figure reads a figure-like dict's grid from (as go.Figure(fig) copies it)
    return {
        "layout": layout,
        "_grid_ref": fig._grid_ref,
        "_grid_str": fig._grid_str,
    }


def on_grid(grid: dict[str, Any], traces: list[Any], **layout: Any) -> go.Figure:
    """A figure of ``traces`` on ``grid`` (a :func:`grid`), with ``layout`` merged in
    (axis dicts key by key: ``yaxis={"title": ...}`` keeps the grid's domain)."""
    merged = copy.deepcopy(grid["layout"])
    for key, value in layout.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return go.Figure({**grid, "data": traces, "layout": merged})


def two_rows(top: str, bottom: str) -> dict[str, Any]:
    """The grid of two rows sharing the x axis, the top one larger (:func:`grid`); the
    rows' axes are ``x``/``y`` and ``x2``/``y2``."""
    return grid(
        rows=2,
        cols=1,
        shared_xaxes=True,
        row_heights=(0.65, 0.35),
        vertical_spacing=0.08,
        subplot_titles=(top, bottom),
    )


def trace(kind: str, **props: Any) -> dict[str, Any]:
    """A trace of type ``kind`` as the dict a figure reads: the figure checks its values
    once, where a ``go.Bar(...)`` is checked when made and again when a figure copies
    it (the figure's JSON is the same)."""
    return {"type": kind, **props}
