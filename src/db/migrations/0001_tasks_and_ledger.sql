-- Tasks as JSON documents with a compare-and-set version, the lease of the
-- instance running a turn, and the task's push configs; and the action
-- ledger, one row per (order, action). The same SQL runs on SQLite and
-- PostgreSQL.
CREATE TABLE tasks (
    id              TEXT PRIMARY KEY,
    context_id      TEXT NOT NULL,
    state           TEXT NOT NULL,
    terminal        BIGINT NOT NULL,
    body            TEXT NOT NULL,
    version         BIGINT NOT NULL,
    updated_ms      BIGINT NOT NULL,
    lease_owner     TEXT,
    lease_until_ms  BIGINT,
    push_configs    TEXT NOT NULL DEFAULT '[]'
);

CREATE INDEX tasks_by_lease ON tasks (lease_until_ms) WHERE lease_until_ms IS NOT NULL;
CREATE INDEX tasks_finished ON tasks (updated_ms) WHERE terminal = 1;

CREATE TABLE action_ledger (
    sales_order     TEXT NOT NULL,
    action          TEXT NOT NULL,
    specialist      TEXT NOT NULL,
    summary         TEXT NOT NULL,
    approved_by     TEXT NOT NULL,
    approver_role   TEXT NOT NULL,
    approved_ms     BIGINT NOT NULL,
    task_id         TEXT NOT NULL,
    context_id      TEXT NOT NULL,
    PRIMARY KEY (sales_order, action)
);
