//! The agent card document: built once at start from settings and the
//! agent's skills, served with an ETag.

use crate::a2a::card::{
    AgentCapabilities, AgentCard, AgentInterface, AgentProvider, AgentSkill, PROTOCOL_VERSION,
};
use crate::agent::Skill;
use crate::config::CardSettings;
use std::hash::{Hash, Hasher};

/// The serialized card and its validator.
#[derive(Debug, Clone)]
pub struct CardDocument {
    pub card: AgentCard,
    pub json: String,
    /// A strong ETag, quoted.
    pub etag: String,
    pub max_age_secs: u64,
}

pub fn build_card(settings: &CardSettings, public_url: &str, skills: &[&Skill]) -> AgentCard {
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
        // Only what works today: no streaming, no push yet.
        capabilities: AgentCapabilities::default(),
        security_schemes: None,
        security: None,
        default_input_modes: vec!["text/plain".into()],
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
                tags: skill.tags.iter().map(|t| t.to_string()).collect(),
                examples: skill.examples.iter().map(|e| e.to_string()).collect(),
                input_modes: None,
                output_modes: None,
            })
            .collect(),
        supports_authenticated_extended_card: false,
    }
}

impl CardDocument {
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
