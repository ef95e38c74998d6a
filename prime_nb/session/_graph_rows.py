"""Lazy node attributes for the session graph: one table row, read column by column.

A graph node's attributes are its row of the entries table. A plain dict of ~30 values
per node costs more than parsing the whole file, and most notebooks read one or two
attributes if any. So each node gets a :class:`RowAttributes`, its row number in the
graph's shared :class:`ColumnStore`, which turns a column into a Python list (cached)
the first time any node reads it. Values, their types and the key order are exactly
those of ``dict(zip(frame.columns, row))`` over the ``tolist()`` columns.

Writes never touch the store: a node's changes live in its own ``overrides`` dict.
Deleting one of the table's keys detaches the node (its row copied into the overrides),
so that from then on it is ordered and behaves exactly like a dict.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any

import pandas as pd


class ColumnStore:
    """The entries table shared by all nodes of one graph, with its columns as lists.

    A private copy of the table, so later edits of ``session.entries`` don't reach the
    graph; never written after, and holding scalars, so node copies may share it.
    """

    __slots__ = ("_all", "_lists", "frame", "names", "positions")

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame
        self.names: tuple[str, ...] = tuple(frame.columns)
        self.positions: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        self._lists: dict[str, list[Any]] = {}
        self._all: list[list[Any]] | None = None

    def column(self, name: str) -> list[Any]:
        """Column ``name`` as a Python list (converted once); KeyError if it isn't one."""
        values = self._lists.get(name)
        if values is None:
            if name not in self.positions:
                raise KeyError(name)
            values = self._lists[name] = self.frame[name].tolist()
        return values

    def row(self, row: int) -> dict[str, Any]:
        """Row ``row`` as a plain dict (every column converted)."""
        columns = self._all
        if columns is None:
            columns = self._all = [self.column(name) for name in self.names]
        return dict(zip(self.names, [values[row] for values in columns], strict=True))

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled (once per graph, pickle memoizes it) without the cached lists
        return (ColumnStore, (self.frame,))


class RowAttributes(MutableMapping[str, Any]):
    """One node's attributes: row ``row`` of ``store``, plus the user's own changes;
    behaves like the plain dict it stands for (order, ``==``, ``copy()``, pickle, repr)."""

    __slots__ = ("_overrides", "_row", "_store")

    def __init__(self, store: ColumnStore | None, row: int = -1) -> None:
        self._store = store
        self._row = row
        #: values set by the user (table keys and new keys); everything once detached
        self._overrides: dict[str, Any] | None = None if store is not None else {}

    # -- reading ---------------------------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        own = self._overrides
        if own is not None and key in own:
            return own[key]
        try:  # the common case first: a column some node has read already
            return self._store._lists[key][self._row]  # type: ignore[union-attr]
        except (KeyError, AttributeError):
            pass
        store = self._store
        if store is None:
            raise KeyError(key)
        return store.column(key)[self._row]

    def __contains__(self, key: object) -> bool:
        own = self._overrides
        if own is not None and key in own:
            return True
        store = self._store
        return store is not None and key in store.positions

    def _extra_keys(self) -> list[str]:
        """Keys the user added that are not table columns, in insertion order."""
        own, store = self._overrides, self._store
        if not own or store is None:
            return []
        positions = store.positions
        return [key for key in own if key not in positions]

    def __iter__(self) -> Iterator[str]:
        store = self._store
        if store is None:
            assert self._overrides is not None
            return iter(self._overrides)
        extra = self._extra_keys()
        return iter((*store.names, *extra)) if extra else iter(store.names)

    def __reversed__(self) -> Iterator[str]:
        return reversed(list(self))

    def __len__(self) -> int:
        store = self._store
        if store is None:
            assert self._overrides is not None
            return len(self._overrides)
        return len(store.names) + len(self._extra_keys())

    def copy(self) -> dict[str, Any]:
        """A plain dict of the attributes (what networkx's ``G.copy()`` stores)."""
        store, own = self._store, self._overrides
        if store is None:
            assert own is not None
            return dict(own)
        out = store.row(self._row)
        if own:
            out.update(own)
        return out

    # -- writing ---------------------------------------------------------------------
    def __setitem__(self, key: str, value: Any) -> None:
        own = self._overrides
        if own is None:
            own = self._overrides = {}
        own[key] = value

    def __delitem__(self, key: str) -> None:
        own, store = self._overrides, self._store
        if store is not None and key in store.positions:
            # like a dict from here on: a key deleted and set again goes last
            own = self._overrides = self.copy()
            self._store = None
        if own is None:
            raise KeyError(key)
        del own[key]

    def popitem(self) -> tuple[str, Any]:
        """Remove and return the last (key, value) pair, as dict.popitem does."""
        for key in reversed(self):
            value = self[key]
            del self[key]
            return key, value
        raise KeyError("popitem(): dictionary is empty")

    # -- dict look-alike -------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self.copy() == (other if isinstance(other, dict) else dict(other.items()))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __or__(self, other: Any) -> dict[str, Any]:
        if not isinstance(other, Mapping):
            return NotImplemented
        return self.copy() | dict(other)

    def __ror__(self, other: Any) -> dict[str, Any]:
        if not isinstance(other, Mapping):
            return NotImplemented
        return dict(other) | self.copy()

    def __ior__(self, other: Any) -> RowAttributes:
        self.update(other)
        return self

    def __repr__(self) -> str:
        return repr(self.copy())

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.pretty(self.copy())

    def __copy__(self) -> dict[str, Any]:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> RowAttributes:
        # the store is read-only and holds scalars: the copy shares it
        clone = RowAttributes(self._store, self._row)
        clone._overrides = copy.deepcopy(self._overrides, memo)
        return clone

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (self._store, self._row, self._overrides))


def _restore(store: ColumnStore | None, row: int, own: dict[str, Any] | None) -> RowAttributes:
    attributes = RowAttributes(store, row)
    attributes._overrides = own
    return attributes


def row_attributes(frame: pd.DataFrame) -> list[RowAttributes]:
    """One :class:`RowAttributes` per row of ``frame``, all sharing one store (a copy)."""
    store = ColumnStore(frame.copy())
    return [RowAttributes(store, row) for row in range(len(frame))]
