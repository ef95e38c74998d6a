"""Redaction before sharing: a copy of a session with its secrets replaced.

Layer 4 (beside ``analysis``): it reads session files and takes a
:class:`~prime_nb.Session`; ``export_html(redact=True)`` and the CLI call it.
``_rules`` says what a secret is, ``_scrub`` finds and replaces them in an entry's JSON,
``_file`` copies a file line by line (:func:`redact`).
"""

from ._file import REPORT_COLUMNS, SUSPECT_COLUMNS, Redaction, redact
from ._rule import Rule
from ._rules import default_rules, this_host_names
from ._values import shannon_entropy

__all__ = [
    "REPORT_COLUMNS",
    "SUSPECT_COLUMNS",
    "Redaction",
    "Rule",
    "default_rules",
    "redact",
    "shannon_entropy",
    "this_host_names",
]
