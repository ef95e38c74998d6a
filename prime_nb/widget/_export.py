"""`export_html`: one self-contained HTML file with the session viewer, for sharing.

The page (``_page``) holds the viewer's bundle, the tree columns, and in compressed
parts what the viewer asks the kernel for in a notebook (``_export_parts``). The parts
are made and written one at a time, from one read of the file, so a big session's
export needs little more memory than the loaded session.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm.auto import tqdm

from .._cut import cut
from .._names import shown_name
from ..errors import SessionWriteError
from ..format import looks_like_session
from ._data import SessionData
from ._export_parts import contexts, detail_extras, write_entries
from ._pack import Packer, dumps
from ._page import PageWriter, tree64
from ._state import check_state

if TYPE_CHECKING:
    from ..session import Session

#: entries from which export_html shows a progress bar by default
PROGRESS_FROM = 20_000


def _write_parts(data: SessionData, page: PageWriter, progress: bool | None) -> dict[str, Any]:
    """Every part of ``data``'s page, one after another; returns the index's fields.

    One pass over the file gives each entry and its search text; the entries go out as
    they come, the search texts are compressed in memory and written after them.
    """
    show = data.n >= PROGRESS_FROM if progress is None else progress
    bar = tqdm(total=data.n, desc="export_html", unit="entry", disable=not show, leave=False)
    try:
        page.value("previews", data.previews())
        packed: list[str] = []
        texts = Packer(packed.append)
        texts.write(b"[")

        def see(row: int, entry: dict[str, Any]) -> None:
            text = dumps(data.search_text(row, entry))
            texts.write(text if texts.taken == 1 else b"," + text)  # 1: just the "["

        chunks = write_entries(page, data, see, bar.update)
        texts.write(b"]")
        texts.close()
        page.packed("texts", "".join(packed))
        del packed[:]
        page.value("extras", detail_extras(data))
        bar.set_postfix_str("contexts")
        page.value("contexts", contexts(data))
        return {"chunks": chunks}
    finally:
        bar.close()


def export_destination(out: str | os.PathLike[str], source: str | os.PathLike[str]) -> Path:
    """Where :func:`export_html` writes the page of ``source`` given ``out`` (a file, or
    a folder: the session file's name as .html), checked as it checks it: never over the
    session itself, nor over anything like a session (``x.html`` exported with the
    default name, or ``-o`` naming the input, would otherwise replace what may be the
    only copy of a session).

    Why public: a caller that must decide before writing (the CLI's ``--force``) asks
    here, and gets the same answer and the same SessionWriteError as the export would.
    """
    page = Path(out)
    if page.is_dir():
        page = page / (Path(source).stem + ".html")
    if not os.path.lexists(page):
        return page
    same = False
    with contextlib.suppress(OSError):
        same = os.path.samefile(page, source)
    if same:
        reason = "is the session being exported; choose another output file"
    elif os.path.isdir(page):
        reason = "is a folder; choose another output file"
    elif looks_like_session(page):
        reason = (
            "exists and looks like a session file (or is no regular file); refusing to "
            "overwrite it, choose another output file"
        )
    else:
        return page
    raise SessionWriteError(page, reason, errno=errno.EEXIST)


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
    ``search``, ``view``; any other keyword, view or filter raises.

    The rest of the page beside the tree columns is gzipped in parts decoded when first
    needed, so the page draws at once and stays smaller than the session file.
    """
    from ..session import as_session

    check_state(state, "export_html")
    sess = as_session(session, "export_html")
    out = export_destination(path, sess.file)
    if redact:
        return _export_redacted(sess, out, redact_rules, {**state, "progress": progress})
    title = cut(sess.name or sess.id or shown_name(Path(sess.file).stem))  # tab and window
    data = SessionData(sess)
    head = {"tree": tree64(data.tree()), **({"state": state} if state else {})}
    with open(out, "w", encoding="utf-8") as fh:
        page = PageWriter(fh.write, head, {"lines": data.node_lines}, f"{title} · prime_nb")
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
