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
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ..errors import SessionWriteError
from ..format._reading import looks_like_session
from ._data import SessionData

if TYPE_CHECKING:
    from ..session._session import Session

STATIC = Path(__file__).parent.parent / "static"
MAX_CONTEXT_ITEMS = 200_000

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


def export_payload(session: Session, *, contexts: bool = True) -> dict[str, Any]:
    """Everything the standalone viewer needs: columns, and every answer it may ask for."""
    data = SessionData(session)
    n = data.n
    details = [data.entry(i, full) for i, full in enumerate(session.read_entries(data.ids))]
    previews = [data.preview(i) for i in range(n)]
    texts = data.search_texts()
    ctx: dict[str, Any] = {}
    if contexts:
        leaves = [i for i, leaf in enumerate(session.entries["is_leaf"].tolist()) if leaf]
        total = 0
        for i in leaves:
            answer = data.context(i)
            total += len(answer["messages"])
            if total > MAX_CONTEXT_ITEMS:
                break
            ctx[str(i)] = answer
    return {
        "tree": tree64(data.tree()),
        "details": details,
        "previews": previews,
        "texts": texts,
        "contexts": ctx,
    }


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def render_html(
    payload: dict[str, Any], *, title: str = "Session", csp: bool = True, state: Any = None
) -> str:
    """The page for a payload (see :func:`export_payload`)."""
    bundle, css = bundle_text()
    if state:
        payload = {**payload, "state": state}
    bootstrap = (
        'const __el=document.getElementById("pnb-app");'
        'const __data=JSON.parse(document.getElementById("pnb-data").textContent);'
        "__pnb.mountStandalone(__el,__data);"
    )
    script = script_module(bundle, bootstrap)
    style = css + "\nhtml,body{margin:0;padding:0;}\n"
    policy = (
        "default-src 'none'; "
        f"script-src 'sha256-{_sha256(script)}'; "
        f"style-src 'sha256-{_sha256(style)}'; "
        "img-src data:; font-src 'none'; connect-src 'none'; "
        "base-uri 'none'; form-action 'none'; frame-src 'none'; object-src 'none'"
    )
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n' if csp else ""
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"{meta}"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{html.escape(title)}</title>\n"
        f"<style>{style}</style>\n</head>\n<body>\n"
        '<div id="pnb-app"></div>\n'
        f'<script type="application/json" id="pnb-data">{json_for_html(payload)}</script>\n'
        f'<script type="module">{script}</script>\n'
        "</body>\n</html>\n"
    )


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
    **state: Any,
) -> Path:
    """Write one self-contained HTML file with the viewer for ``session``; return its path.

    With ``redact=True`` the page is made from a redacted copy (see
    :func:`prime_nb.redact.redact`; ``redact_rules`` is passed on as its ``extra_rules``),
    written to a temporary folder and removed afterwards: the page holds no secret the
    default rules (or yours) find. Keyword arguments set the initial view state:
    ``selected_id``, ``filter``, ``search``, ``view``.
    """
    from ..session._session import Session, load

    sess = session if isinstance(session, Session) else load(Path(session))
    out = Path(path)
    check_destination(out, Path(sess.file))
    if redact:
        return _export_redacted(sess, out, redact_rules, state)
    payload = export_payload(sess)
    title = sess.name or sess.id or Path(sess.file).stem
    out.write_text(render_html(payload, title=f"{title} · prime_nb", state=state), "utf-8")
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
