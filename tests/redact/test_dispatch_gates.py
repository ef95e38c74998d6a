"""The cheap tests that keep the rules off most strings say what the full reading says:
a key's class found without reading its words, a hint wider than Latin-1 left to the
scan. Each keeps every string's spans; each lets a string with nothing in it through
without a rule or a second scan."""

from __future__ import annotations

import itertools
import re

import pytest

from prime_nb.redact import Rule, default_rules
from prime_nb.redact import _values as values
from prime_nb.redact._literals import _latin1
from prime_nb.redact._rule import _Dispatch, dispatch

#: every word the key lists know, each alone and inside a name
_WORDS = sorted(
    values._PASSWORD_WORDS
    | values._KEY_WORDS
    | {"contraseña", "privatekey", "sessionid", "bearer", "setcookie", "authorization"}
    | {"apikeys", "accesstoken", "refreshtoken", "idtoken", "secretaccesskey", "id"}
)
_SHAPES = ["{}", "X_{}", "{}_ID", "my{}", "{}Ref", "DB-{}", "{} min", "{}s", "[{}]", '"{}"']


def _names() -> list[str]:
    names = ["k0", "key", "tokens", "bypass", "compass", "x", "", "_", "path", "author"]
    for word, shape in itertools.product(_WORDS, _SHAPES):
        names += [shape.format(word), shape.format(word.upper()), shape.format(word.title())]
    for a, b in itertools.product(["pass", "secret", "api", "access", "auth", "x"], repeat=2):
        names += [f"{a}_{b}", f"{a}{b.title()}", f"{a}.{b}-key", f"{a}-{b}_word"]
    names += ["PASS_WORD", "pass word", "pass-phrase", "api\u212aey", "to\u017fken", "s_e_c_r_e_t"]
    return names


def test_a_key_without_a_secret_word_is_classed_as_the_full_reading_classes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``secret_key_class`` answers None at once for a name with no secret's word in it:
    over every listed word in many name shapes, the same class as when every name is
    read word by word (the quick test made to pass everything)."""
    names = _names()
    quick = [values._key_class(name) for name in names]
    monkeypatch.setattr(values, "_SECRET_PART", re.compile(""))
    full = [values._key_class(name) for name in names]
    assert quick == full
    assert sum(kind is not None for kind in full) > len(names) // 2
    assert sum(kind is None for kind in full) > 100


def test_the_quick_key_test_misses_nothing_when_a_word_is_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The comparison above fails if the quick test forgets a word (``cookie``)."""
    names = _names()
    monkeypatch.setattr(values, "_SECRET_PART", re.compile(""))
    full = [values._key_class(name) for name in names]
    monkeypatch.setattr(
        values, "_SECRET_PART", re.compile("pass|pw|secret|contrase|key|token|pat|cred|auth")
    )
    broken = [values._key_class(name) for name in names]
    assert broken != full


def test_every_default_rule_can_be_left_out_by_the_scan() -> None:
    """No default rule runs on every string: a hint wider than Latin-1 (the truncation
    rule's ``…``) cannot be in a text the scan answers for, so the rule's other hints
    decide; a plain key (``k123``) runs no rule and no shapes' scan."""
    rules = default_rules(hostnames=[])
    assert _Dispatch.of(rules).always == frozenset()
    assert [_latin1(h) for h in ("truncated", "...", "\u2026")] == [True, True, False]
    for text in ("k123", "role", "assistant", "toolu_01ABC"):
        assert dispatch(rules, text, text.lower())[1] == []


@pytest.mark.parametrize(
    "text",
    [
        "api_key=abcdefgh12345678\u2026",
        "token: Zk3pQ9xV2mL8rT4w\u2026",
        "password: hunter2hunter2 \u2026 \u4e2d",
        "Zk3pQ9xV2mL8rT4wAb7 \u2026",
        "secret = Zk3pQ9xV2mL8rT4w...",
    ],
)
def test_a_value_cut_by_a_wide_mark_is_still_found(text: str) -> None:
    """The truncation rule still runs where its mark is ``…`` alone: the scan cannot
    answer for such a text (it is wider than Latin-1), so every rule runs."""
    rules = default_rules(hostnames=[])
    cut = next(rule for rule in rules if rule.name == "cut-secret")
    want = sorted(cut.spans(text))
    assert want  # the rule finds the cut value
    presence, alive = dispatch(rules, text, text.lower())
    assert cut in alive
    assert sorted(cut.spans(text, text.lower(), presence)) == want


def test_a_later_files_equal_rules_are_not_compared_field_by_field(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each redaction makes its rule list anew, equal to the last, and finds the last
    one's dispatch by value once; after that, each string's dispatch knows the list by
    identity (comparing 77 rules field by field for each string cost more than the
    scan)."""
    first = default_rules(hostnames=[])
    dispatch(first, "warm", "warm")
    second = default_rules(hostnames=[])
    assert second == first and all(a is not b for a, b in zip(first, second, strict=True))
    dispatch(second, "warm", "warm")
    compared = 0
    equal = Rule.__eq__

    def counted(self: Rule, other: object) -> bool:
        nonlocal compared
        compared += 1
        return equal(self, other)

    monkeypatch.setattr(Rule, "__eq__", counted)
    for text in ("k1", "k2", "password = hunter2hunter2"):
        assert dispatch(second, text, text.lower())[0].text == text
    assert compared == 0
