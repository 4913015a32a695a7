-- A later attempt of an approved action (the retry job, another instance,
-- after a restart) continues the approval's story: the row keeps the W3C
-- traceparent of the approval, which the attempt's trace links to, and the
-- approving caller's x-correlationid, which its log lines carry (without
-- one, the approval's trace id, as the approval's own lines did). Both
-- empty for rows filed before.
-- The same statements on SQLite and PostgreSQL.
ALTER TABLE action_ledger ADD COLUMN trace_parent TEXT;
ALTER TABLE action_ledger ADD COLUMN correlation_id TEXT;
