-- Rooms and every move of every round.
CREATE TABLE rooms (
    id TEXT PRIMARY KEY,
    rows INTEGER NOT NULL,
    cols INTEGER NOT NULL,
    k INTEGER NOT NULL,
    opponent TEXT NOT NULL,
    x_token TEXT NOT NULL,
    o_token TEXT,
    round INTEGER NOT NULL,
    first TEXT NOT NULL CHECK (first IN ('x', 'o')),
    x_wins INTEGER NOT NULL,
    o_wins INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    version INTEGER NOT NULL,
    computer_turn INTEGER NOT NULL,
    created_at INTEGER NOT NULL DEFAULT (unixepoch()),
    updated_at INTEGER NOT NULL DEFAULT (unixepoch())
) STRICT;
CREATE TABLE moves (
    room TEXT NOT NULL REFERENCES rooms (id),
    round INTEGER NOT NULL,
    ply INTEGER NOT NULL,
    row INTEGER NOT NULL,
    col INTEGER NOT NULL,
    PRIMARY KEY (room, round, ply)
) STRICT, WITHOUT ROWID;
CREATE INDEX rooms_computer_turn ON rooms (computer_turn) WHERE computer_turn = 1;
