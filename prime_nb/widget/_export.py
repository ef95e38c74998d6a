"""`export_html`: one self-contained HTML file with the session viewer, for sharing.

The page (``_page``) holds the viewer's bundle, the tree columns, and in compressed
parts what the viewer asks the kernel for in a notebook (``_export_parts``). The parts
are made and written one at a time, from one read of the file, so a big session's
export needs little more memory than the loaded session.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm.auto import tqdm

from .._names import shown_name
from ..errors import SessionWriteError
from ..format import looks_like_session
from ._data import SessionData
from ._export_parts import (
    CHUNK_ROWS,
    CallPairs,
    contexts,
    detail_extras,
    preview_columns,
    write_entries,
)
from ._pack import Packer, dumps
from ._page import PageWriter, inline_script, json_for_html, read_page, tree64

if TYPE_CHECKING:
    from ..session import Session

__all__ = [
    "check_destination",
    "export_html",
    "export_payload",
    "inline_script",
    "json_for_html",
    "read_export",
    "render_html",
    "tree64",
]

#: entries from which export_html shows a progress bar by default
PROGRESS_FROM = 20_000
#: what a payload holds besides the tree (see ``export_payload``), in page order
PARTS = ("lines", "previews", "entries", "texts", "extras", "contexts")
#: the parts placed before the page's script (needed for the first draw)
EARLY = ("lines",)


def export_payload(session: Session) -> dict[str, Any]:
    """What a page of ``session`` holds, in memory (as :func:`read_export` gives it back):
    ``tree`` (base64 columns), ``lines``, ``previews``, ``extras``, ``entries``,
    ``texts``, ``contexts``. For tests and small sessions; :func:`export_html` streams instead."""
    data = SessionData(session)
    entries = session.read_entries(data.ids)
    calls = CallPairs()
    for row, entry in enumerate(entries):
        calls.see(row, entry)
    return {
        "tree": tree64(data.tree()),
        "lines": list(data.node_lines),
        "previews": preview_columns(data),
        "extras": detail_extras(data, calls),
        "entries": entries,
        "texts": [data.search_text(i, e) for i, e in enumerate(entries)],
        "contexts": contexts(data),
    }


def render_html(
    payload: dict[str, Any], *, title: str = "Session", csp: bool = True, state: Any = None
) -> str:
    """The page for a payload (see :func:`export_payload`; any part may be left out)."""
    out = io.StringIO()
    head: dict[str, Any] = {"tree": payload["tree"], **({"state": state} if state else {})}
    early = {name: payload[name] for name in EARLY if payload.get(name) is not None}
    page = PageWriter(out.write, head, early, title=title, csp=csp)
    index: dict[str, Any] = {}
    for name in PARTS:
        value = payload.get(name)
        if value is None or name in early:
            continue
        if name != "entries":
            page.value(name, value)
            continue
        index["chunks"] = list(range(0, len(value), CHUNK_ROWS))
        for k, start in enumerate(index["chunks"]):
            page.rows(f"entries-{k}", value[start : start + CHUNK_ROWS])
    page.finish(index)
    return out.getvalue()


def read_export(path: str | os.PathLike[str]) -> dict[str, Any]:
    """What an exported page holds, decoded: ``tree``, ``state`` (if set) and the parts
    of :func:`export_payload` (its entries chunks joined). For checking a page before
    sharing it (say, that a secret is gone) and for tests; the page never needs it."""
    raw = read_page(path)
    out = {k: v for k, v in raw.items() if k not in ("parts", "chunks")}
    chunks = raw.get("chunks") or []
    out["entries"] = [e for k in range(len(chunks)) for e in out.pop(f"entries-{k}")]
    return out


def _write_parts(data: SessionData, page: PageWriter, progress: bool | None) -> dict[str, Any]:
    """Every part of ``data``'s page, one after another; returns the index's fields.

    One pass over the file gives each entry, its search text and its tool calls or
    result; the entries go out as they come, the search texts are compressed in memory
    and written after them, then the calls' pairs (``extras``).
    """
    show = data.n >= PROGRESS_FROM if progress is None else progress
    bar = tqdm(total=data.n, desc="export_html", unit="entry", disable=not show, leave=False)
    try:
        page.value("previews", preview_columns(data))
        calls = CallPairs()
        packed: list[str] = []
        texts = Packer(packed.append, page.pool)
        texts.write(b"[")

        def see(row: int, entry: dict[str, Any]) -> None:
            calls.see(row, entry)
            text = dumps(data.search_text(row, entry))
            texts.write(text if texts.taken == 1 else b"," + text)  # 1: just the "["

        chunks = write_entries(page, data, see, bar.update)
        texts.write(b"]")
        texts.close()
        page.packed("texts", "".join(packed))
        del packed[:]
        page.value("extras", detail_extras(data, calls))
        bar.set_postfix_str("contexts")
        page.value("contexts", contexts(data))
        return {"chunks": chunks}
    finally:
        bar.close()


def destination(out: Path, source: Path) -> Path:
    """The page's path: ``out``, or in a folder ``out`` the session file's name as .html."""
    return out / (source.stem + ".html") if out.is_dir() else out


def check_destination(out: Path, source: Path) -> None:
    """Never write the HTML over the session itself, or over anything like a session.

    ``x.html`` exported with the default name, or ``-o`` naming the input, would
    otherwise replace what may be the only copy of a session.
    """
    if not os.path.lexists(out):
        return
    same = False
    with contextlib.suppress(OSError):
        same = os.path.samefile(out, source)
    if same:
        reason = "is the session being exported; choose another output file"
    elif os.path.isdir(out):
        reason = "is a folder; choose another output file"
    elif looks_like_session(out):
        reason = (
            "exists and looks like a session file (or is no regular file); refusing to "
            "overwrite it, choose another output file"
        )
    else:
        return
    raise SessionWriteError(out, reason, errno=errno.EEXIST)


def export_destination(out: str | os.PathLike[str], source: str | os.PathLike[str]) -> Path:
    """Where :func:`export_html` writes the page of ``source`` given ``out`` (a file, or
    a folder: the session file's name as .html), checked as it checks it.

    Why public: a caller that must decide before writing (the CLI's ``--force``) asks
    here, and gets the same answer and the same SessionWriteError as the export would.
    """
    page = destination(Path(out), Path(source))
    check_destination(page, Path(source))
    return page


def export_html(
    session: Session | str | os.PathLike[str],
    path: str | os.PathLike[str],
    *,
    redact: bool = False,
    redact_rules: Any = None,
    progress: bool | None = None,
    **state: Any,
) -> Path:
    """Write one self-contained HTML file with the viewer for ``session``; return its path
    (``path`` names the page, or a folder to write ``<session file name>.html`` in, as the
    CLI's ``-o`` does).

    With ``redact=True`` the page is made from a redacted copy (see
    :func:`prime_nb.redact.redact`; ``redact_rules`` is passed on as its ``extra_rules``),
    written to a temporary folder and removed afterwards: the page holds no secret the
    default rules (or yours) find. ``progress``: a tqdm bar (default: from 20k entries).
    Keyword arguments set the initial view state: ``selected_id``, ``filter``,
    ``search``, ``view``.

    The page is one file: the tree columns as they are, and the rest (previews, entries,
    search texts, the contexts of the active and newest leaves) gzipped in parts that the
    page decodes when it first needs them, so it draws at once and stays smaller than the
    session file.
    """
    from ..session import as_session

    sess = as_session(session, "export_html")
    out = export_destination(path, sess.file)
    if redact:
        return _export_redacted(sess, out, redact_rules, {**state, "progress": progress})
    title = sess.name or sess.id or shown_name(Path(sess.file).stem)
    data = SessionData(sess)
    head = {"tree": tree64(data.tree()), **({"state": state} if state else {})}
    with open(out, "w", encoding="utf-8") as fh, ThreadPoolExecutor(1) as pool:
        early = {"lines": data.node_lines}
        page = PageWriter(fh.write, head, early, title=f"{title} · prime_nb", csp=True, pool=pool)
        page.finish(_write_parts(data, page, progress))
    return out


def _export_redacted(sess: Session, out: Path, rules: Any, state: dict[str, Any]) -> Path:
    import tempfile

    from ..redact import redact
    from ..session import load

    with tempfile.TemporaryDirectory(prefix="prime-nb-redact-") as folder:
        copy = redact(sess, Path(folder) / Path(sess.file).name, extra_rules=rules or ()).path
        assert copy is not None
        redacted = load(copy)
        return export_html(redacted, out, **state)
