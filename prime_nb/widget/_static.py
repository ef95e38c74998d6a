"""The widget without JavaScript: a one-line text form and an HTML summary with an SVG tree.

Static renderers (``nbconvert --to html``, GitHub, nbviewer) cannot run the widget, so
they show these. The picture is the session's *shape*: runs of single-child entries fold
into one edge marked ``+k``, so only roots, forks, leaves, compactions, branch summaries
and labelled entries are drawn (at most :data:`MAX_NODES`), with a legend. It is an SVG
*image* (a ``data:`` URI), which sanitizers keep and in which nothing runs; session text
is escaped besides, and stripped of control characters, one of which would make the whole
SVG malformed.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._names import shown_name, shown_text
from .._words import counted, plural
from ..session import one_line
from ._data import BRANCH_SUMMARY, COMPACTION, KIND_NAMES, LABEL, SessionData, kind_codes

if TYPE_CHECKING:
    from ..session import Session

MAX_NODES = 250
TEXT_CHARS = 60
DX, DY, PAD, TEXT_WIDTH = 26, 20, 14, 420
GREY = "#7c8799"
# Node colours per kind code (the same as js/src/model/constants.ts KIND_STYLES).
COLORS = (
    "#2f6fe4",
    "#1f9d55",
    "#8a94a6",
    "#0e9aa7",
    "#d63384",
    "#e8590c",
    "#7950f2",
    "#c99100",
    "#c99100",
    "#e03160",
    GREY,
    GREY,
    GREY,
    GREY,
    GREY,
)


@dataclass
class Node:
    """One drawn entry: its row, the drawn node above it and the entries folded between."""

    row: int
    parent: int  # index into the node list, -1 for a root
    folded: int
    depth: int = 0
    lane: int = 0


# ANSI escape sequences (CSI, OSC), then what XML 1.0 does not allow: C0 controls but tab
# and line breaks, DEL and C1 controls, lone surrogates, U+FFFE and U+FFFF.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]")
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
# A markdown table's delimiter row ("|---|:--:|") and the pipes around and between cells.
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")


def _clean(text: str) -> str:
    return _NOT_XML.sub("", _ANSI.sub("", text))


def _esc(text: str) -> str:
    return html.escape(_clean(text), quote=True)


def _plain(text: str) -> str:
    """Markdown tables read as text: delimiter rows dropped, a row's cells joined by " · "."""
    if "|" not in text:
        return text
    lines = []
    for line in text.splitlines():
        if _TABLE_RULE.match(line) and "-" in line:
            continue
        stripped = line.strip()
        if stripped.startswith("|") or stripped.endswith("|") or stripped.count("|") >= 2:
            cells = [c.strip() for c in stripped.strip("|").split("|")]
            line = " · ".join(c for c in cells if c)
        lines.append(line)
    return "\n".join(lines)


def _short(text: str, limit: int = TEXT_CHARS) -> str:
    return one_line(_plain(_clean(text)), limit)


def _title(session: Session) -> str:
    return session.name or session.id or shown_name(Path(session.file).name)


def summary_numbers(session: Session) -> dict[str, Any]:
    """The session's headline figures (``Session.summary``) and its labels."""
    return {**session.summary(), "labels": len(session.labels)}


def _counts(numbers: dict[str, Any], words: tuple[str, ...]) -> list[str]:
    """``numbers`` (keyed by plural) in words, plain digits: "120 entries", "1 leaf"."""
    return [counted(numbers[plural(word)], word, grouped=False) for word in words]


def text_repr(session: Session) -> str:
    """``SessionWidget: <name> · 120 entries · 3 leaves · 2 compactions · 0 problems``."""
    parts = _counts(summary_numbers(session), ("entry", "leaf", "compaction", "problem"))
    return shown_text(
        f"SessionWidget: {_title(session)} ({shown_name(Path(session.file).name)}) · "
        + " · ".join(parts)
    )


def shape(data: SessionData, max_nodes: int = MAX_NODES) -> tuple[list[Node], int]:
    """The drawn nodes in depth-first order, and how many more would have been drawn.

    Entries unreachable from a root (in a parent cycle) are neither drawn nor folded.
    """
    session = data.session
    entries = session.entries
    n = data.n
    parents = [
        data.row_of.get(p, -1) if isinstance(p, str) else -1
        for p in entries["parent_id"].astype(object).tolist()
    ]
    children: list[list[int]] = [[] for _ in range(n)]
    for row, p in enumerate(parents):
        if p >= 0 and p != row:
            children[p].append(row)
    kinds = kind_codes(entries)
    labelled = {data.row_of[i] for i in session.labels if i in data.row_of}
    nodes: list[Node] = []
    left_out = 0
    seen = bytearray(n)
    # (row, drawn parent, entries folded since it); reversed so rows come out in order
    stack = [(row, -1, 0) for row in range(n - 1, -1, -1) if parents[row] < 0]
    while stack:
        row, up, folded = stack.pop()
        if seen[row]:
            continue
        seen[row] = 1
        kids = children[row]
        key = (
            up < 0
            or len(kids) != 1
            or kinds[row] in (COMPACTION, BRANCH_SUMMARY)
            or row in labelled
            or row == n - 1
        )
        if key and len(nodes) >= max_nodes:
            left_out += 1
            stack.extend((k, up, 0) for k in reversed(kids))
            continue
        if key:
            nodes.append(Node(row, up, folded))
            up, folded = len(nodes) - 1, 0
        else:
            folded += 1
        stack.extend((k, up, folded) for k in reversed(kids))
    _lay_out(nodes)
    return nodes, left_out


def _lay_out(nodes: list[Node]) -> None:
    """Depth = drawn ancestors; a first child keeps its parent's lane, others open a new one."""
    lanes = 0
    used_first: set[int] = set()
    for node in nodes:  # depth-first order: parents come before children
        if node.parent < 0:
            node.depth, node.lane = 0, lanes
            lanes += 1
            continue
        parent = nodes[node.parent]
        node.depth = parent.depth + 1
        if node.parent in used_first:
            node.lane = lanes
            lanes += 1
        else:
            used_first.add(node.parent)
            node.lane = parent.lane


def _label(data: SessionData, row: int) -> str:
    label = data.session.labels.get(data.ids[row])
    return f"[{_short(label, 30)}] " if label else ""


def tree_svg(data: SessionData, max_nodes: int = MAX_NODES) -> tuple[str, int, int]:
    """The SVG picture, the number of drawn nodes and of branch points left out."""
    nodes, left_out = shape(data, max_nodes)
    entries = data.session.entries
    kinds = kind_codes(entries)
    texts = entries["text"].astype(object).tolist()
    active = entries["on_active_path"].to_numpy(bool)
    last_lane = max((nd.lane for nd in nodes), default=0)
    max_depth = max((nd.depth for nd in nodes), default=0)
    width = PAD * 2 + max_depth * DX + TEXT_WIDTH
    height = PAD * 2 + last_lane * DY + 4

    def xy(nd: Node) -> tuple[int, int]:
        return PAD + nd.depth * DX, PAD + nd.lane * DY

    edges: list[str] = []
    marks: list[str] = []
    dots: list[str] = []
    for nd in nodes:
        x, y = xy(nd)
        on_path = bool(active[nd.row])
        if nd.parent >= 0:
            px, py = xy(nodes[nd.parent])
            stroke = "#495057" if on_path else "#c3cad5"
            sw = 2.5 if on_path else 1.5
            edges.append(
                f'<path d="M{px} {py} V{y} H{x}" fill="none" '
                f'stroke="{stroke}" stroke-width="{sw}"/>'
            )
            if nd.folded:
                marks.append(
                    f'<text x="{(px + x) / 2:.0f}" y="{y - 4}" font-size="8" fill="{GREY}" '
                    f'text-anchor="middle">+{nd.folded}</text>'
                )
        kind = int(kinds[nd.row])
        text = texts[nd.row] if isinstance(texts[nd.row], str) else ""
        tip = f"{KIND_NAMES[kind]} · {data.ids[nd.row]}: {_short(text, 120)}"
        r = 6 if kind in (COMPACTION, BRANCH_SUMMARY) else 4.5
        ring = ' stroke="#212529" stroke-width="1.5"' if on_path else ""
        if data.ids[nd.row] in data.session.labels:
            ring = f' stroke="{COLORS[LABEL]}" stroke-width="2.5"'
            tip = f"[{_short(data.session.labels[data.ids[nd.row]], 80)}] {tip}"
        dots.append(
            f'<circle cx="{x}" cy="{y}" r="{r}" fill="{COLORS[kind]}"{ring}>'
            f"<title>{_esc(tip)}</title></circle>"
        )
    drawn_as_parent = {nd.parent for nd in nodes}
    for i, nd in enumerate(nodes):
        if i in drawn_as_parent:  # inner nodes: their text is in the tooltip
            continue
        x, y = xy(nd)
        text = texts[nd.row] if isinstance(texts[nd.row], str) else ""
        words = _label(data, nd.row) + _short(text) or KIND_NAMES[int(kinds[nd.row])]
        marks.append(
            f'<text x="{x + 9}" y="{y + 4}" font-size="11" fill="#343a40">{_esc(words)}</text>'
        )
    shown_kinds = sorted({int(kinds[nd.row]) for nd in nodes})
    legend, legend_height = _legend(
        shown_kinds,
        top=height + 6,
        width=width,
        folded=any(nd.folded for nd in nodes),
        labelled=any(data.ids[nd.row] in data.session.labels for nd in nodes),
    )
    height += legend_height + 6
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="session tree" '
        'font-family="system-ui, sans-serif" style="max-width:100%;height:auto">'
        + "".join(edges)
        + "".join(dots)
        + "".join(marks)
        + legend
        + "</svg>"
    )
    return svg, len(nodes), left_out


LEGEND_ROW = 16


def _legend(
    kinds: list[int], *, top: int, width: int, folded: bool, labelled: bool
) -> tuple[str, int]:
    """A ``<g>`` saying what the marks mean (a swatch per kind drawn, the active path, and
    a label's ring and the ``+k`` of folded runs when drawn), wrapped to the width; and
    its height."""
    items: list[tuple[str, str]] = [
        (f'<circle cx="{{x}}" cy="{{y}}" r="4.5" fill="{COLORS[k]}"/>', KIND_NAMES[k])
        for k in kinds
    ]
    items.append(
        (
            '<path d="M{x0} {y} H{x1}" stroke="#495057" stroke-width="2.5"/>'
            '<circle cx="{x}" cy="{y}" r="4.5" fill="#ffffff" stroke="#212529" '
            'stroke-width="1.5"/>',
            "active path",
        )
    )
    if labelled:
        items.append(
            (
                f'<circle cx="{{x}}" cy="{{y}}" r="4.5" fill="#ffffff" '
                f'stroke="{COLORS[LABEL]}" stroke-width="2.5"/>',
                "labelled",
            )
        )
    if folded:
        items.append(
            (
                f'<text x="{{x}}" y="{{ty}}" font-size="8" fill="{GREY}" '
                'text-anchor="middle">+k</text>',
                "k single entries folded",
            )
        )
    parts: list[str] = []
    x, row = PAD, 0
    for mark, name in items:
        item_width = 22 + 6 * len(name)
        if x > PAD and x + item_width > width - PAD:
            x, row = PAD, row + 1
        y = top + row * LEGEND_ROW + LEGEND_ROW // 2
        parts.append(mark.format(x=x + 5, y=y, x0=x - 2, x1=x + 12, ty=y + 3))
        parts.append(
            f'<text x="{x + 16}" y="{y + 4}" font-size="10" fill="#495057">{_esc(name)}</text>'
        )
        x += item_width
    height = (row + 1) * LEGEND_ROW
    return f'<g aria-label="legend">{"".join(parts)}</g>', height


def static_html(data: SessionData, max_nodes: int = MAX_NODES) -> str:
    """A small summary and the tree picture, for renderers that cannot run the widget."""
    session = data.session
    numbers = summary_numbers(session)
    svg, drawn, left_out = tree_svg(data, max_nodes)
    facts = " · ".join(
        _counts(numbers, ("entry", "leaf", "fork", "compaction", "label", "problem"))
    )
    # An image, not inline SVG: notebook front ends sanitize untrusted HTML and drop <svg>,
    # but keep <img> with a data: source. Nothing in an SVG shown as an image runs.
    svg64 = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    alt = f"Tree of {_title(session)}: {drawn} branch points"
    shown = f"{drawn} of {drawn + left_out} branch points drawn"
    if left_out:
        shown += f"; {left_out} left out (limit {max_nodes})"
    shown += "; runs of single entries are folded into edges marked +k"
    return (
        '<div class="pnb-static" style="font-family:system-ui,sans-serif;font-size:13px">'
        f"<div><b>prime_nb SessionWidget</b>: {_esc(_title(session))} "
        f"<code>{_esc(shown_name(Path(session.file).name))}</code></div>"
        f"<div>{_esc(facts)}</div>"
        f'<div><img alt="{_esc(alt)}" src="data:image/svg+xml;base64,{svg64}" '
        'style="max-width:100%;height:auto"></div>'
        f'<div style="color:{GREY};font-size:11px">Static picture ({_esc(shown)}). '
        "Run the notebook with a kernel for the interactive widget.</div>"
        "</div>"
    )
