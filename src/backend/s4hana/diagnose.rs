//! The S/4HANA connection checked step by step, for an administrator
//! (`order-exception-agent diagnose`): the destination (exists? which
//! authentication type? `x_user_token.jwks_uri`?), the token exchange for a
//! given user token (`authTokens[0].error` in plain words), `$metadata` of
//! each service, one sample read. Each step is one line: what works, or
//! what to fix.

use super::S4HanaSource;
use super::reads::SERVICES;
use super::transport::{Connection, DirectAuth, Target, Transport};
use crate::backend::{BackendError, OrderSource};
use crate::btp::DestinationError;
use crate::secret::BearerToken;
use std::sync::Arc;

/// One step's result.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub name: String,
    pub ok: bool,
    /// What was found, or what failed and how to fix it.
    pub line: String,
}

fn pass(name: &str, line: String) -> Step {
    Step {
        name: name.into(),
        ok: true,
        line,
    }
}

fn fail(name: &str, line: String) -> Step {
    Step {
        name: name.into(),
        ok: false,
        line,
    }
}

/// Plain words for a failed exchange (`authTokens[0].error`).
pub fn explain_exchange(error: &str) -> String {
    let lower = error.to_lowercase();
    let hint = if lower.contains("unexpected error") {
        "the usual cause is a destination without x_user_token.jwks_uri (the IAS tenant's \
         /oauth2/certs): add it as an additional property"
    } else if lower.contains("business user")
        || (lower.contains("no user") && lower.contains("mail"))
    {
        "the user's IAS e-mail has no S/4HANA business user: create one with this e-mail, or fix \
         the user's e-mail in IAS"
    } else if lower.contains("mail attribute") {
        "the user token carries no e-mail: let IAS put `email` (or `mail`) into the token"
    } else if lower.contains("expired") {
        "the user token has expired: get a fresh one"
    } else if lower.contains("x-user-token") {
        "the lookup was made without a user token"
    } else {
        "check the destination's token service settings and the trust between the subaccount and S/4HANA"
    };
    format!("the Destination service could not exchange the user's token: {error} ({hint})")
}

/// What to fix when S/4HANA answers 401: in direct mode the settings
/// the agent sends as they are; through a destination, the trust behind
/// the token the Destination service made.
fn refused_credentials(connection: &Connection) -> String {
    match connection {
        Connection::Direct { auth, .. } => match auth {
            DirectAuth::Basic { .. } => "401: S/4HANA did not accept backend.s4hana.user and \
                backend.s4hana.password (AGENT__BACKEND__S4HANA__USER, \
                AGENT__BACKEND__S4HANA__PASSWORD): check both, and that this communication user \
                is not locked and belongs to a communication arrangement of the services"
                .into(),
            DirectAuth::ApiKey(_) => "401: S/4HANA did not accept backend.s4hana.api_key \
                (AGENT__BACKEND__S4HANA__API_KEY): check the key"
                .into(),
            DirectAuth::None => "401: S/4HANA wants credentials and direct mode sent none: set \
                backend.s4hana.user and backend.s4hana.password (or backend.s4hana.api_key)"
                .into(),
        },
        Connection::Destination { .. } => "401: S/4HANA did not accept the credentials (for SAML \
            bearer: the communication system's OAuth 2.0 identity provider must be the \
            subaccount's signing certificate)"
            .into(),
    }
}

/// Every step, in order; later steps are skipped (not run) after a failure
/// they depend on.
pub async fn run(
    source: &Arc<S4HanaSource>,
    user_token: Option<&str>,
    sample_order: Option<&str>,
) -> Vec<Step> {
    let shared = source.shared();
    let transport: &Transport = &shared.transport;
    let mut steps = Vec::new();
    let user = user_token.map(BearerToken::new);
    match &transport.connection {
        Connection::Direct { base, .. } => steps.push(pass(
            "connection",
            format!(
                "direct mode: {base} as a technical user (no per-user authorization; for development only)"
            ),
        )),
        Connection::Destination { service, name, proxy, .. } => {
            match service.configuration(name).await {
                Ok(found) => {
                    let mut line = format!(
                        "destination {} found: Authentication {}, ProxyType {}, URL {}",
                        found.name, found.authentication, found.proxy_type, found.url
                    );
                    if let Some(location) = &found.location_id {
                        line.push_str(&format!(", Cloud Connector location {location}"));
                    }
                    let needs_jwks = matches!(
                        found.authentication.as_str(),
                        "OAuth2SAMLBearerAssertion" | "OAuth2JWTBearer"
                    );
                    let has_jwks = found.property_names.contains("x_user_token.jwks_uri")
                        || found.property_names.contains("x_user_token.jwks");
                    if needs_jwks && !has_jwks {
                        steps.push(fail(
                            "destination",
                            format!(
                                "{line}; but it has no x_user_token.jwks_uri: add the IAS tenant's \
                                 https://<tenant>.accounts.ondemand.com/oauth2/certs as that property, \
                                 or every exchange fails"
                            ),
                        ));
                        return steps;
                    }
                    if found.proxy_type.eq_ignore_ascii_case("OnPremise") && proxy.is_none() {
                        steps.push(fail(
                            "destination",
                            format!("{line}; but no connectivity service is bound (OnPremise needs it)"),
                        ));
                        return steps;
                    }
                    if !found.propagates_user() {
                        line.push_str(&format!(
                            " (WARNING: {} is a technical identity, S/4HANA's per-user authorizations do not apply)",
                            found.authentication
                        ));
                    }
                    steps.push(pass("destination", line));
                }
                Err(DestinationError::NotFound(name)) => {
                    steps.push(fail(
                        "destination",
                        format!(
                            "the destination {name} does not exist: create it in the subaccount \
                             (templates in destinations/S4HANA_ORDERS.*.json) or set backend.s4hana.destination"
                        ),
                    ));
                    return steps;
                }
                Err(error) => {
                    steps.push(fail(
                        "destination",
                        format!("{error}: check the destination service binding (or backend.s4hana.destination_service.*)"),
                    ));
                    return steps;
                }
            }
        }
    }
    let target: Target = match transport.target(user.as_ref()).await {
        Ok(target) => {
            if matches!(transport.connection, Connection::Destination { .. }) {
                steps.push(pass(
                    "token exchange",
                    "the Destination service accepted the user's token".into(),
                ));
            }
            target
        }
        Err(BackendError::NoUser) => {
            steps.push(fail(
                "token exchange",
                "no user token given: pass --user-token <a user's IAS token> (or DIAGNOSE_USER_TOKEN); \
                 S/4HANA is only read as a user"
                    .into(),
            ));
            return steps;
        }
        Err(BackendError::Identity(reason)) => {
            steps.push(fail("token exchange", explain_exchange(&reason)));
            return steps;
        }
        Err(error) => {
            steps.push(fail("token exchange", error.to_string()));
            return steps;
        }
    };
    let base = Transport::base_of(&target).clone();
    let mut metadata_ok = true;
    for service in SERVICES {
        let name = format!("$metadata {service}");
        match transport.probe(&target, service, "$metadata").await {
            Ok(200) => steps.push(pass(&name, "answers".into())),
            Ok(401) => {
                metadata_ok = false;
                steps.push(fail(&name, refused_credentials(&transport.connection)))
            }
            Ok(403) => {
                metadata_ok = false;
                steps.push(fail(&name, format!("403: the service is not active or the user may not use it: \
                    activate the communication arrangement that contains {service} and give the user its business role")))
            }
            Ok(404) => {
                metadata_ok = false;
                steps.push(fail(
                    &name,
                    format!(
                        "404: no OData service here: check the URL {base} (it must \
                    be the system's base URL, without /sap/opu/odata/…)"
                    ),
                ))
            }
            Ok(status) => {
                metadata_ok = false;
                steps.push(fail(&name, format!("answered {status}")))
            }
            Err(reason) => {
                metadata_ok = false;
                steps.push(fail(
                    &name,
                    format!(
                        "{reason}: check the URL {base} (and, on premise, the Cloud \
                    Connector's virtual host)"
                    ),
                ))
            }
        }
    }
    if !metadata_ok {
        return steps;
    }
    let reader = Arc::clone(source).as_user(crate::backend::ReadingUser {
        token: user.as_ref(),
        user_id: None,
    });
    let name = "sample read";
    match sample_order {
        Some(number) => match reader.sales_order(number).await {
            Ok(Some(order)) => steps.push(pass(
                name,
                format!(
                    "sales order {} read: customer {}, {} {}{}",
                    order.sales_order,
                    order.sold_to_party,
                    order.total_net_amount,
                    order.transaction_currency,
                    if order.block_note.is_empty() {
                        String::new()
                    } else {
                        format!(", \"{}\"", order.block_note)
                    }
                ),
            )),
            Ok(None) => steps.push(fail(
                name,
                format!("sales order {number} not found (or hidden from this user)"),
            )),
            Err(error) => steps.push(fail(name, error.to_string())),
        },
        None => match reader
            .blocked_orders(&crate::backend::BlockedQuery::any(usize::MAX))
            .await
        {
            Ok(orders) => steps.push(pass(
                name,
                format!("{} blocked or incomplete open orders listed", orders.len()),
            )),
            Err(error) => steps.push(fail(name, error.to_string())),
        },
    }
    steps
}
