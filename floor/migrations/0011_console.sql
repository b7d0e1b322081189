-- The console's own records (floor/monitor.py): its sessions, and who acknowledged which
-- alert when. Besides a login and a logout, an acknowledgement is the console's only write;
-- neither touches a table's record (journal_row, quarantine_row, floor_table).

-- A login. The cookie holds a random token; only its sha256 is kept here, so a copy of this
-- table logs nobody in. A logout (or an expiry) ends it: the cookie then opens nothing.
CREATE TABLE console_session (
    token_hash text PRIMARY KEY,
    user_name text NOT NULL,
    role text NOT NULL,
    address text,                           -- where the login came from
    created timestamptz NOT NULL DEFAULT clock_timestamp(),
    expires timestamptz NOT NULL,
    ended timestamptz                       -- logged out
);
CREATE INDEX console_session_open ON console_session (expires) WHERE ended IS NULL;

CREATE TABLE alert_ack (
    alert_id bigint PRIMARY KEY REFERENCES alert (id),
    user_name text NOT NULL,
    role text NOT NULL,
    acknowledged timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- The between-round rows the console looks up by kind (a table's devices and its start,
-- the burn and shuffle before a round, the seal that follows one): a few rows a round,
-- so the index stays small beside the one of every row.
CREATE INDEX journal_row_milestone ON journal_row (table_id, kind, row_id)
WHERE kind IN ('station_started', 'device', 'fault', 'fault_resolved', 'shuffle_commanded',
               'shuffle_done', 'hand_shuffle_done', 'shoe_loaded', 'burn', 'burn_disclosed',
               'dealer_change', 'seal', 'round_started', 'round_completed', 'round_voided',
               'clean_shutdown');
