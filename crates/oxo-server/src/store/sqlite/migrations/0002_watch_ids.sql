-- A read-only watch id per room for spectators; rooms made before it get a
-- random one.
ALTER TABLE rooms ADD COLUMN watch TEXT;
UPDATE rooms SET watch = lower(hex(randomblob(8))) WHERE watch IS NULL;
CREATE UNIQUE INDEX rooms_watch ON rooms (watch);
