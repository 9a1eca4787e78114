-- A digest of each room's row and the moves of its round, checked on every
-- load, so a damaged page or a lost row is reported as damage instead of
-- being served as the game. The store computes the digests of the rooms
-- already stored after this step's SQL (see schema.rs).
ALTER TABLE rooms ADD COLUMN digest TEXT;
