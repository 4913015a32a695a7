//! Authentication: IAS App2App (and hybrid XSUAA) token validation as SAP's
//! security libraries do it, key discovery and cache, and the `Principal`.
//! Knows no HTTP framework; `http/auth.rs` maps its errors to answers.

pub mod bearer;
pub mod claim_shape;
pub mod fetch_budget;
pub mod fetch_locks;
pub mod issuer;
pub mod keys;
pub mod principal;
pub mod proven_cache;
pub mod refusals;
pub mod rejection;
pub mod settings;
pub mod tenant;
pub mod validator;

pub use bearer::BearerToken;
pub use principal::{Principal, TokenIssuer, TokenKind};
pub use settings::{
    AuthConfigError, AuthMode, AuthSettings, IdentityConfig, ResolvedAuth, resolve,
};
pub use validator::{AuthError, TokenValidator, ValidatorSetupError};
