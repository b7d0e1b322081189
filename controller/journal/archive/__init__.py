"""Sealed archive segments: a journal's rows kept compressed, each segment verifiable alone
and linked to the next (docs/journal.md, "Archive"). The format is in
:mod:`controller.journal.archive.segment`, the writer in ``writer``, the check in ``check``.
"""

from controller.journal.archive.check import (
    ArchiveReport,
    SegmentResult,
    verify_archive,
    verify_segment,
)
from controller.journal.archive.segment import (
    FORMAT,
    SEGMENT_ROWS,
    ArchiveError,
    Header,
    SegmentFileError,
    lines,
    read_header,
    segment_name,
    segments,
)
from controller.journal.archive.writer import archive, write_segment

__all__ = [
    "FORMAT",
    "SEGMENT_ROWS",
    "ArchiveError",
    "ArchiveReport",
    "Header",
    "SegmentFileError",
    "SegmentResult",
    "archive",
    "lines",
    "read_header",
    "segment_name",
    "segments",
    "verify_archive",
    "verify_segment",
    "write_segment",
]
