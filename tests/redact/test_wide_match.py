"""The file-wide values are found as the one regex over all of them finds them.

``WideMatcher`` compiles no regex of every form: it looks for their first bytes, then
walks a short text's places or compiles a regex of the few forms a long one may hold.
Its matches must be those of ``re.compile(pattern_of(forms))``, in texts built to make
the choices hard: forms that are prefixes of one another, that overlap, that stand as
whole words or inside one, wider than Latin-1 or a lone surrogate, and a text longer
than one piece of the scan, with a form cut between two pieces.
"""

from __future__ import annotations

import random
import re

import pytest

from prime_nb.redact._wide_match import CHUNK, WideMatcher, pattern_of

ALPHABET = "ab_1-. é€\ud800"


def _forms(rng: random.Random) -> list[tuple[str, bool]]:
    words = {"".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 12))) for _ in range(40)}
    words |= {w + "ab" for w in sorted(words)[:10]}  # a form that another begins
    ordered = sorted(words, key=lambda w: (-len(w), w))  # not by the set's (hashed) order
    return [(w, rng.random() < 0.3) for w in ordered if w.strip()]


def _text(rng: random.Random, forms: list[tuple[str, bool]], length: int) -> str:
    parts: list[str] = []
    size = 0
    while size < length:
        if rng.random() < 0.3:
            parts.append(rng.choice(forms)[0])
        else:
            parts.append("".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 6))))
        size += len(parts[-1])
    return "".join(parts)


def _regex_found(forms: list[tuple[str, bool]], text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group()) for m in re.finditer(pattern_of(forms), text)]


@pytest.mark.parametrize("seed", range(6))
def test_short_texts_give_the_whole_regexs_matches(seed: int) -> None:
    rng = random.Random(seed)
    forms = _forms(rng)
    matcher = WideMatcher(forms)
    bounded = {form for form, word in forms if word}
    kinds = set()
    for _ in range(60):
        text = _text(rng, forms, rng.randint(0, 200))
        found = list(matcher.found(text))
        assert found == _regex_found(forms, text), text
        kinds |= {form in bounded for _, _, form in found}
    assert kinds == {True, False}  # both kinds of form were found


def test_a_long_text_gives_the_whole_regexs_matches() -> None:
    rng = random.Random(7)
    forms = _forms(rng)
    matcher = WideMatcher(forms)
    long_form = next(form for form, bounded in forms if not bounded and len(form) > 3)
    text = _text(rng, forms, CHUNK + 500)
    # cut between two pieces; set apart by a character no form holds, so that no match
    # before it runs over its start, and it is the match at its start
    text = text[: CHUNK - 3] + "\n" + long_form + "\n" + text[CHUNK - 3 :]
    found = list(matcher.found(text))
    assert found == _regex_found(forms, text)
    assert any(start < CHUNK < end for start, end, _ in found)


def test_no_form_no_match() -> None:
    assert list(WideMatcher([]).found("anything")) == []
    assert list(WideMatcher([("secret", False)]).found("no such thing here")) == []
