-- Seals (controller.journal.seal): the epoch each table's next seal row must carry, and
-- the last row a checked seal covers (the table's latest sealed anchor).
ALTER TABLE floor_table
    ADD COLUMN seal_epoch integer NOT NULL DEFAULT 0,
    ADD COLUMN sealed_row bigint NOT NULL DEFAULT 0,
    ADD COLUMN sealed_hash text;
