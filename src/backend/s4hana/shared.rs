//! What every reader and writer of S/4HANA shares: the transport, the
//! block rules, the settings and the audit room the reads report their
//! data accesses to, and what they say of the source. A leaf
//! below the source, its readers, its writers and its set-up, which all
//! hold it.

use super::transport::{Connection, Transport};
use crate::backend::{BlockRules, S4HanaSettings};

/// What every reader shares: the transport, the rules, the audit room.
pub struct S4Shared {
    pub transport: Transport,
    pub rules: BlockRules,
    pub settings: S4HanaSettings,
    pub audit: crate::audit::Audit,
}

impl S4Shared {
    pub(super) fn describe(&self) -> crate::backend::SourceInfo {
        use crate::backend::{ReadIdentity, SourceInfo};
        match &self.transport.connection {
            Connection::Direct { .. } => SourceInfo {
                source: "s4hana",
                identity: ReadIdentity::TechnicalUser,
                connection: Some("direct"),
                destination: None,
                authentication: None,
            },
            Connection::Destination { service, name, .. } => {
                let seen = service.authentication_seen(name);
                let identity = match &seen {
                    None => ReadIdentity::NotYetKnown,
                    Some(kind) if crate::btp::FoundDestination::type_propagates_user(kind) => {
                        ReadIdentity::CallingUser
                    }
                    Some(_) => ReadIdentity::TechnicalUser,
                };
                SourceInfo {
                    source: "s4hana",
                    identity,
                    connection: Some("destination"),
                    destination: Some(name.clone()),
                    authentication: seen,
                }
            }
        }
    }
}
