//! What one page of the ledger asks for ([`LedgerQuery`]), newest
//! approval first, and where a page ends ([`LedgerCursor`]): `GET /actions` shows a person the rows they approved,
//! a ledger reader every row, a page at a time, so no call reads or
//! answers more than a page however long the ledger grows. A page ends
//! at a [`LedgerCursor`] (the last row's approval time and key: the order
//! is approval time, then key, both descending), which the next call hands
//! back as an opaque token.

use super::key::ActionKey;
use base64::Engine as _;

/// Rows a page holds when the caller names no limit.
pub const DEFAULT_PAGE_ROWS: usize = 50;

/// The most rows one page may hold.
pub const MAX_PAGE_ROWS: usize = 200;

/// What to list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerQuery {
    /// Only the rows of this approver's key (`LedgerEntry::approver_key`);
    /// `None`: every row.
    pub approver_key: Option<String>,
    /// 1..=[`MAX_PAGE_ROWS`].
    pub limit: usize,
    /// Rows after this cursor only (the next page).
    pub after: Option<LedgerCursor>,
}

/// Where a page ended: its last row's approval time (Unix ms) and key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerCursor {
    pub approved_ms: i64,
    pub key: ActionKey,
}

impl LedgerCursor {
    /// The opaque token a client sends back (`after`).
    pub fn to_token(&self) -> String {
        let parts = serde_json::json!([
            self.approved_ms,
            self.key.sales_order,
            self.key.action,
            self.key.order_version,
            self.key.requested,
        ]);
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(parts.to_string())
    }

    /// `None` when the token is not one of ours.
    pub fn from_token(token: &str) -> Option<LedgerCursor> {
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(token)
            .ok()?;
        let (approved_ms, sales_order, action, order_version, requested): (
            i64,
            String,
            String,
            String,
            String,
        ) = serde_json::from_slice(&bytes).ok()?;
        Some(LedgerCursor {
            approved_ms,
            key: ActionKey::new(&sales_order, &action, &order_version, &requested),
        })
    }

    /// Whether a row approved at `approved_ms` with `key` comes after this
    /// cursor, newest first (the SQL store's `WHERE` says the same).
    pub fn precedes(&self, approved_ms: i64, key: &ActionKey) -> bool {
        (approved_ms, key_parts(key)) < (self.approved_ms, key_parts(&self.key))
    }
}

/// The key's columns in their order.
pub(crate) fn key_parts(key: &ActionKey) -> (&str, &str, &str, &str) {
    (
        &key.sales_order,
        &key.action,
        &key.order_version,
        &key.requested,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_survives_its_token_and_refuses_strangers() {
        let cursor = LedgerCursor {
            approved_ms: 1_796_115_410_123,
            key: ActionKey::new(
                "4740",
                "request_delivery_date_change",
                "W/\"x\"",
                "2026-12-01",
            ),
        };
        assert_eq!(LedgerCursor::from_token(&cursor.to_token()), Some(cursor));
        for stranger in ["", "not a token", "WzFd", "eyJhIjoxfQ"] {
            assert_eq!(LedgerCursor::from_token(stranger), None, "{stranger}");
        }
    }
}
