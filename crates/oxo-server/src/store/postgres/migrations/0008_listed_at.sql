-- When a listed room last changed, for the lobby's order and horizon: a
-- column of its own, empty for rooms without an entry, so that no index
-- covers updated_at, which every change sets. A change to a room that
-- touches no indexed column (a move between two people in a room not
-- listed in the lobby, untimed) is then a heap-only update: no new entry
-- in any of the room's indexes.
ALTER TABLE rooms ADD COLUMN listed_at TIMESTAMPTZ;
UPDATE rooms SET listed_at = updated_at WHERE entry IS NOT NULL;
DROP INDEX rooms_listed;
DROP INDEX rooms_open;
CREATE INDEX rooms_listed ON rooms (listed_at) WHERE entry IS NOT NULL;
CREATE INDEX rooms_open ON rooms (listed_at) WHERE entry IS NOT NULL AND o_token IS NULL;
