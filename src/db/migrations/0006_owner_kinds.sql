-- Owners name their kind: a person is `user:<user id>`, an application
-- calling with its own token `client:<client id>` (until now stored as
-- NULL, shared by every technical caller). Rows from before are a person's
-- user id, or NULL (no one's: with authentication on nobody can reach
-- them; they go with the retention like any other).
UPDATE tasks SET owner = 'user:' || owner WHERE owner IS NOT NULL;

-- A contextId belongs to the caller who started it: a new task in a given
-- context first checks that no one else's task is in it.
CREATE INDEX tasks_by_context ON tasks (context_id, owner);
