-- What one caller may hold is bounded: a new task first counts
-- its caller's open tasks, and a task waiting in input-required for longer
-- than `tasks.waiting_expiry_secs` is canceled by the upkeep sweep. Both
-- read only open rows, so each has a partial index of its own.
CREATE INDEX tasks_open_by_owner ON tasks (owner) WHERE terminal = 0;
CREATE INDEX tasks_waiting ON tasks (updated_ms) WHERE state = 'input-required';
