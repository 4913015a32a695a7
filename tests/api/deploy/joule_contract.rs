//! The Joule capability against the running service: a small stand-in for
//! Joule runs the shipped scenario and dialog function as the files say —
//! parameters from the capability context, the `agent-request` body on
//! `params.message`, conditions and message templates evaluated (spel.rs) on
//! the real Task, the result mapping written back into the capability
//! context — over real HTTP. Nothing here restates a path of the YAML files.

use super::spel::{self, Scope};
use super::support::{json_file, text, yaml_file};
use crate::helpers::destination::DestinationStub;
use crate::helpers::webhook::WebhookReceiver;
use crate::helpers::{ScriptedAgent, TestApp, assert_schema, state, wait_until};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::time::Duration;

const SCENARIOS: &str = "joule/order_exception/scenarios";
const SYNC_FUNCTION: &str = "joule/order_exception/functions";
const ASYNC_FUNCTION: &str = "joule/variants/async/functions";

/// Joule's side of one conversation with the agent.
struct Joule<'a> {
    app: &'a TestApp,
    scenario: Value,
    function: Value,
    /// The capability context (`capability_context.yaml` variables).
    context: Map<String, Value>,
    /// Where Joule's callback URL points in async mode.
    callback_url: Option<String>,
}

/// What one turn produced.
struct Turn {
    /// The JSON-RPC `result` (the Task), or null for an error answer.
    task: Value,
    response: Value,
    /// The texts the function's `message` actions show.
    shown: Vec<String>,
    /// The buttons of a `quickReplies` message, if one is shown: each
    /// button's `value` is what a tap sends.
    buttons: Vec<Value>,
}

/// What the function's messages show for one answer.
#[derive(Default)]
struct Shown {
    texts: Vec<String>,
    buttons: Vec<Value>,
}

impl<'a> Joule<'a> {
    fn new(app: &'a TestApp, scenario: &str, function_dir: &str) -> Joule<'a> {
        let scenario = yaml_file(&format!("{SCENARIOS}/{scenario}.yaml"));
        let name = text(&scenario["target"], "name", "scenario target");
        let function = yaml_file(&format!("{function_dir}/{name}.yaml"));
        let declared = yaml_file("joule/order_exception/capability_context.yaml");
        let context = declared["variables"]
            .as_array()
            .expect("variables")
            .iter()
            .map(|v| (text(v, "name", "variable").to_string(), Value::Null))
            .collect();
        Joule {
            app,
            scenario,
            function,
            context,
            callback_url: None,
        }
    }

    fn context(&self, name: &str) -> &Value {
        self.context
            .get(name)
            .unwrap_or_else(|| panic!("capability context variable {name}"))
    }

    fn set_context(&mut self, name: &str, value: Value) {
        assert!(self.context.contains_key(name), "{name} is declared");
        self.context.insert(name.to_string(), value);
    }

    /// The scope of the function: its parameters, filled by the scenario.
    fn parameters(&self) -> Scope {
        let mut scope = Scope::new();
        for parameter in self.function["parameters"].as_array().expect("parameters") {
            scope.insert(
                text(parameter, "name", "parameter").to_string(),
                Value::Null,
            );
        }
        for parameter in self.scenario["target"]["parameters"]
            .as_array()
            .expect("parameters")
        {
            let value = text(parameter, "value", "scenario parameter");
            let variable = value
                .strip_prefix("$capability_context.")
                .expect("scenario parameters read the capability context");
            scope.insert(
                text(parameter, "name", "scenario parameter").to_string(),
                self.context(variable).clone(),
            );
        }
        scope
    }

    fn groups(&self) -> Vec<Value> {
        self.function["action_groups"]
            .as_array()
            .expect("action_groups")
            .clone()
    }

    fn agent_request(&self) -> Value {
        let first = &self.groups()[0];
        assert!(
            first.get("condition").is_none(),
            "the request runs unconditionally"
        );
        first["actions"]
            .as_array()
            .expect("actions")
            .iter()
            .find(|action| action["type"] == "agent-request")
            .cloned()
            .expect("the first group sends the agent request")
    }

    /// One user utterance: request, messages, result mapping.
    async fn say(&mut self, utterance: &str) -> Turn {
        let mut scope = self.parameters();
        let request = self.agent_request();
        let mut message = json!({
            "kind": "message", "role": "user",
            "messageId": uuid::Uuid::new_v4().to_string(),
            "parts": [{ "kind": "text", "text": utterance }],
        });
        let mut params = json!({});
        for (key, template) in request["body"].as_object().expect("a body") {
            match key.as_str() {
                // Joule puts the ids on params.message; empty on turn one.
                "contextId" | "taskId" => {
                    let value = spel::render(template.as_str().expect("a template"), &scope)
                        .unwrap_or_else(|error| panic!("body.{key}: {error}"));
                    message[key] = match value {
                        Value::Null => json!(""),
                        other => other,
                    };
                }
                "configurations" => {
                    assert_eq!(
                        template["pushNotifications"], true,
                        "configurations: {template}"
                    );
                    let url = self
                        .callback_url
                        .clone()
                        .expect("the async test provides Joule's callback");
                    params["configuration"] = json!({ "pushNotificationConfig": { "url": url } });
                }
                other => panic!("body.{other}: not something Joule sends"),
            }
        }
        params["message"] = message;
        let response = self.post(params).await;
        let task = response.get("result").cloned().unwrap_or(Value::Null);
        let result_variable = text(&request, "result_variable", "agent-request");
        scope.insert(
            result_variable.to_string(),
            json!({ "headers": {}, "body": task.clone() }),
        );
        let Shown { texts, buttons } = self.messages(&scope);
        if !buttons.is_empty() {
            assert_eq!(
                Value::Array(buttons.clone()),
                task["status"]["message"]["metadata"]["quickReplies"]["buttons"],
                "the function shows every button the agent sends, as sent"
            );
        }
        self.map_result(&scope);
        Turn {
            task,
            response,
            shown: texts,
            buttons,
        }
    }

    /// What the function shows for an answer body (also a pushed Task).
    fn shown_for(&self, body: &Value) -> Vec<String> {
        let mut scope = self.parameters();
        let request = self.agent_request();
        let result_variable = text(&request, "result_variable", "agent-request");
        scope.insert(
            result_variable.to_string(),
            json!({ "headers": {}, "body": body }),
        );
        self.messages(&scope).texts
    }

    fn messages(&self, scope: &Scope) -> Shown {
        let mut scope = scope.clone();
        let mut shown = Shown::default();
        for group in self.groups() {
            if let Some(condition) = group.get("condition") {
                let condition = condition.as_str().expect("a condition is text");
                let holds = spel::condition(condition, &scope)
                    .unwrap_or_else(|error| panic!("condition fails in Joule: {error}"));
                if !holds {
                    continue;
                }
            }
            for action in group["actions"].as_array().expect("actions") {
                match action["type"].as_str() {
                    Some("agent-request") => {}
                    Some("status-update") => assert!(
                        action["message"]
                            .as_str()
                            .is_some_and(|m| !m.trim().is_empty()),
                        "a status update says something"
                    ),
                    Some("message") => {
                        let message = &action["message"];
                        let content = render_leaves(&message["content"], &scope);
                        match message["type"].as_str() {
                            Some("text") => shown.texts.push(match content {
                                Value::String(text) => text,
                                other => panic!("message content is {other}, not text"),
                            }),
                            Some("quickReplies") => {
                                shown.buttons = quick_replies(&content);
                            }
                            other => panic!("message type {other:?} is not modelled"),
                        }
                    }
                    Some("set-variables") => {
                        for variable in action["variables"].as_array().expect("variables") {
                            let value = spel::render(
                                variable["value"].as_str().expect("a template"),
                                &scope,
                            )
                            .unwrap_or_else(|error| panic!("set-variables: {error}"));
                            scope.insert(text(variable, "name", "variable").to_string(), value);
                        }
                    }
                    other => panic!("action type {other:?} is not modelled"),
                }
            }
        }
        shown
    }

    /// The function's `result`, then the scenario's capability_context mapping.
    fn map_result(&mut self, scope: &Scope) {
        let mut target_result = Map::new();
        for (key, template) in self.function["result"].as_object().expect("result") {
            let value = spel::render(template.as_str().expect("a template"), scope)
                .unwrap_or_else(|error| panic!("result.{key} fails in Joule: {error}"));
            target_result.insert(key.clone(), value);
        }
        let mapping = self.scenario["capability_context"]
            .as_array()
            .expect("capability_context")
            .clone();
        for entry in &mapping {
            let key = text(entry, "value", "capability_context")
                .strip_prefix("$target_result.")
                .expect("the context keeps function results");
            let value = target_result.get(key).cloned().unwrap_or(Value::Null);
            self.set_context(text(entry, "name", "capability_context"), value);
        }
    }

    /// `message/send` the way Joule posts it (headers of captured requests).
    async fn post(&self, params: Value) -> Value {
        let id = uuid::Uuid::new_v4().to_string();
        let response = self
            .app
            .client
            .post(format!("{}/", self.app.address))
            .header("Content-Type", "application/json")
            .header("conversationid", "joule-conversation-1")
            .header("x-correlationid", id.as_str())
            .header("Authorization", "Bearer user-token-from-joule")
            .json(
                &json!({ "jsonrpc": "2.0", "id": id, "method": "message/send", "params": params }),
            )
            .send()
            .await
            .expect("the agent answers");
        assert_eq!(response.status().as_u16(), 200);
        let body: Value = response.json().await.expect("JSON");
        assert_schema("SendMessageResponse", &body);
        assert_eq!(body["id"], json!(id));
        body
    }
}

/// A message's content as Joule fills it: a template in every text leaf
/// (the whole content is one leaf when it is one text).
fn render_leaves(content: &Value, scope: &Scope) -> Value {
    match content {
        Value::String(template) => spel::render(template, scope)
            .unwrap_or_else(|error| panic!("message fails in Joule: {error}")),
        Value::Array(items) => items
            .iter()
            .map(|item| render_leaves(item, scope))
            .collect(),
        Value::Object(fields) => fields
            .iter()
            .map(|(key, value)| (key.clone(), render_leaves(value, scope)))
            .collect(),
        other => other.clone(),
    }
}

/// Every `text` value anywhere in a Task (what the agent said).
fn texts(task: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![task];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(text)) = map.get("text") {
                    found.push(text.clone());
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    found
}

impl Turn {
    /// Something is shown, nothing shown is empty.
    fn assert_shows_something(&self) {
        assert!(
            !self.shown.is_empty() && self.shown.iter().all(|text| !text.trim().is_empty()),
            "Joule shows {:?} for {}",
            self.shown,
            self.response
        );
    }

    /// Shows the agent's own words (from the Task), not a fallback text.
    fn assert_shows_agent_text(&self) {
        self.assert_shows_something();
        let said = texts(&self.task);
        for shown in &self.shown {
            assert!(
                said.contains(shown),
                "`{shown}` is what the agent said: {}",
                self.task
            );
        }
    }
}

/// The buttons of a `quickReplies` message's content as Joule reads it: a
/// title and at least one button, each with a title of at most 20
/// characters (Joule's design guideline) and the value a tap sends.
fn quick_replies(content: &Value) -> Vec<Value> {
    assert!(
        content["title"].as_str().is_some_and(|t| !t.is_empty()),
        "quick replies have a title: {content}"
    );
    let buttons = content["buttons"]
        .as_array()
        .unwrap_or_else(|| panic!("quick replies have buttons: {content}"))
        .clone();
    assert!(!buttons.is_empty() && buttons.len() <= 11, "{content}");
    for button in &buttons {
        let title = button["title"].as_str().expect("a button title");
        assert!(!title.is_empty() && title.chars().count() <= 20, "{button}");
        assert!(
            button["value"].as_str().is_some_and(|v| !v.is_empty()),
            "{button}"
        );
    }
    buttons
}

impl Turn {
    /// The values the shown buttons send, in order.
    fn button_values(&self) -> Vec<&str> {
        self.buttons
            .iter()
            .filter_map(|button| button["value"].as_str())
            .collect()
    }
}

fn id(task: &Value) -> &str {
    task["id"].as_str().expect("a task id")
}

fn context_id(task: &Value) -> &str {
    task["contextId"].as_str().expect("a context id")
}

fn cleared(value: &Value) -> bool {
    value.is_null() || value == ""
}

#[tokio::test]
async fn a_clarification_continues_with_the_task_id_joule_keeps_and_a_completed_task_clears_it() {
    let app = TestApp::spawn().await;
    let mut joule = Joule::new(&app, "credit_block", SYNC_FUNCTION);

    let question = joule.say("why is it blocked by credit").await;
    assert_eq!(state(&question.task), "input-required");
    question.assert_shows_agent_text();
    assert_eq!(
        joule.context("agent_task_id"),
        id(&question.task),
        "kept while waiting"
    );
    assert_eq!(
        joule.context("agent_context_id"),
        context_id(&question.task)
    );

    let answer = joule.say("4711").await;
    assert_eq!(
        id(&answer.task),
        id(&question.task),
        "the answer continues the task"
    );
    assert_eq!(context_id(&answer.task), context_id(&question.task));
    assert_eq!(state(&answer.task), "completed");
    answer.assert_shows_agent_text();
    assert!(
        cleared(joule.context("agent_task_id")),
        "cleared after completion"
    );
    assert_eq!(
        joule.context("agent_context_id"),
        context_id(&question.task)
    );

    // The next question in the same conversation: a new task, same context.
    let mut pricing = Joule::new(&app, "price_dispute", SYNC_FUNCTION);
    pricing.context = joule.context.clone();
    let next = pricing
        .say("Order 4725: Pricing: customer disputes the price.")
        .await;
    assert_eq!(state(&next.task), "completed");
    assert_ne!(id(&next.task), id(&answer.task));
    assert_eq!(context_id(&next.task), context_id(&question.task));
    next.assert_shows_agent_text();
}

#[tokio::test]
async fn an_approval_asked_and_given_in_joule_shows_the_question_then_what_was_filed() {
    let app = TestApp::spawn().await;
    let clerk = app.as_role("ar_clerk");
    let mut joule = Joule::new(&clerk, "price_dispute", SYNC_FUNCTION);

    let asked = joule
        .say("Order 4725: Pricing: customer disputes the price.")
        .await;
    assert_eq!(state(&asked.task), "input-required");
    asked.assert_shows_agent_text();
    assert!(
        asked
            .shown
            .iter()
            .any(|text| text
                .ends_with("Open a dispute case for order 4725? Reply approve or reject.")),
        "the question is shown: {:?}",
        asked.shown
    );
    assert_eq!(
        joule.context("agent_task_id"),
        id(&asked.task),
        "kept while asking"
    );

    let filed = joule.say("approve").await;
    assert_eq!(
        id(&filed.task),
        id(&asked.task),
        "approved in the same task"
    );
    assert_eq!(state(&filed.task), "completed");
    filed.assert_shows_agent_text();
    assert!(
        filed.shown.iter().any(|text| text.starts_with("Filed: ")),
        "what was filed is shown: {:?}",
        filed.shown
    );
    assert!(
        cleared(joule.context("agent_task_id")),
        "cleared after completion"
    );
}

/// A batch answer is shown as a single one is: the question from
/// `status.message`, the final answer from `artifacts[0]`, one line per order.
#[tokio::test]
async fn a_batch_of_orders_is_shown_with_one_line_per_order_and_approved_in_one_answer() {
    let app = TestApp::spawn().await;
    let clerk = app.as_role("ar_clerk");
    let mut joule = Joule::new(&clerk, "blocked_orders", SYNC_FUNCTION);

    let asked = joule.say("show me all blocked orders").await;
    assert_eq!(state(&asked.task), "input-required", "{}", asked.task);
    asked.assert_shows_agent_text();
    let question = asked.shown.join("\n");
    assert!(
        question.starts_with("4 of 4 orders explained."),
        "{question}"
    );
    for order in ["4711", "4723", "4725", "4740"] {
        assert!(question.contains(&format!("\n- {order} (")), "{question}");
    }
    assert!(
        question.ends_with("Reply approve all, approve 4725, or reject."),
        "{question}"
    );
    assert_eq!(
        joule.context("agent_task_id"),
        id(&asked.task),
        "kept while asking"
    );

    let filed = joule.say("approve all").await;
    assert_eq!(
        id(&filed.task),
        id(&asked.task),
        "approved in the same task"
    );
    assert_eq!(state(&filed.task), "completed");
    filed.assert_shows_agent_text();
    let shown = filed.shown.join("\n");
    assert!(shown.contains("4725: Filed: "), "{shown}");
    assert!(shown.contains("4740: Filed: "), "{shown}");
    assert!(cleared(joule.context("agent_task_id")));

    // A batch with nothing to approve completes at once; artifacts[0] is shown.
    let done = joule.say("credit blocks of customer 10023").await;
    assert_eq!(state(&done.task), "completed", "{}", done.task);
    done.assert_shows_agent_text();
    assert!(
        done.shown
            .iter()
            .any(|text| text.starts_with("1 of 1 order explained.")),
        "{:?}",
        done.shown
    );
}

/// An approval question shows its buttons in the user's language; a tap
/// sends the button's text, which files as the typed word would. A
/// question that is not an approval shows none.
#[tokio::test]
async fn an_approval_question_shows_buttons_in_the_users_language_and_a_tap_files_it() {
    let app = TestApp::spawn().await;
    let clerk = app.as_role("ar_clerk");

    let mut asking = Joule::new(&clerk, "credit_block", SYNC_FUNCTION);
    let which = asking.say("why is it blocked by credit").await;
    assert_eq!(state(&which.task), "input-required");
    assert!(which.buttons.is_empty(), "no buttons: {:?}", which.buttons);

    let mut joule = Joule::new(&clerk, "price_dispute", SYNC_FUNCTION);
    let asked = joule
        .say("Auftrag 4725: Der Kunde reklamiert den Preis auf der Rechnung.")
        .await;
    assert_eq!(state(&asked.task), "input-required", "{}", asked.task);
    asked.assert_shows_agent_text();
    assert_eq!(asked.button_values(), ["Genehmigen", "Ablehnen"]);
    assert_eq!(
        asked.task["status"]["message"]["metadata"]["quickReplies"]["title"],
        "Genehmigen oder ablehnen?"
    );

    let tapped = joule.say(asked.button_values()[0]).await;
    assert_eq!(id(&tapped.task), id(&asked.task), "the same task");
    assert_eq!(state(&tapped.task), "completed", "{}", tapped.task);
    assert_eq!(
        tapped.task["status"]["message"]["metadata"]["approval"]["status"], "filed",
        "{}",
        tapped.task
    );
    assert!(tapped.buttons.is_empty(), "nothing left to decide");
}

/// A batch's question offers two buttons, "Approve all" and "Reject all"
/// (the function writes two out; one order of several is typed), and a tap
/// decides every order still waiting, in the same task.
#[tokio::test]
async fn a_batch_question_offers_approve_all_and_reject_all_and_a_tap_decides_every_waiting_order()
{
    let app = TestApp::spawn().await;
    let clerk = app.as_role("ar_clerk");
    let mut joule = Joule::new(&clerk, "blocked_orders", SYNC_FUNCTION);

    let asked = joule.say("show me all blocked orders").await;
    assert_eq!(state(&asked.task), "input-required", "{}", asked.task);
    assert_eq!(asked.button_values(), ["Approve all", "Reject all"]);
    let waiting: BTreeSet<&str> = asked.task["metadata"]["pendingApproval"]
        .as_array()
        .expect("a batch waits on a list")
        .iter()
        .filter(|order| order["state"] == "pending")
        .filter_map(|order| order["proposal"]["salesOrder"].as_str())
        .collect();
    assert!(waiting.len() > 1, "{}", asked.task);

    let tapped = joule.say(asked.button_values()[0]).await;
    assert_eq!(id(&tapped.task), id(&asked.task), "the same task");
    assert_eq!(state(&tapped.task), "completed", "{}", tapped.task);
    let decided: BTreeSet<&str> = tapped.task["status"]["message"]["metadata"]["approvals"]
        .as_array()
        .expect("the decisions")
        .iter()
        .filter_map(|note| note["salesOrder"].as_str())
        .collect();
    assert_eq!(decided, waiting, "{}", tapped.task);
    assert!(tapped.buttons.is_empty(), "nothing left to decide");
}

#[tokio::test]
async fn a_stale_task_id_starts_a_new_task_in_the_same_conversation() {
    let app = TestApp::spawn().await;
    let mut joule = Joule::new(&app, "credit_block", SYNC_FUNCTION);
    let done = joule.say("why is order 4711 blocked by credit").await;
    assert_eq!(state(&done.task), "completed");
    done.assert_shows_agent_text();

    // A function that never cleared the id sends the finished task's id;
    // a restarted or other instance has never seen it.
    for stale in [id(&done.task).to_string(), uuid::Uuid::new_v4().to_string()] {
        joule.set_context("agent_task_id", json!(stale));
        let turn = joule.say("what about sales order 4711?").await;
        assert_ne!(id(&turn.task), stale, "a new task");
        assert_eq!(
            context_id(&turn.task),
            context_id(&done.task),
            "same conversation"
        );
        let history = turn.task["history"].as_array().expect("history");
        assert!(
            history.iter().any(|m| m["referenceTaskIds"]
                .as_array()
                .is_some_and(|ids| ids.contains(&json!(stale)))),
            "the old id is referenced: {}",
            turn.task
        );
        turn.assert_shows_agent_text();
        assert!(cleared(joule.context("agent_task_id")));
    }
}

#[tokio::test]
async fn refusals_and_failures_show_the_agents_reason_and_end_the_task() {
    let app = TestApp::spawn().await;
    let mut joule = Joule::new(&app, "credit_block", SYNC_FUNCTION);
    for (utterance, expected) in [
        ("check credit on order 4725", "rejected"),
        ("order 9999", "failed"),
    ] {
        let turn = joule.say(utterance).await;
        assert_eq!(state(&turn.task), expected, "{}", turn.task);
        turn.assert_shows_agent_text();
        assert!(
            cleared(joule.context("agent_task_id")),
            "a terminal state clears the id"
        );
    }
}

#[tokio::test]
async fn a_json_rpc_error_still_shows_a_message() {
    let app = TestApp::builder()
        .settings(|settings| settings.tasks.strict_task_ids = true)
        .spawn()
        .await;
    let mut joule = Joule::new(&app, "incomplete_order", SYNC_FUNCTION);
    joule.set_context("agent_task_id", json!(uuid::Uuid::new_v4().to_string()));
    let turn = joule
        .say("Order 4723: Incomplete: delivery address data missing.")
        .await;
    assert!(
        turn.response["error"].is_object(),
        "strict mode refuses: {}",
        turn.response
    );
    assert!(turn.task.is_null());
    turn.assert_shows_something();
    assert!(cleared(joule.context("agent_task_id")));
}

#[tokio::test]
async fn a_turn_past_the_budget_says_so_and_keeps_the_task() {
    let app = TestApp::builder()
        .budget_ms(100)
        .agent(ScriptedAgent::slow(2_000))
        .spawn()
        .await;
    let mut joule = Joule::new(&app, "delivery_block", SYNC_FUNCTION);
    let first = joule
        .say("customer wants a later delivery date on 4740")
        .await;
    assert_eq!(state(&first.task), "working");
    first.assert_shows_something();
    assert_eq!(
        joule.context("agent_task_id"),
        id(&first.task),
        "kept while working"
    );
    let again = joule.say("any news?").await;
    assert_eq!(id(&again.task), id(&first.task), "no second turn starts");
    again.assert_shows_something();
}

/// Joule's callback endpoint and a Destination service on loopback: the
/// agent mints the callback token through the shipped JOULE_ASYNC_API
/// destination's name and posts the Task envelopes to the path of its URL.
struct JouleBackend {
    callback_path: String,
    callback_url: String,
    receiver: WebhookReceiver,
    destination: DestinationStub,
}

impl JouleBackend {
    async fn start() -> JouleBackend {
        let destination = json_file("destinations/JOULE_ASYNC_API.json");
        let name = text(&destination, "Name", "JOULE_ASYNC_API").to_string();
        let url = text(&destination, "URL", "JOULE_ASYNC_API");
        let callback_path = format!("/{}", url.splitn(4, '/').nth(3).unwrap_or_default());
        let receiver = WebhookReceiver::start().await;
        JouleBackend {
            callback_url: receiver.url.replace("127.0.0.1", "localhost") + &callback_path,
            callback_path,
            receiver,
            destination: DestinationStub::start(&name).await,
        }
    }

    /// The pushed Task of `task_id` once it reached a state Joule shows.
    async fn pushed(&self, task_id: &str, seen: usize) -> Value {
        let mut found = None;
        wait_until(Duration::from_secs(10), async || {
            found = self
                .receiver
                .at(&self.callback_path)
                .into_iter()
                .map(|call| call.body)
                .filter(|envelope| envelope["result"]["id"] == task_id)
                .filter(|envelope| {
                    ["input-required", "completed", "failed", "rejected"]
                        .contains(&envelope["result"]["status"]["state"].as_str().unwrap_or(""))
                })
                .nth(seen);
            found.is_some()
        })
        .await;
        let Some(envelope) = found else {
            panic!("no callback for task {task_id}");
        };
        assert_eq!(envelope["jsonrpc"], "2.0");
        assert_schema("Task", &envelope["result"]);
        envelope["result"].clone()
    }
}

#[tokio::test]
async fn the_async_variant_answers_at_once_and_the_pushed_tasks_continue_the_conversation() {
    let backend = JouleBackend::start().await;
    let app = TestApp::builder()
        .loopback_webhooks(&["localhost"])
        .joule_callbacks(&backend.destination)
        .settings(|settings| settings.push.heartbeat_ms = 0)
        .spawn()
        .await;
    let mut joule = Joule::new(&app, "credit_block", ASYNC_FUNCTION);
    joule.callback_url = Some(backend.callback_url.clone());

    let first = joule.say("why is it blocked by credit").await;
    assert!(
        ["submitted", "working"].contains(&state(&first.task)),
        "answered at once: {}",
        first.task
    );
    first.assert_shows_something();
    assert_eq!(
        joule.context("agent_task_id"),
        id(&first.task),
        "kept while working"
    );
    let question = backend.pushed(id(&first.task), 0).await;
    assert_eq!(state(&question), "input-required");
    let shown = joule.shown_for(&question);
    assert!(!shown.is_empty() && shown.iter().all(|s| texts(&question).contains(s)));

    let second = joule.say("4711").await;
    assert_eq!(
        id(&second.task),
        id(&first.task),
        "the answer continues the task"
    );
    assert_eq!(context_id(&second.task), context_id(&first.task));
    second.assert_shows_something();
    let answer = backend.pushed(id(&first.task), 1).await;
    assert_eq!(state(&answer), "completed");
    let shown = joule.shown_for(&answer);
    assert!(
        !shown.is_empty()
            && shown
                .iter()
                .all(|s| !s.trim().is_empty() && texts(&answer).contains(s)),
        "the pushed answer shows the agent's text: {shown:?}"
    );
}
