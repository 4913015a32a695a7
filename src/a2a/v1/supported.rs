//! The versions this agent speaks: one list, named both by the negotiation
//! (`version`) and by the −32009 errors that tell a caller what to send
//! (`error`), in a leaf of its own because `version` builds those errors.

/// The versions this agent speaks, as `Major.Minor`.
pub const SUPPORTED_VERSIONS: [&str; 2] = ["0.3", "1.0"];
