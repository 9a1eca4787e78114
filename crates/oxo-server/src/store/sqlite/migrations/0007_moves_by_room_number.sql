-- Each room gets a number in the order rooms are made, and its moves are
-- kept under that number instead of its random id, so the moves of the
-- games being played share a few pages at the end of the table and a commit
-- writes those few instead of a page for every move.
ALTER TABLE rooms ADD COLUMN key INTEGER;
UPDATE rooms SET key = rowid;
CREATE UNIQUE INDEX rooms_key ON rooms (key);
CREATE TABLE moves_by_key (
    room INTEGER NOT NULL REFERENCES rooms (key),
    round INTEGER NOT NULL,
    ply INTEGER NOT NULL,
    row INTEGER NOT NULL,
    col INTEGER NOT NULL,
    PRIMARY KEY (room, round, ply)
) STRICT, WITHOUT ROWID;
INSERT INTO moves_by_key (room, round, ply, row, col)
    SELECT rooms.key, moves.round, moves.ply, moves.row, moves.col
    FROM moves JOIN rooms ON rooms.id = moves.room;
DROP TABLE moves;
ALTER TABLE moves_by_key RENAME TO moves;
