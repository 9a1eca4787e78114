-- Timed rooms: the current round's clock (its time control, each seat's
-- time left, and whose clock runs since when, spelled as record.rs says),
-- and the deadline of the seat to move in milliseconds since the Unix
-- epoch, which every server's sweep looks up to rule a round lost on time.
-- Both empty for untimed rooms and the rooms stored before, whose digests
-- stay valid.
ALTER TABLE rooms ADD COLUMN clock TEXT;
ALTER TABLE rooms ADD COLUMN deadline BIGINT;
CREATE INDEX rooms_deadline ON rooms (deadline) WHERE deadline IS NOT NULL;
