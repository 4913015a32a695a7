-- The ledger key tells a new request from a repeat: (sales_order, action,
-- order_version, requested). order_version is the order's version as read
-- when the action was proposed (S/4HANA's ETag, the demo data's
-- LastChangeDateTime); requested is what the action asks for beyond the
-- order (the new delivery date). Rows from before keep their key with both
-- empty, so a repeat of an old approval still finds its row. At most one
-- row per (sales_order, action) is open at a time (a partial unique index).
-- SQLite cannot change a primary key: the table is rebuilt (the same
-- columns and rows, two more key columns).
CREATE TABLE action_ledger_keyed (
    sales_order     TEXT NOT NULL,
    action          TEXT NOT NULL,
    order_version   TEXT NOT NULL DEFAULT '',
    requested       TEXT NOT NULL DEFAULT '',
    specialist      TEXT NOT NULL,
    summary         TEXT NOT NULL,
    approved_by     TEXT NOT NULL,
    approver_role   TEXT NOT NULL,
    approved_ms     BIGINT NOT NULL,
    task_id         TEXT NOT NULL,
    context_id      TEXT NOT NULL,
    parameters      TEXT NOT NULL DEFAULT '{}',
    state           TEXT NOT NULL DEFAULT 'recorded',
    attempts        BIGINT NOT NULL DEFAULT 0,
    answer          TEXT,
    next_attempt_ms BIGINT,
    updated_ms      BIGINT NOT NULL DEFAULT 0,
    lease_owner     TEXT,
    lease_until_ms  BIGINT,
    PRIMARY KEY (sales_order, action, order_version, requested)
);

INSERT INTO action_ledger_keyed (sales_order, action, specialist, summary, approved_by,
    approver_role, approved_ms, task_id, context_id, parameters, state, attempts, answer,
    next_attempt_ms, updated_ms, lease_owner, lease_until_ms)
SELECT sales_order, action, specialist, summary, approved_by, approver_role, approved_ms,
    task_id, context_id, parameters, state, attempts, answer, next_attempt_ms, updated_ms,
    lease_owner, lease_until_ms
FROM action_ledger;

DROP TABLE action_ledger;
ALTER TABLE action_ledger_keyed RENAME TO action_ledger;

CREATE INDEX action_ledger_due ON action_ledger (state, next_attempt_ms);
CREATE UNIQUE INDEX action_ledger_one_open ON action_ledger (sales_order, action)
    WHERE state IN ('recorded', 'retrying');
