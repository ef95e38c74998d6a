"""`export_html`: one self-contained HTML file with the session viewer, for sharing.

The page holds the same JS bundle as the notebook widget, run against a local stand-in
for the kernel that answers from data inlined in the page. Nothing is fetched: a strict
Content-Security-Policy allows only the page's own script and style (by hash) and
``data:`` images.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import hashlib
import html
import os
import re
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from tqdm.auto import tqdm

from ..errors import SessionWriteError
from ..format._reading import looks_like_session
from ._data import SessionData

if TYPE_CHECKING:
    from ..session._session import Session

STATIC = Path(__file__).parent.parent / "static"
MAX_CONTEXT_ITEMS = 10_000

_EXPORT_CLAUSE = re.compile(r"export\s*\{([^}]*)\}\s*;?\s*$")


def bundle_text() -> tuple[str, str]:
    """The built widget bundle (JS, CSS); raises if it was not built."""
    js_path, css_path = STATIC / "widget.js", STATIC / "widget.css"
    if not js_path.is_file():
        raise FileNotFoundError(
            f"{js_path} is missing: reinstall prime_nb, or run `npm ci && npm run build` in js/"
        )
    css = css_path.read_text("utf-8") if css_path.is_file() else ""
    return js_path.read_text("utf-8"), css


def script_module(bundle: str, bootstrap: str) -> str:
    """The bundle as an inline module script that ends by running ``bootstrap``.

    The bundle's final ``export {a as b, ...}`` becomes a local object ``__pnb`` so the
    bootstrap can reach the exports; ``</script`` cannot end the element early.
    """
    text = bundle.rstrip()
    match = _EXPORT_CLAUSE.search(text)
    if match is None:
        raise ValueError("the widget bundle has no final export clause")
    pairs = []
    for part in match.group(1).split(","):
        part = part.strip()
        if not part:
            continue
        local, _, exported = part.partition(" as ")
        pairs.append(f"{(exported or local).strip()}:{local.strip()}")
    code = text[: match.start()] + "const __pnb={" + ",".join(pairs) + "};\n" + bootstrap
    code = re.sub(r"</(script)", r"<\\/\1", code, flags=re.IGNORECASE)
    if re.search(r"<script", code, flags=re.IGNORECASE):
        raise ValueError("the widget bundle holds '<script' and cannot be inlined safely")
    return code


def json_for_html(value: Any) -> str:
    """JSON safe inside a <script type="application/json"> element."""
    text = orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY).decode("utf-8")
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _b64(value: bytes | None) -> str | None:
    return base64.b64encode(value).decode("ascii") if value is not None else None


def tree64(tree: dict[str, Any]) -> dict[str, Any]:
    """The `_tree` value with its binary columns as base64 text."""
    return {k: _b64(v) if isinstance(v, bytes) else v for k, v in tree.items()}


def _context_leaves(data: SessionData) -> list[int]:
    """Rows of the leaves whose context the page carries: the active leaf first, then the
    newest leaves, within ``MAX_CONTEXT_ITEMS`` messages in all (see ``_contexts``)."""
    leaves = [i for i, leaf in enumerate(data.session.entries["is_leaf"].tolist()) if leaf]
    active = data.row_of.get(data.session.leaf_id or "", -1)
    return sorted(leaves, key=lambda row: (row != active, -row))


def _contexts(data: SessionData, budget: int) -> Iterator[tuple[str, Any]]:
    """``(leaf row, context answer)`` for leaves until ``budget`` messages are used.

    A context is rebuilt from the file for each leaf, so carrying every leaf's context
    of a big session would cost minutes and gigabytes; the page says when a leaf's
    context was left out, and the notebook widget builds any of them on request.
    """
    total = 0
    for row in _context_leaves(data):
        answer = data.context(row)
        total += len(answer["messages"])
        if total > budget and total != len(answer["messages"]):
            break
        yield str(row), answer


def export_payload(session: Session, *, contexts: bool = True) -> dict[str, Any]:
    """Everything the standalone viewer needs: columns, and every answer it may ask for."""
    data = SessionData(session)
    details = [data.entry(i, full) for i, full in enumerate(session.read_entries(data.ids))]
    return {
        "tree": tree64(data.tree()),
        "details": details,
        "previews": [data.preview(i) for i in range(data.n)],
        "texts": data.search_texts(),
        "contexts": dict(_contexts(data, MAX_CONTEXT_ITEMS)) if contexts else {},
    }


#: entries read from the file at once for the details part
DETAIL_BATCH = 2_000
#: entries from which export_html shows a progress bar by default
PROGRESS_FROM = 20_000
#: the heavy parts of the page, each compressed in its own element, decoded on first use
PARTS = ("previews", "details", "texts", "contexts")


class _Packer:
    """JSON values streamed through gzip into base64 text: the page's compressed parts.

    gzip (not a smaller but slower format) because the page undoes it with the browser's
    own ``DecompressionStream``: no library, no network. Level 1: at 100k entries it
    writes 40 MB (half the session file) in 1.7 s less than level 6, which writes 28 MB.
    """

    def __init__(self) -> None:
        self._z = zlib.compressobj(1, zlib.DEFLATED, 31)  # 31: the gzip container
        self._out: list[bytes] = []
        self._pending: list[bytes] = []
        self._size = 0

    def write(self, chunk: bytes) -> None:
        self._pending.append(chunk)
        self._size += len(chunk)
        if self._size >= 1 << 20:
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            self._out.append(self._z.compress(b"".join(self._pending)))
            self._pending.clear()
            self._size = 0

    def array(self, items: Iterable[Any]) -> None:
        """A JSON array, item by item (never the whole list in memory as text)."""
        self.write(b"[")
        first = True
        for item in items:
            if not first:
                self.write(b",")
            first = False
            self.write(orjson.dumps(item, option=orjson.OPT_SERIALIZE_NUMPY))
        self.write(b"]")

    def base64(self) -> str:
        self._flush()
        self._out.append(self._z.flush())
        return base64.b64encode(b"".join(self._out)).decode("ascii")


def _packed_parts(data: SessionData, progress: bool | None) -> Iterator[tuple[str, str]]:
    """``(name, base64 of gzipped JSON)`` for each heavy part, built one at a time.

    One pass over the file gives each entry's detail and its search text; the details
    are compressed as they come, the texts (needed whole for the page) are kept.
    """
    n = data.n
    show = n >= PROGRESS_FROM if progress is None else progress
    bar = tqdm(total=n, desc="export_html", unit="entry", disable=not show, leave=False)
    try:
        previews = _Packer()
        previews.array(data.preview(i) for i in range(n))
        yield "previews", previews.base64()
        texts: list[str] = []

        def each_detail() -> Iterator[dict[str, Any]]:
            # a batch of entries and the tool results they pair with, in one read
            for start in range(0, n, DETAIL_BATCH):
                rows = range(start, min(start + DETAIL_BATCH, n))
                ids = [data.ids[i] for i in rows]
                extra = sorted({r for i in rows for r in data.result_ids(i)} - set(ids))
                read = data.session.read_entries(ids + extra)
                known = dict(zip(ids + extra, read, strict=True))
                for i, full in zip(rows, read, strict=False):
                    texts.append(data.search_text(i, full))
                    yield data.entry(i, full, known)
                bar.update(len(rows))

        details = _Packer()
        details.array(each_detail())
        yield "details", details.base64()
        packed = _Packer()
        packed.array(texts)
        del texts[:]
        yield "texts", packed.base64()
        contexts = _Packer()
        contexts.write(orjson.dumps(dict(_contexts(data, MAX_CONTEXT_ITEMS))))
        yield "contexts", contexts.base64()
    finally:
        bar.close()


_PART = re.compile(
    r'<script type="application/octet-stream" id="pnb-part-([a-z]+)">([^<]*)</script>'
)
_HEAD = re.compile(r'<script type="application/json" id="pnb-data">([^<]*)</script>')


def read_export(path: str | os.PathLike[str]) -> dict[str, Any]:
    """What an exported page holds, decoded: ``tree``, ``state`` and every part
    (``previews``, ``details``, ``texts``, ``contexts``). For checking a page before
    sharing it (say, that a secret is gone) and for tests; the page itself never needs it.
    """
    text = Path(path).read_text("utf-8")
    head = _HEAD.search(text)
    if head is None:
        raise ValueError(f"{path}: not a page written by prime_nb.export_html")
    out: dict[str, Any] = orjson.loads(head.group(1))
    for name, data in _PART.findall(text):
        out[name] = orjson.loads(zlib.decompress(base64.b64decode(data), 47))
    out.pop("parts", None)
    return out


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


BOOTSTRAP = (
    'const __el=document.getElementById("pnb-app");'
    'const __data=JSON.parse(document.getElementById("pnb-data").textContent);'
    "__pnb.mountStandalone(__el,__data,(name)=>__pnb.readPart("
    'document.getElementById("pnb-part-"+name)));'
)


def _page_chunks(
    head: dict[str, Any], parts: Iterable[tuple[str, str]], *, title: str, csp: bool
) -> Iterator[str]:
    """The page as pieces of text (written as they come, so parts never pile up)."""
    bundle, css = bundle_text()
    script = script_module(bundle, BOOTSTRAP)
    style = css + "\nhtml,body{margin:0;padding:0;}\n"
    policy = (
        "default-src 'none'; "
        f"script-src 'sha256-{_sha256(script)}'; "
        f"style-src 'sha256-{_sha256(style)}'; "
        "img-src data:; font-src 'none'; connect-src 'none'; "
        "base-uri 'none'; form-action 'none'; frame-src 'none'; object-src 'none'"
    )
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n' if csp else ""
    yield (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"{meta}"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{html.escape(title)}</title>\n"
        f"<style>{style}</style>\n</head>\n<body>\n"
        '<div id="pnb-app"></div>\n'
    )
    names = []
    for name, text in parts:
        names.append(name)
        # base64 text: nothing in it can end the element or run
        yield f'<script type="application/octet-stream" id="pnb-part-{name}">{text}</script>\n'
    data = json_for_html({**head, "parts": names})
    yield f'<script type="application/json" id="pnb-data">{data}</script>\n'
    yield f'<script type="module">{script}</script>\n</body>\n</html>\n'


def render_html(
    payload: dict[str, Any], *, title: str = "Session", csp: bool = True, state: Any = None
) -> str:
    """The page for a payload (see :func:`export_payload`); its heavy parts compressed."""
    head: dict[str, Any] = {"tree": payload["tree"]}
    if state:
        head["state"] = state
    parts = []
    for name in PARTS:
        if payload.get(name) is not None:
            packer = _Packer()
            packer.write(orjson.dumps(payload[name], option=orjson.OPT_SERIALIZE_NUMPY))
            parts.append((name, packer.base64()))
    return "".join(_page_chunks(head, parts, title=title, csp=csp))


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
    elif os.path.isdir(out) or looks_like_session(out):
        reason = (
            "exists and looks like a session file (or is no regular file); refusing to "
            "overwrite it, choose another output file"
        )
    else:
        return
    raise SessionWriteError(out, reason, errno=errno.EEXIST)


def export_html(
    session: Session | str | os.PathLike[str],
    path: str | os.PathLike[str],
    *,
    redact: bool = False,
    redact_rules: Any = None,
    progress: bool | None = None,
    **state: Any,
) -> Path:
    """Write one self-contained HTML file with the viewer for ``session``; return its path.

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
    from ..session._session import Session, load

    sess = session if isinstance(session, Session) else load(Path(session))
    out = Path(path)
    check_destination(out, Path(sess.file))
    if redact:
        return _export_redacted(sess, out, redact_rules, {**state, "progress": progress})
    title = sess.name or sess.id or Path(sess.file).stem
    data = SessionData(sess)
    head: dict[str, Any] = {"tree": tree64(data.tree())}
    if state:
        head["state"] = state
    chunks = _page_chunks(
        head, _packed_parts(data, progress), title=f"{title} · prime_nb", csp=True
    )
    with open(out, "w", encoding="utf-8") as fh:
        for chunk in chunks:
            fh.write(chunk)
    return out


def _export_redacted(sess: Session, out: Path, rules: Any, state: dict[str, Any]) -> Path:
    import tempfile

    from ..redact import redact
    from ..session._session import load

    with tempfile.TemporaryDirectory(prefix="prime-nb-redact-") as folder:
        copy = redact(sess, Path(folder) / Path(sess.file).name, extra_rules=rules or ()).path
        assert copy is not None
        redacted = load(copy)
        return export_html(redacted, out, **state)
