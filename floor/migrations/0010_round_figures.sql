-- The console's figures, computed here from the record as rows are stored: one line per
-- ended round (round_stat) and their sums per table and UTC quarter hour (table_quarter).
-- The console's grid and pit view read the quarters, never every round of a table: a
-- gaming day is at most 100 quarter lines a table (docs/floor.md, "The console").
--
-- Everything is read from journal rows a station sent: a field that is missing, of another
-- type or out of range counts as nothing, and a round whose rows cannot be read at all is
-- kept with zero figures and the reason in `problem`. A trigger never fails the
-- collector's transaction.

-- A whole number of cents from a JSON value, or NULL (a string, a fraction, 16+ digits).
CREATE FUNCTION floor_cents(value jsonb) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN jsonb_typeof(value) = 'number' AND value::text ~ '^-?[0-9]{1,15}$'
        THEN value::text::bigint END
$$;

CREATE TABLE round_stat (
    table_id text NOT NULL,
    round bigint NOT NULL,
    first_row bigint NOT NULL,              -- the round's first row (round_started)
    end_row bigint NOT NULL,                -- its round_completed or round_voided row
    started timestamptz,
    ended timestamptz NOT NULL,             -- the journal's time of the end row
    status text NOT NULL,                   -- completed, voided
    seats integer NOT NULL DEFAULT 0,       -- seats with a main wager
    hands integer NOT NULL DEFAULT 0,       -- player hands: a seat's first hand and each split
    unknown_wagers integer NOT NULL DEFAULT 0, -- seats whose sensor could not tell the amount
    handle_main bigint NOT NULL DEFAULT 0,  -- wagered, cents: the main wagers with doubles and splits
    handle_match bigint NOT NULL DEFAULT 0, -- Match the Dealer
    handle_insurance bigint NOT NULL DEFAULT 0,
    win_main bigint NOT NULL DEFAULT 0,     -- the house's result: minus the players' net
    win_match bigint NOT NULL DEFAULT 0,
    win_insurance bigint NOT NULL DEFAULT 0,
    bonuses integer NOT NULL DEFAULT 0,     -- hands paid at bonus odds (NY 5324.12(b)(6))
    bonus_cents bigint NOT NULL DEFAULT 0,  -- what those hands won
    super_bonuses integer NOT NULL DEFAULT 0, -- super bonus hands (NY 5324.12(b)(7))
    super_bonus_cents bigint NOT NULL DEFAULT 0, -- their fixed amounts and the shares paid to others
    faults integer NOT NULL DEFAULT 0,      -- fault rows inside the round
    best_seat_cents bigint,                 -- the largest seat net (a player's win)
    worst_seat_cents bigint,                -- the smallest (a player's loss, negative)
    outcomes text[] NOT NULL DEFAULT '{}',  -- blackjack, bonus, super_bonus, surrender, rescue,
                                            -- split, double, insurance, void, fault
    cards text NOT NULL DEFAULT '',         -- the cards as they left the shoe, one space apart
    problem text,                           -- why the figures are zero, when they are
    PRIMARY KEY (table_id, round)
);
CREATE INDEX round_stat_ended ON round_stat (ended);
CREATE INDEX round_stat_table_ended ON round_stat (table_id, ended);

CREATE TABLE table_quarter (
    table_id text NOT NULL,
    quarter timestamptz NOT NULL,           -- the UTC quarter hour its rounds ended in
    rounds integer NOT NULL DEFAULT 0,
    voids integer NOT NULL DEFAULT 0,
    seats integer NOT NULL DEFAULT 0,       -- seats in play, summed over the rounds
    hands integer NOT NULL DEFAULT 0,
    unknown_wagers integer NOT NULL DEFAULT 0,
    handle_main bigint NOT NULL DEFAULT 0,
    handle_match bigint NOT NULL DEFAULT 0,
    handle_insurance bigint NOT NULL DEFAULT 0,
    win_main bigint NOT NULL DEFAULT 0,
    win_match bigint NOT NULL DEFAULT 0,
    win_insurance bigint NOT NULL DEFAULT 0,
    bonuses integer NOT NULL DEFAULT 0,
    bonus_cents bigint NOT NULL DEFAULT 0,
    super_bonuses integer NOT NULL DEFAULT 0,
    super_bonus_cents bigint NOT NULL DEFAULT 0,
    faults integer NOT NULL DEFAULT 0,      -- every fault row, in a round or between rounds
    PRIMARY KEY (table_id, quarter)
);
CREATE INDEX table_quarter_quarter ON table_quarter (quarter);

CREATE FUNCTION floor_quarter(moment timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT date_bin('15 minutes', moment, TIMESTAMPTZ '2000-01-01 00:00:00+00')
$$;

-- One round's line, from its rows up to its end row (the end row's own columns given).
CREATE FUNCTION floor_record_round(
    p_table text, p_end_row bigint, p_round bigint, p_kind text, p_ts text, p_data text
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    st round_stat%ROWTYPE;
    r record;
    d jsonb;
    e jsonb;
    seat_wager bigint[] := array_fill(0::bigint, ARRAY[7]);
    seat bigint;
    cents bigint;
    net bigint;
    marks text[] := '{}';
    added integer;
BEGIN
    st.table_id := p_table;
    st.round := p_round;
    st.end_row := p_end_row;
    st.first_row := p_end_row;
    st.status := CASE p_kind WHEN 'round_completed' THEN 'completed' ELSE 'voided' END;
    st.seats := 0; st.hands := 0; st.unknown_wagers := 0;
    st.handle_main := 0; st.handle_match := 0; st.handle_insurance := 0;
    st.win_main := 0; st.win_match := 0; st.win_insurance := 0;
    st.bonuses := 0; st.bonus_cents := 0; st.super_bonuses := 0; st.super_bonus_cents := 0;
    st.faults := 0;
    BEGIN
        st.ended := p_ts::timestamptz;
    EXCEPTION WHEN others THEN
        st.ended := clock_timestamp();
        st.problem := 'the end row has no readable time';
    END;
    IF st.status = 'voided' THEN
        marks := marks || 'void'::text;
    END IF;
    BEGIN
        FOR r IN
            SELECT row_id, ts, kind, data FROM journal_row
            WHERE table_id = p_table AND round = p_round AND row_id <= p_end_row
              AND kind IN ('round_started', 'decision', 'insurance_taken', 'settlement',
                           'match_settled', 'insurance', 'fault')
            ORDER BY row_id
        LOOP
            d := r.data::jsonb;
            st.first_row := least(st.first_row, r.row_id);
            CASE r.kind
            WHEN 'round_started' THEN
                st.started := r.ts::timestamptz;
                FOR e IN SELECT value FROM jsonb_array_elements(
                    CASE jsonb_typeof(d -> 'seats') WHEN 'array' THEN d -> 'seats' ELSE '[]' END)
                LOOP
                    seat := floor_cents(e -> 'seat');
                    cents := floor_cents(e -> 'wager_cents');
                    st.seats := st.seats + 1;
                    st.hands := st.hands + 1;
                    IF cents IS NULL OR cents < 0 THEN
                        st.unknown_wagers := st.unknown_wagers + 1;
                        cents := 0;
                    END IF;
                    st.handle_main := st.handle_main + cents;
                    IF seat BETWEEN 1 AND 7 THEN
                        seat_wager[seat::integer] := cents;
                    END IF;
                    st.handle_match := st.handle_match
                        + greatest(coalesce(floor_cents(e -> 'match_cents'), 0), 0);
                END LOOP;
            WHEN 'decision' THEN
                seat := floor_cents(d -> 'seat');
                cents := CASE WHEN seat BETWEEN 1 AND 7 THEN seat_wager[seat::integer] ELSE 0 END;
                CASE d ->> 'decision'
                WHEN 'split' THEN
                    -- a new hand with the same wager (docs/rules.md)
                    st.hands := st.hands + 1;
                    st.handle_main := st.handle_main + cents;
                    marks := marks || 'split'::text;
                WHEN 'double' THEN
                    -- a double is for the hand's whole wager (controller.rules.turn)
                    st.handle_main := st.handle_main + cents;
                    marks := marks || 'double'::text;
                WHEN 'surrender' THEN
                    marks := marks || 'surrender'::text;
                WHEN 'rescue' THEN
                    marks := marks || 'rescue'::text;
                ELSE
                END CASE;
            WHEN 'insurance_taken' THEN
                st.handle_insurance := st.handle_insurance
                    + greatest(coalesce(floor_cents(d -> 'cents'), 0), 0);
                marks := marks || 'insurance'::text;
            WHEN 'settlement' THEN
                net := coalesce(floor_cents(d -> 'net_cents'), 0);
                st.win_main := st.win_main - net;
                IF d ->> 'outcome' = 'blackjack' THEN
                    marks := marks || 'blackjack'::text;
                END IF;
                IF d ->> 'wager' = 'super_bonus_share' THEN
                    st.super_bonus_cents := st.super_bonus_cents + greatest(net, 0);
                ELSIF d -> 'super_bonus' = 'true'::jsonb THEN
                    st.super_bonuses := st.super_bonuses + 1;
                    st.super_bonus_cents := st.super_bonus_cents
                        + greatest(coalesce(floor_cents(d -> 'super_bonus_cents'), 0), 0);
                    marks := marks || 'super_bonus'::text;
                ELSIF jsonb_typeof(d -> 'bonus') = 'string' AND net > 0 THEN
                    st.bonuses := st.bonuses + 1;
                    st.bonus_cents := st.bonus_cents + net;
                    marks := marks || 'bonus'::text;
                END IF;
            WHEN 'match_settled' THEN
                st.win_match := st.win_match - coalesce(floor_cents(d -> 'net_cents'), 0);
            WHEN 'insurance' THEN
                st.win_insurance := st.win_insurance - coalesce(floor_cents(d -> 'net_cents'), 0);
            WHEN 'fault' THEN
                st.faults := st.faults + 1;
                marks := marks || 'fault'::text;
            ELSE
            END CASE;
        END LOOP;
        IF st.status = 'voided' THEN
            -- The wagers a void gave back were never at risk: no handle (round_voided).
            d := p_data::jsonb;
            FOR e IN SELECT value FROM jsonb_array_elements(
                CASE jsonb_typeof(d -> 'returned') WHEN 'array' THEN d -> 'returned' ELSE '[]' END)
            LOOP
                cents := greatest(coalesce(floor_cents(e -> 'cents'), 0), 0);
                CASE e ->> 'wager'
                WHEN 'main' THEN st.handle_main := greatest(st.handle_main - cents, 0);
                WHEN 'match' THEN st.handle_match := greatest(st.handle_match - cents, 0);
                WHEN 'insurance' THEN
                    st.handle_insurance := greatest(st.handle_insurance - cents, 0);
                ELSE
                END CASE;
            END LOOP;
        END IF;
        -- The seats' results and the cards, each in one statement (the loop above is the
        -- costly part: it takes only the rows that need a seat's wager or a flag).
        SELECT max(n), min(n) INTO st.best_seat_cents, st.worst_seat_cents FROM (
            SELECT floor_cents(data::jsonb -> 'net_cents') AS n FROM journal_row
            WHERE table_id = p_table AND round = p_round AND row_id <= p_end_row
              AND kind = 'seat_result') AS seat_results;
        -- The cards as they left the shoe; the hole card where it was dealt, as revealed.
        SELECT coalesce(string_agg(card, ' ' ORDER BY row_id), '') INTO st.cards FROM (
            SELECT c.row_id, CASE c.kind
                WHEN 'card' THEN left(coalesce(c.data::jsonb ->> 'card', '?'), 3)
                ELSE coalesce((
                    SELECT left(coalesce(h.data::jsonb ->> 'card', '?'), 3) FROM journal_row h
                    WHERE h.table_id = p_table AND h.round = p_round AND h.row_id <= p_end_row
                      AND h.kind = 'hole_card_revealed' ORDER BY h.row_id LIMIT 1), '?')
                END AS card
            FROM journal_row c
            WHERE c.table_id = p_table AND c.round = p_round AND c.row_id <= p_end_row
              AND (c.kind = 'hole_card_dealt'
                   OR (c.kind = 'card' AND c.data::jsonb ->> 'role' IS DISTINCT FROM 'rejected'))
        ) AS shoe;
        SELECT coalesce(array_agg(DISTINCT m ORDER BY m), '{}') INTO st.outcomes
            FROM unnest(marks) AS m;
    EXCEPTION WHEN others THEN
        st.seats := 0; st.hands := 0; st.unknown_wagers := 0;
        st.handle_main := 0; st.handle_match := 0; st.handle_insurance := 0;
        st.win_main := 0; st.win_match := 0; st.win_insurance := 0;
        st.bonuses := 0; st.bonus_cents := 0; st.super_bonuses := 0; st.super_bonus_cents := 0;
        st.faults := 0; st.best_seat_cents := NULL; st.worst_seat_cents := NULL;
        st.started := NULL; st.cards := '';
        st.outcomes := CASE st.status WHEN 'voided' THEN '{void}'::text[] ELSE '{}' END;
        st.problem := left('a row of the round could not be read: ' || SQLERRM, 300);
    END;
    INSERT INTO round_stat SELECT st.* ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS added = ROW_COUNT;
    IF added = 1 THEN
        INSERT INTO table_quarter AS q (
            table_id, quarter, rounds, voids, seats, hands, unknown_wagers,
            handle_main, handle_match, handle_insurance, win_main, win_match, win_insurance,
            bonuses, bonus_cents, super_bonuses, super_bonus_cents)
        VALUES (
            st.table_id, floor_quarter(st.ended), 1,
            CASE st.status WHEN 'voided' THEN 1 ELSE 0 END,
            st.seats, st.hands, st.unknown_wagers,
            st.handle_main, st.handle_match, st.handle_insurance,
            st.win_main, st.win_match, st.win_insurance,
            st.bonuses, st.bonus_cents, st.super_bonuses, st.super_bonus_cents)
        ON CONFLICT (table_id, quarter) DO UPDATE SET
            rounds = q.rounds + 1,
            voids = q.voids + EXCLUDED.voids,
            seats = q.seats + EXCLUDED.seats,
            hands = q.hands + EXCLUDED.hands,
            unknown_wagers = q.unknown_wagers + EXCLUDED.unknown_wagers,
            handle_main = q.handle_main + EXCLUDED.handle_main,
            handle_match = q.handle_match + EXCLUDED.handle_match,
            handle_insurance = q.handle_insurance + EXCLUDED.handle_insurance,
            win_main = q.win_main + EXCLUDED.win_main,
            win_match = q.win_match + EXCLUDED.win_match,
            win_insurance = q.win_insurance + EXCLUDED.win_insurance,
            bonuses = q.bonuses + EXCLUDED.bonuses,
            bonus_cents = q.bonus_cents + EXCLUDED.bonus_cents,
            super_bonuses = q.super_bonuses + EXCLUDED.super_bonuses,
            super_bonus_cents = q.super_bonus_cents + EXCLUDED.super_bonus_cents;
    END IF;
END $$;

CREATE FUNCTION floor_record_fault(p_table text, p_ts text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    moment timestamptz;
BEGIN
    BEGIN
        moment := p_ts::timestamptz;
    EXCEPTION WHEN others THEN
        moment := clock_timestamp();
    END;
    INSERT INTO table_quarter AS q (table_id, quarter, faults)
    VALUES (p_table, floor_quarter(moment), 1)
    ON CONFLICT (table_id, quarter) DO UPDATE SET faults = q.faults + 1;
END $$;

CREATE FUNCTION floor_row_stored() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind = 'fault' THEN
        PERFORM floor_record_fault(NEW.table_id, NEW.ts);
    ELSE
        PERFORM floor_record_round(NEW.table_id, NEW.row_id, NEW.round, NEW.kind, NEW.ts, NEW.data);
    END IF;
    RETURN NULL;
END $$;

-- Fired at the end of the collector's COPY, once per matching row: the round's earlier rows
-- are stored by then (a round's rows leave the station only once it ended, in order).
CREATE TRIGGER journal_row_figures AFTER INSERT ON journal_row
FOR EACH ROW
WHEN (NEW.kind = 'fault'
      OR (NEW.kind IN ('round_completed', 'round_voided') AND NEW.round IS NOT NULL))
EXECUTE FUNCTION floor_row_stored();

-- The rounds and faults stored before this migration.
SELECT floor_record_fault(table_id, ts) FROM journal_row WHERE kind = 'fault';
SELECT floor_record_round(table_id, row_id, round, kind, ts, data)
FROM journal_row
WHERE kind IN ('round_completed', 'round_voided') AND round IS NOT NULL
ORDER BY table_id, row_id;
