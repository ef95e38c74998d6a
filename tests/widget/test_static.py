"""The widget without JavaScript: text line, static HTML + SVG, and the data saved for offline."""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import orjson
import pytest
from conftest import header, msg, write_lines
from widget_support import PAYLOADS, write_hostile_session

import prime_nb
import sessiongen
from prime_nb.session import one_line
from prime_nb.widget import SessionWidget
from prime_nb.widget._data import KIND_NAMES, SessionData, kind_codes
from prime_nb.widget._offline import LINE_CHARS, offline_data
from prime_nb.widget._static import MAX_NODES, shape, static_html, text_repr

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
ALLOWED_TAGS = {"div", "b", "code", "img"}
ALLOWED_ATTRS = {"class", "style", "alt", "src"}
SVG_TAGS = {"svg", "path", "circle", "text", "title", "g"}
SVG_ATTRS = {
    "style", "xmlns", "width", "height", "viewbox", "role", "aria-label", "font-family", "d",
    "fill", "stroke", "stroke-width", "cx", "cy", "r", "x", "y", "font-size", "text-anchor",
}  # fmt: skip
SVG_PREFIX = "data:image/svg+xml;base64,"


def svg_of(page: str) -> str:
    """The SVG picture inside the static HTML (an image with a data: URI)."""
    match = re.search(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', page)
    assert match is not None, page[:300]
    svg = base64.b64decode(match.group(1)).decode("utf-8")
    ElementTree.fromstring(svg)  # well-formed XML: text can never open an element
    return svg


SVG_NS = "{http://www.w3.org/2000/svg}"


def tree_circles(svg: str) -> list[ElementTree.Element]:
    """The picture's nodes: its circles outside the legend."""
    root = ElementTree.fromstring(svg)
    legend = {id(c) for g in root.iter(f"{SVG_NS}g") for c in g.iter(f"{SVG_NS}circle")}
    return [c for c in root.iter(f"{SVG_NS}circle") if id(c) not in legend]


def legend_texts(svg: str) -> list[str]:
    root = ElementTree.fromstring(svg)
    groups = [g for g in root.iter(f"{SVG_NS}g") if g.get("aria-label") == "legend"]
    assert len(groups) == 1, "the picture has one legend"
    return [t.text or "" for t in groups[0].iter(f"{SVG_NS}text")]


class Markup(HTMLParser):
    """Every tag and attribute name in a piece of HTML, and all of its text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attrs: set[str] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attrs.update(name for name, _ in attrs)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def markup(text: str) -> Markup:
    parser = Markup()
    parser.feed(text)
    parser.close()
    return parser


def _write(path: Path, entries: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in entries))
    return path


def linear(path: Path, n: int) -> Path:
    lines: list[Any] = [header()]
    for i in range(n):
        parent = f"e{i - 1:07d}" if i else None
        lines.append(msg(f"e{i:07d}", parent, "user" if i % 2 == 0 else "assistant", f"t{i}"))
    return write_lines(path, lines)


def bushy(path: Path, forks: int) -> Path:
    """A root with ``forks`` children, each a user message with an answer below it."""
    lines: list[Any] = [header(), msg("r0000000", None, "user", "root")]
    for i in range(forks):
        lines.append(msg(f"u{i:07d}", "r0000000", "user", f"try {i}"))
        lines.append(msg(f"a{i:07d}", f"u{i:07d}", "assistant", f"answer {i}"))
    return write_lines(path, lines)


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory, fixtures_dir: Path) -> list[Path]:
    """Every version and dialect, every fixture (agent-written too), empty and hostile."""
    root = tmp_path_factory.mktemp("static")
    paths = [
        _write(root / f"v{v}-{d}.jsonl", sessiongen.synthetic_entries(version=v, dialect=d))
        for v in (1, 2, 3)
        for d in ("prime", "spec")
    ]
    paths.append(_write(root / "noforks.jsonl", sessiongen.synthetic_entries(forks=0, turns=12)))
    paths.append(write_lines(root / "empty.jsonl", [header()]))
    paths.append(write_hostile_session(root / "hostile.jsonl"))
    paths.append(
        write_lines(
            root / "broken.jsonl",
            [
                header(),
                msg("a0000000", "c0000000", "user", "in a cycle"),
                msg("c0000000", "a0000000", "assistant", "also"),
                msg("d0000000", None, "user", "a root"),
                msg("d0000000", None, "user", "duplicate id"),
                msg("o0000000", "missing0", "user", "orphan"),
                b'{"type": "message", "id": "torn',
            ],
        )
    )
    paths.extend(sorted(fixtures_dir.glob("*.jsonl")))
    paths.extend(sorted((fixtures_dir / "agent-written").glob("*.jsonl")))
    return paths


def test_text_and_html_say_what_the_widget_is_for_every_session(matrix: list[Path]) -> None:
    for path in matrix:
        session = prime_nb.load(path)
        data = SessionData(session)
        n = len(session.entries)
        line = text_repr(session)
        assert line.startswith("SessionWidget: ") and path.name in line, line
        assert re.search(rf"\b{n} entr(y|ies)\b", line), line
        assert f"{len(session.problems)} problem" in line, line
        page = static_html(data)
        parsed = markup(page)
        assert parsed.tags <= ALLOWED_TAGS, (path, parsed.tags - ALLOWED_TAGS)
        assert parsed.attrs <= ALLOWED_ATTRS, (path, parsed.attrs - ALLOWED_ATTRS)
        svg = svg_of(page)
        in_svg = markup(svg)
        assert in_svg.tags <= SVG_TAGS and in_svg.attrs <= SVG_ATTRS, (path, in_svg.tags)
        nodes, left_out = shape(data)
        assert len(tree_circles(svg)) == len(nodes) <= MAX_NODES
        # every entry is drawn or folded into an edge (the loader breaks cycles and orphans)
        assert left_out == 0
        assert len(nodes) + sum(nd.folded for nd in nodes) == n, path
        assert len(page) < 200_000


def test_hostile_text_is_escaped_in_the_html() -> None:
    path = write_hostile_session(Path(__import__("tempfile").mkdtemp()) / "h.jsonl")
    session = prime_nb.load(path)
    page = static_html(SessionData(session))
    parsed = markup(page)
    assert parsed.tags <= ALLOWED_TAGS
    assert not any(a.startswith("on") for a in parsed.attrs)
    assert "<script" not in page.lower() and page.lower().count("<img") == 1  # the picture
    assert "javascript:" not in " ".join(parsed.attrs)
    svg = svg_of(page)
    in_svg = markup(svg)
    assert in_svg.tags <= SVG_TAGS and in_svg.attrs <= SVG_ATTRS
    # the payloads are there, as text: escaped, not dropped
    assert "<script" in "".join(parsed.text) + "".join(in_svg.text)
    text = "".join(in_svg.text)
    assert any(p[:20] in text for p in PAYLOADS)


def test_linear_sessions_fold_into_one_edge(tmp_path: Path) -> None:
    session = prime_nb.load(linear(tmp_path / "l.jsonl", 500))
    nodes, left_out = shape(SessionData(session))
    assert [(nd.row, nd.parent, nd.folded) for nd in nodes] == [(0, -1, 0), (499, 0, 498)]
    assert left_out == 0
    svg = svg_of(static_html(SessionData(session)))
    assert "+498" in svg and "t499" in svg


def test_the_picture_is_capped_and_says_what_is_left_out(tmp_path: Path) -> None:
    session = prime_nb.load(bushy(tmp_path / "b.jsonl", 400))
    data = SessionData(session)
    nodes, left_out = shape(data, max_nodes=50)
    assert len(nodes) == 50
    assert left_out == 1 + 400 - 50  # the root and 400 leaves; each "try" is folded
    page = static_html(data, max_nodes=50)
    assert len(tree_circles(svg_of(page))) == 50
    assert "50 of 401 branch points drawn; 351 left out (limit 50)" in page
    assert len(static_html(data)) < 120_000
    # lanes: the first child keeps its parent's lane, each later one opens a new lane
    nodes, _ = shape(data)
    assert [(nd.row, nd.folded, nd.depth, nd.lane) for nd in nodes[:3]] == [
        (0, 0, 0, 0),
        (2, 1, 1, 0),
        (4, 1, 1, 1),
    ]


def test_offline_data_is_the_first_lines_within_bounds(tmp_path: Path) -> None:
    session = prime_nb.load(sessiongen.synthetic_session(tmp_path / "s.jsonl"))
    data = SessionData(session)
    saved = offline_data(data)
    assert saved["n"] == saved["kept"] == data.n
    lines = data.lines(list(range(data.n)))
    assert saved["lines"] == [one_line(line, LINE_CHARS) for line in lines]
    assert max(map(len, saved["lines"])) == LINE_CHARS < max(map(len, lines))
    tools = session.entries["tool_name"].tolist()
    assert saved["tools"] == [[i, t] for i, t in enumerate(tools) if isinstance(t, str)]
    assert saved["origin"].startswith(str(session.entries["timestamp"].iloc[0].date()))
    small = offline_data(data, max_chars=2_000)
    assert 0 < small["kept"] < data.n and small["lines"] == saved["lines"][: small["kept"]]
    assert sum(len(s) + 4 for s in small["lines"]) <= 2_000
    assert offline_data(data, max_rows=7)["kept"] == 7
    long = prime_nb.load(linear(tmp_path / "l.jsonl", 3))
    assert offline_data(SessionData(long))["lines"] == ["t0", "t1", "t2"]
    empty = prime_nb.load(write_lines(tmp_path / "e.jsonl", [header()]))
    assert offline_data(SessionData(empty)) == {
        "n": 0, "kept": 0, "origin": None, "lines": [], "tools": [],
    }  # fmt: skip


def test_offline_data_bounds_a_large_session(tmp_path: Path) -> None:
    session = prime_nb.load(sessiongen.write_large_session(tmp_path / "big.jsonl", 12_000_000))
    saved = offline_data(SessionData(session))
    assert saved["n"] == len(session.entries) > saved["kept"] > 1000
    assert len(orjson.dumps(saved)) < 400_000


def test_widget_outputs_carry_the_fallbacks(tmp_path: Path, monkeypatch: Any) -> None:
    path = sessiongen.synthetic_session(tmp_path / "s.jsonl")
    w = SessionWidget(path)
    assert repr(w) == text_repr(w.session)
    data, _meta = w._repr_mimebundle_()
    assert set(data) == {"text/plain", "text/html", WIDGET_VIEW}
    assert data["text/plain"] == repr(w)
    assert data["text/html"].startswith('<div class="pnb-static"')
    assert w._offline == offline_data(SessionData(w.session))

    shown: list[dict[str, Any]] = []

    def fake_display(obj: dict[str, Any], **kwargs: Any) -> None:
        assert kwargs.get("raw") is True
        shown.append(obj)

    monkeypatch.setattr("IPython.display.display", fake_display)
    w._ipython_display_()
    assert [sorted(o) for o in shown] == [
        sorted([WIDGET_VIEW, "text/plain"]),
        ["text/html", "text/plain"],
    ]
    assert shown[0][WIDGET_VIEW]["model_id"] == w.model_id
    assert shown[1]["text/html"] == data["text/html"]
    w.close()


def test_a_rewritten_file_refreshes_the_saved_lines(tmp_path: Path) -> None:
    path = linear(tmp_path / "l.jsonl", 4)
    w = SessionWidget(path)
    assert w._offline["lines"] == ["t0", "t1", "t2", "t3"]
    linear(path, 2)  # rewritten, shorter: the widget resets
    assert w.refresh() == 2
    assert w._offline["lines"] == ["t0", "t1"]
    w.close()


# Every C0 control, DEL and a few C1 controls, and ANSI colour, cursor and title sequences.
CONTROLS = "".join(chr(c) for c in range(32) if chr(c) not in "\t\n\r") + "\x7f\x85\x9b"
ANSI = "\x1b[31mred\x1b[0m \x1b[1;32mbold green\x1b[0m \x1b[2K\x1b]0;title\x07 done"


def test_control_characters_and_ansi_codes_keep_the_svg_well_formed(tmp_path: Path) -> None:
    """A control character in entry text made the SVG malformed: drawn as a 0x0 image."""
    lines: list[Any] = [header(), msg("r0000000", None, "user", f"start {CONTROLS} {ANSI}")]
    for i in range(6):  # six branches, so every text is a drawn leaf or a tooltip
        lines.append(msg(f"u{i:07d}", "r0000000", "user", f"try {i} {CONTROLS}"))
        lines.append(msg(f"a{i:07d}", f"u{i:07d}", "assistant", f"{ANSI} {i}{CONTROLS}"))
    path = write_lines(tmp_path / "ctl.jsonl", lines)
    session = prime_nb.load(path)
    session.append_label("a0000002", f"lab{CONTROLS}el \x1b[33mX\x1b[0m")
    page = static_html(SessionData(prime_nb.load(path)))
    svg = svg_of(page)  # parses as XML
    root = ElementTree.fromstring(svg)
    assert float(root.get("width") or 0) > 100 and float(root.get("height") or 0) > 40
    text = "".join(root.itertext())
    assert "red bold green" in text and "done" in text and "label X" in text
    assert not any(c in text for c in CONTROLS + "\x1b")
    assert "[31m" not in text and "title" not in text
    assert not any(c in page for c in CONTROLS.replace("\n", "") + "\x1b")


def test_the_picture_has_a_legend_of_what_it_draws(tmp_path: Path) -> None:
    session = prime_nb.load(bushy(tmp_path / "b.jsonl", 3))
    names = legend_texts(svg_of(static_html(SessionData(session))))
    assert names == ["user", "assistant", "active path", "+k", "k single entries folded"]
    # the kinds drawn, in kind order, then a label's ring when an entry drawn has one
    session = prime_nb.load(_write(tmp_path / "s.jsonl", sessiongen.synthetic_entries()))
    data = SessionData(session)
    names = legend_texts(svg_of(static_html(data)))
    kinds = kind_codes(session.entries)
    drawn = sorted({int(kinds[nd.row]) for nd in shape(data)[0]})
    assert names[: len(drawn)] == [KIND_NAMES[k] for k in drawn]
    assert "compaction" in names and names[len(drawn) :][:2] == ["active path", "labelled"]


def test_markdown_tables_read_as_text_in_previews(tmp_path: Path) -> None:
    table = "| tool | runs |\n|:-----|----:|\n| bash | 3 |\n| read | 12 |"
    lines: list[Any] = [header(), msg("r0000000", None, "user", "root")]
    for i in range(3):
        lines.append(msg(f"u{i:07d}", "r0000000", "user", f"try {i}"))
        lines.append(msg(f"a{i:07d}", f"u{i:07d}", "assistant", f"Counts:\n\n{table}"))
    session = prime_nb.load(write_lines(tmp_path / "t.jsonl", lines))
    svg = svg_of(static_html(SessionData(session)))
    leaves = [
        t for t in ElementTree.fromstring(svg).iter(f"{SVG_NS}text") if "Counts" in (t.text or "")
    ]
    assert len(leaves) == 3
    for leaf in leaves:
        assert "|" not in (leaf.text or "") and "---" not in (leaf.text or "")
        assert "tool · runs bash · 3" in (leaf.text or "")
