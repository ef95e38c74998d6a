"""Sessions into other tools' formats: OpenTelemetry traces.

Layer 6, beside the widget and the corpus (it imports neither): it reads sessions. Each
target's package is an extra (``prime-nb[otel]``), imported only when an export runs, so
the core install stays light.

- ``_otel``: :func:`to_otel`, one trace per root-to-leaf path, sent over OTLP/HTTP or
  written to an OTLP protobuf file; ``_otel_spans``: the spans of a path as plain
  records (tree, times, ids, attributes).
"""

from ._otel import to_otel

__all__ = ["to_otel"]
