-- A cancelled open game keeps its entry and its empty seat O, and gains an
-- ending: left in the lobby's index of open games, every seek ever
-- cancelled would lengthen the lobby's walk over it. The index holds the
-- open games not ended, as the lobby asks for them. Built before the old
-- one is dropped, so that the table's exclusive lock (for the drop) is
-- held only from then to the commit, not through the build: meanwhile
-- reads go on, and writes wait for the build alone.
CREATE INDEX rooms_open_not_ended ON rooms (listed_at)
    WHERE entry IS NOT NULL AND o_token IS NULL AND end_reason IS NULL;
DROP INDEX rooms_open;
ALTER INDEX rooms_open_not_ended RENAME TO rooms_open;
