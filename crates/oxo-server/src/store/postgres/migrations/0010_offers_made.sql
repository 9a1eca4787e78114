-- When each seat last made each offer in the current round (its own moves
-- then, spelled as `draw/x:3 takeback/o:1`): an offer withdrawn, declined or
-- ended by a move may be made again only after the seat's next move. Empty
-- when none was made, as for every room stored before, whose digests stay
-- valid.
ALTER TABLE rooms ADD COLUMN offers_made TEXT;
