//! What understanding a request costs: the router's decision and the
//! turn's language, per request, over the routing evaluation's texts
//! (`data/routing_eval.json`). Run by `bench/router_cost.sh`, which also
//! runs an older build of this file side by side (the language part does
//! not exist there: it is cut out between the `language:` markers).
//!
//! Prints one line per round and the medians: nanoseconds per request for
//! routing, for the language and for both.

use order_exception_agent::Skill;
use order_exception_agent::routing::{Router, all_specialists};
use serde_json::Value;
use std::hint::black_box;
use std::time::Instant;

/// Each round routes every text this many times.
const PASSES: usize = 200;

fn texts(language_filter: Option<&str>) -> Vec<String> {
    let file = std::fs::read_to_string("data/routing_eval.json")
        .unwrap_or_else(|error| panic!("data/routing_eval.json: {error} (run from the root)"));
    let cases: Vec<Value> = serde_json::from_str(&file).expect("the eval set is JSON");
    cases
        .iter()
        .filter(|case| match language_filter {
            Some(wanted) => case["language"].as_str().unwrap_or("en") == wanted,
            None => true,
        })
        .filter_map(|case| case["text"].as_str().map(str::to_string))
        .collect()
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn nanos_per_text(texts: &[String], mut each: impl FnMut(&str)) -> f64 {
    let started = Instant::now();
    for _ in 0..PASSES {
        for text in texts {
            each(text);
        }
    }
    started.elapsed().as_nanos() as f64 / (PASSES * texts.len()) as f64
}

fn main() {
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(15);
    // ALL=1: every language's cases; else the English ones, which an older
    // build routes too.
    let all = std::env::var("ALL").is_ok_and(|v| v == "1");
    let texts = texts(if all { None } else { Some("en") });
    let specialists = all_specialists();
    let skills: Vec<&Skill> = specialists.iter().map(|s| s.skill()).collect();
    let router = Router::new(&skills);
    // Warm up: the lexicon and the router's first allocations.
    for text in &texts {
        black_box(router.route(text));
    }
    let (mut routing, mut language) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let route_ns = nanos_per_text(&texts, |text| {
            black_box(router.route(black_box(text)));
        });
        #[allow(unused_mut, unused_assignments)]
        let mut language_ns = 0.0;
        // language: begin
        language_ns = nanos_per_text(&texts, |text| {
            use order_exception_agent::routing::{LanguageCues, decide};
            black_box(decide(&LanguageCues {
                message_hint: None,
                request_hint: None,
                accept_language: None,
                text: black_box(text),
                conversation: None,
            }));
        });
        // language: end
        println!(
            "round {round}: route {route_ns:.0} ns, language {language_ns:.0} ns, both {:.0} ns",
            route_ns + language_ns
        );
        routing.push(route_ns);
        language.push(language_ns);
    }
    let both: Vec<f64> = routing.iter().zip(&language).map(|(r, l)| r + l).collect();
    println!(
        "{} texts, {rounds} rounds of {PASSES} passes; median per request: route {:.0} ns, \
         language {:.0} ns, both {:.0} ns",
        texts.len(),
        median(&mut routing),
        median(&mut language),
        median(&mut both.clone()),
    );
}
