//! A small, bounded fuzz of the JSON-RPC decoder:
//! valid requests of every method, mutated at random with a fixed seed (keys
//! dropped or renamed, types swapped, objects turned into arrays, huge
//! strings, deep nesting, unknown methods, broken or missing ids, truncated
//! bodies), sent over real HTTP to one service. Every answer must be HTTP 200
//! with a JSON-RPC response whose error code is of the class the request's
//! envelope calls for, the id echoed (`null` where the id itself was
//! broken or missing), and no Rust type names in the message.

use crate::helpers::{TestApp, user_message};
use futures_util::StreamExt;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// Enough cases to reach every decoder path many times, few enough for a
/// debug build on a shared machine.
const CASES: usize = 2000;
const SEED: u64 = 0x013a_2ade_c0de;

/// xorshift64*: tiny, deterministic, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const METHODS: [&str; 11] = [
    "message/send",
    "tasks/send",
    "tasks/get",
    "tasks/cancel",
    "message/stream",
    "tasks/resubscribe",
    "tasks/pushNotificationConfig/set",
    "tasks/pushNotificationConfig/get",
    "tasks/pushNotificationConfig/list",
    "tasks/pushNotificationConfig/delete",
    "agent/getAuthenticatedExtendedCard",
];

/// Codes a request that passed the envelope may get.
const PARAMS_OR_METHOD_CODES: [i64; 8] = [
    -32602, -32001, -32002, -32003, -32004, -32005, -32006, -32007,
];

/// serde's words for Rust types; answers speak of JSON types.
const RUST_WORDS: [&str; 8] = [
    "struct",
    "elements",
    "i64",
    "u64",
    "enum",
    "identifier",
    "sequence",
    "Option",
];

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// One valid request per method (and a few shapes of `message/send`).
fn seeds(task_id: &str) -> Vec<Value> {
    let webhook = "http://127.0.0.1:9/cb";
    let mut with_everything = user_message("why is order 4711 blocked by credit");
    with_everything["contextId"] = json!("ctx-fuzz");
    with_everything["referenceTaskIds"] = json!([task_id]);
    with_everything["metadata"] = json!({ "source": "fuzz", "tags": [1, 2] });
    with_everything["parts"]
        .as_array_mut()
        .expect("parts")
        .push(json!({ "kind": "data", "data": { "salesOrder": "4711" } }));
    let mut data_only = user_message("x");
    data_only["parts"] = json!([{ "kind": "data", "data": { "SalesOrder": 4725 } }]);
    vec![
        request(
            1,
            "message/send",
            json!({ "message": user_message("why is order 4711 blocked by credit") }),
        ),
        request(
            2,
            "message/send",
            json!({
                "message": with_everything,
                "configuration": {
                    "acceptedOutputModes": ["text/plain"],
                    "historyLength": 2,
                    "blocking": true,
                    "pushNotificationConfig": {
                        "id": "cfg-1", "url": webhook, "token": "tok",
                        "authentication": { "schemes": ["Bearer"], "credentials": "c" }
                    }
                },
                "metadata": { "k": "v" }
            }),
        ),
        request(3, "message/send", json!({ "message": data_only })),
        request(
            4,
            "tasks/send",
            json!({ "id": "legacy-1", "sessionId": "s-1", "message": { "role": "user", "parts": [{ "type": "text", "text": "order 4740 delivery" }] } }),
        ),
        request(5, "tasks/get", json!({ "id": task_id, "historyLength": 1 })),
        request(6, "tasks/cancel", json!({ "id": task_id })),
        request(
            7,
            "message/stream",
            json!({ "message": user_message("why is order 4723 incomplete") }),
        ),
        request(8, "tasks/resubscribe", json!({ "id": task_id })),
        request(
            9,
            "tasks/pushNotificationConfig/set",
            json!({ "taskId": task_id, "pushNotificationConfig": { "id": "cfg-2", "url": webhook } }),
        ),
        request(
            10,
            "tasks/pushNotificationConfig/get",
            json!({ "id": task_id, "pushNotificationConfigId": "cfg-2" }),
        ),
        request(
            11,
            "tasks/pushNotificationConfig/list",
            json!({ "id": task_id }),
        ),
        request(
            12,
            "tasks/pushNotificationConfig/delete",
            json!({ "id": task_id, "pushNotificationConfigId": "cfg-2" }),
        ),
        json!({ "jsonrpc": "2.0", "id": "card", "method": "agent/getAuthenticatedExtendedCard" }),
    ]
}

#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// Every node's path, the root first.
fn paths(value: &Value, here: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(here.clone());
    match value {
        Value::Object(object) => {
            for (key, child) in object {
                here.push(Step::Key(key.clone()));
                paths(child, here, out);
                here.pop();
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                here.push(Step::Index(index));
                paths(child, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

fn node<'a>(value: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(value, |value, step| match step {
        Step::Key(key) => &mut value[key.as_str()],
        Step::Index(index) => &mut value[*index],
    })
}

fn scalar(rng: &mut Rng) -> Value {
    rng.pick(&[
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(7),
        json!(1.5),
        json!(u64::MAX),
        json!(""),
        json!("x"),
        json!("message"),
        json!({}),
        json!([]),
    ])
    .clone()
}

/// One random change somewhere in the request.
fn mutate(rng: &mut Rng, request: &mut Value) {
    let mut all = Vec::new();
    paths(request, &mut Vec::new(), &mut all);
    let path = rng.pick(&all).clone();
    match rng.below(9) {
        // Drop a key (or an array element).
        0 => {
            if let Some((last, parent)) = path.split_last() {
                match (node(request, parent), last) {
                    (Value::Object(object), Step::Key(key)) => {
                        object.remove(key);
                    }
                    (Value::Array(items), Step::Index(index)) => {
                        items.remove(*index);
                    }
                    _ => {}
                }
            }
        }
        // Rename a key.
        1 => {
            if let Some((Step::Key(key), parent)) = path.split_last()
                && let Value::Object(object) = node(request, parent)
                && let Some(value) = object.remove(key)
            {
                let renamed = match rng.below(3) {
                    0 => key.to_uppercase(),
                    1 => format!("{key}_"),
                    _ => key.chars().rev().collect(),
                };
                object.insert(renamed, value);
            }
        }
        // Objects become arrays of their values (serde's positional reading), arrays objects.
        2 => {
            let target = node(request, &path);
            *target = match target.take() {
                Value::Object(object) => Value::Array(object.into_iter().map(|(_, v)| v).collect()),
                Value::Array(items) => Value::Object(
                    items
                        .into_iter()
                        .enumerate()
                        .map(|(i, v)| (i.to_string(), v))
                        .collect::<Map<String, Value>>(),
                ),
                Value::String(text) => json!([text]),
                other => json!({ "value": other }),
            };
        }
        // Another type altogether.
        3 | 4 => *node(request, &path) = scalar(rng),
        // A huge string.
        5 => {
            let length = *rng.pick(&[257, 5_000, 50_000]);
            *node(request, &path) = json!("a".repeat(length));
        }
        // Deep nesting (past serde_json's limit of 128 is a parse error).
        6 => {
            let depth = *rng.pick(&[10, 100, 200]);
            let target = node(request, &path);
            let mut nested = target.take();
            for level in 0..depth {
                nested = if level % 2 == 0 {
                    json!([nested])
                } else {
                    json!({ "n": nested })
                };
            }
            *target = nested;
        }
        // An unknown or misspelt method.
        7 => {
            let method = rng
                .pick(&[
                    json!("tasks/explode"),
                    json!(""),
                    json!("MESSAGE/SEND"),
                    json!("message/send "),
                    json!(42),
                    json!(null),
                ])
                .clone();
            if let Value::Object(object) = request {
                object.insert("method".into(), method);
            }
        }
        // A broken or missing id.
        _ => {
            let id = rng
                .pick(&[
                    None,
                    Some(json!(null)),
                    Some(json!({})),
                    Some(json!([1])),
                    Some(json!(1.5)),
                    Some(json!(true)),
                    Some(json!("s-id")),
                    Some(json!(-5)),
                    Some(json!(u64::MAX)),
                ])
                .clone();
            if let Value::Object(object) = request {
                match id {
                    Some(id) => object.insert("id".into(), id),
                    None => object.remove("id"),
                };
            }
        }
    }
}

/// What the answer to `body` must be, judged from the envelope alone.
struct Expected {
    id: Value,
    /// The error codes allowed; a result is allowed only if `may_succeed`.
    codes: Vec<i64>,
    may_succeed: bool,
}

fn expected(body: &[u8]) -> Expected {
    let fail = |code: i64, id: Value| Expected {
        id,
        codes: vec![code],
        may_succeed: false,
    };
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        return fail(-32700, Value::Null);
    };
    let Value::Object(object) = value else {
        return fail(-32600, Value::Null);
    };
    let id = match object.get("id") {
        None | Some(Value::Null) => Value::Null,
        // An id is at most 256 bytes, as every id a client chooses.
        Some(Value::String(text)) if text.len() > 256 => return fail(-32600, Value::Null),
        Some(id @ Value::String(_)) => id.clone(),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Value::Number(n.clone()),
        Some(_) => return fail(-32600, Value::Null),
    };
    if object.get("jsonrpc") != Some(&json!("2.0")) {
        return fail(-32600, id);
    }
    let Some(Value::String(method)) = object.get("method") else {
        return fail(-32600, id);
    };
    if !METHODS.contains(&method.as_str()) {
        return fail(-32601, id);
    }
    if id.is_null() {
        // Checked like any request, then refused for want of an id.
        return fail(-32602, id);
    }
    Expected {
        id,
        codes: PARAMS_OR_METHOD_CODES.to_vec(),
        may_succeed: true,
    }
}

/// The JSON-RPC responses in an answer: one body, or each SSE `data:` event.
async fn responses(response: reqwest::Response) -> Vec<Value> {
    let streamed = response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"));
    let bytes = response.bytes().await.expect("the answer arrives");
    if !streamed {
        let body = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| panic!("the answer is JSON: {}", String::from_utf8_lossy(&bytes)));
        return vec![body];
    }
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).expect("each event is JSON"))
        .collect()
}

fn check(case: usize, sent: &[u8], expected: &Expected, answer: &Value) {
    let shown = String::from_utf8_lossy(&sent[..sent.len().min(600)]).to_string();
    let context = || format!("case {case}: sent {shown}\nanswer {answer}");
    assert_eq!(answer["jsonrpc"], "2.0", "{}", context());
    assert_eq!(answer["id"], expected.id, "the id: {}", context());
    match (answer.get("result"), answer.get("error")) {
        (Some(_), None) => assert!(expected.may_succeed, "a result: {}", context()),
        (None, Some(error)) => {
            let code = error["code"].as_i64().unwrap_or_default();
            assert!(
                expected.codes.contains(&code),
                "code {code}, expected one of {:?}: {}",
                expected.codes,
                context()
            );
            let message = error["message"].as_str().unwrap_or_default();
            assert!(!message.is_empty(), "{}", context());
            for word in RUST_WORDS {
                assert!(!message.contains(word), "says `{word}`: {}", context());
            }
        }
        _ => panic!("exactly one of result and error: {}", context()),
    }
}

/// One case: mutate a seed (the first round sends the seeds as they are),
/// sometimes break the bytes.
fn case(rng: &mut Rng, seeds: &[Value], index: usize) -> Vec<u8> {
    if index < seeds.len() {
        return seeds[index].to_string().into_bytes();
    }
    let mut request = rng.pick(seeds).clone();
    let mutations = match rng.below(10) {
        0..=5 => 1,
        6..=8 => 2,
        _ => 3,
    };
    for _ in 0..mutations {
        mutate(rng, &mut request);
    }
    let mut body = request.to_string().into_bytes();
    if rng.below(12) == 0 {
        if rng.below(2) == 0 {
            body.truncate(rng.below(body.len().max(1)));
        } else {
            let at = rng.below(body.len().max(1));
            body[at] = 0xff;
        }
    }
    body
}

/// Send one case and check its answer; returns the answer's class (the
/// error code, or 0 for a result).
async fn send(app: &TestApp, index: usize, body: Vec<u8>) -> i64 {
    let expected = expected(&body);
    let response = app
        .client
        .post(format!("{}/", app.address))
        .header("Content-Type", "application/json")
        .body(body.clone())
        .send()
        .await
        .unwrap_or_else(|error| {
            panic!(
                "case {index}: no answer ({error:?}) to {}",
                String::from_utf8_lossy(&body[..body.len().min(600)])
            )
        });
    assert_eq!(
        response.status().as_u16(),
        200,
        "case {index}: {}",
        String::from_utf8_lossy(&body[..body.len().min(600)])
    );
    let answers = responses(response).await;
    assert!(!answers.is_empty(), "case {index}: an answer");
    for answer in &answers {
        check(index, &body, &expected, answer);
    }
    answers
        .iter()
        .find_map(|answer| answer["error"]["code"].as_i64())
        .unwrap_or(0)
}

#[tokio::test]
async fn mutated_requests_get_a_json_rpc_answer_of_the_right_class() {
    // Webhooks only to a closed loopback port, tried once.
    let app = TestApp::builder()
        .loopback_webhooks(&["127.0.0.1"])
        .settings(|settings| {
            settings.push.max_attempts = 1;
            settings.push.timeout_ms = 200;
            settings.push.heartbeat_ms = 0;
        })
        .spawn()
        .await;
    let task = app.send_text("why is order 4711 blocked by credit").await;
    let task_id = task["id"].as_str().expect("a task id").to_string();
    let seeds = seeds(&task_id);

    let mut rng = Rng(SEED);
    // Made as they are sent (in order, so the seed decides every case), a
    // few at a time over the client's kept-alive connections.
    let cases = (0..CASES).map(|index| (index, case(&mut rng, &seeds, index)));
    let classes: Vec<i64> = futures_util::stream::iter(cases)
        .map(|(index, body)| send(&app, index, body))
        .buffer_unordered(4)
        .collect()
        .await;
    let mut counts: BTreeMap<i64, usize> = BTreeMap::new();
    for class in classes {
        *counts.entry(class).or_default() += 1;
    }
    eprintln!("answers by class (0 = result): {counts:?}");
    // The cases reach every stage: the parser, the envelope, the method
    // lookup, the params reader, and the methods themselves.
    for class in [-32700, -32600, -32601, -32602, 0] {
        assert!(
            counts.get(&class).copied().unwrap_or_default() >= 20,
            "too few answers of class {class}: {counts:?}"
        );
    }
}
