-- The floor's copy of the journal in fewer bytes (docs/floor.md, "Database layout"): the
-- rows move to `journal_entry`, and `journal_row` becomes a view that gives every column
-- back exactly as the station sent it (the chain hash is over the station's text):
--
-- * `hash` as its 32 bytes, not 64 hex digits (`encode(hash, 'hex')` gives the text back:
--   the wire takes lowercase hex only);
-- * `prev_hash` not stored: it is the previous row's hash (the collector merges a row only
--   when it carries its anchor's hash; row 1's is the genesis hash). A row whose
--   `prev_hash` is not that (none the collector writes) keeps its own, so nothing is lost;
-- * `ts` as a timestamptz (microseconds, as the journal writes them) when
--   `floor_ts_text` gives back the very text; any other text (no calendar time, another
--   form) is kept as it came in `ts_text`;
-- * the 8-byte columns first (no padding between them);
-- * the indexes' pages filled (fillfactor 100, not 90): a row is never updated or deleted,
--   and each table's row ids only grow, so a page split leaves a full page behind.
--
-- `kind` and `data` stay text: the figures' trigger and the console read `data::jsonb` and
-- filter by kind in SQL. `quarantine_row` and `pending_row` keep their text columns: a
-- station's evidence is kept as it came, and both hold a few rows.

-- The text of a stored time: `2026-11-30T09:15:12.123456Z` (UTC, microseconds). STABLE as
-- to_char is (this format reads no setting), so that a query inlines it.
CREATE FUNCTION floor_ts_text(moment timestamptz) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT to_char(moment AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
$$;

-- The time a journal text stands for when `floor_ts_text` gives back that very text, else
-- NULL (the text is then kept as it came). Never raises: the fields are checked before the
-- text is read as a time. One expression, so that a query inlines it.
CREATE FUNCTION floor_ts_moment(ts text) RETURNS timestamptz
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN ts ~ ('^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])'
                   'T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{6}Z$')
             AND left(ts, 4) <> '0000'
             AND substr(ts, 9, 2)::integer <= extract(day FROM
                 make_date(left(ts, 4)::integer, substr(ts, 6, 2)::integer, 1)
                 + interval '1 month' - interval '1 day')
             AND floor_ts_text(
                 (left(ts, 10) || ' ' || substr(ts, 12, 8) || '+00')::timestamptz
                 + substr(ts, 21, 6)::bigint * interval '1 microsecond') = ts
        THEN (left(ts, 10) || ' ' || substr(ts, 12, 8) || '+00')::timestamptz
             + substr(ts, 21, 6)::bigint * interval '1 microsecond'
    END
$$;

CREATE TABLE journal_entry (
    row_id bigint NOT NULL,
    round bigint,
    ts timestamptz,                                 -- NULL only when ts_text holds it
    stored timestamptz NOT NULL DEFAULT clock_timestamp(),
    net_cents bigint,
    table_id text NOT NULL,
    kind text NOT NULL,
    hash bytea NOT NULL,                            -- the chain hash's 32 bytes
    data text NOT NULL,
    ts_text text,                                   -- a time text floor_ts_text does not give back
    prev_hash bytea,                                -- only when not the previous row's hash
    CHECK (ts IS NOT NULL OR ts_text IS NOT NULL)
) PARTITION BY HASH (table_id);

DO $$
BEGIN
    FOR i IN 0..15 LOOP
        EXECUTE format(
            'CREATE TABLE journal_entry_p%s PARTITION OF journal_entry'
            ' FOR VALUES WITH (MODULUS 16, REMAINDER %s)', i, i);
    END LOOP;
END $$;

-- Every stored hash is 64 lowercase hex digits (the wire takes nothing else): anything
-- else would not come back the same from its bytes, so the migration stops and keeps all.
DO $$
DECLARE
    bad record;
BEGIN
    SELECT table_id, row_id INTO bad FROM journal_row
    WHERE hash !~ '^[0-9a-f]{64}$' OR prev_hash !~ '^[0-9a-f]{64}$' LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'journal_row: row % of table % has a hash that is not 64 lowercase'
            ' hex digits; nothing was migrated', bad.row_id, bad.table_id;
    END IF;
END $$;

INSERT INTO journal_entry (
    row_id, round, ts, stored, net_cents, table_id, kind, hash, data, ts_text, prev_hash)
SELECT row_id, round, moment, stored, net_cents, table_id, kind, decode(hash, 'hex'), data,
    CASE WHEN moment IS NULL THEN ts END,
    CASE WHEN (row_id = 1 AND prev_hash = repeat('0', 64))
              OR (before_row = row_id - 1 AND before_hash = prev_hash)
         THEN NULL ELSE decode(prev_hash, 'hex') END
FROM (
    SELECT j.*, floor_ts_moment(j.ts) AS moment,
        lag(j.row_id) OVER w AS before_row, lag(j.hash) OVER w AS before_hash
    FROM journal_row AS j
    WINDOW w AS (PARTITION BY j.table_id ORDER BY j.row_id)
) AS old;

DO $$
BEGIN
    IF (SELECT count(*) FROM journal_entry) <> (SELECT count(*) FROM journal_row) THEN
        RAISE EXCEPTION 'journal_entry: not every row of journal_row was copied';
    END IF;
END $$;

DROP TABLE journal_row;

-- The indexes once the rows are in (one sort each, faster than one insert at a time).
ALTER TABLE journal_entry ADD PRIMARY KEY (table_id, row_id) WITH (fillfactor = 100);
CREATE INDEX journal_entry_round ON journal_entry (table_id, round) WITH (fillfactor = 100)
WHERE round IS NOT NULL;
CREATE INDEX journal_entry_milestone ON journal_entry (table_id, kind, row_id)
WITH (fillfactor = 100)
WHERE kind IN ('station_started', 'device', 'fault', 'fault_resolved', 'shuffle_commanded',
               'shuffle_done', 'hand_shuffle_done', 'shoe_loaded', 'burn', 'burn_disclosed',
               'dealer_change', 'seal', 'round_started', 'round_completed', 'round_voided',
               'clean_shutdown');

-- Every row as the station sent it: what recall, search, the console and the chain checks
-- read (the columns and their order as before this migration).
CREATE VIEW journal_row AS
SELECT e.table_id, e.row_id,
    coalesce(e.ts_text, floor_ts_text(e.ts)) AS ts,
    e.kind, e.round, e.data,
    coalesce(
        encode(e.prev_hash, 'hex'),
        CASE WHEN e.row_id = 1 THEN repeat('0', 64) ELSE (
            SELECT encode(p.hash, 'hex') FROM journal_entry AS p
            WHERE p.table_id = e.table_id AND p.row_id = e.row_id - 1) END
    ) AS prev_hash,
    encode(e.hash, 'hex') AS hash,
    e.stored, e.net_cents
FROM journal_entry AS e;

-- A row written through the view (by hand, or an older tool) is stored as the collector
-- stores it, and reads back the same; a hash that would not is refused.
CREATE FUNCTION floor_row_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    moment timestamptz := floor_ts_moment(NEW.ts);
    before text;
BEGIN
    IF NEW.hash !~ '^[0-9a-f]{64}$' OR NEW.prev_hash !~ '^[0-9a-f]{64}$' THEN
        RAISE EXCEPTION 'journal_row: row % has a hash that is not 64 lowercase hex digits',
            NEW.row_id;
    END IF;
    before := CASE WHEN NEW.row_id = 1 THEN repeat('0', 64) ELSE (
        SELECT encode(hash, 'hex') FROM journal_entry
        WHERE table_id = NEW.table_id AND row_id = NEW.row_id - 1) END;
    INSERT INTO journal_entry (
        row_id, round, ts, stored, net_cents, table_id, kind, hash, data, ts_text, prev_hash)
    VALUES (
        NEW.row_id, NEW.round, moment, coalesce(NEW.stored, clock_timestamp()), NEW.net_cents,
        NEW.table_id, NEW.kind, decode(NEW.hash, 'hex'), NEW.data,
        CASE WHEN moment IS NULL THEN NEW.ts END,
        CASE WHEN before IS NOT DISTINCT FROM NEW.prev_hash THEN NULL
             ELSE decode(NEW.prev_hash, 'hex') END);
    RETURN NEW;
END $$;

CREATE TRIGGER journal_row_insert INSTEAD OF INSERT ON journal_row
FOR EACH ROW EXECUTE FUNCTION floor_row_insert();

-- The figures' trigger (migration 0010) on the stored rows, given the row's time as text.
CREATE OR REPLACE FUNCTION floor_row_stored() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    ts text := coalesce(NEW.ts_text, floor_ts_text(NEW.ts));
BEGIN
    IF NEW.kind = 'fault' THEN
        PERFORM floor_record_fault(NEW.table_id, ts);
    ELSE
        PERFORM floor_record_round(NEW.table_id, NEW.row_id, NEW.round, NEW.kind, ts, NEW.data);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER journal_entry_figures AFTER INSERT ON journal_entry
FOR EACH ROW
WHEN (NEW.kind = 'fault'
      OR (NEW.kind IN ('round_completed', 'round_voided') AND NEW.round IS NOT NULL))
EXECUTE FUNCTION floor_row_stored();
