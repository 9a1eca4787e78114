-- The display name each player chose when seated (none for rooms stored
-- before names, or when none was given).
ALTER TABLE rooms ADD COLUMN x_name TEXT;
ALTER TABLE rooms ADD COLUMN o_name TEXT;
