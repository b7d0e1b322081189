-- The floor's copy of every table's journal, its anchors, quarantine and alerts.
-- Rows are kept exactly as the station hashed them (ts and data as text), so any row can
-- be checked again with the journal's own hash function. docs/floor.md explains the layout.

CREATE TABLE floor_table (
    table_id text PRIMARY KEY,
    anchor_row bigint NOT NULL DEFAULT 0,           -- the latest verified row: (row, hash)
    anchor_hash text NOT NULL DEFAULT repeat('0', 64),
    anchor_ts text,                                 -- its journal timestamp
    quarantined text,                               -- why its rows are no longer merged
    status jsonb,                                   -- the last live status (no card)
    status_ts text,                                 -- the station's time of that status
    last_seen timestamptz
);

-- Hash partitions by table: every query names one table (recall, today's result, the
-- chain check), and a table's rows stay together; 16 partitions keep each index to about
-- 140 million rows after a year of a 200-table floor (docs/floor.md).
CREATE TABLE journal_row (
    table_id text NOT NULL,
    row_id bigint NOT NULL,
    ts text NOT NULL,
    kind text NOT NULL,
    round bigint,
    data text NOT NULL,
    prev_hash text NOT NULL,
    hash text NOT NULL,
    stored timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (table_id, row_id)
) PARTITION BY HASH (table_id);

DO $$
BEGIN
    FOR i IN 0..15 LOOP
        EXECUTE format(
            'CREATE TABLE journal_row_p%s PARTITION OF journal_row'
            ' FOR VALUES WITH (MODULUS 16, REMAINDER %s)', i, i);
    END LOOP;
END $$;

CREATE INDEX journal_row_round ON journal_row (table_id, round) WHERE round IS NOT NULL;

-- A station that came back behind its anchor or with another history: its rows are kept
-- here as evidence, never merged into journal_row.
CREATE TABLE quarantine_row (
    table_id text NOT NULL,
    row_id bigint NOT NULL,
    ts text NOT NULL,
    kind text NOT NULL,
    round bigint,
    data text NOT NULL,
    prev_hash text NOT NULL,
    hash text NOT NULL,
    stored timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (table_id, row_id, hash)
);

-- One line per ended round: the house result (minus the players' net) for the grid.
CREATE TABLE round_result (
    table_id text NOT NULL,
    round bigint NOT NULL,
    ended text NOT NULL,
    status text NOT NULL,
    house_cents bigint NOT NULL,
    PRIMARY KEY (table_id, round)
);
CREATE INDEX round_result_ended ON round_result (ended);

CREATE TABLE alert (
    id bigserial PRIMARY KEY,
    table_id text NOT NULL,
    kind text NOT NULL,          -- fault, chain, seal, rollback
    message text NOT NULL,
    raised timestamptz NOT NULL DEFAULT clock_timestamp(),
    cleared timestamptz
);
CREATE INDEX alert_open ON alert (table_id) WHERE cleared IS NULL;
