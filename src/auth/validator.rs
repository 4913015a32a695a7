//! Token validation as SAP's libraries do it (`ias-tokens.md` §3): cheap
//! offline checks first, the issuer proven trusted before any network call,
//! then keys and signature, then every claim again on the verified payload,
//! then authorisation.

use super::claim_shape::{check_key_claims, check_kid};
use super::issuer::trusted_issuer;
use super::keys::{KeyCache, KeyError, KeyRequest, KeySource};
use super::principal::{Principal, TokenIssuer, TokenKind};
use super::rejection::{InvalidToken, Rejection};
use super::settings::{IdentityConfig, XsuaaConfig};
use super::tenant::{TenantRule, check_tenant, own_issuer};
use crate::clock::Clock;
use crate::secret::BearerToken;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const LEEWAY_SECS: i64 = 60;
const PRINCIPAL_PROPAGATION: &str = "principal-propagation";
/// XSUAA grants a person signs in with (SAP's `GrantType`, less the
/// clients' `client_credentials` and `client_x509`).
const XSUAA_USER_GRANTS: [&str; 7] = [
    "authorization_code",
    "password",
    "implicit",
    "refresh_token",
    "user_token",
    "urn:ietf:params:oauth:grant-type:jwt-bearer",
    "urn:ietf:params:oauth:grant-type:saml2-bearer",
];

type Claims = Map<String, Value>;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("a bearer token is required")]
    Missing,
    #[error("the token is invalid: {0}")]
    Invalid(InvalidToken),
    #[error("the token does not grant access: {0}")]
    Forbidden(String),
    #[error("the token cannot be checked right now: {0}")]
    Unavailable(String),
}

/// An invalid token of class `reason`, `detail` saying which check failed.
pub(super) fn invalid(reason: Rejection, detail: impl Into<String>) -> AuthError {
    AuthError::Invalid(InvalidToken {
        reason,
        detail: detail.into(),
    })
}

impl AuthError {
    /// A request whose `Authorization` header no token can be read from.
    pub fn malformed(detail: impl Into<String>) -> AuthError {
        invalid(Rejection::Malformed, detail)
    }

    /// The bounded reason of the refusal: `missing`, the invalid token's
    /// class (`expired`, `bad_signature`, …), `forbidden`, `unavailable`.
    pub fn reason(&self) -> &'static str {
        match self {
            AuthError::Missing => "missing",
            AuthError::Invalid(token) => token.reason.as_str(),
            AuthError::Forbidden(_) => "forbidden",
            AuthError::Unavailable(_) => "unavailable",
        }
    }
}

/// How long a verified token is remembered (never past its `exp` or the
/// key cache's lifetime), and how many are remembered.
const VERIFIED_TTL: Duration = Duration::from_secs(300);
const VERIFIED_MAX: usize = 4096;

struct Verified {
    /// Shared with every request that brings the token again (not cloned
    /// field by field for each).
    principal: Arc<Principal>,
    /// `exp` + leeway, in Unix seconds.
    valid_until: i64,
    remembered_until: Instant,
}

pub struct TokenValidator {
    config: IdentityConfig,
    /// The binding's `url` as an issuer: its tokens need no `app_tid`.
    own_issuer: Option<String>,
    keys: Arc<KeyCache>,
    /// SHA-256 of a token that passed every check → its principal. Joule
    /// reuses a user's token for every call of a conversation; this spares
    /// the RSA verification on repeats. Only successes are remembered.
    verified: Mutex<HashMap<[u8; 32], Verified>>,
    clock: Clock,
}

/// The tenant a token names: `app_tid`, else the legacy `zone_uuid`.
fn token_tenant(claims: &Claims) -> Option<&str> {
    text(claims, "app_tid").or_else(|| text(claims, "zone_uuid"))
}

fn text<'a>(claims: &'a Claims, name: &str) -> Option<&'a str> {
    claims
        .get(name)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// A claim naming who calls: text with something besides whitespace.
fn identity<'a>(claims: &'a Claims, name: &str) -> Option<&'a str> {
    text(claims, name).filter(|id| !id.trim().is_empty())
}

/// A claim that may be one string or an array of strings.
fn strings(claims: &Claims, name: &str) -> Vec<String> {
    match claims.get(name) {
        Some(Value::String(one)) => vec![one.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// `exp` required (valid while now < exp + 60 s); `nbf`, else `iat`, not
/// more than 60 s in the future. Seconds out of `i64`'s range saturate
/// (`as`), and so does the leeway added to them.
fn check_times(claims: &Claims, now: i64) -> Result<(), AuthError> {
    let exp = claims
        .get("exp")
        .and_then(Value::as_f64)
        .ok_or_else(|| invalid(Rejection::Malformed, "exp missing or not a number"))?
        as i64;
    if now >= exp.saturating_add(LEEWAY_SECS) {
        return Err(invalid(Rejection::Expired, "expired"));
    }
    let not_before = claims
        .get("nbf")
        .or_else(|| claims.get("iat"))
        .and_then(Value::as_f64);
    if let Some(not_before) = not_before
        && now < (not_before as i64).saturating_sub(LEEWAY_SECS)
    {
        return Err(invalid(Rejection::NotYetValid, "not yet valid"));
    }
    Ok(())
}

/// RS256 only. `exp` and `nbf` are judged by [`check_times`] on the
/// service's clock before any key is asked for (the signed claims are the
/// same claims), so not again here on the system's.
fn rs256_validation() -> Validation {
    let mut validation = Validation::new(Algorithm::RS256);
    validation.leeway = LEEWAY_SECS as u64;
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation
}

fn key_error(error: KeyError) -> AuthError {
    match error {
        KeyError::UnknownKid => invalid(Rejection::UnknownKey, "no signing key with this kid"),
        KeyError::Rejected(reason) => invalid(Rejection::KeysRefused, reason),
        KeyError::Unavailable(reason) => AuthError::Unavailable(reason),
    }
}

/// Why no validator could be built: the settings (exit 2) or the HTTP client.
#[derive(Debug, thiserror::Error)]
pub enum ValidatorSetupError {
    #[error(transparent)]
    Settings(#[from] super::settings::AuthConfigError),
    #[error("cannot build an HTTP client: {0}")]
    HttpClient(#[from] reqwest::Error),
}

impl TokenValidator {
    /// The validator `auth.*` and the `identity`/`xsuaa` bindings ask for;
    /// `None` with authentication off (which `startup.rs` logs loudly).
    pub fn from_settings(
        settings: &super::settings::AuthSettings,
        cloud_foundry: &crate::cloud_foundry::CloudFoundry,
        clock: &Clock,
    ) -> Result<Option<Arc<TokenValidator>>, ValidatorSetupError> {
        match super::settings::resolve(settings, cloud_foundry)? {
            super::settings::ResolvedAuth::Off => Ok(None),
            super::settings::ResolvedAuth::Required(identity) => {
                let http = reqwest::Client::builder()
                    .timeout(identity.http_timeout)
                    .redirect(reqwest::redirect::Policy::none())
                    .build()?;
                let validator = TokenValidator::new(*identity, http, clock.clone());
                let config = &validator.config;
                tracing::info!(
                    client_id = %config.client_id,
                    domains = ?config.domains,
                    own_issuer = validator.own_issuer.as_deref().unwrap_or("-"),
                    "authentication required (IAS App2App tokens)"
                );
                if let (Some(url), None) = (&config.url, &validator.own_issuer) {
                    tracing::warn!(
                        url = %url,
                        "the identity binding's url is not an issuer on a trusted domain: \
                         every token must carry an app_tid"
                    );
                }
                Ok(Some(Arc::new(validator)))
            }
        }
    }

    pub fn new(config: IdentityConfig, http: reqwest::Client, clock: Clock) -> Self {
        let keys = Arc::new(KeyCache::new(
            http,
            config.key_cache_ttl,
            config.test_key_server.clone(),
            clock.clone(),
        ));
        TokenValidator {
            own_issuer: own_issuer(config.url.as_deref(), &config.domains),
            config,
            keys,
            verified: Mutex::new(HashMap::new()),
            clock,
        }
    }

    pub fn config(&self) -> &IdentityConfig {
        &self.config
    }

    /// Validate the caller's bearer token (parsed from the header at the
    /// HTTP edge) and say who called.
    pub async fn authenticate(
        &self,
        token: Option<&BearerToken>,
    ) -> Result<Arc<Principal>, AuthError> {
        let token = token.ok_or(AuthError::Missing)?.expose();
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(principal) = self.remembered(&digest) {
            return Ok(principal);
        }
        // Boxed: the full validation (claims, keys, perhaps a key fetch) is
        // a future of some kB, which every request's future would
        // otherwise carry and move, although a known token never runs it
        // (measured in bench/README.md).
        let (principal, exp) = Box::pin(self.validate(token)).await?;
        let principal = Arc::new(principal);
        self.remember(digest, &principal, exp);
        Ok(principal)
    }

    fn remembered(&self, digest: &[u8; 32]) -> Option<Arc<Principal>> {
        let verified = self.verified.lock().unwrap_or_else(|p| p.into_inner());
        let entry = verified.get(digest)?;
        (self.clock.unix_secs() < entry.valid_until
            && self.clock.instant() < entry.remembered_until)
            .then(|| Arc::clone(&entry.principal))
    }

    fn remember(&self, digest: [u8; 32], principal: &Arc<Principal>, exp: i64) {
        let now = self.clock.instant();
        let mut verified = self.verified.lock().unwrap_or_else(|p| p.into_inner());
        if verified.len() >= VERIFIED_MAX {
            let unix_now = self.clock.unix_secs();
            verified.retain(|_, e| unix_now < e.valid_until && now < e.remembered_until);
            if verified.len() >= VERIFIED_MAX {
                verified.clear();
            }
        }
        verified.insert(
            digest,
            Verified {
                principal: Arc::clone(principal),
                valid_until: exp.saturating_add(LEEWAY_SECS),
                remembered_until: now + VERIFIED_TTL.min(self.config.key_cache_ttl),
            },
        );
    }

    /// Every check, for a token not seen before; returns the principal and `exp`.
    async fn validate(&self, token: &str) -> Result<(Principal, i64), AuthError> {
        // Header: RS256 only (`none` and HMAC fail here), kid required.
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| invalid(Rejection::Malformed, "malformed token"))?;
        if header.alg != Algorithm::RS256 {
            return Err(invalid(
                Rejection::UnsupportedAlgorithm,
                "algorithm is not RS256",
            ));
        }
        let kid = header
            .kid
            .clone()
            .ok_or_else(|| invalid(Rejection::Malformed, "kid missing"))?;
        check_kid(&kid).map_err(|error| invalid(Rejection::Malformed, error.to_string()))?;
        // Unverified claims: only to route (which tenant, which keys), and
        // only short identifiers of them before anything is fetched.
        let unverified: Claims = jsonwebtoken::dangerous::insecure_decode_claims(token)
            .map_err(|_| invalid(Rejection::Malformed, "malformed token payload"))?;
        check_key_claims(&unverified)
            .map_err(|error| invalid(Rejection::Malformed, error.to_string()))?;
        // The claimed issuer, for the `authenticate` span even when the
        // token is refused below (a host name, never the token).
        if let Some(Value::String(claimed)) =
            unverified.get("ias_iss").or_else(|| unverified.get("iss"))
        {
            tracing::Span::current().record("auth.issuer_host", host_of(claimed));
        }
        check_times(&unverified, self.clock.unix_secs())?;
        // Checked numeric by check_times.
        let exp = unverified.get("exp").and_then(Value::as_f64).unwrap_or(0.0) as i64;

        let principal = match &self.config.xsuaa {
            Some(xsuaa)
                if unverified.contains_key("zid") && !unverified.contains_key("ias_iss") =>
            {
                self.xsuaa_token(token, &kid, &unverified, xsuaa).await
            }
            _ => self.ias_token(token, &kid, &unverified).await,
        }?;
        Ok((principal, exp))
    }

    /// The signing key for `kid` from `request`'s key set, then the
    /// signature and `validation`; returns the verified claims.
    async fn verify(
        &self,
        token: &str,
        kid: &str,
        request: &KeyRequest,
        validation: &Validation,
    ) -> Result<Claims, AuthError> {
        let key = self
            .keys
            .signing_key(request, kid)
            .await
            .map_err(key_error)?;
        let claims = jsonwebtoken::decode(token, &key.key, validation)
            .map(|data| data.claims)
            .map_err(|error| {
                invalid(
                    Rejection::of_jwt_error(error.kind()),
                    format!("signature or claims rejected ({:?})", error.kind()),
                )
            })?;
        // Signed by the keys this request fetched: they serve a real caller.
        self.keys.verified(request, &key);
        Ok(claims)
    }

    /// The issuer (`ias_iss`, else `iss`) as a trusted `https://host`.
    fn trusted(&self, claims: &Claims) -> Result<String, AuthError> {
        let issuer = match claims.get("ias_iss").or_else(|| claims.get("iss")) {
            Some(Value::String(issuer)) => issuer.as_str(),
            _ => {
                return Err(invalid(
                    Rejection::UntrustedIssuer,
                    "issuer missing or not a string",
                ));
            }
        };
        let trusted = trusted_issuer(issuer, &self.config.domains, self.config.trailing_slash)
            .map_err(|error| invalid(Rejection::UntrustedIssuer, error.to_string()))?;
        if trusted.slash_stripped {
            tracing::debug!(issuer = %trusted.url, "tolerated a trailing slash in the token issuer");
        }
        Ok(trusted.url)
    }

    /// Audience, then the tenant rule (`tenant.rs`); says which branch of
    /// the tenant rule accepted the token.
    fn check_ias_claims(&self, claims: &Claims, issuer: &str) -> Result<TenantRule, AuthError> {
        if !strings(claims, "aud").contains(&self.config.client_id) {
            return Err(invalid(
                Rejection::WrongAudience,
                "audience does not contain our client id",
            ));
        }
        check_tenant(
            token_tenant(claims),
            issuer,
            self.config.app_tid.as_deref(),
            self.own_issuer.as_deref(),
        )
        .map_err(|error| invalid(Rejection::WrongTenant, error.to_string()))
    }

    async fn ias_token(
        &self,
        token: &str,
        kid: &str,
        unverified: &Claims,
    ) -> Result<Principal, AuthError> {
        let issuer = self.trusted(unverified)?;
        self.check_ias_claims(unverified, &issuer)?;
        let request = KeyRequest {
            source: KeySource::Ias {
                issuer: issuer.clone(),
            },
            client_id: self.config.client_id.clone(),
            app_tid: token_tenant(unverified).map(str::to_string),
            azp: text(unverified, "azp").map(str::to_string),
            azp_app_tid: text(unverified, "azp_app_tid").map(str::to_string),
        };
        let mut validation = rs256_validation();
        validation.set_audience(&[&self.config.client_id]);
        validation.set_required_spec_claims(&["exp", "aud", "iss"]);
        let verified = self.verify(token, kid, &request, &validation).await?;
        // From here on only verified claims count.
        check_times(&verified, self.clock.unix_secs())?;
        if self.trusted(&verified)? != issuer {
            return Err(invalid(Rejection::UntrustedIssuer, "issuer changed"));
        }
        let tenant_rule = self.check_ias_claims(&verified, &issuer)?;
        let mut principal = self.ias_principal(&verified)?;
        principal.issuer_host = host_of(&issuer).to_string();
        principal.tenant_rule = Some(tenant_rule);
        if tenant_rule == TenantRule::OwnIssuerWithoutAppTid {
            // The binding's own tenant, named or not: its callers are keyed
            // alike with and without `app_tid` in their tokens.
            principal.tenant.clone_from(&self.config.app_tid);
        }
        Ok(principal)
    }

    /// `ias_apis` and roles (`ias-tokens.md` §7, §8).
    fn ias_principal(&self, claims: &Claims) -> Result<Principal, AuthError> {
        let sub = identity(claims, "sub");
        let azp = text(claims, "azp");
        let kind = if (sub.is_some() && sub == azp) || text(claims, "sap_id_type") == Some("app") {
            TokenKind::Technical
        } else {
            TokenKind::User
        };
        let user_id = match kind {
            TokenKind::User => identity(claims, "user_uuid")
                .or_else(|| identity(claims, "scim_id"))
                .or(sub)
                .ok_or_else(|| {
                    invalid(
                        Rejection::Malformed,
                        "a user token names no user (user_uuid, scim_id or sub)",
                    )
                })?,
            TokenKind::Technical => sub.or(azp).ok_or_else(|| {
                invalid(
                    Rejection::Malformed,
                    "a technical token names no client (azp or sub)",
                )
            })?,
        };
        let apis = strings(claims, "ias_apis");
        if claims.contains_key("ias_apis") {
            let granted = apis.contains(&self.config.required_api)
                || (apis.iter().any(|a| a == PRINCIPAL_PROPAGATION) && kind == TokenKind::User);
            if !granted {
                return Err(AuthError::Forbidden(format!(
                    "the calling application lacks the API permission group `{}`",
                    self.config.required_api
                )));
            }
        } else if azp != Some(self.config.client_id.as_str()) {
            return Err(AuthError::Forbidden(
                "the token grants no API permission group for this application".into(),
            ));
        }
        let roles: BTreeSet<_> = match kind {
            TokenKind::User => strings(claims, "groups")
                .iter()
                .filter_map(|group| self.config.group_roles.get(group).copied())
                .collect(),
            TokenKind::Technical => BTreeSet::new(),
        };
        if kind == TokenKind::User && roles.is_empty() {
            return Err(AuthError::Forbidden(
                "the user has no role for this agent".into(),
            ));
        }
        let display_name = text(claims, "name").map(str::to_string).or_else(|| {
            let given = text(claims, "given_name").or_else(|| text(claims, "first_name"));
            let family = text(claims, "family_name").or_else(|| text(claims, "last_name"));
            match (given, family) {
                (Some(g), Some(f)) => Some(format!("{g} {f}")),
                (Some(one), None) | (None, Some(one)) => Some(one.to_string()),
                (None, None) => None,
            }
        });
        Ok(Principal {
            user_id: user_id.to_string(),
            email: text(claims, "email")
                .or_else(|| text(claims, "mail"))
                .map(str::to_string),
            display_name,
            client_id: azp.map(str::to_string),
            tenant: token_tenant(claims).map(str::to_string),
            kind,
            issuer: TokenIssuer::Ias,
            issuer_host: String::new(),
            tenant_rule: None,
            apis,
            roles,
        })
    }

    async fn xsuaa_token(
        &self,
        token: &str,
        kid: &str,
        unverified: &Claims,
        xsuaa: &XsuaaConfig,
    ) -> Result<Principal, AuthError> {
        // A short identifier, if any (`claim_shape.rs`).
        let zid = text(unverified, "zid")
            .ok_or_else(|| invalid(Rejection::WrongTenant, "zid missing"))?;
        let request = KeyRequest {
            source: KeySource::Xsuaa {
                uaa_domain: xsuaa.uaa_domain.clone(),
                zid: zid.to_string(),
            },
            client_id: xsuaa.client_id.clone(),
            app_tid: None,
            azp: None,
            azp_app_tid: None,
        };
        let mut validation = rs256_validation();
        // XSUAA audiences follow their own rule, checked below.
        validation.validate_aud = false;
        validation.set_required_spec_claims(&["exp"]);
        let verified = self.verify(token, kid, &request, &validation).await?;
        check_times(&verified, self.clock.unix_secs())?;
        if text(&verified, "zid") != Some(zid) {
            return Err(invalid(Rejection::WrongTenant, "zid changed"));
        }
        let scopes = strings(&verified, "scope");
        // Audience candidates: `aud` (else the scopes' prefixes) plus `cid`/`azp`,
        // each cut at the first '.'; one must be our client id or xsappname.
        let mut candidates = strings(&verified, "aud");
        if candidates.is_empty() {
            candidates = scopes.clone();
        }
        candidates.extend(strings(&verified, "cid"));
        candidates.extend(strings(&verified, "azp"));
        let audience_ok = candidates.iter().any(|candidate| {
            let head = candidate.split('.').next().unwrap_or("");
            head == xsuaa.client_id || head == xsuaa.xsappname
        });
        if !audience_ok {
            return Err(invalid(
                Rejection::WrongAudience,
                "audience does not name this application",
            ));
        }
        let prefix = format!("{}.", xsuaa.xsappname);
        let roles: BTreeSet<_> = scopes
            .iter()
            .filter_map(|scope| scope.strip_prefix(&prefix))
            .filter_map(|name| name.parse().ok())
            .collect();
        if roles.is_empty() {
            return Err(AuthError::Forbidden(format!(
                "the token has no `{prefix}<role>` scope for this agent"
            )));
        }
        // A person only by a grant a person signs in with; `client_x509`,
        // `client_credentials` and any grant not known here are a client's.
        let kind = match text(&verified, "grant_type") {
            Some(grant) if XSUAA_USER_GRANTS.contains(&grant) => TokenKind::User,
            _ => TokenKind::Technical,
        };
        let client_id = identity(&verified, "cid").or_else(|| identity(&verified, "azp"));
        let user_id = match kind {
            TokenKind::User => identity(&verified, "user_id")
                .or_else(|| identity(&verified, "user_name"))
                .or_else(|| identity(&verified, "sub"))
                .ok_or_else(|| {
                    invalid(
                        Rejection::Malformed,
                        "a user token names no user (user_id, user_name or sub)",
                    )
                })?,
            TokenKind::Technical => identity(&verified, "sub").or(client_id).ok_or_else(|| {
                invalid(
                    Rejection::Malformed,
                    "a client token names no client (cid, azp or sub)",
                )
            })?,
        };
        Ok(Principal {
            user_id: user_id.to_string(),
            email: text(&verified, "email").map(str::to_string),
            display_name: text(&verified, "user_name").map(str::to_string),
            client_id: client_id.map(str::to_string),
            tenant: Some(zid.to_string()),
            kind,
            issuer: TokenIssuer::Xsuaa,
            tenant_rule: None,
            issuer_host: text(&verified, "iss")
                .map(host_of)
                .unwrap_or(xsuaa.uaa_domain.as_str())
                .to_string(),
            apis: Vec::new(),
            roles: if kind == TokenKind::User {
                roles
            } else {
                BTreeSet::new()
            },
        })
    }
}

/// The host of an issuer URL (`https://tenant.accounts.ondemand.com/` →
/// `tenant.accounts.ondemand.com`); the text itself when it has no scheme.
fn host_of(issuer: &str) -> &str {
    let rest = issuer.split_once("://").map_or(issuer, |(_, rest)| rest);
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    &rest[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_future_does_not_carry_the_validation_of_a_new_token() {
        // Every request awaits `authenticate`; the validation of a token
        // not seen before (2.5 kB of future in a debug build) is boxed, so
        // the request's own future stays small for the common case, a
        // token already verified.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let config = IdentityConfig {
            client_id: "client".into(),
            url: None,
            domains: vec!["accounts.test".into()],
            app_tid: None,
            required_api: String::new(),
            trailing_slash: super::super::issuer::TrailingSlash::Tolerate,
            group_roles: HashMap::new(),
            protect_card: false,
            http_timeout: Duration::from_secs(1),
            key_cache_ttl: Duration::from_secs(60),
            test_key_server: None,
            xsuaa: None,
        };
        let validator = TokenValidator::new(config, reqwest::Client::new(), Clock::default());
        let authenticating = validator.authenticate(None);
        let size = std::mem::size_of_val(&authenticating);
        assert!(size <= 256, "authenticate's future is {size} bytes");
    }

    #[test]
    fn time_claims_at_the_ends_of_the_range_saturate() {
        let now = 1_800_000_000;
        let times = |pairs: &[(&str, f64)]| -> Claims {
            pairs
                .iter()
                .map(|(name, value)| (name.to_string(), serde_json::json!(value)))
                .collect()
        };
        // Far-future exp, far-past nbf: valid, no overflow.
        for claims in [
            times(&[("exp", 1e19)]),
            times(&[("exp", i64::MAX as f64), ("nbf", -1e19)]),
            times(&[("exp", 1e300), ("iat", i64::MIN as f64)]),
        ] {
            assert_eq!(check_times(&claims, now), Ok(()), "{claims:?}");
        }
        // Far-past exp, far-future nbf: refused, not wrapped into validity.
        let expired = check_times(&times(&[("exp", -1e19)]), now);
        assert!(matches!(expired, Err(AuthError::Invalid(t)) if t.reason == Rejection::Expired));
        let early = check_times(&times(&[("exp", 1e19), ("nbf", 1e19)]), now);
        assert!(matches!(early, Err(AuthError::Invalid(t)) if t.reason == Rejection::NotYetValid));
    }

    #[test]
    fn the_issuer_host_is_the_authority_of_the_url() {
        assert_eq!(
            host_of("https://tenant.accounts.ondemand.com/"),
            "tenant.accounts.ondemand.com"
        );
        assert_eq!(
            host_of("https://t.accounts.test/oauth?x=1"),
            "t.accounts.test"
        );
        assert_eq!(host_of("tenant.accounts.test"), "tenant.accounts.test");
    }
}
