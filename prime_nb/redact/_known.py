"""The secret values a scrubber has learned, each with its rule's name and placeholder.

Why not a dict of tuples: under a secret's key every value is one (``"api_key": [0, 1,
2, ...]``, up to 256 of a list or object: more are one value, ``_whole_secret.py``), a
distinct placeholder each, and a tuple and a placeholder string kept for
every value cost many times the value's bytes. Here a value maps to one number: a
placeholder made from its rule's name and number (``[REDACTED:rule:n]``, what every
rule without a placeholder of its own makes) is kept as that rule's code and number, and
made again when asked; any other is kept as written.
"""

from __future__ import annotations

from collections.abc import Iterator

from ._rule import Rule, secret_placeholder

#: a code's low bit: 0, numbered (rule code and number above it); 1, an index into the
#: pairs kept as written
_RULE_BITS = 16
#: how many numbered placeholders made again are kept, so that a value met many times
#: (a secret repeated through a text) gives one string every time: its cuts share it
#: (``_pending.Cuts``) instead of each holding a copy
_MADE_KEPT = 1024


class KnownValues:
    """value -> (rule name, placeholder), read as a dict of them is (``in``, ``[]``,
    ``get``, ``len``, iteration over the values); written by :meth:`add`."""

    def __init__(self) -> None:
        self._codes: dict[str, int] = {}
        self._rule_codes: dict[str, int] = {}
        self._rule_names: list[str] = []
        self._written: list[tuple[str, str]] = []
        self._made: dict[int, tuple[str, str]] = {}

    def add(self, value: str, rule: Rule, number: int) -> None:
        """Learn ``value`` as ``rule``'s ``number``-th value."""
        placeholder = rule.make_placeholder(number, value)
        code = self._rule_codes.get(rule.name)
        if code is None:
            code = self._rule_codes[rule.name] = len(self._rule_names)
            self._rule_names.append(rule.name)
        if code < 1 << _RULE_BITS and placeholder == secret_placeholder(rule.name, number):
            self._codes[value] = (number << _RULE_BITS | code) << 1
        else:
            self._codes[value] = len(self._written) << 1 | 1
            self._written.append((rule.name, placeholder))

    def __contains__(self, value: object) -> bool:
        return value in self._codes

    def __getitem__(self, value: str) -> tuple[str, str]:
        return self._pair(self._codes[value])

    def get(self, value: str) -> tuple[str, str] | None:
        code = self._codes.get(value)
        return None if code is None else self._pair(code)

    def __len__(self) -> int:
        return len(self._codes)

    def __iter__(self) -> Iterator[str]:
        return iter(self._codes)

    def _pair(self, code: int) -> tuple[str, str]:
        if code & 1:
            return self._written[code >> 1]
        made = self._made.get(code)
        if made is None:
            if len(self._made) >= _MADE_KEPT:
                self._made.clear()
            number = code >> 1
            name = self._rule_names[number & ((1 << _RULE_BITS) - 1)]
            made = self._made[code] = (name, secret_placeholder(name, number >> _RULE_BITS))
        return made
