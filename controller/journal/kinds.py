"""The journal's record kinds, declared once.

Each kind of row the station writes is one :class:`RecordKind` in :data:`KINDS`: its
name, the fields of its data as docs/journal.md lists them (``?``: in some rows only;
``...``: further fields, as a device or event reports them), when it is written, and
whether a round writes it several times (``frequent``). From this tuple derive:

* the vocabulary table of docs/journal.md ("Record vocabulary", :func:`markdown_table`):
  ``dealer-station diagram --update-docs`` writes it with the other generated blocks of
  docs/, and ``tests/test_diagram.py`` fails when the page differs;
* the journal's indexes (:data:`INDEXES`, made by ``controller.journal.schema``): the
  partial index of the rows looked up by kind (:data:`MILESTONE_NAME`) holds every kind
  that is not frequent (:data:`INDEXED_KINDS`), so that a commit of a round's ordinary rows
  adds no page to it (:data:`FREQUENT_KINDS`: about 40% of a commit's WAL bytes went to an
  index of every row by kind, measured on simulated rounds). The index's name carries a
  digest of the kinds it covers, and the writer's open drops every index not declared
  here (:func:`stale_indexes`, ``controller.journal.schema.migrate``): a journal made with
  another list gets the new index at the writer's next open, with no migration by hand.

A new kind is one entry here; ``tests/test_journal_vocabulary.py`` checks what simulations
write against it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class RecordKind:
    """One kind of journal row (see the module docstring)."""

    name: str
    #: Its data's fields, as docs/journal.md writes them: ``seat, spot?, ...``.
    fields: str
    #: When the station writes it (a cell of docs/journal.md's table, markdown).
    written_when: str
    #: A round writes it several times: left out of the index of kinds.
    frequent: bool = False


KINDS: Final[tuple[RecordKind, ...]] = (
    RecordKind(
        "verified",
        "through, hash, schema, key_epoch?, mac?",
        (
            "at start, after the journal check, and every 2,000 rows while running (a "
            'checkpoint: "What a start proves"): rows '
            "1..`through` are checked (`hash`: that row's hash; `schema`: SQLite's schema cookie "
            "then); `key_epoch`, `mac`: sealed with the checkpoint key when the station seals; the "
            "next start walks only the rows after it"
        ),
    ),
    RecordKind(
        "station_started",
        "version, table_id, profile, decks, sealed, limits",
        (
            "start, after the journal check (`sealed`: a sealing state is in use; `limits`: the "
            "posted table limits in cents, `main_min_cents, main_max_cents, match_min_cents, "
            "match_max_cents`, null where none is set)"
        ),
    ),
    RecordKind(
        "clock",
        "synchronized, step_us",
        (
            "when the daemon starts serving, and whenever the wall clock becomes synchronised "
            "(systemd-timesyncd) or steps by 50 ms or more against the monotonic clock "
            "(`step_us`: the step, negative backwards; the rows before it are off by "
            '`-step_us`). Row order is the id, never `ts` (docs/operations.md, "The clock")'
        ),
    ),
    RecordKind(
        "seal",
        "epoch, head, mac, row, table",
        'after a round, a start or a stop, or 30 s of unsealed rows ("Forward-secure sealing")',
    ),
    RecordKind(
        "recovered",
        "state, round",
        "start, once the table is restored from the journal",
    ),
    RecordKind(
        "clean_shutdown",
        "events",
        "SIGTERM handled (`events`: events served)",
    ),
    RecordKind(
        "device",
        "device, status, serial?, firmware?, reason?, count?, ...",
        (
            "a device comes (`connected`), goes (`lost`) or faults (`fault`, with the device's "
            "details); a frame on its link failed its seal below the rate that faults it "
            "(`forged`, with the session's `count`: docs/protocol.md section 4c)"
        ),
    ),
    RecordKind(
        "supervisor_key",
        "on",
        "the supervisor key is turned",
    ),
    RecordKind(
        "button",
        "button, state",
        "a panel button is pressed",
        frequent=True,
    ),
    RecordKind(
        "button_ignored",
        "button, state, reason",
        "a button that means nothing in this state",
    ),
    RecordKind(
        "shuffle_commanded",
        "decks",
        "the shuffler is told to shuffle",
    ),
    RecordKind(
        "hand_shuffle_done",
        "decks",
        "the dealer confirms a hand shuffle (no shuffler)",
    ),
    RecordKind(
        "shuffle_done",
        "card_count, per_rank",
        "the shuffler counted the batch (`per_rank`: `{rank: count}`)",
    ),
    RecordKind(
        "shoe_loaded",
        "",
        "the shoe reports the batch loaded",
    ),
    RecordKind(
        "shoe_count",
        "load, last",
        (
            "the shoe's count where its draws' rows alone do not give it (after a numbered load, "
            "`last` 0; before a draw whose number is not the next, or an empty shoe): each "
            "later row of a draw (`burn`, `card`, `hole_card_dealt`, `hole_card_rejected`, "
            "`hole_card_repeated`, `cover_card`) counts one more, and a restarted station "
            "resumes its shoe driver from the count (`controller.table.shoe_count`)"
        ),
    ),
    RecordKind(
        "shoe_empty",
        "",
        "the shoe reports it is empty",
    ),
    RecordKind(
        "burn",
        "card, reason",
        "the burn card goes to the discard rack (`reason`: `load` / `dealer_change`)",
    ),
    RecordKind(
        "burn_disclosed",
        "card",
        "a player asked to see the burn card (NJ, NY)",
    ),
    RecordKind(
        "dealer_change",
        "",
        "a new dealer takes the table",
    ),
    RecordKind(
        "event",
        "type, ...",
        "a raw device event (`type: seat_wager`: `seat, spot, present, cents`)",
        frequent=True,
    ),
    RecordKind(
        "wager_refused",
        "seat, reason, spot?",
        (
            'a wager the table does not take at "no more bets": the seat sits out, or with `spot` '
            "(`match`) only that wager is refused and the seat plays without it (table limits: NY "
            "5324.12(d)(2), `controller.table.limits`)"
        ),
    ),
    RecordKind(
        "round_started",
        "round, seats",
        "no more bets (`seats`: `[{seat, wager_cents, match_cents}]`)",
    ),
    RecordKind(
        "card",
        "role, card, seat?, hand?",
        (
            "a card out of the shoe; `seat`/`hand` null for the dealer; `role`: `initial`, `hit`, "
            "`double`, `split`, `up`, `second`, `draw`, `burn`, `rejected` (no seat or hand; "
            "`card` is the shoe's description of a foreign card)"
        ),
        frequent=True,
    ),
    RecordKind(
        "hole_card_dealt",
        "commitment, sealed_by",
        (
            "the hole card is dealt face down (`sealed_by: shoe`: the shoe withheld it and this is "
            "its commitment; `station`: the shoe gave it in the open, the station sealed it with a "
            "nonce kept in memory only)"
        ),
    ),
    RecordKind(
        "hole_card_revealed",
        "card, nonce",
        "the hole card is turned over",
    ),
    RecordKind(
        "hole_card_reveal_requested",
        "commitment, reason?",
        (
            "the station asks the shoe, which withholds the hole card, for card and nonce (each "
            "press of NEXT until they come; `reason: void` when a void asks for it, so the journal "
            "accounts for the card)"
        ),
    ),
    RecordKind(
        "hole_card_reveal_answer",
        "commitment, answered, problem",
        (
            "the shoe's answer (`answered`: card and nonce came; never the card itself: "
            "`hole_card_revealed` follows once they open the commitment)"
        ),
    ),
    RecordKind(
        "hole_card_rejected",
        "commitment",
        "the shoe reported a hole card when none was due",
    ),
    RecordKind(
        "hole_card_repeated",
        "commitment",
        (
            "the shoe reported the round's hole card again, under the same commitment (its "
            "report resent in a new session after a restart); nothing else changes"
        ),
    ),
    RecordKind(
        "cover_card",
        "",
        "the cover card came out",
    ),
    RecordKind(
        "insurance_taken",
        "seat, cents, stakes?, posted?",
        (
            'insurance closes with this seat\'s wager (`posted: "half the wager"`: a sensor that '
            "reports presence only saw it, docs/procedure.md; `stakes`: the amount in the seat's "
            "wagers where `cents` is null)"
        ),
    ),
    RecordKind(
        "peek_requested",
        "target",
        "the card reader is asked (`looking_for_ace` / `looking_for_ten`)",
    ),
    RecordKind(
        "peek",
        "answer",
        "the card reader's answer (never the rank)",
    ),
    RecordKind(
        "match_settled",
        "seat, wager, outcome, matches, odds, net_cents, net_stakes?, note?",
        "Match the Dealer settled (PA 635a.7(f)); `matches`: 0, 1 or 2 cards matched the up card",
        frequent=True,
    ),
    RecordKind(
        "insurance",
        "seat, wager, outcome, odds, net_cents, net_stakes?, note?",
        "insurance settled",
    ),
    RecordKind(
        "decision",
        "seat, hand, decision",
        "a player decision is taken",
        frequent=True,
    ),
    RecordKind(
        "decision_refused",
        "reason",
        "a decision button the hand may not take",
    ),
    RecordKind(
        "settlement",
        (
            "seat, wager, outcome, odds, net_cents, hand?, cards?, total?, net_stakes?, bonus?, "
            "super_bonus?, super_bonus_cents?, note?"
        ),
        (
            "a hand (`wager: main`) or a super bonus share (`wager: super_bonus_share`, no hand) "
            "is settled"
        ),
        frequent=True,
    ),
    RecordKind(
        "seat_result",
        "seat, net_cents, net_stakes?, fixed_cents?",
        (
            "before `round_completed` or `round_voided`, one per seat: the sum of its journaled "
            "settlements this round (after a void: those that stand); where `net_cents` is null, "
            "`net_stakes` sums the results in wagers and `fixed_cents` the fixed payouts (a super "
            "bonus share)"
        ),
        frequent=True,
    ),
    RecordKind(
        "wager_collected",
        "seat, spot, cents",
        (
            "the dealer collected a losing wager: a wager sensor change during the round that the "
            "procedure expected (`cents`: what the sensor reads, 0 when empty; docs/panel.md)"
        ),
        frequent=True,
    ),
    RecordKind(
        "wager_paid",
        "seat, spot, cents",
        (
            "the dealer paid a winning wager: a wager sensor change during the round that the "
            "procedure expected (`cents`: what the sensor reads, 0 when empty; docs/panel.md)"
        ),
        frequent=True,
    ),
    RecordKind(
        "wager_taken",
        "seat, spot, cents",
        (
            "a settled spot (won or pushed) emptied by the player, or still reading its settled "
            "amount: a wager sensor change during the round that the procedure expected (`cents`: "
            "what the sensor reads, 0 when empty; docs/panel.md)"
        ),
        frequent=True,
    ),
    RecordKind(
        "wager_added",
        "seat, spot, cents",
        (
            "chips added for a double or a split: a wager sensor change during the round that the "
            "procedure expected (`cents`: what the sensor reads, 0 when empty; docs/panel.md)"
        ),
        frequent=True,
    ),
    RecordKind(
        "round_completed",
        "reshuffle",
        "the round is over (`reshuffle`: the cover card came out)",
    ),
    RecordKind(
        "round_voided",
        "reason, stand, returned, hole_card?",
        (
            "a supervisor voided the round: `stand` lists the settlements journaled before "
            "(`{seat, wager, hand, net_cents}`), which stand; `returned` the other wagers, given "
            "back (`{seat, wager, hand, cents}`; `hand` null: the seat's whole wager); `hole_card: "
            '"withheld by the shoe: asked for at the void"` when the shoe still holds it'
        ),
    ),
    RecordKind(
        "fault",
        "code, message, state",
        "play stopped on something unexpected (`state`: where it resumes)",
    ),
    RecordKind(
        "fault_resolved",
        "resolution, code",
        "a supervisor resolved the last fault (`resume` / `void` / `reshuffle`)",
    ),
    RecordKind(
        "resolution_refused",
        "resolution, reason",
        "a resolution that does not fit the fault",
    ),
    RecordKind(
        "prompt",
        "state, lamps",
        (
            "the procedure moves to a new prompt (`lamps`: `{led: mode}`); the panel shows the "
            "last prompt of each commit"
        ),
        frequent=True,
    ),
    RecordKind(
        "state",
        "state",
        "the procedure enters a state",
        frequent=True,
    ),
)

#: Kinds a round writes several times each (most of its rows).
FREQUENT_KINDS: Final = tuple(sorted(kind.name for kind in KINDS if kind.frequent))
#: Every other kind: written about once a round or less, and looked up by kind (the last
#: seal, start check, shuffle, burn, round start and end...).
INDEXED_KINDS: Final = tuple(sorted(kind.name for kind in KINDS if not kind.frequent))

_DIGEST: Final = hashlib.sha256(",".join(INDEXED_KINDS).encode()).hexdigest()[:8]
#: The partial index of :data:`INDEXED_KINDS` by kind, named after a digest of the list.
MILESTONE_NAME: Final = f"journal_milestone_{_DIGEST}"

#: The journal's indexes, name -> statement: each is there for a query that needs it, and
#: only ``journal_count`` covers the rows a round writes many of, so that a commit of a
#: round's ordinary rows writes the table's page and that index's (docs/journal.md,
#: "Storage").
INDEXES: Final = {
    # The last seal, checkpoint, shuffle, burn, a round's start and end... by kind. OR-ed
    # equalities, not IN: SQLite uses a partial index for ``kind = ?`` only when that term
    # is one of the index's OR-ed terms.
    MILESTONE_NAME: (
        f"CREATE INDEX IF NOT EXISTS {MILESTONE_NAME} ON journal (kind) WHERE "
        + " OR ".join(f"kind = '{kind}'" for kind in INDEXED_KINDS)
    ),
    # Where a round begins (recall, verify --tail, a hole-card commitment made before a
    # start's checkpoint).
    "journal_round_start": (
        "CREATE INDEX IF NOT EXISTS journal_round_start ON journal (round)"
        " WHERE kind = 'round_started'"
    ),
    # The rows counted at a start (a gap in the ids, controller.journal.startcheck.gap):
    # ``count(*)`` reads the smallest index that holds every row, a few bytes a row here
    # (0.6 s on a million rows without it, reading the table). The one index every commit
    # writes a page of.
    "journal_count": "CREATE INDEX IF NOT EXISTS journal_count ON journal (0)",
    # The last report of each wager spot, found without reading the whole journal at a
    # start (controller.journal.reader.JournalReader.rows_for_restore).
    "journal_wager_spot": (
        "CREATE INDEX IF NOT EXISTS journal_wager_spot ON journal"
        " (json_extract(data, '$.seat'), json_extract(data, '$.spot'), id)"
        " WHERE kind = 'event'"
    ),
}


def stale_indexes(names: list[str]) -> list[str]:
    """Of a journal's index ``names``, those :data:`INDEXES` does not declare (made by an
    earlier list of kinds, or by a program before: ``journal_kind`` of every row,
    ``journal_ts``, ``journal_round``): to drop. SQLite's own (``sqlite_autoindex_*``)
    stay."""
    return [n for n in names if n not in INDEXES and not n.startswith("sqlite_autoindex_")]


def markdown_table() -> str:
    """The vocabulary as the table of docs/journal.md ("Record vocabulary")."""
    lines = ["| kind | fields | written when |", "|---|---|---|"]
    for kind in KINDS:
        fields = f" `{kind.fields}` |" if kind.fields else " |"
        lines.append(f"| `{kind.name}` |{fields} {kind.written_when} |")
    return "\n".join(lines) + "\n"
