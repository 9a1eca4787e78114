-- Rooms (with their digest and the computer's claim) and every move of
-- every round. Room rows leave room on their pages and no index covers what
-- a move changes (except whose turn it is in a game against the computer),
-- so most updates are HOT: they add no index entries, and the indexes do
-- not bloat as games go on.
CREATE TABLE rooms (
    id TEXT PRIMARY KEY,
    watch TEXT NOT NULL UNIQUE,
    rows INTEGER NOT NULL,
    cols INTEGER NOT NULL,
    k INTEGER NOT NULL,
    opponent TEXT NOT NULL,
    x_token TEXT NOT NULL,
    o_token TEXT,
    round INTEGER NOT NULL,
    first TEXT NOT NULL CHECK (first IN ('x', 'o')),
    x_wins BIGINT NOT NULL,
    o_wins BIGINT NOT NULL,
    draws BIGINT NOT NULL,
    version BIGINT NOT NULL,
    computer_turn BOOLEAN NOT NULL,
    digest TEXT NOT NULL,
    claimed_by TEXT,
    claimed_until TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
) WITH (fillfactor = 70);
CREATE TABLE moves (
    room TEXT NOT NULL REFERENCES rooms (id),
    round INTEGER NOT NULL,
    ply INTEGER NOT NULL,
    row INTEGER NOT NULL,
    col INTEGER NOT NULL,
    PRIMARY KEY (room, round, ply)
);
CREATE INDEX rooms_computer_turn ON rooms (id) WHERE computer_turn;
