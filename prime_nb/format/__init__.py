"""The file format: session files on disk, line by line, into canonical v3 entries.

This is the bottom layer (beside ``prime_nb.errors``): it knows bytes, lines, the two
dialects ("prime", as the agent writes, and "spec", as the specification names things),
the versions 1-3 and their migration, and a snapshot of what a file held when last read.
It never builds tables or trees; ``prime_nb.session`` does that on top of it. Besides the
reading names a user calls (:func:`scan`, :func:`iter_entries`, :func:`migrate`...),
``__all__`` lists the pieces the layers above build on: they import them from here, never
from a private module.
"""

from ._dialect import (
    PRIME_TO_SPEC,
    Dialect,
    dialect_of_header,
    header_to_canonical,
    iso_moment,
    iso_timestamp,
    js_trim,
    ms_timestamp,
    rlm_depth_of,
    to_dialect,
)
from ._glued import describe_glued, glued_spans
from ._loader_ids import line_id, loader_name_hint, renamed_id
from ._migrating import (
    CURRENT_VERSION,
    Migrator,
    header_version,
    index_migrates,
    migrate,
    to_current,
)
from ._no_header import holds_no_utf8_lines, no_header
from ._ondisk import Snapshot, by_descriptor, ends, written_while_read
from ._ondisk import current as current_snapshot
from ._ondisk import forget as forget_snapshot
from ._ondisk import identity_of as file_identity
from ._reading import _INVALID as INVALID_JSON
from ._reading import (
    BOM,
    KINDS,
    READ_BUFFER,
    SEVERITIES,
    Problem,
    RawEntry,
    ScanState,
    Sink,
    deep_enough,
    first_not_header,
    header_object,
    iter_entries,
    lenient_loads,
    looks_like_session,
    not_regular,
    open_regular,
    parse_line,
    path_kind,
    scan,
    scan_file,
    severity_of,
    trim_depth,
)

__all__ = [
    "BOM",
    "CURRENT_VERSION",
    "INVALID_JSON",
    "KINDS",
    "PRIME_TO_SPEC",
    "READ_BUFFER",
    "SEVERITIES",
    "Dialect",
    "Migrator",
    "Problem",
    "RawEntry",
    "ScanState",
    "Sink",
    "Snapshot",
    "by_descriptor",
    "current_snapshot",
    "deep_enough",
    "describe_glued",
    "dialect_of_header",
    "ends",
    "file_identity",
    "first_not_header",
    "forget_snapshot",
    "glued_spans",
    "header_object",
    "header_to_canonical",
    "header_version",
    "holds_no_utf8_lines",
    "index_migrates",
    "iso_moment",
    "iso_timestamp",
    "iter_entries",
    "js_trim",
    "lenient_loads",
    "line_id",
    "loader_name_hint",
    "looks_like_session",
    "migrate",
    "ms_timestamp",
    "no_header",
    "not_regular",
    "open_regular",
    "parse_line",
    "path_kind",
    "renamed_id",
    "rlm_depth_of",
    "scan",
    "scan_file",
    "severity_of",
    "to_current",
    "to_dialect",
    "trim_depth",
    "written_while_read",
]
