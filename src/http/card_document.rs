//! The agent card document: built once at start from settings and the
//! agent's skills, served with an ETag.

use crate::a2a::agent_card::{
    AgentCapabilities, AgentCard, AgentInterface, AgentProvider, AgentSkill, PROTOCOL_VERSION,
    SupportedInterface,
};
use crate::agent::language::lexicon::lexicon;
use crate::agent::{Language, OfferedAction, Skill};
use crate::auth::IdentityConfig;
use serde::{Deserialize, Serialize};
use serde_json::{Map, json};
use std::hash::{Hash, Hasher};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct CardSettings {
    pub name: String,
    pub description: String,
    pub provider_organization: String,
    pub provider_url: String,
    pub documentation_url: Option<String>,
    /// `Cache-Control: max-age` of the card, in seconds.
    pub cache_max_age_secs: u64,
}

impl Default for CardSettings {
    fn default() -> Self {
        CardSettings {
            name: "Order Exception Agent".into(),
            description: "Explains why SAP sales orders are stuck (credit blocks, price disputes, \
                          missing master data, delivery blocks) and proposes the next action."
                .into(),
            provider_organization: "order-exception-agent".into(),
            provider_url: "https://example.com/order-exception-agent".into(),
            documentation_url: None,
            cache_max_age_secs: 300,
        }
    }
}

/// The serialized card and its validator.
#[derive(Debug, Clone)]
pub struct CardDocument {
    pub card: AgentCard,
    pub json: String,
    /// A strong ETag, quoted.
    pub etag: String,
    pub max_age_secs: u64,
}

pub fn build_card(
    settings: &CardSettings,
    public_url: &str,
    skills: &[&Skill],
    identity: Option<&IdentityConfig>,
    push_notifications: bool,
) -> AgentCard {
    // With authentication on, callers learn where tokens come from.
    let (security_schemes, security) = match identity {
        Some(identity) => {
            let tenant = identity
                .url
                .clone()
                .unwrap_or_else(|| format!("https://{}", identity.domains[0]));
            let mut schemes = Map::new();
            let discovery = format!(
                "{}/.well-known/openid-configuration",
                tenant.trim_end_matches('/')
            );
            let description = "SAP Cloud Identity Services (IAS) App2App token for this application's provided API";
            // 0.3's keys, and 1.0's oneof member beside them (a2a-1.0.md §6.1).
            schemes.insert(
                "ias".into(),
                json!({
                    "type": "openIdConnect",
                    "openIdConnectUrl": discovery,
                    "description": description,
                    "openIdConnectSecurityScheme": {
                        "openIdConnectUrl": discovery,
                        "description": description
                    }
                }),
            );
            let mut requirement = Map::new();
            requirement.insert("ias".into(), json!([]));
            (Some(schemes), Some(vec![requirement]))
        }
        None => (None, None),
    };
    AgentCard {
        protocol_version: PROTOCOL_VERSION.into(),
        name: settings.name.clone(),
        description: settings.description.clone(),
        url: public_url.into(),
        preferred_transport: "JSONRPC".into(),
        additional_interfaces: vec![AgentInterface {
            url: public_url.into(),
            transport: "JSONRPC".into(),
        }],
        provider: Some(AgentProvider {
            organization: settings.provider_organization.clone(),
            url: settings.provider_url.clone(),
        }),
        version: env!("CARGO_PKG_VERSION").into(),
        documentation_url: settings.documentation_url.clone(),
        capabilities: AgentCapabilities {
            streaming: true,
            push_notifications,
            state_transition_history: false,
            extended_agent_card: identity.is_some().then_some(true),
        },
        security_schemes,
        security,
        // Text, and data parts: the agent reads the fields it knows (an
        // order number, a block note); files are refused with -32005.
        default_input_modes: vec!["text/plain".into(), "application/json".into()],
        default_output_modes: vec!["text/plain".into(), "application/json".into()],
        skills: skills
            .iter()
            .map(|skill| AgentSkill {
                id: skill.id.into(),
                name: skill.name.into(),
                description: skill
                    .description
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" "),
                tags: skill
                    .tags
                    .iter()
                    .map(|t| t.to_string())
                    .chain(spoken(skill).map(|language| format!("language:{language}")))
                    .collect(),
                examples: examples(skill),
                input_modes: None,
                output_modes: None,
            })
            .collect(),
        supports_authenticated_extended_card: identity.is_some(),
        // 1.0 first: the 1.0 SDKs and the TCK take the first entry.
        supported_interfaces: ["1.0", "0.3"]
            .into_iter()
            .map(|version| SupportedInterface {
                url: public_url.into(),
                protocol_binding: "JSONRPC".into(),
                protocol_version: version.into(),
            })
            .collect(),
        security_requirements: identity
            .is_some()
            .then(|| vec![json!({"schemes": {"ias": {"list": []}}})]),
    }
}

/// The languages a skill is understood in: English (the card's own words),
/// then each language whose vocabulary file has examples for it.
fn spoken(skill: &Skill) -> impl Iterator<Item = Language> {
    let others = lexicon()
        .examples(skill.id)
        .into_iter()
        .map(|(language, _)| language);
    std::iter::once(Language::En).chain(others.filter(|language| *language != Language::En))
}

/// A skill's examples: the card's own (English), then those of every
/// other language the agent understands (`data/lang/*.toml`).
fn examples(skill: &Skill) -> Vec<String> {
    skill
        .examples
        .iter()
        .map(|example| example.to_string())
        .chain(
            lexicon()
                .examples(skill.id)
                .into_iter()
                .flat_map(|(_, examples)| examples.iter().cloned()),
        )
        .collect()
}

/// The card an authenticated caller gets: each skill also says which action
/// it proposes and which roles may approve it, from `offered` (the rule
/// book in force, see [`crate::agent::RuleBook::offered`]).
pub fn extended_card(public: &AgentCard, offered: &[OfferedAction]) -> AgentCard {
    let mut card = public.clone();
    for skill in &mut card.skills {
        let Some(offer) = offered.iter().find(|offer| offer.skill == skill.id) else {
            continue;
        };
        let action = offer.action.as_str();
        let approvers: Vec<&str> = offer.approvers.iter().map(|role| role.as_str()).collect();
        skill.description = if approvers.is_empty() {
            format!(
                "{} Proposes `{action}`; no role may approve it.",
                skill.description
            )
        } else {
            format!(
                "{} Proposes `{action}`; roles that may approve it: {}.",
                skill.description,
                approvers.join(", ")
            )
        };
        skill.tags.push(format!("action:{action}"));
        for offered in &offer.decisions {
            let decision = offered.decision;
            let roles: Vec<&str> = offered.roles.iter().map(|role| role.as_str()).collect();
            let who = if roles.is_empty() {
                "no role".to_string()
            } else {
                roles.join(", ")
            };
            skill.description = format!(
                "{} With the approval, `{decision}` ({}) may be decided by: {who}.",
                skill.description,
                decision.bound()
            );
            skill.tags.push(format!("decision:{decision}"));
        }
    }
    card
}

impl CardDocument {
    /// The public card of `agent` at `public_url`: its skills, the identity
    /// service when authentication is on, push when enabled.
    pub fn for_agent(
        settings: &CardSettings,
        public_url: &str,
        agent: &dyn crate::agent::Agent,
        identity: Option<&IdentityConfig>,
        push_notifications: bool,
    ) -> Result<Self, serde_json::Error> {
        let card = build_card(
            settings,
            public_url,
            &agent.skills(),
            identity,
            push_notifications,
        );
        CardDocument::new(card, settings.cache_max_age_secs)
    }

    pub fn new(card: AgentCard, max_age_secs: u64) -> Result<Self, serde_json::Error> {
        let json = serde_json::to_string_pretty(&card)?;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        json.hash(&mut hasher);
        let etag = format!("\"{:016x}\"", hasher.finish());
        Ok(CardDocument {
            card,
            json,
            etag,
            max_age_secs,
        })
    }

    /// Whether an `If-None-Match` header value matches this card.
    pub fn matches(&self, if_none_match: &str) -> bool {
        if_none_match.split(',').map(str::trim).any(|tag| {
            tag == "*" || tag == self.etag || tag.strip_prefix("W/") == Some(self.etag.as_str())
        })
    }
}
