-- Carrying approved actions out: each ledger row moves recorded -> done |
-- failed | retrying, with the attempts so far, S/4HANA's (or the hook
-- receiver's) last answer, when to try again, and the lease of the instance
-- executing it (a claim: one executor at a time, any instance on
-- PostgreSQL). The parameters are what was approved (a date, an ETag).
-- Rows filed before execution existed were the whole action (ledger only).
ALTER TABLE action_ledger ADD COLUMN parameters TEXT NOT NULL DEFAULT '{}';
ALTER TABLE action_ledger ADD COLUMN state TEXT NOT NULL DEFAULT 'recorded';
ALTER TABLE action_ledger ADD COLUMN attempts BIGINT NOT NULL DEFAULT 0;
ALTER TABLE action_ledger ADD COLUMN answer TEXT;
ALTER TABLE action_ledger ADD COLUMN next_attempt_ms BIGINT;
ALTER TABLE action_ledger ADD COLUMN updated_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE action_ledger ADD COLUMN lease_owner TEXT;
ALTER TABLE action_ledger ADD COLUMN lease_until_ms BIGINT;
UPDATE action_ledger SET state = 'done', answer = 'ledger only (filed before actions were carried out)', updated_ms = approved_ms;
CREATE INDEX action_ledger_due ON action_ledger (state, next_attempt_ms);
