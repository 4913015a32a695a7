-- Each caller keeps at most `tasks.max_finished_per_caller` finished tasks:
-- the upkeep looks up who finished a task lately (`tasks_finished` now
-- holds the owner), counts each one's finished tasks (`tasks_by_owner` now
-- says whether a task is finished, so the count reads the index alone) and
-- deletes the oldest past the cap. Both indexes changed with every task
-- write already (a task finishes once; its change time moves with each
-- write): neither adds work to a write.
DROP INDEX tasks_finished;
CREATE INDEX tasks_finished ON tasks (updated_ms, owner) WHERE terminal = 1;
DROP INDEX tasks_by_owner;
CREATE INDEX tasks_by_owner ON tasks (owner, updated_ms, terminal);
