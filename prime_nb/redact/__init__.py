"""Redaction before sharing: a copy of a session with its secrets replaced.

Layer 4 (beside ``analysis``): it reads session files (``format``) and takes a
:class:`~prime_nb.Session` as input; the widget's ``export_html(redact=True)`` and the CLI
call it.

- ``_rules``: the rules (detect-secrets' provider patterns, and ours for private key
  blocks, token prefixes, bearer and basic headers, keys that name a secret, command-line
  passwords, URL passwords, emails, home folders, the host name), and user rules as
  regexes or callables.
- ``_scrub``: two passes over an entry's keys and strings (JSON in strings, base64 and
  wrapped keys included): learn secret values, then replace them; a confident finding
  everywhere, a guess where it was made; ids, types and the tree's fields are never
  touched.
- ``_file``: :func:`redact`, line by line from file to new file, with the report; lines
  that are not JSON are withheld.
"""

from ._file import REPORT_COLUMNS, Redaction, redact
from ._rules import Rule, default_rules, shannon_entropy, this_host_names

__all__ = [
    "REPORT_COLUMNS",
    "Redaction",
    "Rule",
    "default_rules",
    "redact",
    "shannon_entropy",
    "this_host_names",
]
