-- The version at which a room's position arose (its last move or takeback,
-- or the start of its round): a move sent against any version from it on is
-- played, as only offers, answers and time given came after. Empty when it
-- is the room's version, as for every room stored before, whose digests
-- stay valid.
ALTER TABLE rooms ADD COLUMN position_version BIGINT;
