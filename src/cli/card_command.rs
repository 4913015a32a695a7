//! `card`: fetch the agent card and print it.

use super::output::field;
use super::print;
use super::{AgentArgs, CliError};
use crate::a2a::agent_card::AgentCard;
use serde_json::Value;

pub const EXAMPLES: &str = "\
Examples:
  order-exception-agent card
  order-exception-agent card --url http://127.0.0.1:8080/
  order-exception-agent card --url https://order-agent.example.com/ --json | jq .skills[].id

The card is read from /.well-known/agent-card.json on the host of --url.";

#[derive(Debug, Clone, clap::Args)]
pub struct CardArgs {
    #[command(flatten)]
    pub target: AgentArgs,

    /// Print the card as JSON, exactly as the agent serves it.
    #[arg(long)]
    pub json: bool,
}

pub async fn run(args: CardArgs) -> Result<u8, CliError> {
    let connection = args.target.connect(None).await?;
    let (card, raw) = connection.client.card().await?;
    if args.json {
        print::line(&pretty(&raw))?;
    } else {
        print::out(&render(&card))?;
        if connection.local.is_some() {
            print::line(
                "(an in-process agent with the embedded demo data and authentication off; it stops with this command)",
            )?;
        }
    }
    Ok(0)
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

fn yes_no(flag: bool) -> &'static str {
    if flag { "yes" } else { "no" }
}

/// The readable form: name, protocol, endpoint, capabilities, each skill.
pub fn render(card: &AgentCard) -> String {
    let mut out = format!("{}\n", card.name);
    let security = match &card.security_schemes {
        Some(schemes) if !schemes.is_empty() => {
            let names: Vec<String> = schemes
                .iter()
                .map(|(name, scheme)| {
                    let kind = scheme.get("type").and_then(Value::as_str).unwrap_or("?");
                    let url = scheme
                        .get("openIdConnectUrl")
                        .and_then(Value::as_str)
                        .map(|url| format!(" {url}"))
                        .unwrap_or_default();
                    format!("{name} ({kind}{url})")
                })
                .collect();
            names.join(", ")
        }
        _ => "none (no token needed)".into(),
    };
    let lines = [
        field("protocol", &format!("A2A {}", card.protocol_version)),
        field(
            "endpoint",
            &format!("{} ({})", card.url, card.preferred_transport),
        ),
        field("version", &card.version),
        field("about", &card.description),
        field(
            "streaming",
            &format!(
                "{}, push notifications {}",
                yes_no(card.capabilities.streaming),
                yes_no(card.capabilities.push_notifications)
            ),
        ),
        field("security", &security),
    ];
    for line in lines {
        out.push_str(&format!("  {line}\n"));
    }
    out.push_str(&format!("skills ({})\n", card.skills.len()));
    for skill in &card.skills {
        out.push_str(&format!(
            "  {}\n",
            field(&skill.id, &format!("{}: {}", skill.name, skill.description))
        ));
        if !skill.tags.is_empty() {
            out.push_str(&format!(
                "  {}\n",
                field("", &format!("tags: {}", skill.tags.join(", ")))
            ));
        }
        if let Some(example) = skill.examples.first() {
            out.push_str(&format!(
                "  {}\n",
                field("", &format!("e.g. \"{example}\""))
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::agent_card::{AgentCapabilities, AgentSkill};

    #[test]
    fn the_readable_card_names_the_endpoint_and_every_skill() {
        let skill = |id: &str| AgentSkill {
            id: id.into(),
            name: format!("{id} name"),
            description: format!("{id} description"),
            tags: vec![format!("{id}-tag")],
            examples: vec![format!("{id} example")],
            input_modes: None,
            output_modes: None,
        };
        let card = AgentCard {
            protocol_version: "0.3.0".into(),
            name: "Test Agent".into(),
            description: "Tests.".into(),
            url: "http://127.0.0.1:1/".into(),
            preferred_transport: "JSONRPC".into(),
            additional_interfaces: Vec::new(),
            provider: None,
            version: "9.9.9".into(),
            documentation_url: None,
            capabilities: AgentCapabilities {
                streaming: true,
                push_notifications: false,
                state_transition_history: false,
                extended_agent_card: None,
            },
            security_schemes: None,
            security: None,
            default_input_modes: vec!["text/plain".into()],
            default_output_modes: vec!["text/plain".into()],
            skills: vec![skill("alpha"), skill("beta")],
            supports_authenticated_extended_card: false,
            supported_interfaces: Vec::new(),
            security_requirements: None,
        };
        let text = render(&card);
        assert!(text.starts_with("Test Agent\n"), "{text}");
        assert!(text.contains("protocol    A2A 0.3.0"), "{text}");
        assert!(
            text.contains("endpoint    http://127.0.0.1:1/ (JSONRPC)"),
            "{text}"
        );
        assert!(
            text.contains("streaming   yes, push notifications no"),
            "{text}"
        );
        assert!(text.contains("skills (2)"), "{text}");
        for id in ["alpha", "beta"] {
            assert!(
                text.contains(&format!(
                    "{id}{}{id} name: {id} description",
                    " ".repeat(12 - id.len())
                )),
                "{text}"
            );
            assert!(text.contains(&format!("e.g. \"{id} example\"")), "{text}");
        }
    }
}
