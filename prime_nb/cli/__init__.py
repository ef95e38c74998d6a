"""The ``prime-nb`` command: inspect, validate, list, upgrade and export sessions, show a
session's family, redact a copy, run the demo.

Exit codes: 0 fine, 1 problems found (or a file that is not a session), 2 usage errors
(unknown option, missing file). Errors are one line on stderr.

- ``_commands``: the commands on session files, the parser, :func:`main`.
- ``_demo``: ``prime-nb demo``, the quickstart notebook in a JupyterLab it starts.
- ``_output``: what they share: one-line errors, exit codes, :func:`printable` text.
- ``_shown``: how figures print: money, token counts (parts apart), JSON.
"""

from ._commands import build_parser, main
from ._output import printable

__all__ = ["build_parser", "main", "printable"]
