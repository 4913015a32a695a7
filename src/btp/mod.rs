//! Clients of SAP BTP services that more than one room uses: the
//! Destination service (find a destination with the caller's user token,
//! tokens cached until shortly before they expire) and the OAuth pieces
//! around it. `push/` mints Joule callback tokens with it; the S/4HANA
//! backend reads as the user through it. Knows no HTTP server, no task and
//! no agent.

mod destination;
mod error;
mod found;
pub mod oauth;
mod settings;

pub use destination::{DestinationClient, FoundDestination};
pub use error::DestinationError;
pub use settings::{
    DestinationService, DestinationServiceSettings, DestinationSettings, binding_field,
};
