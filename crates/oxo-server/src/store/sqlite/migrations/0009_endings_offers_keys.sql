-- Ending a round other than on the board, offers, and safe retries: how the
-- current round ended (a reason such as 'resign', and its winner), the seat
-- offering a draw or asking for a takeback, the idempotency keys of the
-- latest changes ('x:KEY o:KEY ...'), and every round's ending for the
-- record. All empty for the rooms stored before, whose digests stay valid.
ALTER TABLE rooms ADD COLUMN end_reason TEXT;
ALTER TABLE rooms ADD COLUMN end_winner TEXT CHECK (end_winner IN ('x', 'o'));
ALTER TABLE rooms ADD COLUMN draw_offer TEXT CHECK (draw_offer IN ('x', 'o'));
ALTER TABLE rooms ADD COLUMN takeback_offer TEXT CHECK (takeback_offer IN ('x', 'o'));
ALTER TABLE rooms ADD COLUMN request_keys TEXT;
CREATE TABLE endings (
    room INTEGER NOT NULL REFERENCES rooms (key),
    round INTEGER NOT NULL,
    reason TEXT NOT NULL,
    winner TEXT CHECK (winner IN ('x', 'o')),
    PRIMARY KEY (room, round)
) STRICT, WITHOUT ROWID;
