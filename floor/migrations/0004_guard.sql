-- What keeps one station from stopping or fooling the floor (docs/floor.md, "What one
-- station cannot do").

-- A sealing table's rows after its last checked seal wait here, never in journal_row,
-- until a seal checked with the table's verification key covers them. Several branches
-- may wait side by side (a station's password alone makes a chain, not a seal): the
-- branch whose seal checks is merged, the others go to quarantine_row as evidence.
-- Unlogged (no WAL, not replicated, emptied after a crash): nothing here is the floor's
-- record yet, and a station whose waiting rows are lost is asked for them again (its next
-- rows' parent is missing: a rewind to the last checked seal).
CREATE UNLOGGED TABLE pending_row (LIKE quarantine_row INCLUDING ALL);  -- key: (table_id, row_id, hash)

-- Messages refused before anything was stored: too large, not in the wire format, or
-- holding text PostgreSQL cannot keep (a NUL, a lone surrogate). One line per table and
-- distinct message (its SHA-256), counted when it comes again.
CREATE TABLE refused_message (
    id bigserial PRIMARY KEY,
    table_id text NOT NULL,
    topic text NOT NULL,
    reason text NOT NULL,
    size bigint NOT NULL,
    digest text NOT NULL,
    payload bytea,                       -- the message as received; NULL when oversize
    first_seen timestamptz NOT NULL DEFAULT clock_timestamp(),
    last_seen timestamptz NOT NULL DEFAULT clock_timestamp(),
    times integer NOT NULL DEFAULT 1,
    UNIQUE (table_id, digest)
);

-- The house result per round is summed from this column (a settled wager's net, checked
-- to be whole cents by the collector), never by casting a station's text to jsonb.
ALTER TABLE journal_row ADD COLUMN net_cents bigint;
-- Only the rounds not ended yet need it (their result is summed when they end).
UPDATE journal_row AS j SET net_cents = (data::jsonb->>'net_cents')::bigint
    WHERE kind IN ('settlement', 'match_settled', 'insurance')
    AND NOT EXISTS (
        SELECT 1 FROM round_result AS r WHERE r.table_id = j.table_id AND r.round = j.round)
    AND jsonb_typeof(data::jsonb->'net_cents') = 'number';

-- One open alert per table and kind: the same trouble again counts up, it does not add a
-- line per message (a station repeating a bad message every 50 ms).
ALTER TABLE alert
    ADD COLUMN repeats integer NOT NULL DEFAULT 0,
    ADD COLUMN last_raised timestamptz;
UPDATE alert AS a SET cleared = clock_timestamp()
    WHERE cleared IS NULL AND EXISTS (
        SELECT 1 FROM alert AS b
        WHERE b.table_id = a.table_id AND b.kind = a.kind AND b.cleared IS NULL AND b.id < a.id);
CREATE UNIQUE INDEX alert_one_open ON alert (table_id, kind) WHERE cleared IS NULL;

-- Who released a quarantine or cleared an alert (`dealer-station floor release|clear-alert`),
-- when and why.
CREATE TABLE operator_action (
    id bigserial PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT clock_timestamp(),
    operator text NOT NULL,
    action text NOT NULL,
    table_id text NOT NULL,
    alert_id bigint,
    reason text NOT NULL,
    detail text
);

ALTER TABLE floor_table
    -- The collector's clock when the kept status arrived: statuses are ordered by arrival,
    -- so a station clock stepped back (or a far-future time) never freezes the status.
    ADD COLUMN status_arrived timestamptz,
    -- The station's clock minus the collector's at that status, in seconds.
    ADD COLUMN clock_skew double precision,
    -- The sealed heads the station reported [[row, epoch, hash], ...] that the floor has
    -- not merged up to yet: each is checked against the merged row when it arrives.
    ADD COLUMN station_anchors jsonb;
