"""Imported first by every Python the tests start (servers, kernels, nbval, the CLI):
``tests/conftest.py`` puts this folder at the head of ``PYTHONPATH``.

jsonschema, which Jupyter's servers and nbformat import (and plotly's renderers import
nbformat in each kernel that shows a figure), builds dozens of Earley grammars at import
time for its optional IRI format check when ``rfc3987-syntax`` is installed: seconds of
CPU in each such process. Nothing the tests run validates an IRI, so that optional
import is blocked here and jsonschema leaves the check out, as it does without the
package.
"""

import sys

sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[assignment]
