-- The ledger key tells a new request from a repeat: (sales_order, action,
-- order_version, requested). order_version is the order's version as read
-- when the action was proposed (S/4HANA's ETag, the demo data's
-- LastChangeDateTime); requested is what the action asks for beyond the
-- order (the new delivery date). Rows from before keep their key with both
-- empty, so a repeat of an old approval still finds its row. At most one
-- row per (sales_order, action) is open at a time (a partial unique index).
-- PostgreSQL changes the key in place (SQLite rebuilds the table).
ALTER TABLE action_ledger ADD COLUMN order_version TEXT NOT NULL DEFAULT '';
ALTER TABLE action_ledger ADD COLUMN requested TEXT NOT NULL DEFAULT '';
ALTER TABLE action_ledger DROP CONSTRAINT action_ledger_pkey;
ALTER TABLE action_ledger ADD CONSTRAINT action_ledger_pkey
    PRIMARY KEY (sales_order, action, order_version, requested);
CREATE UNIQUE INDEX action_ledger_one_open ON action_ledger (sales_order, action)
    WHERE state IN ('recorded', 'retrying');
