-- A cancelled open game keeps its entry and its empty seat O, and gains an
-- ending: left in the lobby's index of open games, every seek ever
-- cancelled would lengthen the lobby's walk over it. The index holds the
-- open games not ended, as the lobby asks for them.
DROP INDEX rooms_open;
CREATE INDEX rooms_open ON rooms (listed_at)
    WHERE entry IS NOT NULL AND o_token IS NULL AND end_reason IS NULL;
