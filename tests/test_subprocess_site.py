"""The Pythons the tests start leave jsonschema's IRI grammars unbuilt
(tests/subprocess_site/sitecustomize.py), and jsonschema works without them."""

from __future__ import annotations

import subprocess
import sys

CHILD = """
import sys
import jsonschema
print(sys.modules["rfc3987_syntax"] is None, "iri" in jsonschema.FormatChecker.checkers)
jsonschema.validate({"a": 1}, {"properties": {"a": {"type": "integer"}}})
"""


def test_a_child_python_leaves_the_iri_grammars_out() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "False"]
    assert sys.modules["rfc3987_syntax"] is None  # and this process
