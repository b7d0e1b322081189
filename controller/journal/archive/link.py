"""A rotated journal's links to its archive (docs/journal.md, "Rotation"): the base record
against the segment it names, and the journal against the archive's last segment; what
``journal verify --archive`` and ``--key`` check (``controller.journal.verify``) and the
rotation proves before it cuts (``controller.journal.rotate``)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from controller.journal.archive.check import verify_segment
from controller.journal.archive.segment import (
    HEADER_MAX,
    NAME,
    ArchiveError,
    open_segment,
    read_header,
    segments,
)
from controller.journal.base import Base
from controller.journal.seal import VerificationKey
from controller.journal.storage import Storage


def header_digest(path: Path) -> str:
    """The sha256 of the segment's header line (the base names its segment by it)."""
    with open_segment(path) as f:
        return hashlib.sha256(f.readline(HEADER_MAX + 1)).hexdigest()


def check_base(
    base: Base, *, key: VerificationKey | None, archive: Path | None
) -> str | tuple[str, str]:
    """A rotated journal's base record against the verification key (its MAC) and the
    archive folder (the segment it names: its header, its head, its epochs and open hole
    cards, and its own walk). The note for ``journal verify``'s line, or ``(case, line)``."""
    cut = f"rows 1..{base.row}"
    if key is not None:
        if base.mac is None or base.key_epoch is None:
            return "seal", f"seal: the base record ({cut} archived) is not sealed"
        if base.key_epoch > base.epoch:
            return "seal", f"seal: the base record names key epoch {base.key_epoch}, past its seals"
        reason = base.check_mac(key.table, key.checkpoint_key(base.key_epoch))
        if reason:
            return "seal", f"seal: {reason} ({cut} archived): rows cut without the key"
    if archive is None:
        return f"{cut} archived (segment {base.segment}; not checked: no --archive)"
    segment = archive / base.segment
    if not NAME.fullmatch(base.segment) or not segment.is_file():
        return (
            "removed",
            f"removed: {cut}: the segment the base names ({base.segment}) is not in {archive}",
        )
    try:
        header = read_header(segment)
        digest = header_digest(segment)
    except ArchiveError as err:  # it names the segment
        return "corrupt", f"corrupt: {err}"
    except OSError as err:
        return "corrupt", f"corrupt: {base.segment}: {err}"
    problem = ""
    if digest != base.header:
        problem = "its header is not the one the base names"
    elif header.last != base.row or header.head != base.hash:
        problem = f"it does not end at row {base.row} with the base's hash"
    elif header.seals[0] + header.seals[1] != base.epoch:
        problem = "its seals do not run on to the base's epoch"
    else:
        result = verify_segment(segment, key)
        opened = tuple((r, i, c) for r, (i, c) in sorted(result.left_open.items()))
        if result.problem:
            problem = result.problem
        elif opened != base.open:
            problem = "the hole cards it leaves open are not the base's"
    if problem:
        return "altered", f"altered: the base record ({cut} archived): {base.segment}: {problem}"
    return f"{cut} archived (segment {base.segment}, its link checked)"


def check_archive_link(storage: Storage, archive: Path) -> str | tuple[str, str]:
    """The journal goes on from the archive's last segment in ``archive``: the journal's
    hash of that segment's last row is its head (rows the journal no longer holds, before
    its base, are the archive's: only the base's own segment is checked then). The note for
    ``journal verify``'s line, or ``(case, line)``."""
    found = segments(archive)
    if not found:
        return f"no segment in {archive}"
    last = found[-1]
    try:
        header = read_header(last)
    except ArchiveError as err:  # it names the segment
        return "corrupt", f"corrupt: {err}"
    except OSError as err:
        return "corrupt", f"corrupt: {last.name}: {err}"
    after = storage.start()[0]
    if header.last < after:
        return f"the archive's last segment {last.name} ends before the base"
    digest = storage.hash_of(header.last)
    if digest is None:
        return (
            "removed",
            f"removed: the archive's last segment {last.name} ends at row {header.last},"
            " which the journal does not hold",
        )
    if digest != header.head:
        return (
            "altered",
            f"altered: row {header.last}: not the head of the archive's last segment"
            f" {last.name}: the journal or the archive was rewritten, or is another table's",
        )
    return f"the archive's last segment {last.name} links to row {header.last}"
