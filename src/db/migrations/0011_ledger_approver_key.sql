-- Whose ledger row it is: the approver's issuer, tenant and user id, as
-- their tasks are owned (`ias:<tenant>:user:<id>`), so GET /actions shows a
-- person their own rows by an index, a page at a time, and equal user ids
-- of two identity services or tenants are two people. Rows filed before
-- get the owner form of that time (`user:<approved_by>`); at start, with
-- one identity service bound, they are rewritten to its form with the task
-- owners of that form (src/db/legacy_owners.rs, docs/stores.md).
-- The same statements on SQLite and PostgreSQL.
ALTER TABLE action_ledger ADD COLUMN approver_key TEXT;
UPDATE action_ledger SET approver_key = 'user:' || approved_by;
CREATE INDEX action_ledger_by_approver ON action_ledger (approver_key, approved_ms);
CREATE INDEX action_ledger_by_time ON action_ledger (approved_ms);
