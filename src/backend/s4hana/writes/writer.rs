//! One user's write session ([`S4Writer`]) and why a write did not happen
//! ([`WriteError`]): what both the writes (`mod.rs`) and the CSRF session
//! they run in (`session`) hold, in a leaf of its own below them.

use super::super::shared::S4Shared;
use super::super::transport::Target;
use crate::backend::{BackendError, Subject};
use std::sync::Arc;

/// Why a write did not happen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// 412: the order changed since it was read.
    #[error("sales order {0} changed since it was read (412)")]
    Stale(String),
    /// 403: the user may not change this object.
    #[error("you may not change {0} (403)")]
    Forbidden(Subject),
    /// 400 or another refusal: S/4HANA's message.
    #[error("{0}")]
    Refused(String),
    /// A timeout, a connection failure, 429 or 5xx: try again later.
    #[error("S/4HANA did not answer ({0})")]
    Transient(String),
    /// No user identity, or it was not accepted (never a technical stand-in).
    #[error("S/4HANA did not accept your identity: {0}")]
    Identity(String),
    /// The order is not there.
    #[error("sales order {0} was not found")]
    NotFound(String),
}

impl WriteError {
    /// The class of the failure, as a failed span's `error.type` names it.
    pub fn kind(&self) -> &'static str {
        match self {
            WriteError::Stale(_) => "stale",
            WriteError::Forbidden(_) => "forbidden",
            WriteError::Refused(_) => "refused",
            WriteError::Transient(_) => "transient",
            WriteError::Identity(_) => "identity",
            WriteError::NotFound(_) => "not_found",
        }
    }

    /// Worth another attempt later.
    pub fn is_transient(&self) -> bool {
        matches!(self, WriteError::Transient(_))
    }

    pub(super) fn from_read(error: BackendError, order: &str) -> Self {
        match error {
            BackendError::Forbidden(what) => WriteError::Forbidden(what),
            BackendError::NoAnswer(reason) => WriteError::Transient(reason),
            BackendError::NoUser => {
                WriteError::Identity("the request carries no user identity".into())
            }
            BackendError::Identity(reason) => WriteError::Identity(reason),
            BackendError::Unavailable(reason) if reason.contains("429") => {
                WriteError::Transient(reason)
            }
            other => WriteError::Refused(format!("sales order {order}: {other}")),
        }
    }
}

/// One user's write session: the target, the CSRF token and its cookies.
pub struct S4Writer {
    pub(super) shared: Arc<S4Shared>,
    pub(super) target: Target,
    pub(super) session: tokio::sync::Mutex<Option<(String, String)>>,
}
