"""plotly figures for one session: context size, spend by branch, tools, time, compactions.

Every figure has a title, axis labels and hover text, and every trace whose points stand
for entries carries the entry id as the first ``customdata`` column, so that
:func:`prime_nb.link` can highlight the entry selected in the widget.

Session text is markup to plotly: it draws ``<a href>``, ``<b>`` and ``style`` in titles,
labels, ticks, legends and hovers, so a session could add links (or requests) to a
figure. Every string that comes from a session (its name, entry ids, tool names, models,
texts, paths) goes through :func:`escape_markup` before it reaches a figure; the entry id
that linking reads stays as it is in ``customdata[0]``, and the hovers show an escaped
copy of it (the last ``customdata`` column). Each is cut to a readable length first
(``_cut``): a label (a category, a legend entry, an id) keeps a digest of the whole text
so that long names stay apart, a text (a title's name, a hover's value) ends in "…".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ._cut import cut, cut_label
from ._figures import grid as _grid
from ._figures import note as _note
from ._figures import on_grid as _on_grid
from ._figures import trace as _trace
from ._figures import two_rows as _two_rows
from ._figures import vline as _vline
from ._names import shown_name
from .analysis import abandoned_share, branch_segments, compaction_forensics, compaction_retention
from .session import SessionLike, as_session

if TYPE_CHECKING:
    from .session import Session

TOKEN_PARTS = [
    ("input_tokens", "input", "#4C78A8"),
    ("cache_read_tokens", "cache read", "#72B7B2"),
    ("cache_write_tokens", "cache write", "#54A24B"),
    ("output_tokens", "output", "#F58518"),
]
ACTIVE, ABANDONED, ERROR = "#4C78A8", "#BAB0AC", "#E45756"


def escape_markup(text: str) -> str:
    """``text`` as plotly shows it literally: ``&``, ``<`` and ``>`` as the HTML entities
    plotly decodes after reading its tags, so no tag of the text is ever drawn."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _title(text: str, session: Session) -> dict[str, Any]:
    name = session.name or session.id or shown_name(session.file.name)
    return {"text": f"{text}<br><sup>{escape_markup(cut(str(name)))}</sup>"}


def _short(value: Any) -> str:
    missing = value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value))
    return "" if missing else str(value)


def _shown(value: Any) -> str:
    """A session's value as a figure's label: empty when missing, cut, escaped."""
    return escape_markup(cut_label(_short(value)))


def _escaped(values: Any, label: bool = False) -> Any:
    """Each string of a column cut (as a label with ``label``) and escaped
    (:func:`escape_markup`); numbers as they are."""
    array = np.asarray(values)
    if array.dtype.kind not in "OUS":
        return array
    shorter = cut_label if label else cut
    shown = [escape_markup(shorter(v)) if isinstance(v, str) else v for v in array]
    return np.array(shown, dtype=object)


def _custom(ids: Any, *columns: Any) -> np.ndarray:
    """A trace's ``customdata``: the entry ids as they are (what linking reads), the
    other columns with their strings escaped, then the ids escaped (what hovers show, as
    ``customdata[len(columns) + 1]``); no rows gives an empty table of the same width."""
    shown = [ids, *(_escaped(c) for c in columns), _escaped(ids, label=True)]
    return np.column_stack(shown) if len(ids) else np.empty((0, len(shown)))


def _path_frame(session: Session, leaf_id: str | None) -> pd.DataFrame:
    return session.entries.loc[session.path(leaf_id)]


def context_timeline(session: SessionLike, leaf_id: str | None = None) -> go.Figure:
    """Context size per assistant turn along the path to ``leaf_id`` (default: active leaf).

    Bars stack input, cache-read, cache-write and output tokens as the provider reported
    them; each compaction on the path is a dashed line, annotated with tokens before and
    after, where the bars drop.
    """
    session = as_session(session, "plots.context_timeline")
    path = _path_frame(session, leaf_id)
    is_turn = (path["role"] == "assistant") & path["total_tokens"].notna()
    turns = path[is_turn]
    x = np.arange(1, len(turns) + 1)
    ids = turns.index.to_numpy()
    hover_data = _custom(
        ids,
        turns["timestamp"].dt.strftime("%Y-%m-%d %H:%M:%S").to_numpy(),
        turns["model"].map(_short).to_numpy(),
        turns["stop_reason"].map(_short).to_numpy(),
        turns["total_tokens"].fillna(0).astype(int).to_numpy(),
    )  # the id shown: customdata[5]
    bars = [
        _trace(
            "bar",
            x=x,
            y=turns[column].fillna(0).astype(int).to_numpy(),
            name=label,
            marker_color=color,
            customdata=hover_data,
            hovertemplate=(
                f"turn %{{x}}<br>{label}: %{{y:,}}<br>total: %{{customdata[4]:,}}"
                "<br>%{customdata[1]}<br>model %{customdata[2]}, stop %{customdata[3]}"
                "<br>entry %{customdata[5]}<extra></extra>"
            ),
        )
        for column, label, color in TOKEN_PARTS
    ]
    seen = is_turn.cumsum().to_numpy()  # the turns up to each entry of the path
    on_path = [str(i) for i in path.index[path["type"] == "compaction"]]
    forensics = compaction_forensics(session, on_path) if on_path else None
    shapes: list[dict[str, Any]] = []
    notes: list[dict[str, Any]] = []
    for k, (entry_id, kind) in enumerate(zip(path.index, path["type"], strict=True)):
        if kind != "compaction" or forensics is None:
            continue
        row = forensics.loc[entry_id]
        before = _short(row["tokens_before"])
        after = _short(row["tokens_after"])
        suffix = " (est.)" if row["tokens_after_source"] == "estimated" else ""
        at = float(seen[k]) + 0.5
        shapes.append(_vline(at, "dash", "#444"))
        shown = _shown(entry_id)
        notes.append(_note(at, f"compaction {shown}<br>{before} → {after}{suffix}", 1.0))
    return go.Figure(
        data=bars,
        layout={
            "barmode": "stack",
            "title": _title("Context size per turn", session),
            "xaxis": {"title": {"text": "assistant turn along the path"}},
            "yaxis": {"title": {"text": "tokens"}},
            "legend": {"title": {"text": "tokens"}},
            "hovermode": "closest",
            "shapes": shapes,
            "annotations": notes,
        },
    )


def cost_by_branch(session: SessionLike) -> go.Figure:
    """Cost of each branch segment, active path vs abandoned branches (each entry once)."""
    session = as_session(session, "plots.cost_by_branch")
    segments = branch_segments(session)
    abandoned = abandoned_share(session)  # NaN when nothing cost anything
    bars = []
    for active, name, color in ((True, "active path", ACTIVE), (False, "abandoned", ABANDONED)):
        part = segments[segments["is_active"] == active]
        labels = [
            f"{_shown(leaf)} (from {_shown(fork)})"
            if isinstance(fork, str)
            else f"{_shown(leaf)} (root)"
            for leaf, fork in zip(part.index, part["fork_id"], strict=True)
        ]
        bars.append(
            _trace(
                "bar",
                y=labels,
                x=part["cost"].to_numpy(),
                orientation="h",
                name=name,
                marker_color=color,
                customdata=_custom(
                    part.index.to_numpy(),
                    part["entries"].to_numpy(),
                    part["tokens"].to_numpy(),
                    part["last_role"].map(_short).to_numpy(),
                    part["stop_reason"].map(_short).to_numpy(),
                    part["fork_id"].map(_short).to_numpy(),
                ),
                hovertemplate=(
                    "leaf %{customdata[6]}<br>forked at %{customdata[5]}<br>cost $%{x:.4f}"
                    "<br>%{customdata[1]} entries, %{customdata[2]:,} tokens"
                    "<br>ended: %{customdata[3]} / %{customdata[4]}<extra></extra>"
                ),
            )
        )
    total = float(segments["cost"].sum())
    share = f"{abandoned:.0%} of ${total:.2f} abandoned" if abandoned == abandoned else "no cost"
    return go.Figure(
        data=bars,
        layout={
            "title": _title(f"Cost by branch: {share}", session),
            "xaxis": {"title": {"text": "cost (USD)"}},
            "yaxis": {"title": {"text": "branch (leaf id)"}},
            "barmode": "stack",
        },
    )


def tool_usage(session: SessionLike) -> go.Figure:
    """Calls, error rate and latency per tool."""
    session = as_session(session, "plots.tool_usage")
    calls = session.tool_calls
    stats = (
        calls.assign(error=calls["is_error"].fillna(False).astype(bool))
        .groupby("name", dropna=False)
        .agg(calls=("name", "size"), errors=("error", "sum"), latency=("latency", "median"))
        .sort_values("calls", ascending=False)
    )
    names = [str(n) for n in stats.index]
    shown = [_shown(n) for n in names]
    traces: list[Any] = [
        _trace(
            "bar",
            x=shown,
            y=stats["calls"],
            name="calls",
            marker_color=ACTIVE,
            customdata=stats["errors"].to_numpy(),
            hovertemplate="%{x}: %{y} calls, %{customdata} errors<extra></extra>",
            xaxis="x",
            yaxis="y",
        )
    ]
    rate = (stats["errors"] / stats["calls"]).to_numpy(dtype=float)
    traces.append(
        _trace(
            "bar",
            x=shown,
            y=rate,
            name="error rate",
            marker_color=ERROR,
            hovertemplate="%{x}: %{y:.0%} of calls failed<extra></extra>",
            xaxis="x2",
            yaxis="y2",
        )
    )
    for name, label in zip(names, shown, strict=True):
        lat = calls.loc[calls["name"].astype(str) == name]
        traces.append(
            _trace(
                "box",
                y=lat["latency"],
                name=label,
                marker_color=ACTIVE,
                showlegend=False,
                boxpoints="all",
                jitter=0.3,
                customdata=_custom(lat["assistant_id"].to_numpy()),
                hovertemplate="%{fullData.name}: %{y:.2f} s<br>entry %{customdata[1]}"
                "<extra></extra>",
                xaxis="x3",
                yaxis="y3",
            )
        )
    grid = _grid(
        rows=1,
        cols=3,
        subplot_titles=("calls", "error rate", "latency (s)"),
        horizontal_spacing=0.08,
    )
    tool = {"title": {"text": "tool"}}
    return _on_grid(
        grid,
        traces,
        xaxis=tool,
        xaxis2=tool,
        xaxis3=tool,
        yaxis={"title": {"text": "calls"}},
        yaxis2={"title": {"text": "error rate"}, "tickformat": ".1~%"},
        yaxis3={"title": {"text": "seconds from call to result"}},
        title=_title("Tool usage", session),
        showlegend=False,
    )


def turn_timeline(session: SessionLike) -> go.Figure:
    """Assistant turns (markers, sized by tokens) and tool calls (bars) over wall time."""
    session = as_session(session, "plots.turn_timeline")
    entries = session.entries
    turns = entries[entries["role"] == "assistant"]
    calls = session.tool_calls
    traces: list[Any] = []
    for active, name, color in (
        (True, "turn (active path)", ACTIVE),
        (False, "turn (other branch)", ABANDONED),
    ):
        part = turns[turns["on_active_path"] == active]
        tokens = part["total_tokens"].fillna(0).astype(float).to_numpy()
        size = 6 + 14 * np.sqrt(tokens / tokens.max()) if len(tokens) and tokens.max() else 8
        traces.append(
            _trace(
                "scatter",
                x=part["timestamp"],
                y=["assistant"] * len(part),
                mode="markers",
                name=name,
                marker={"color": color, "size": size, "line": {"width": 0}},
                customdata=_custom(
                    part.index.to_numpy(),
                    tokens,
                    part["stop_reason"].map(_short).to_numpy(),
                    part["text"].map(lambda t: _short(t)[:80]).to_numpy(),
                ),
                hovertemplate="%{x}<br>entry %{customdata[4]}<br>%{customdata[1]:,.0f} tokens,"
                " stop %{customdata[2]}<br>%{customdata[3]}<extra></extra>",
            )
        )
    done = calls[calls["latency"].notna()]
    for failed, name, color in ((False, "tool call", "#54A24B"), (True, "failed tool call", ERROR)):
        part = done[done["is_error"].fillna(False).astype(bool) == failed]
        traces.append(
            _trace(
                "bar",
                base=part["timestamp"],
                x=(part["latency"] * 1000.0).to_numpy(),
                y=_escaped(part["name"].astype(str).to_numpy(), label=True),
                orientation="h",
                name=name,
                marker_color=color,
                customdata=_custom(
                    part["assistant_id"].to_numpy(),
                    part["latency"].to_numpy(),
                    part["result_id"].map(_short).to_numpy(),
                ),
                hovertemplate="%{y}: %{customdata[1]:.2f} s<br>call in %{customdata[3]}, "
                "result %{customdata[2]}<extra></extra>",
            )
        )
    return go.Figure(
        data=traces,
        layout={
            "title": _title("Turns and tool calls over time", session),
            "xaxis": {"type": "date", "title": {"text": "wall time (UTC)"}},
            "yaxis": {"title": {"text": "assistant turn / tool"}},
            "barmode": "overlay",
        },
    )


def compaction_report(session: SessionLike) -> go.Figure:
    """Per compaction: tokens before and after, what it summarised, and files read again."""
    session = as_session(session, "plots.compaction_report")
    frame = compaction_forensics(session)
    labels = [f"{k + 1}: {_shown(cid)}" for k, cid in enumerate(frame.index)]
    custom = _custom(
        frame.index.to_numpy(),
        frame["compression_ratio"].to_numpy(dtype=float),
        frame["summarised_messages"].to_numpy(),
        frame["summary_chars"].to_numpy(),
        frame["reread_files"].map(lambda f: ", ".join(f) or "none").to_numpy(),
        frame["tokens_after_source"].to_numpy(),
    )
    hover = (
        "%{customdata[6]}<br>%{y:,} tokens<br>ratio %{customdata[1]:.1f}x"
        "<br>%{customdata[2]} messages summarised into %{customdata[3]} chars"
        "<br>re-read: %{customdata[4]}<extra>%{fullData.name}</extra>"
    )
    marker = {"symbol": "diamond", "size": 10, "color": "#222"}
    traces = []
    for trace, column, name, style, row in (
        ("bar", "tokens_before", "before", {"marker_color": "#4C78A8"}, 1),
        ("bar", "tokens_after", "after (recorded or estimated)", {"marker_color": "#F58518"}, 1),
        (
            "scatter",
            "first_turn_context_tokens",
            "first turn after (provider count)",
            {"mode": "markers", "marker": marker},
            1,
        ),
        ("bar", "summarised_messages", "messages summarised", {"marker_color": "#72B7B2"}, 2),
        ("bar", "reread_count", "files re-read after", {"marker_color": ERROR}, 2),
    ):
        # token counts as floats (an unknown count is NaN), the counts below as they are
        y = frame[column].astype(float) if row == 1 else frame[column]
        axes = {"xaxis": "x", "yaxis": "y"} if row == 1 else {"xaxis": "x2", "yaxis": "y2"}
        traces.append(
            _trace(
                trace,
                x=labels,
                y=y,
                name=name,
                customdata=custom,
                hovertemplate=hover,
                **style,
                **axes,
            )
        )
    return _on_grid(
        _two_rows("context tokens", "what was summarised, and re-read later"),
        traces,
        yaxis={"title": {"text": "tokens"}},
        yaxis2={"title": {"text": "count"}},
        xaxis2={"title": {"text": "compaction (file order)"}},
        title=_title("Compactions", session),
        barmode="group",
    )


def model_changes(session: SessionLike, leaf_id: str | None = None) -> go.Figure:
    """Which model answered each turn along a path, with model and thinking-level changes."""
    session = as_session(session, "plots.model_changes")
    path = _path_frame(session, leaf_id)
    turns = path[path["role"] == "assistant"]
    models = (turns["provider"].map(_shown) + "/" + turns["model"].map(_shown)).to_numpy()
    traces = [
        _trace(
            "scatter",
            x=turns["timestamp"],
            y=models,
            mode="lines+markers",
            line_shape="hv",
            name="assistant turn",
            customdata=_custom(
                turns.index.to_numpy(),
                turns["total_tokens"].fillna(0).to_numpy(),
                turns["stop_reason"].map(_short).to_numpy(),
            ),
            hovertemplate="%{y}<br>%{x}<br>entry %{customdata[3]}, %{customdata[1]:,} tokens, "
            "stop %{customdata[2]}<extra></extra>",
        )
    ]
    changes = path[path["type"] == "model_change"]
    traces.append(
        _trace(
            "scatter",
            x=changes["timestamp"],
            y=(changes["provider"].map(_shown) + "/" + changes["model"].map(_shown)).to_numpy(),
            mode="markers",
            name="model_change",
            marker={"symbol": "diamond", "size": 13},
            customdata=_custom(changes.index.to_numpy()),
            hovertemplate="switch to %{y}<br>%{x}<br>entry %{customdata[1]}<extra></extra>",
        )
    )
    levels = path[path["type"] == "thinking_level_change"]
    shapes, notes = [], []
    for stamp, text in zip(levels["timestamp"], levels["text"], strict=True):
        when = stamp.isoformat()
        shapes.append(_vline(when, "dot", "#888"))
        notes.append(_note(when, f"thinking: {escape_markup(cut(_short(text), 80))}", 1.0))
    return go.Figure(
        data=traces,
        layout={
            "title": _title("Model per turn", session),
            "shapes": shapes,
            "annotations": notes,
            "xaxis": {"title": {"text": "wall time (UTC)"}},
            "yaxis": {"title": {"text": "provider/model"}},
        },
    )


def retention_by_kind(session: SessionLike) -> go.Figure:
    """What the compactions' summaries kept of their spans, by kind of fact (summed over
    every compaction), and what the lost facts cost when the agent needed them again.

    Top: per kind, the facts the summaries named, those lost and needed later, and those
    lost and never needed; bottom: the estimated tokens of the calls that fetched the
    lost facts again (see :func:`prime_nb.analysis.compaction_retention`)."""
    session = as_session(session, "plots.retention_by_kind")
    table = compaction_retention(session)
    sums = table.groupby("kind", sort=False)[
        ["in_span", "in_summary", "needed_later", "needed_later_tokens"]
    ].sum()
    sums = sums.reindex(["file", "command", "error", "url", "identifier"], fill_value=0)
    kinds = sums.index.tolist()
    span = sums["in_span"].to_numpy(dtype=float)
    kept_share = np.divide(
        sums["in_summary"].to_numpy(dtype=float), span, out=np.zeros_like(span), where=span > 0
    )
    custom = np.column_stack([span, kept_share * 100])
    hover = (
        "%{x}: %{y:,} facts<br>%{customdata[0]:,} in the spans, %{customdata[1]:.0f}% kept"
        "<extra>%{fullData.name}</extra>"
    )
    lost_unneeded = sums["in_span"] - sums["in_summary"] - sums["needed_later"]
    traces = [
        _trace(
            "bar",
            x=kinds,
            y=values.to_numpy(dtype=float),
            name=name,
            marker_color=color,
            customdata=custom,
            hovertemplate=hover,
            xaxis="x",
            yaxis="y",
        )
        for values, name, color in (
            (sums["in_summary"], "named in the summary", "#54A24B"),
            (sums["needed_later"], "lost, needed later", ERROR),
            (lost_unneeded, "lost, not needed again", ABANDONED),
        )
    ]
    traces.append(
        _trace(
            "bar",
            x=kinds,
            y=sums["needed_later_tokens"].to_numpy(dtype=float),
            name="tokens of the calls that needed them",
            marker_color=ERROR,
            opacity=0.6,
            hovertemplate="%{x}: %{y:,} tokens<extra>%{fullData.name}</extra>",
            xaxis="x2",
            yaxis="y2",
        )
    )
    return _on_grid(
        _two_rows("facts of the summarised spans", "tokens spent fetching lost facts"),
        traces,
        barmode="stack",
        title=_title(f"What {len(table) // 5} compactions kept, by kind", session),
        legend={"orientation": "h", "y": -0.15},
        yaxis={"title": {"text": "facts"}},
        yaxis2={"title": {"text": "tokens (est.)"}},
        xaxis2={"title": {"text": "kind of fact"}},
    )


__all__ = [
    "compaction_report",
    "context_timeline",
    "cost_by_branch",
    "model_changes",
    "retention_by_kind",
    "tool_usage",
    "turn_timeline",
]


def __dir__() -> list[str]:
    """The figures alone: what a notebook lists after ``plots.`` (not numpy, pandas or
    plotly, which this module imports)."""
    return sorted(__all__)
