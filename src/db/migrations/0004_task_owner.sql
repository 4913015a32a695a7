-- Who created each task (the user id; NULL for technical callers and for
-- tasks created before this column), so that ListTasks shows a user their
-- own tasks, newest change first.
ALTER TABLE tasks ADD COLUMN owner TEXT;

CREATE INDEX tasks_by_owner ON tasks (owner, updated_ms);
