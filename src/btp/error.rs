//! Why the Destination service gave no (usable) destination: the error of
//! both the client (`destination.rs`) and the reading of its answers
//! (`found.rs`), in a file of its own so that the reader needs nothing of
//! the client that uses it.

use super::oauth::EndpointError;

/// Why the Destination service gave no (usable) destination. Carries no
/// secret and no token: the reasons name URLs, statuses and the service's
/// own words.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum DestinationError {
    #[error("the Destination service URL: {0}")]
    Url(#[from] EndpointError),
    /// The service's token endpoint failed or refused our client.
    #[error("Destination service token request: {0}")]
    Token(String),
    /// The lookup could not be made or answered an unexpected status.
    #[error("destination lookup {0}")]
    Lookup(String),
    #[error("the destination `{0}` does not exist (Destination service 404)")]
    NotFound(String),
    /// The answer is not the JSON of a destination.
    #[error("the destination answer is unreadable: {0}")]
    Unreadable(String),
    /// `authTokens[0].error` (the service's own words about the failed
    /// exchange), or no usable token where the type needs one.
    #[error("the token exchange failed: {0}")]
    Exchange(String),
    /// The destination carries no token (push needs one).
    #[error("the destination returned no token")]
    NoToken,
}
