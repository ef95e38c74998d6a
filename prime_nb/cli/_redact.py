"""What ``prime-nb redact`` and ``export --redact`` print: a summary by rule, suspects.

Why a summary: one row per replacement runs to hundreds of lines for an ordinary session,
which hides what matters (which kinds of secret were found, and whether anything still
looks like one). The full table stays behind ``--details``. Every line printed comes
from the report, which never holds a secret.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._output import CliError, _say

if TYPE_CHECKING:
    from ..redact import Redaction, Rule

#: ``NAME=REGEX``: a rule's name is a plain word before the first "="
_NAMED = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9_-]{0,39})=(?P<regex>.+)$", re.DOTALL)


def cli_rules(given: list[str]) -> list[Rule]:
    """``--rule`` values as rules: ``NAME=REGEX`` is named NAME, a bare REGEX ``rule-N``."""
    from ..redact import Rule

    rules = []
    for n, text in enumerate(given, start=1):
        named = _NAMED.match(text)
        name, regex = (named["name"], named["regex"]) if named else (f"rule-{n}", text)
        try:
            pattern = re.compile(regex)
        except re.error as exc:
            raise CliError(
                f"--rule {text!r}: not a valid regex ({exc}); pass NAME=REGEX or REGEX", 2
            ) from None
        rules.append(Rule(name, pattern=pattern))
    return rules


def say_redaction(result: Redaction, details: bool = False) -> None:
    """The summary by rule (or every replacement with ``details``), then the suspects."""
    report = result.report
    if report.empty:
        _say("nothing to redact")
    elif details:
        _say(report.to_string(index=False))
    else:
        _say(result.summary().to_string(index=False))
    suspects = result.suspects
    if len(suspects):
        _say(
            f"{len(suspects)} suspects kept (they look like secrets; no rule was sure): "
            "review them before sharing"
        )
        _say(suspects.head(20 if not details else len(suspects)).to_string(index=False))
    else:
        _say("0 suspects")


def export_redacted(session: Any, out: Path, details: bool = False) -> Path:
    """Export a redacted copy of ``session`` to ``out``; print what was redacted."""
    import tempfile

    from ..redact import redact
    from ..session import load
    from ..widget import export_html

    with tempfile.TemporaryDirectory(prefix="prime-nb-redact-") as folder:
        result = redact(session, Path(folder) / Path(session.file).name)
        assert result.path is not None
        written = export_html(load(result.path), out)
    say_redaction(result, details)
    _say(f"{written}: {len(result.report)} replacements, {len(result.suspects)} suspects")
    return written
