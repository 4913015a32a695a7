-- The audit outbox (src/audit/outbox.rs): messages for the SAP Audit Log
-- Service until it has them. kept_aside is the reason when the service
-- refused one for good (a 4xx other than 429); NULL while it waits.
CREATE TABLE audit_outbox (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    due_ms BIGINT NOT NULL,
    created_ms BIGINT NOT NULL,
    last_error TEXT,
    kept_aside TEXT
);
CREATE INDEX audit_outbox_due ON audit_outbox (due_ms);

-- What the audit room remembers between starts (the configuration the
-- last start recorded).
CREATE TABLE audit_state (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
