-- The hash of the invite that takes seat O of a game between two people;
-- rooms stored before it have none and admit anyone with the id.
ALTER TABLE rooms ADD COLUMN invite TEXT;
