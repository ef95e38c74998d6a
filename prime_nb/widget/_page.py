"""The exported page: the notebook widget's JS bundle, run against a stand-in for the
kernel that answers from the page's own data. Nothing is fetched: a strict
Content-Security-Policy allows only the page's script and style (by hash) and ``data:``
images.

In file order: the tree columns (JSON), the parts the first draw needs, the script, the
other compressed parts (``_pack``), an index of the parts. The script is a classic one,
so it draws the tree while the rest of the file (most of it) is still being read.
"""

from __future__ import annotations

import base64
import hashlib
import html
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from .._names import shown_text
from ._pack import Packer, dumps, unpack

STATIC = Path(__file__).parent.parent / "static"

_EXPORT_CLAUSE = re.compile(r"export\s*\{([^}]*)\}\s*;?\s*$")
_NAME = re.compile(r"[a-z][a-z0-9-]*")


def bundle_text() -> tuple[str, str]:
    """The built widget bundle (JS, CSS); raises if it was not built."""
    js_path, css_path = STATIC / "widget.js", STATIC / "widget.css"
    if not js_path.is_file():
        raise FileNotFoundError(
            shown_text(
                f"{js_path} is missing: reinstall prime_nb, or run `npm ci && npm run build` in js/"
            )
        )
    css = css_path.read_text("utf-8") if css_path.is_file() else ""
    return js_path.read_text("utf-8"), css


def inline_script(bundle: str, bootstrap: str) -> str:
    """The bundle as an inline classic script that ends by running ``bootstrap``.

    The bundle's final ``export {a as b, ...}`` becomes a local object ``__pnb`` so the
    bootstrap can reach the exports; the whole runs in a strict function (as a module
    would: strict, its names its own), which unlike a module runs without waiting for
    the rest of the document. ``</script`` cannot end the element early.
    """
    text = bundle.rstrip()
    match = _EXPORT_CLAUSE.search(text)
    if match is None:
        raise ValueError("the widget bundle has no final export clause")
    names = [part.strip().partition(" as ") for part in match.group(1).split(",")]
    pairs = [
        f"{(exported or local).strip()}:{local.strip()}" for local, _, exported in names if local
    ]
    code = (
        '(function(){"use strict";\n'
        + text[: match.start()]
        + "const __pnb={"
        + ",".join(pairs)
        + "};\n"
        + bootstrap
        + "\n}).call(undefined);"
    )
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


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


BOOTSTRAP = (
    'const __el=document.getElementById("pnb-app");'
    'const __data=JSON.parse(document.getElementById("pnb-data").textContent);'
    "__pnb.mountStandalone(__el,__data,__pnb.pagePart);"
)


class PageWriter:
    """Writes a page through ``write``: the top, the tree (``head``), the ``early`` parts
    and the script at once, then each part as it is packed, then (``finish``) the index
    of the parts."""

    def __init__(
        self, write: Callable[[str], Any], head: dict[str, Any], early: dict[str, Any], title: str
    ) -> None:
        self._write = write
        bundle, css = bundle_text()
        script = inline_script(bundle, BOOTSTRAP)
        style = css + "\nhtml,body{margin:0;padding:0;}\n"
        policy = (
            "default-src 'none'; "
            f"script-src 'sha256-{_sha256(script)}'; "
            f"style-src 'sha256-{_sha256(style)}'; "
            "img-src data:; font-src 'none'; connect-src 'none'; "
            "base-uri 'none'; form-action 'none'; frame-src 'none'; object-src 'none'"
        )
        #: the names of the parts written so far
        self.parts: list[str] = []
        write(
            '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            '<meta name="referrer" content="no-referrer">\n'
            f"<title>{html.escape(title)}</title>\n"
            f"<style>{style}</style>\n</head>\n<body>\n"
            '<div id="pnb-app"></div>\n'
            f'<script type="application/json" id="pnb-data">{json_for_html(head)}</script>\n'
        )
        for name, value in early.items():
            self.value(name, value)
        write(f"<script>{script}</script>\n")

    def _open(self, name: str) -> None:
        if not _NAME.fullmatch(name) or name in self.parts:
            raise ValueError(f"bad or repeated part name {name!r}")
        # base64 text only: nothing in it can end the element or run
        self._write(f'<script type="application/octet-stream" id="pnb-part-{name}">')
        self.parts.append(name)

    def begin(self, name: str) -> Packer:
        """Open a compressed part: write its JSON to the packer returned, then ``end`` it."""
        self._open(name)
        return Packer(self._write)

    def end(self, packer: Packer) -> None:
        packer.close()
        self._write("</script>\n")

    def value(self, name: str, value: Any) -> None:
        """A part holding one value."""
        packer = self.begin(name)
        packer.write(dumps(value))
        self.end(packer)

    def packed(self, name: str, text: str) -> None:
        """A part packed already (the text a ``Packer`` gave)."""
        self._open(name)
        self._write(f"{text}</script>\n")

    def finish(self, index: dict[str, Any]) -> None:
        """The index (the parts written, and ``index``'s fields) and the end of the page."""
        data = json_for_html({**index, "parts": self.parts})
        self._write(f'<script type="application/json" id="pnb-index">{data}</script>\n')
        self._write("</body>\n</html>\n")


_PART = re.compile(
    r'<script type="application/octet-stream" id="pnb-part-([a-z][a-z0-9-]*)">([^<]*)</script>'
)
_JSON = re.compile(r'<script type="application/json" id="pnb-(data|index)">([^<]*)</script>')


def read_export(path: str | os.PathLike[str]) -> dict[str, Any]:
    """What an exported page holds, decoded: ``tree``, ``state`` (if set) and the parts
    (``lines``, ``previews``, ``extras``, ``entries`` with its chunks joined, ``texts``,
    ``contexts``; see ``_export_parts``). For checking a page before sharing it (say,
    that a secret is gone) and for tests; the page never needs it."""
    text = Path(path).read_text("utf-8")
    found = dict(_JSON.findall(text))
    if "data" not in found:
        raise ValueError(shown_text(f"{path}: not a page written by prime_nb.export_html"))
    out: dict[str, Any] = {**orjson.loads(found["data"]), **orjson.loads(found.get("index", "{}"))}
    for name, data in _PART.findall(text):
        out[name] = unpack(data)
    chunks = out.pop("chunks", None) or []
    out.pop("parts", None)
    out["entries"] = [e for k in range(len(chunks)) for e in out.pop(f"entries-{k}")]
    return out
