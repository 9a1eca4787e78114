-- The seat that offered a rematch, and the lobby: a listed room's entry id
-- (its open game is joined through it), found by recent change.
ALTER TABLE rooms ADD COLUMN offer TEXT CHECK (offer IN ('x', 'o'));
ALTER TABLE rooms ADD COLUMN entry TEXT;
CREATE UNIQUE INDEX rooms_entry ON rooms (entry);
CREATE INDEX rooms_listed ON rooms (updated_at) WHERE entry IS NOT NULL;
