-- The lobby's open games (listed, seat O empty), found however old, the
-- most recently changed first.
CREATE INDEX rooms_open ON rooms (updated_at) WHERE entry IS NOT NULL AND o_token IS NULL;
