//! The S/4HANA executor: each approved action as released APIs allow it,
//! as the approver (the same principal propagation as the reads; without
//! a user token nothing is written). Every attempt first checks whether
//! S/4HANA already shows the change (the date is set, this request's note
//! exists, the block is released) and then treats it as done.
//!
//! - `request_delivery_date_change`: one MERGE of `RequestedDeliveryDate`
//!   (and, with `actions.clear_delivery_block`, `DeliveryBlockReason`) with
//!   `If-Match` = the ETag of the order as it was explained. A 412 re-reads
//!   the order: when the block it was approved for is still there it writes
//!   with the new ETag, else it stops ("the order changed").
//! - `request_credit_review`: a note (a sales order text of
//!   `actions.note_text_id`, never the customer's note text; an existing
//!   one is extended with `If-Match`), and `ReleaseCreditBlock` when the approval
//!   carried `releaseCreditBlock` (the rule book's `release_credit_block`).
//! - `open_dispute_case`, `request_master_data_change`: the note (no
//!   released API files them), then the outbound action hook when one is
//!   set up ([`super::hook`]).

use super::hook::{ActionHook, HookFailure, idempotency_key, payload};
use super::modifications::Modifications;
use super::{ActionExecutor, ActionSettings, Change, Executed, Reason};
use crate::agent::ledger::LedgerEntry;
use crate::backend::s4hana::S4HanaSource;
use crate::backend::s4hana::writes::{OrderState, OrderText, S4Writer, WriteError, odata_date};
use crate::secret::BearerToken;
use async_trait::async_trait;
use serde_json::{Map, Value, json};
use std::sync::Arc;

pub struct S4Executor {
    source: Arc<S4HanaSource>,
    settings: ActionSettings,
    hook: Option<Arc<dyn ActionHook>>,
}

impl S4Executor {
    pub fn new(source: Arc<S4HanaSource>, settings: ActionSettings) -> Self {
        S4Executor {
            source,
            settings,
            hook: None,
        }
    }

    /// Hand dispute cases and master data changes to this hook too.
    pub fn with_hook(mut self, hook: Option<Arc<dyn ActionHook>>) -> Self {
        self.hook = hook;
        self
    }
}

fn parameter<'a>(entry: &'a LedgerEntry, name: &str) -> &'a str {
    entry
        .parameters
        .get(name)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// How a write error ends this attempt.
fn ended(error: WriteError) -> Executed {
    if error.is_transient() {
        Executed::Transient(error.kind(), Reason::from(&error))
    } else {
        Executed::Refused(error.kind(), Reason::from(&error))
    }
}

/// The marker that makes a note findable again: `[agent <action> <tag>]`,
/// the tag standing for the ledger key, so a later request on the same
/// order gets a note of its own and a repeat finds its own.
fn marker(entry: &LedgerEntry) -> String {
    entry.key.note_marker()
}

#[async_trait]
impl ActionExecutor for S4Executor {
    fn needs_delivery_date(&self) -> bool {
        true
    }

    /// Through a destination, only as the approver; direct mode (a
    /// developer's technical user) needs no token.
    fn needs_user(&self) -> bool {
        self.source.shared().settings.url.is_none()
    }

    async fn execute(
        &self,
        entry: &LedgerEntry,
        user: Option<&BearerToken>,
        made: &Modifications,
    ) -> Executed {
        let writer = match self.source.writer(user).await {
            Ok(writer) => writer,
            Err(error) => return ended(error),
        };
        match entry.key.action.as_str() {
            "request_delivery_date_change" => self.delivery_date(&writer, entry, made).await,
            "request_credit_review" => self.credit_review(&writer, entry, made).await,
            _ => {
                if let Err(error) = self.note(&writer, entry, made).await {
                    return ended(error);
                }
                let noted = |hook_answer| Change::Noted {
                    order: entry.key.sales_order.clone(),
                    action: entry.key.action.clone(),
                    hook_answer,
                };
                let Some(hook) = &self.hook else {
                    return Executed::Done(noted(None));
                };
                match hook
                    .deliver(&payload(entry), &idempotency_key(entry), user)
                    .await
                {
                    Ok(answer) => Executed::Done(noted(Some(answer))),
                    Err(HookFailure::Refused(reason)) => Executed::HookRefused(reason),
                    Err(HookFailure::Transient(reason)) => {
                        Executed::Transient("hook_unavailable", Reason::Theirs(reason))
                    }
                }
            }
        }
    }
}

impl S4Executor {
    async fn delivery_date(
        &self,
        writer: &S4Writer,
        entry: &LedgerEntry,
        made: &Modifications,
    ) -> Executed {
        let order = entry.key.sales_order.as_str();
        let date = parameter(entry, "requestedDeliveryDate");
        let Some(odata) = odata_date(date) else {
            return Executed::Refused(
                "refused",
                Reason::NoValidDate {
                    order: order.to_string(),
                },
            );
        };
        let clear = self.settings.clear_delivery_block;
        let what = Change::DeliveryDate {
            order: order.to_string(),
            date: date.to_string(),
            block_removed: clear,
        };
        let not_found = || {
            Executed::Refused(
                "not_found",
                Reason::NotFound {
                    order: order.to_string(),
                },
            )
        };
        let state = match writer.order_state(order).await {
            Ok(Some(state)) => state,
            Ok(None) => return not_found(),
            Err(error) => return ended(error),
        };
        made.sold_to(&state.sold_to_party);
        // What a MERGE with `fields` changes in an order read as `before`.
        let merged = |before: &OrderState, success: bool| {
            let old_date = Some(before.requested_delivery_date.as_str()).filter(|d| !d.is_empty());
            let mut changes = vec![("RequestedDeliveryDate", old_date, Some(date))];
            if clear {
                changes.push((
                    "DeliveryBlockReason",
                    Some(before.delivery_block_reason.as_str()),
                    Some(""),
                ));
            }
            made.order_fields(order, &changes, success);
        };
        if state.requested_delivery_date == date
            && (!clear || state.delivery_block_reason.is_empty())
        {
            return Executed::AlreadyDone(what);
        }
        let mut fields = Map::new();
        fields.insert("RequestedDeliveryDate".into(), json!(odata));
        if clear {
            fields.insert("DeliveryBlockReason".into(), json!(""));
        }
        let as_explained = parameter(entry, "etag");
        let etag = if as_explained.is_empty() {
            state.etag.as_str()
        } else {
            as_explained
        };
        let written = writer.update_order(order, etag, &fields).await;
        merged(&state, written.is_ok());
        match written {
            Ok(()) => Executed::Done(what),
            Err(WriteError::Stale(_)) => {
                // Changed since it was explained: does the approval still hold?
                let now = match writer.order_state(order).await {
                    Ok(Some(now)) => now,
                    Ok(None) => return not_found(),
                    Err(error) => return ended(error),
                };
                let approved_block = parameter(entry, "deliveryBlockReason");
                if now.requested_delivery_date == date
                    && (!clear || now.delivery_block_reason.is_empty())
                {
                    return Executed::AlreadyDone(what);
                }
                if approved_block.is_empty() || now.delivery_block_reason != approved_block {
                    return Executed::Refused(
                        "stale",
                        Reason::BlockChanged {
                            order: order.to_string(),
                            block: now.delivery_block_reason,
                        },
                    );
                }
                let written = writer.update_order(order, &now.etag, &fields).await;
                merged(&now, written.is_ok());
                match written {
                    Ok(()) => Executed::Done(what),
                    Err(error) => ended(error),
                }
            }
            Err(error) => ended(error),
        }
    }

    async fn credit_review(
        &self,
        writer: &S4Writer,
        entry: &LedgerEntry,
        made: &Modifications,
    ) -> Executed {
        let order = entry.key.sales_order.as_str();
        if let Err(error) = self.note(writer, entry, made).await {
            return ended(error);
        }
        let release = entry
            .parameters
            .get("releaseCreditBlock")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let what = Change::CreditNote {
            order: order.to_string(),
            released: release,
        };
        if !release {
            return Executed::Done(what);
        }
        let before = match writer.order_state(order).await {
            Ok(Some(state)) if state.total_credit_check_status != "B" => {
                return Executed::AlreadyDone(what);
            }
            Ok(state) => state,
            Err(error) => return ended(error),
        };
        let old_status = before.as_ref().map_or("B", |state| {
            made.sold_to(&state.sold_to_party);
            state.total_credit_check_status.as_str()
        });
        match writer.release_credit_block(order).await {
            Ok(_) => {
                // The status S/4HANA gives a released order, for the audit log.
                let after = writer.order_state(order).await.ok().flatten();
                let new_status = after
                    .as_ref()
                    .map(|state| state.total_credit_check_status.as_str());
                made.credit_block_released(order, old_status, new_status, true);
                Executed::Done(what)
            }
            Err(error) => {
                made.credit_block_released(order, old_status, None, false);
                ended(error)
            }
        }
    }

    /// The note on the order, unless it is there already: a text of
    /// `actions.note_text_id` of its own, created, or extended with
    /// `If-Match` (a 412 reads the texts again, once). Never the text the
    /// agent reads as the customer's note (the start refuses that id too).
    async fn note(
        &self,
        writer: &S4Writer,
        entry: &LedgerEntry,
        made: &Modifications,
    ) -> Result<(), WriteError> {
        let order = entry.key.sales_order.as_str();
        let id = self.settings.note_text_id.clone();
        let customer = &self.source.shared().rules.customer_note_text_id;
        if id.trim().eq_ignore_ascii_case(customer.trim()) {
            return Err(WriteError::Refused(format!(
                "the agent's notes (text {id}) would go into the customer's note of sales order {order}; nothing is written"
            )));
        }
        let marker = marker(entry);
        let line = format!(
            "{marker} {} approved by {} ({}) on {}: {}. Task {}.",
            entry.key.action,
            entry.approved_by,
            entry.approver_role,
            entry.approved_at,
            entry.summary,
            entry.task_id
        );
        let language = self.settings.note_language.clone();
        let mut reread = false;
        loop {
            let texts = writer.texts(order).await?;
            if texts.iter().any(|text| text.long_text.contains(&marker)) {
                return Ok(());
            }
            let written = match texts.iter().find(|text| {
                text.language.eq_ignore_ascii_case(&language) && text.long_text_id == id
            }) {
                Some(existing) => {
                    let joined = format!("{}\n{line}", existing.long_text);
                    let written = writer.update_text(order, existing, &joined).await;
                    let text_key = (existing.language.as_str(), existing.long_text_id.as_str());
                    let old = Some(existing.long_text.as_str());
                    made.text(order, text_key, old, &joined, written.is_ok());
                    written
                }
                None => {
                    let written = writer
                        .create_text(
                            order,
                            &OrderText {
                                language: language.clone(),
                                long_text_id: id.clone(),
                                long_text: line.clone(),
                                etag: String::new(),
                            },
                        )
                        .await;
                    made.text(
                        order,
                        (language.as_str(), id.as_str()),
                        None,
                        &line,
                        written.is_ok(),
                    );
                    written
                }
            };
            match written {
                // Someone changed the agent's text since it was read.
                Err(WriteError::Stale(_)) if !reread => reread = true,
                other => return other,
            }
        }
    }
}
