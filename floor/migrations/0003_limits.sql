-- The table limits each station posts (NY 5324.12(d)(2)): the `limits` of its latest
-- station_started row, as {main_min_cents, main_max_cents, match_min_cents,
-- match_max_cents} (each a whole number of cents or null). The floor grid shows them.
ALTER TABLE floor_table ADD COLUMN limits jsonb;
