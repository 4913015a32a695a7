-- A repeated message is not a second request: a task remembers the
-- messageId of the caller's message that opened it (docs/api.md), so a
-- client or proxy retrying a message/send after a dropped connection is
-- answered with that task instead of a second one. The id lives in the
-- task's own row, written by the same insert and deleted with it
-- (retention, trim), so the two never disagree. Numbered 15, not 14: 14
-- may be taken by another change made at the same time.
ALTER TABLE tasks ADD COLUMN message_id TEXT;
CREATE INDEX tasks_by_message ON tasks (message_id, owner) WHERE message_id IS NOT NULL;
