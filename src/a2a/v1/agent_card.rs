//! The 1.0 agent card (`AgentCard` in `a2a.proto`): `supportedInterfaces`
//! instead of 0.3's `url`/`preferredTransport`/`protocolVersion`, the
//! extended card under `capabilities.extendedAgentCard`, security schemes as
//! a oneof per scheme and `securityRequirements` instead of `security`.
//!
//! This is the pure 1.0 card. The merged card that 0.3 and 1.0 clients both
//! accept (the 0.3 keys next to these, `a2a-1.0.md` §6.1) is built where the
//! card is served, from this one and the 0.3 card.

use super::protojson::{Struct, nullable, protojson_message, protojson_oneof};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `protocolBinding` of the JSON-RPC interface.
pub const BINDING_JSONRPC: &str = "JSONRPC";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct AgentCard {
    pub name: String,
    pub description: String,
    /// The first entry is preferred.
    #[serde(alias = "supported_interfaces")]
    pub supported_interfaces: Vec<AgentInterface>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<AgentProvider>,
    pub version: String,
    #[serde(
        default,
        alias = "documentation_url",
        skip_serializing_if = "Option::is_none"
    )]
    pub documentation_url: Option<String>,
    pub capabilities: AgentCapabilities,
    #[serde(
        default,
        alias = "security_schemes",
        deserialize_with = "nullable",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub security_schemes: BTreeMap<String, SecurityScheme>,
    #[serde(
        default,
        alias = "security_requirements",
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub security_requirements: Vec<SecurityRequirement>,
    #[serde(alias = "default_input_modes")]
    pub default_input_modes: Vec<String>,
    #[serde(alias = "default_output_modes")]
    pub default_output_modes: Vec<String>,
    pub skills: Vec<AgentSkill>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub signatures: Vec<AgentCardSignature>,
    #[serde(default, alias = "icon_url", skip_serializing_if = "Option::is_none")]
    pub icon_url: Option<String>,
}

impl AgentCard {
    /// The pure 1.0 card inside a merged card (the 0.3 card type carrying
    /// the 1.0 members beside its own, `a2a-1.0.md` §6.1): the 0.3 keys
    /// are unknown to 1.0 and ignored.
    pub fn try_from_merged(
        card: &crate::a2a::agent_card::AgentCard,
    ) -> Result<AgentCard, serde_json::Error> {
        serde_json::to_value(card).and_then(serde_json::from_value)
    }
}

/// A URL, a binding and a protocol version (`Major.Minor`: `"1.0"`, `"0.3"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct AgentInterface {
    pub url: String,
    #[serde(alias = "protocol_binding")]
    pub protocol_binding: String,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    #[serde(alias = "protocol_version")]
    pub protocol_version: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct AgentProvider {
    pub url: String,
    pub organization: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct AgentCapabilities {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming: Option<bool>,
    #[serde(
        default,
        alias = "push_notifications",
        skip_serializing_if = "Option::is_none"
    )]
    pub push_notifications: Option<bool>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub extensions: Vec<AgentExtension>,
    /// 0.3's top-level `supportsAuthenticatedExtendedCard`.
    #[serde(
        default,
        alias = "extended_agent_card",
        skip_serializing_if = "Option::is_none"
    )]
    pub extended_agent_card: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct AgentExtension {
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub uri: String,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub description: String,
    /// A client that does not request it gets −32008.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub required: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Struct>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct AgentSkill {
    pub id: String,
    pub name: String,
    pub description: String,
    pub tags: Vec<String>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub examples: Vec<String>,
    #[serde(
        default,
        alias = "input_modes",
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub input_modes: Vec<String>,
    #[serde(
        default,
        alias = "output_modes",
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub output_modes: Vec<String>,
    #[serde(
        default,
        alias = "security_requirements",
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub security_requirements: Vec<SecurityRequirement>,
}

/// A JWS (RFC 7515) signature of the card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct AgentCardSignature {
    pub protected: String,
    pub signature: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<Struct>,
}

/// Scheme name → the scopes it needs: `{"schemes": {"ias": {"list": []}}}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct SecurityRequirement {
    #[serde(default, deserialize_with = "nullable")]
    pub schemes: BTreeMap<String, StringList>,
}

/// A list of strings. `list` is always written, `[]` too, as the spec's
/// examples show it (ProtoJSON readers accept both).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct StringList {
    #[serde(default, deserialize_with = "nullable")]
    pub list: Vec<String>,
}

protojson_oneof! {
    /// One security scheme: the member name tells its type (no `type` key).
    pub enum SecurityScheme {
        ApiKey(ApiKeySecurityScheme) = "apiKeySecurityScheme" | "api_key_security_scheme",
        HttpAuth(HttpAuthSecurityScheme) = "httpAuthSecurityScheme" | "http_auth_security_scheme",
        OAuth2(OAuth2SecurityScheme) = "oauth2SecurityScheme" | "oauth2_security_scheme",
        OpenIdConnect(OpenIdConnectSecurityScheme) = "openIdConnectSecurityScheme" | "open_id_connect_security_scheme",
        MutualTls(MutualTlsSecurityScheme) = "mtlsSecurityScheme" | "mtls_security_scheme",
    }
}

/// An API key; 0.3's `in` is `location` in 1.0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct ApiKeySecurityScheme {
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub description: String,
    /// `query`, `header` or `cookie`.
    pub location: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct HttpAuthSecurityScheme {
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub description: String,
    pub scheme: String,
    #[serde(
        default,
        alias = "bearer_format",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub bearer_format: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct OAuth2SecurityScheme {
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub description: String,
    /// One flow per scheme in 1.0.
    pub flows: OAuthFlows,
    #[serde(
        default,
        alias = "oauth2_metadata_url",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub oauth2_metadata_url: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct OpenIdConnectSecurityScheme {
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub description: String,
    #[serde(alias = "open_id_connect_url")]
    pub open_id_connect_url: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct MutualTlsSecurityScheme {
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub description: String,
}

protojson_oneof! {
    /// The one OAuth 2.0 flow of a scheme (`implicit` and `password` are
    /// deprecated in 1.0, not removed).
    pub enum OAuthFlows {
        AuthorizationCode(AuthorizationCodeOAuthFlow) = "authorizationCode" | "authorization_code",
        ClientCredentials(ClientCredentialsOAuthFlow) = "clientCredentials" | "client_credentials",
        Implicit(ImplicitOAuthFlow) = "implicit",
        Password(PasswordOAuthFlow) = "password",
        DeviceCode(DeviceCodeOAuthFlow) = "deviceCode" | "device_code",
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct AuthorizationCodeOAuthFlow {
    #[serde(alias = "authorization_url")]
    pub authorization_url: String,
    #[serde(alias = "token_url")]
    pub token_url: String,
    #[serde(
        default,
        alias = "refresh_url",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub refresh_url: String,
    /// Scope → description; REQUIRED, so written even when empty.
    #[serde(default, deserialize_with = "nullable")]
    pub scopes: BTreeMap<String, String>,
    #[serde(
        default,
        alias = "pkce_required",
        deserialize_with = "nullable",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub pkce_required: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct ClientCredentialsOAuthFlow {
    #[serde(alias = "token_url")]
    pub token_url: String,
    #[serde(
        default,
        alias = "refresh_url",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub refresh_url: String,
    #[serde(default, deserialize_with = "nullable")]
    pub scopes: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct ImplicitOAuthFlow {
    #[serde(
        default,
        alias = "authorization_url",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub authorization_url: String,
    #[serde(
        default,
        alias = "refresh_url",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub refresh_url: String,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub scopes: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct PasswordOAuthFlow {
    #[serde(
        default,
        alias = "token_url",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub token_url: String,
    #[serde(
        default,
        alias = "refresh_url",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub refresh_url: String,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub scopes: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct DeviceCodeOAuthFlow {
    #[serde(alias = "device_authorization_url")]
    pub device_authorization_url: String,
    #[serde(alias = "token_url")]
    pub token_url: String,
    #[serde(
        default,
        alias = "refresh_url",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub refresh_url: String,
    #[serde(default, deserialize_with = "nullable")]
    pub scopes: BTreeMap<String, String>,
}

protojson_message!(
    AgentCard,
    AgentInterface,
    AgentProvider,
    AgentCapabilities,
    AgentExtension,
    AgentSkill,
    AgentCardSignature,
    SecurityRequirement,
    StringList,
    ApiKeySecurityScheme,
    HttpAuthSecurityScheme,
    OAuth2SecurityScheme,
    OpenIdConnectSecurityScheme,
    MutualTlsSecurityScheme,
    AuthorizationCodeOAuthFlow,
    ClientCredentialsOAuthFlow,
    ImplicitOAuthFlow,
    PasswordOAuthFlow,
    DeviceCodeOAuthFlow,
);

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// Our card with authentication on, as `a2a-1.0.md` §6 shows it.
    pub(crate) fn sample_card() -> AgentCard {
        let url = "https://agent.example.com/";
        let interface = |version: &str| AgentInterface {
            url: url.into(),
            protocol_binding: BINDING_JSONRPC.into(),
            tenant: String::new(),
            protocol_version: version.into(),
        };
        AgentCard {
            name: "Order Exception Agent".into(),
            description: "Explains blocked sales orders.".into(),
            supported_interfaces: vec![interface("1.0"), interface("0.3")],
            provider: Some(AgentProvider {
                url: "https://example.com".into(),
                organization: "Example".into(),
            }),
            version: "0.1.0".into(),
            documentation_url: None,
            capabilities: AgentCapabilities {
                streaming: Some(true),
                push_notifications: Some(true),
                extensions: Vec::new(),
                extended_agent_card: Some(true),
            },
            security_schemes: BTreeMap::from([(
                "ias".to_string(),
                SecurityScheme::OpenIdConnect(OpenIdConnectSecurityScheme {
                    description: "SAP Cloud Identity Services".into(),
                    open_id_connect_url:
                        "https://tenant.accounts.ondemand.com/.well-known/openid-configuration"
                            .into(),
                }),
            )]),
            security_requirements: vec![SecurityRequirement {
                schemes: BTreeMap::from([("ias".to_string(), StringList::default())]),
            }],
            default_input_modes: vec!["text/plain".into()],
            default_output_modes: vec!["text/plain".into(), "application/json".into()],
            skills: vec![AgentSkill {
                id: "credit-block".into(),
                name: "Credit block".into(),
                description: "Explains a credit block.".into(),
                tags: vec!["credit".into()],
                examples: vec!["Why is order 4711 blocked?".into()],
                input_modes: Vec::new(),
                output_modes: Vec::new(),
                security_requirements: Vec::new(),
            }],
            signatures: Vec::new(),
            icon_url: None,
        }
    }

    #[test]
    fn the_card_is_written_in_the_1_0_shape() {
        let written = serde_json::to_value(sample_card()).expect("writes");
        assert_eq!(
            written["supportedInterfaces"],
            json!([
                {"url": "https://agent.example.com/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                {"url": "https://agent.example.com/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
            ])
        );
        assert_eq!(
            written["securitySchemes"],
            json!({"ias": {"openIdConnectSecurityScheme": {
                "description": "SAP Cloud Identity Services",
                "openIdConnectUrl": "https://tenant.accounts.ondemand.com/.well-known/openid-configuration"
            }}})
        );
        assert_eq!(
            written["securityRequirements"],
            json!([{"schemes": {"ias": {"list": []}}}])
        );
        assert_eq!(
            written["capabilities"],
            json!({"streaming": true, "pushNotifications": true, "extendedAgentCard": true})
        );
        for key in [
            "url",
            "preferredTransport",
            "protocolVersion",
            "security",
            "kind",
        ] {
            assert!(written.get(key).is_none(), "no 0.3 `{key}` in the 1.0 card");
        }
        let read: AgentCard = serde_json::from_value(written).expect("reads back");
        assert_eq!(read, sample_card());
    }

    #[test]
    fn a_merged_card_reads_as_its_1_0_part() {
        // The 0.3 keys next to the 1.0 ones (a2a-1.0.md §6.1) are ignored.
        let mut merged = serde_json::to_value(sample_card()).expect("writes");
        merged["url"] = json!("https://agent.example.com/");
        merged["protocolVersion"] = json!("0.3.0");
        merged["securitySchemes"]["ias"]["type"] = json!("openIdConnect");
        merged["securitySchemes"]["ias"]["openIdConnectUrl"] = json!("https://x");
        let read: AgentCard = serde_json::from_value(merged).expect("reads");
        assert_eq!(read, sample_card());
    }

    #[test]
    fn oauth_flows_are_one_flow_per_scheme() {
        let scheme: SecurityScheme = serde_json::from_value(json!({
            "oauth2_security_scheme": {"flows": {"client_credentials": {
                "token_url": "https://idp/token", "scopes": {"read": "Read"}}}}
        }))
        .expect("reads");
        let SecurityScheme::OAuth2(oauth) = &scheme else {
            panic!("an OAuth2 scheme: {scheme:?}");
        };
        assert_eq!(oauth.flows.member_name(), "clientCredentials");
        assert_eq!(
            serde_json::to_value(&scheme).expect("writes"),
            json!({"oauth2SecurityScheme": {"flows": {"clientCredentials": {
                "tokenUrl": "https://idp/token", "scopes": {"read": "Read"}}}}})
        );
        let two = json!({"flows": {"implicit": {}, "password": {}}});
        assert!(serde_json::from_value::<OAuth2SecurityScheme>(two).is_err());
    }
}
