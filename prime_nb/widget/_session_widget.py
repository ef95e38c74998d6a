"""`SessionWidget` (anywidget) and `show`: the interactive branch graph of a session."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from .._names import shown_name
from ..session import Session, as_session
from ._data import COLUMN_NAMES, SessionData
from ._offline import offline_data
from ._state import FILTERS, VIEWS
from ._static import static_html, text_repr

STATIC = Path(__file__).parent.parent / "static"
#: sessions this big get their search index built in the background when shown
WARM_SEARCH_FROM = 5_000

_MISSING_BUNDLE = """
export default { render({ el }) {
  el.textContent = "prime_nb: the %s JavaScript bundle is not built. "
    + "Reinstall the package (pip install .) or run: cd js && npm ci && npm run build";
} };
"""


def _asset(name: str, view: str = "") -> Path | str:
    """A built file of ``static/``; if missing, a script says so in the ``view``'s place."""
    path = STATIC / name
    return path if path.is_file() else _MISSING_BUNDLE % view if view else ""


class SessionWidget(anywidget.AnyWidget):
    """The conversation tree of a session: pan, zoom, filter, search, inspect entries.

    Traits ``selected_id``, ``filter``, ``search`` and ``view`` sync both ways. Where no
    JavaScript runs (static renders of a saved notebook), its outputs still say what it is:
    a text line and an HTML summary with a picture of the tree (see ``_static``); where the
    JavaScript runs without a kernel, it answers from ``_offline`` (see ``_offline``).
    """

    _esm = _asset("widget.js", "widget's")
    _css = _asset("widget.css")

    _tree = traitlets.Dict().tag(sync=True)
    _offline = traitlets.Dict().tag(sync=True)
    selected_id = traitlets.Unicode(None, allow_none=True).tag(sync=True)
    filter = traitlets.Enum(FILTERS, default_value="default").tag(sync=True)
    search = traitlets.Unicode("").tag(sync=True)
    view = traitlets.Enum(VIEWS, default_value="tree").tag(sync=True)
    height = traitlets.Int(560).tag(sync=True)
    #: why the last live update failed ("" once one succeeds); shown in the status line
    watch_error = traitlets.Unicode("").tag(sync=True)

    #: set before anything can fail, so that ``__del__`` of a half-built widget works
    _watcher: _Watcher | None = None

    def __init__(self, session: Session | str | os.PathLike[str], **kwargs: Any) -> None:
        self.session = as_session(session, "SessionWidget")
        self._data = SessionData(self.session)
        if self._data.n >= WARM_SEARCH_FROM:
            self._data.warm_search()  # the first search then waits for no file reading
        self._appended = False
        self._watcher: _Watcher | None = None
        super().__init__(_tree=self._data.tree(), _offline=offline_data(self._data), **kwargs)
        self.on_msg(self._on_msg)

    # -- outputs without JavaScript --------------------------------------------------------
    def __repr__(self) -> str:
        return text_repr(self.session)

    def _repr_html_(self) -> str:
        """The static summary and tree picture (for renderers that cannot run widgets)."""
        return static_html(self._data)

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The widget view, with the text line and the static HTML as fallbacks."""
        parts = super()._repr_mimebundle_(**kwargs)
        if parts is None:
            return None
        data, metadata = parts
        return {**data, "text/plain": repr(self), "text/html": self._repr_html_()}, metadata

    def _ipython_display_(self, **kwargs: Any) -> None:
        """In IPython: the widget, then the static HTML as an output of its own.

        A notebook executed headless (``nbconvert --execute``) stores the widget's state, so
        static renderers then choose the widget view over any fallback in the same output,
        and show nothing without the widget scripts. A separate output is always shown;
        where the widget draws, ``widget.css`` hides it (the output right after a drawn
        widget), so live front ends show the widget alone.
        """
        from IPython.display import display

        parts = super()._repr_mimebundle_(**kwargs)
        if parts is None:
            return
        data, metadata = parts
        show_raw: Callable[..., None] = display
        show_raw({**data, "text/plain": repr(self)}, metadata=metadata, raw=True)
        show_raw({"text/html": self._repr_html_(), "text/plain": ""}, raw=True)

    # -- selection -------------------------------------------------------------------------
    @traitlets.validate("selected_id")
    def _check_selected(self, proposal: dict[str, Any]) -> str | None:
        value = proposal["value"]
        if value is not None and value not in self._data.row_of:
            shown = shown_name(repr(value) if len(value) <= 80 else repr(value[:79]) + "…")
            raise traitlets.TraitError(
                f"{shown_name(str(self.session.file))}: no entry with id {shown} in this "
                "session; pick one of session.entries.index, or call refresh() if the agent "
                "appended it since"
            )
        return value  # type: ignore[no-any-return]

    def on_select(self, callback: Callable[[str | None], Any]) -> None:
        """Call ``callback(entry_id)`` whenever the selection changes (None when cleared)."""
        self.observe(lambda change: callback(change["new"]), names="selected_id")

    @property
    def selected(self) -> dict[str, Any] | None:
        """The selected entry in full (canonical dict), or None."""
        return self.session.entry(self.selected_id) if self.selected_id else None

    # -- requests from the JS --------------------------------------------------------------
    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict) or content.get("type") != "request":
            return
        rid = content.get("rid")
        try:
            reply = {"type": "response", "rid": rid, "data": self._data.answer(content)}
        except Exception as exc:  # the JS shows the error in place of the answer
            reply = {"type": "response", "rid": rid, "error": f"{type(exc).__name__}: {exc}"}
        self.send(reply)

    # -- live updates ----------------------------------------------------------------------
    def refresh(self) -> int:
        """Read entries appended to the file and send only those; return how many.

        If the file was rewritten (the agent migrates files by replacing them), the whole
        tree is sent again and the number of entries is returned.
        """
        before = self._data.n
        kind, payload = self._data.refresh()
        if kind == "append" and payload is not None:
            buffers = [payload.pop(name) for name in COLUMN_NAMES]
            payload["columns"] = [
                name for name, buf in zip(COLUMN_NAMES, buffers, strict=True) if buf is not None
            ]
            self._appended = True
            self.send(payload, buffers=[b for b in buffers if b is not None])
        elif kind == "reset" and payload is not None:
            self._appended = False
            if self.selected_id is not None and self.selected_id not in self._data.row_of:
                self.selected_id = None
            self._tree = payload
            self._offline = offline_data(self._data)
            return self._data.n
        return self._data.n - before

    def get_state(self, key: Any = None) -> dict[str, Any]:
        """State for the front end; a full request (a new page) gets every row, appends too."""
        state: dict[str, Any] = super().get_state(key)
        if key is None and self._appended and "_tree" in state:
            state["_tree"] = self._data.tree()
        return state

    def watch(self, interval: float = 1.0) -> None:
        """Poll the file and call :meth:`refresh` when it grows (until :meth:`unwatch`)."""
        self.unwatch()
        self._watcher = _Watcher(self, interval)

    def unwatch(self) -> None:
        """Stop watching the file."""
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None

    def close(self) -> None:
        self.unwatch()
        super().close()


class _Watcher:
    """Polls a session file's size and mtime from a daemon thread; refreshes on change."""

    def __init__(self, widget: SessionWidget, interval: float) -> None:
        self.widget = widget
        self.interval = interval
        self.stamp = self._stamp()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="prime_nb-watch", daemon=True)
        self._thread.start()

    stamp: tuple[int, int] | None

    def _stamp(self) -> tuple[int, int]:
        try:
            st = os.stat(self.widget.session.file)
        except OSError:
            return (-1, -1)
        return (st.st_size, st.st_mtime_ns)

    def _run(self) -> None:
        """Poll until stopped; no exception ends the thread (it would stop live updates
        silently): it is shown in the widget, and the file is tried again next time."""
        while not self._stop.wait(self.interval):
            stamp = self._stamp()
            if stamp == self.stamp:
                continue
            try:
                self.widget.refresh()
            except Exception as exc:  # a half-written new file, an odd line, an I/O error...
                self.stamp = None  # try again at the next tick, even if nothing changes
                self._report(f"live update failed: {type(exc).__name__}: {exc}")
            else:
                self.stamp = stamp
                self._report("")

    def _report(self, message: str) -> None:
        with contextlib.suppress(Exception):  # a closed widget cannot show it any more
            if self.widget.watch_error != message:
                self.widget.watch_error = message

    def stop(self) -> None:
        self._stop.set()


def show(
    session: Session | str | os.PathLike[str] | Any, *, watch: bool = False, **kwargs: Any
) -> SessionWidget:
    """A widget for a session (or a path to one); ``watch=True`` follows appends live.

    A row of ``prime_nb.corpus.search``'s result (a pandas Series with ``file`` and
    ``entry_id``) opens that file with the hit's entry selected: a search's hits are
    looked at one by one.

    Keyword arguments set traits: ``selected_id``, ``filter``, ``search``, ``view``, ``height``.
    """
    if _is_hit_row(session):
        hit: Any = session
        if isinstance(hit["entry_id"], str):  # a hit on no entry (a header) selects none
            kwargs.setdefault("selected_id", hit["entry_id"])
        session = hit["file"]
    widget = SessionWidget(session, **kwargs)
    if watch:
        widget.watch()
    return widget


def _is_hit_row(value: Any) -> bool:
    """Is ``value`` a row of a search result? Told by its shape (a Series with a file and
    an entry id): the widget does not import the corpus, which sits beside it."""
    if type(value).__name__ != "Series" or not hasattr(value, "index"):
        return False
    return {"file", "entry_id"} <= set(value.index)
