-- Task bodies are a few kB of JSON, rewritten on every state change:
-- compressing them (TOAST's pglz) cost more CPU than the disk it saved.
ALTER TABLE tasks ALTER COLUMN body SET STORAGE EXTERNAL;
