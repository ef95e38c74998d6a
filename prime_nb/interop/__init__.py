"""Sessions into other tools' formats: ATIF trajectories, Inspect Scout transcripts and
OpenTelemetry traces.

Layer 6, beside the widget and the corpus (it imports neither): it reads sessions and
their families. Each target's package is an extra (``prime-nb[atif]``,
``prime-nb[scout]``, ``prime-nb[otel]``), imported only when an export runs, so the core
install stays light.

- ``_path``: a root-to-leaf path read once into items every export writes.
- ``_atif``: :func:`to_atif`, one ATIF trajectory file per path.
- ``_scout``: :func:`to_scout`, a Scout transcript database; ``_scout_results``:
  :func:`scout_references`, a scan's cited messages back as entries of files;
  ``_probes``: :func:`compaction_probes`, one transcript per compaction summary.
- ``_otel``: :func:`to_otel`, one trace per root-to-leaf path, sent over OTLP/HTTP or
  written to an OTLP protobuf file; ``_otel_spans``: the spans of a path as plain
  records (tree, times, ids, attributes).
- ``_extras``: the optional packages, named with their install command when missing.
"""

from ._atif import to_atif
from ._otel import to_otel
from ._probes import compaction_probes
from ._scout import to_scout
from ._scout_results import scout_references

__all__ = ["compaction_probes", "scout_references", "to_atif", "to_otel", "to_scout"]
