"""``dealer-station journal verify``: its options beyond the journal's location, and the run
(progress on a terminal, the operator's proof read before and written after); ``journal
archive`` and ``journal verify-archive`` (``controller.journal.archive``).

``--since FILE`` (with ``--key``) walks only the rows after the seal a proof names;
``--save FILE`` writes the proof of this run (``controller.journal.proof``): kept off the
station with the verification key, the two make a nightly check that hashes only the new
rows. ``--workers N`` sets the processes of a long walk (default: one per core).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from controller.journal.proof import Proof
    from controller.journal.seal import VerificationKey

#: Worker processes at most (a journal's walk gains nothing past the cores it has).
MAX_WORKERS = 64


def _proof(text: str) -> Proof:
    from controller.journal.proof import read_proof
    from controller.journal.seal import SealError

    try:
        return read_proof(Path(text))
    except OSError as err:
        raise argparse.ArgumentTypeError(f"{text}: {err.strerror}") from None
    except SealError as err:
        raise argparse.ArgumentTypeError(f"{text}: {err}") from None


def _workers(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of workers: {text!r}") from None
    if not 1 <= value <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"workers must be 1..{MAX_WORKERS}, not {value}")
    return value


def one_line(text: str) -> str:
    """``text`` with what a terminal would not show as one line (a newline in a path...)
    escaped as Python writes it."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _folder(text: str) -> Path:
    """An archive folder's path as given: not empty (which would be the working directory)
    and without a NUL byte (the kernel cannot take one)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path")
    if "\0" in text:
        raise argparse.ArgumentTypeError(f"a NUL byte in the path {text!r}")
    return Path(text)


def add_options(verify: argparse.ArgumentParser) -> None:
    """``--since``, ``--save`` and ``--workers`` (see the module docstring)."""
    verify.add_argument(
        "--since",
        type=_proof,
        metavar="FILE",
        help="with --key: check only the rows after the seal this proof (--save) names",
    )
    verify.add_argument(
        "--save",
        type=Path,
        metavar="FILE",
        help="with --key: write the proof of this run (for a later --since)",
    )
    verify.add_argument(
        "--workers",
        type=_workers,
        metavar="N",
        help="processes for a long walk (default: one per core)",
    )
    verify.add_argument(
        "--archive",
        type=_folder,
        metavar="DIR",
        help="a rotated journal: check its base against the archive's segment in DIR",
    )


class _Progress:
    """Rows walked, on one line of a terminal, at most twice a second."""

    def __init__(self, out: TextIO, total: int) -> None:
        self.out, self.total = out, max(total, 1)
        self.done, self.began, self.shown = 0, time.monotonic(), 0.0

    def __call__(self, rows: int) -> None:
        self.done += rows
        now = time.monotonic()
        if now - self.shown >= 0.5:
            self.shown = now
            rate = self.done / max(now - self.began, 1e-9)
            self.out.write(
                f"\rverify: {self.done:,} of {self.total:,} rows"
                f" ({100 * self.done / self.total:.0f}%), {rate:,.0f} rows/s "
            )
            self.out.flush()

    def end(self) -> None:
        if self.shown:
            self.out.write("\r\033[K")
            self.out.flush()


def _last_id(path: Path) -> int:
    from controller.journal.reader import open_readonly

    with contextlib.suppress(Exception):  # verify itself says what is wrong with the file
        conn = open_readonly(path)
        try:
            from controller.journal.storage import storage_of

            return storage_of(conn).last_id() or 0
        finally:
            conn.close()
    return 0


def run_verify(path: Path, args: argparse.Namespace) -> int:
    """Run ``journal verify``; 0 good, 1 a problem found, 2 a usage error."""
    from controller.journal.verify import verify

    key: VerificationKey | None = args.key
    if (args.since or args.save) and key is None:
        print("journal verify: --since and --save need --key", file=sys.stderr)
        return 2
    if args.archive is not None and not args.archive.is_dir():
        # Not an archive with no segment yet (which verifies): no archive at all.
        problem = "not a directory" if args.archive.exists() else "no such directory"
        print(
            f"journal verify: --archive {one_line(str(args.archive))}: {problem}", file=sys.stderr
        )
        return 2
    progress = _Progress(sys.stderr, _last_id(path)) if sys.stderr.isatty() else None
    try:
        report = verify(
            path,
            tail=args.tail,
            key=key,
            anchor=args.anchor,
            since=args.since,
            workers=args.workers,
            progress=progress,
            archive=args.archive,
        )
    finally:
        if progress is not None:
            progress.end()
    print(one_line(report.message), file=sys.stdout if report.ok else sys.stderr)
    if not report.ok:
        return 1
    if args.save is not None and key is not None:
        if report.sealed is None:
            print(
                f"journal verify: no seal proved: {one_line(str(args.save))} not written",
                file=sys.stderr,
            )
            return 1
        try:
            _save(args.save, key, report.sealed)
        except OSError as err:
            print(
                f"journal verify: cannot write {one_line(str(args.save))}: {err.strerror}",
                file=sys.stderr,
            )
            return 1
    return 0


def _save(path: Path, key: VerificationKey, sealed: tuple[int, str, int]) -> None:
    """Write the proof to ``path`` whole (a temporary file renamed over it)."""
    from controller.journal.proof import make_proof

    row, digest, seals = sealed
    text = make_proof(key, row, digest, seals).to_text()
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def add_archive_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    add_location: Callable[[argparse.ArgumentParser], None],
    verification_key: Callable[[str], VerificationKey],
) -> None:
    """``journal archive --to DIR`` and ``journal verify-archive DIR``."""
    archive = sub.add_parser(
        "archive", help="write the sealed rounds not archived yet into segments in DIR"
    )
    archive.add_argument("--to", type=_folder, required=True, metavar="DIR", help="the archive")
    add_location(archive)
    check = sub.add_parser(
        "verify-archive", help="check every segment of an archive and their links"
    )
    check.add_argument("archive", type=_folder, metavar="DIR")
    check.add_argument(
        "--key",
        type=verification_key,
        metavar="KEY",
        help="the table's verification key (ds1:...), or @FILE holding it: prove every seal",
    )
    check.add_argument(
        "--workers",
        type=_workers,
        metavar="N",
        help="processes, a segment each at a time (default: one per core)",
    )


def run_archive(path: Path, args: argparse.Namespace) -> int:
    """Run ``journal archive``; 0 done, 1 a problem, 2 a usage error."""
    from controller.journal.anchor import latest_anchor
    from controller.journal.archive import ArchiveError, archive
    from controller.journal.format import JournalCorruptError
    from controller.journal.reader import JournalReader

    def refused(text: str, code: int = 1) -> int:
        print(f"journal archive: {one_line(text)}", file=sys.stderr)
        return code

    if args.to.exists() and not args.to.is_dir():
        return refused(f"{args.to}: not a directory", 2)
    try:
        with JournalReader.open(path) as reader:
            anchor = reader.query(latest_anchor)
    except FileNotFoundError as err:
        return refused(str(err), 2)
    except JournalCorruptError as err:
        return refused(f"{err} (run 'journal verify')")
    if anchor is None:
        return refused("the journal holds no seal: nothing to archive")
    try:
        written = archive(path, args.to, table=anchor.table)
    except ArchiveError as err:
        return refused(str(err))
    except JournalCorruptError as err:
        return refused(f"{err} (run 'journal verify')")
    except OSError as err:
        return refused(f"{err.filename or args.to}: {err.strerror}")
    if not written:
        print("journal archive: no new segment (fewer rows than a segment since the last)")
    for segment in written:
        print(f"journal archive: {one_line(str(segment))}")
    return 0


def run_verify_archive(args: argparse.Namespace) -> int:
    """Run ``journal verify-archive``; 0 good, 1 a problem found, 2 a usage error."""
    from controller.journal.archive import verify_archive
    from controller.journal.ranges import cores

    if not args.archive.is_dir():
        problem = "not a directory" if args.archive.exists() else "no such directory"
        print(f"journal verify-archive: {one_line(str(args.archive))}: {problem}", file=sys.stderr)
        return 2
    workers = args.workers or cores()
    report = verify_archive(args.archive, args.key, workers=workers)
    print(one_line(report.message), file=sys.stdout if report.ok else sys.stderr)
    return 0 if report.ok else 1
