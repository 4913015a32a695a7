use crate::helpers::{TestApp, assert_schema};

#[tokio::test]
async fn the_card_is_served_at_both_well_known_paths_and_is_schema_valid() {
    let app = TestApp::spawn().await;
    let mut cards = Vec::new();
    for path in ["/.well-known/agent-card.json", "/.well-known/agent.json"] {
        let response = app
            .client
            .get(format!("{}{path}", app.address))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200, "{path}");
        assert!(
            response.headers().get("etag").is_some(),
            "{path} has an ETag"
        );
        let cache_control = response.headers()["cache-control"]
            .to_str()
            .unwrap()
            .to_string();
        assert!(cache_control.contains("max-age="), "{cache_control}");
        let card: serde_json::Value = response.json().await.unwrap();
        assert_schema("AgentCard", &card);
        cards.push(card);
    }
    assert_eq!(cards[0], cards[1], "both paths serve the same card");
    let card = &cards[0];
    assert_eq!(card["protocolVersion"], "0.3.0");
    assert_eq!(card["preferredTransport"], "JSONRPC");
    assert_eq!(card["url"], format!("http://127.0.0.1:{}/", app.port));
    assert_eq!(card["capabilities"]["streaming"], true);
    assert_eq!(card["capabilities"]["pushNotifications"], true);
    // Text, and data parts whose known fields (an order number) the agent reads.
    assert_eq!(
        card["defaultInputModes"],
        serde_json::json!(["text/plain", "application/json"])
    );
    let skill_ids: Vec<&str> = card["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| skill["id"].as_str().unwrap())
        .collect();
    assert_eq!(skill_ids, ["credit", "pricing", "masterdata", "delivery"]);
    for skill in card["skills"].as_array().unwrap() {
        assert!(!skill["examples"].as_array().unwrap().is_empty(), "{skill}");
        assert!(!skill["tags"].as_array().unwrap().is_empty(), "{skill}");
    }
}

/// The card lists the languages each skill is understood in: a
/// `language:<code>` tag each, and examples in each of them.
#[tokio::test]
async fn the_card_speaks_every_language() {
    let app = TestApp::spawn().await;
    let card = app.get_json("/.well-known/agent-card.json").await;
    for skill in card["skills"].as_array().unwrap() {
        let tags: Vec<&str> = skill["tags"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|tag| tag.as_str()?.strip_prefix("language:"))
            .collect();
        assert_eq!(tags, ["en", "de", "fr", "es"], "{skill}");
        let examples: Vec<&str> = skill["examples"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|example| example.as_str())
            .collect();
        assert!(examples.len() >= 8, "{skill}");
    }
    let credit = &card["skills"][0];
    assert_eq!(credit["id"], "credit");
    let examples = credit["examples"].to_string();
    for example in [
        "why is order 4711 blocked by credit",
        "Warum ist der Auftrag 4711 wegen des Kreditlimits gesperrt?",
        "Pourquoi la commande 4711 est-elle bloquée pour crédit ?",
        "¿Por qué está bloqueado el pedido 4711 por crédito?",
    ] {
        assert!(examples.contains(example), "{example}: {examples}");
    }
    // The input modes are the same as before.
    assert_eq!(
        card["defaultInputModes"],
        serde_json::json!(["text/plain", "application/json"])
    );
}

#[tokio::test]
async fn if_none_match_with_the_etag_gives_304() {
    let app = TestApp::spawn().await;
    let url = format!("{}/.well-known/agent-card.json", app.address);
    let first = app.client.get(&url).send().await.unwrap();
    let etag = first.headers()["etag"].to_str().unwrap().to_string();

    let again = app
        .client
        .get(&url)
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status().as_u16(), 304);
    assert_eq!(again.headers()["etag"].to_str().unwrap(), etag);
    assert!(again.bytes().await.unwrap().is_empty());

    let weak = app
        .client
        .get(&url)
        .header("If-None-Match", format!("\"other\", W/{etag}"))
        .send()
        .await
        .unwrap();
    assert_eq!(weak.status().as_u16(), 304);

    let stale = app
        .client
        .get(&url)
        .header("If-None-Match", "\"not-the-etag\"")
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status().as_u16(), 200);
}

#[tokio::test]
async fn health_answers_200() {
    let app = TestApp::spawn().await;
    let response = app
        .client
        .get(format!("{}/health", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["status"], "UP");
}

/// One card for both versions: 1.0's `supportedInterfaces` (1.0 first, the
/// same URL as 0.3's `url`) beside the 0.3 keys, so that the 0.3 schema
/// still takes it and the pure 1.0 card inside it is valid 1.0.
#[tokio::test]
async fn the_card_serves_0_3_and_1_0_clients_alike() {
    let app = TestApp::spawn().await;
    let card = app.get_json("/.well-known/agent-card.json").await;
    assert_schema("AgentCard", &card);
    let url = format!("http://127.0.0.1:{}/", app.port);
    assert_eq!(card["url"], url);
    assert_eq!(
        card["supportedInterfaces"],
        serde_json::json!([
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
        ])
    );
    // The 1.0 schema's `additionalProperties: false` refuses the 0.3 keys
    // (a2a_v1_schema.rs, disagreement 5): the 1.0 members alone must pass.
    let mut pure = card.clone();
    if let Some(object) = pure.as_object_mut() {
        for key in [
            "url",
            "preferredTransport",
            "protocolVersion",
            "additionalInterfaces",
            "supportsAuthenticatedExtendedCard",
            "security",
        ] {
            object.remove(key);
        }
    }
    if let Some(capabilities) = pure["capabilities"].as_object_mut() {
        capabilities.remove("stateTransitionHistory");
    }
    crate::protocol::a2a_v1_schema::assert_v1("AgentCard", &pure);
}
