"""The journal's record kinds, declared once: each kind's fields, when it is written, and
whether a round writes it several times (which decides the index it gets); and the
journal's indexes.

Everything that enumerates kinds derives from :data:`KINDS`: the record vocabulary table
of ``docs/journal.md`` (:func:`vocabulary_table`; ``tests/test_journal_kinds.py`` holds the
document to it), the journal's indexes (:data:`INDEXES`, made by
``controller.journal.opening``; the partial index of the rows looked up by kind lists
:data:`INDEXED_KINDS`), and the lists of kinds the tests walk. A new kind is one
:class:`KindSpec` here and its line in the document (printed by ``python -m
controller.journal.kinds``); its index follows by itself: the index's name carries a
digest of the kinds it covers, and the writer's open drops every index that is not
declared here (:func:`stale_indexes`), so a journal made with another list gets the new
one at the writer's next open.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class KindSpec:
    """One record kind: its ``name``, its ``fields`` as the document writes them (``x?``:
    present in some rows only; ``...``: further fields as a device reports them), ``when``
    it is written, and whether it is ``frequent``: written several times a round (cards,
    prompts, buttons...), and so left out of the index of kinds, so that a commit of a
    round's ordinary rows adds no page to it (about 40% of a commit's WAL bytes went to an
    index of every row by kind)."""

    name: str
    fields: str
    when: str
    frequent: bool = False

    @property
    def required(self) -> frozenset[str]:
        """The fields every row of the kind holds."""
        return frozenset(f for f in self._names() if not f.endswith("?") and f != "...")

    @property
    def optional(self) -> frozenset[str]:
        """The fields some rows of the kind hold."""
        return frozenset(f[:-1] for f in self._names() if f.endswith("?"))

    @property
    def open_ended(self) -> bool:
        """True when rows may hold further fields (``...``: a device's own details)."""
        return "..." in self._names()

    def _names(self) -> list[str]:
        return [f.strip() for f in self.fields.split(",") if f.strip()]


#: The record vocabulary, in the document's order.
KINDS: Final[tuple[KindSpec, ...]] = (
    KindSpec(
        "verified",
        "through, hash, schema, key_epoch?, mac?",
        (
            "at start, after the journal check, and every 2,000 rows while running (a checkpoint:"
            ' "What a start proves"): rows 1..`through` are checked (`hash`: that row\'s hash;'
            " `schema`: SQLite's schema cookie then); `key_epoch`, `mac`: sealed with the"
            " checkpoint key when the station seals; the next start walks only the rows after it"
        ),
    ),
    KindSpec(
        "station_started",
        "version, table_id, profile, decks, sealed, limits",
        (
            "start, after the journal check (`sealed`: a sealing state is in use; `limits`: the "
            "posted table limits in cents, `main_min_cents, main_max_cents, match_min_cents, "
            "match_max_cents`, null where none is set)"
        ),
    ),
    KindSpec(
        "seal",
        "epoch, head, mac, row, table",
        'after a round, a start or a stop, or 30 s of unsealed rows ("Forward-secure sealing")',
    ),
    KindSpec(
        "recovered",
        "state, round",
        "start, once the table is restored from the journal",
    ),
    KindSpec(
        "clean_shutdown",
        "events",
        "SIGTERM handled (`events`: events served)",
    ),
    KindSpec(
        "device",
        "device, status, serial?, firmware?, reason?, count?, ...",
        (
            "a device comes (`connected`), goes (`lost`) or faults (`fault`, with the device's "
            "details); a frame on its link failed its seal below the rate that faults it "
            "(`forged`, with the session's `count`: docs/protocol.md section 4c)"
        ),
    ),
    KindSpec(
        "supervisor_key",
        "on",
        "the supervisor key is turned",
    ),
    KindSpec(
        "button",
        "button, state",
        "a panel button is pressed",
        frequent=True,
    ),
    KindSpec(
        "button_ignored",
        "button, state, reason",
        "a button that means nothing in this state",
    ),
    KindSpec(
        "shuffle_commanded",
        "decks",
        "the shuffler is told to shuffle",
    ),
    KindSpec(
        "hand_shuffle_done",
        "decks",
        "the dealer confirms a hand shuffle (no shuffler)",
    ),
    KindSpec(
        "shuffle_done",
        "card_count, per_rank",
        "the shuffler counted the batch (`per_rank`: `{rank: count}`)",
    ),
    KindSpec(
        "shoe_loaded",
        "",
        "the shoe reports the batch loaded",
    ),
    KindSpec(
        "shoe_empty",
        "",
        "the shoe reports it is empty",
    ),
    KindSpec(
        "burn",
        "card, reason",
        "the burn card goes to the discard rack (`reason`: `load` / `dealer_change`)",
    ),
    KindSpec(
        "burn_disclosed",
        "card",
        "a player asked to see the burn card (NJ, NY)",
    ),
    KindSpec(
        "dealer_change",
        "",
        "a new dealer takes the table",
    ),
    KindSpec(
        "event",
        "type, ...",
        "a raw device event (`type: seat_wager`: `seat, spot, present, cents`)",
        frequent=True,
    ),
    KindSpec(
        "wager_refused",
        "seat, reason, spot?",
        (
            'a wager the table does not take at "no more bets": the seat sits out, or with `spot` '
            "(`match`) only that wager is refused and the seat plays without it (table limits: NY "
            "5324.12(d)(2), `controller.table.limits`)"
        ),
    ),
    KindSpec(
        "round_started",
        "round, seats",
        "no more bets (`seats`: `[{seat, wager_cents, match_cents}]`)",
    ),
    KindSpec(
        "card",
        "role, card, seat?, hand?",
        (
            "a card out of the shoe; `seat`/`hand` null for the dealer; `role`: `initial`, `hit`, "
            "`double`, `split`, `up`, `second`, `draw`, `burn`, `rejected` (no seat or hand; "
            "`card` is the shoe's description of a foreign card)"
        ),
        frequent=True,
    ),
    KindSpec(
        "hole_card_dealt",
        "commitment, sealed_by",
        (
            "the hole card is dealt face down (`sealed_by: shoe`: the shoe withheld it and this is"
            " its commitment; `station`: the shoe gave it in the open, the station sealed it with "
            "a nonce kept in memory only)"
        ),
    ),
    KindSpec(
        "hole_card_revealed",
        "card, nonce",
        "the hole card is turned over",
    ),
    KindSpec(
        "hole_card_reveal_requested",
        "commitment, reason?",
        (
            "the station asks the shoe, which withholds the hole card, for card and nonce (each "
            "press of NEXT until they come; `reason: void` when a void asks for it, so the journal"
            " accounts for the card)"
        ),
    ),
    KindSpec(
        "hole_card_reveal_answer",
        "commitment, answered, problem",
        (
            "the shoe's answer (`answered`: card and nonce came; never the card itself: "
            "`hole_card_revealed` follows once they open the commitment)"
        ),
    ),
    KindSpec(
        "hole_card_rejected",
        "commitment",
        "the shoe reported a hole card when none was due",
    ),
    KindSpec(
        "cover_card",
        "",
        "the cover card came out",
    ),
    KindSpec(
        "insurance_taken",
        "seat, cents, stakes?, posted?",
        (
            'insurance closes with this seat\'s wager (`posted: "half the wager"`: a sensor that '
            "reports presence only saw it, docs/procedure.md; `stakes`: the amount in the seat's "
            "wagers where `cents` is null)"
        ),
    ),
    KindSpec(
        "peek_requested",
        "target",
        "the card reader is asked (`looking_for_ace` / `looking_for_ten`)",
    ),
    KindSpec(
        "peek",
        "answer",
        "the card reader's answer (never the rank)",
    ),
    KindSpec(
        "match_settled",
        "seat, wager, outcome, matches, odds, net_cents, net_stakes?, note?",
        ("Match the Dealer settled (PA 635a.7(f)); `matches`: 0, 1 or 2 cards matched the up card"),
        frequent=True,
    ),
    KindSpec(
        "insurance",
        "seat, wager, outcome, odds, net_cents, net_stakes?, note?",
        "insurance settled",
    ),
    KindSpec(
        "decision",
        "seat, hand, decision",
        "a player decision is taken",
        frequent=True,
    ),
    KindSpec(
        "decision_refused",
        "reason",
        "a decision button the hand may not take",
    ),
    KindSpec(
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
    KindSpec(
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
    KindSpec(
        "wager_collected",
        "seat, spot, cents",
        (
            "the dealer collected a losing wager: a wager sensor change during the round that the "
            "procedure expected (`cents`: what the sensor reads, 0 when empty; docs/panel.md)"
        ),
        frequent=True,
    ),
    KindSpec(
        "wager_paid",
        "seat, spot, cents",
        (
            "the dealer paid a winning wager: a wager sensor change during the round that the "
            "procedure expected (`cents`: what the sensor reads, 0 when empty; docs/panel.md)"
        ),
        frequent=True,
    ),
    KindSpec(
        "wager_taken",
        "seat, spot, cents",
        (
            "a settled spot (won or pushed) emptied by the player, or still reading its settled "
            "amount: a wager sensor change during the round that the procedure expected (`cents`: "
            "what the sensor reads, 0 when empty; docs/panel.md)"
        ),
        frequent=True,
    ),
    KindSpec(
        "wager_added",
        "seat, spot, cents",
        (
            "chips added for a double or a split: a wager sensor change during the round that the "
            "procedure expected (`cents`: what the sensor reads, 0 when empty; docs/panel.md)"
        ),
        frequent=True,
    ),
    KindSpec(
        "round_completed",
        "reshuffle",
        "the round is over (`reshuffle`: the cover card came out)",
    ),
    KindSpec(
        "round_voided",
        "reason, stand, returned, hole_card?",
        (
            "a supervisor voided the round: `stand` lists the settlements journaled before "
            "(`{seat, wager, hand, net_cents}`), which stand; `returned` the other wagers, given "
            "back (`{seat, wager, hand, cents}`; `hand` null: the seat's whole wager); `hole_card:"
            ' "withheld by the shoe: asked for at the void"` when the shoe still holds it'
        ),
    ),
    KindSpec(
        "fault",
        "code, message, state",
        "play stopped on something unexpected (`state`: where it resumes)",
    ),
    KindSpec(
        "fault_resolved",
        "resolution, code",
        "a supervisor resolved the last fault (`resume` / `void` / `reshuffle`)",
    ),
    KindSpec(
        "resolution_refused",
        "resolution, reason",
        "a resolution that does not fit the fault",
    ),
    KindSpec(
        "prompt",
        "state, lamps",
        (
            "the procedure moves to a new prompt (`lamps`: `{led: mode}`); the panel shows the "
            "last prompt of each commit"
        ),
        frequent=True,
    ),
    KindSpec(
        "state",
        "state",
        "the procedure enters a state",
        frequent=True,
    ),
)

BY_NAME: Final = {spec.name: spec for spec in KINDS}
#: Kinds a round writes several times each: no index by kind.
FREQUENT_KINDS: Final = tuple(sorted(spec.name for spec in KINDS if spec.frequent))
#: Every other kind: written about once a round or less, and looked up by kind (the last
#: seal, the start's checkpoint, shuffle, burn, a round's start and end...).
INDEXED_KINDS: Final = tuple(sorted(spec.name for spec in KINDS if not spec.frequent))

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


def vocabulary_table() -> str:
    """The record vocabulary table of ``docs/journal.md``, from :data:`KINDS`."""
    lines = ["| kind | fields | written when |", "|---|---|---|"]
    for spec in KINDS:
        fields = f" `{spec.fields}` " if spec.fields else " "
        lines.append(f"| `{spec.name}` |{fields}| {spec.when} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(vocabulary_table(), end="")
