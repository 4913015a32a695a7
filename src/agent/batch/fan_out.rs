//! The fan-out: each order of a batch goes to the specialist its own block
//! calls for (the order's block status, then its block note through the
//! router), all at once up to `batch.max_in_flight`, each within
//! `batch.item_timeout_ms`. A slow or failing order ends as its own
//! item (`timed_out`, `failed`); the others complete. Results come back in
//! the order the orders were given.

use super::{BatchItem, ItemState};
use crate::agent::language::Language;
use crate::agent::language::catalog::text as say;
use crate::agent::own_block;
use crate::agent::router::Router;
use crate::agent::routing::RoutingBasis;
use crate::agent::settings::BatchSettings;
use crate::agent::specialists::Specialist;
use crate::agent::{Outcome, Progress};
use crate::backend::{BackendError, OrderSource, Refusal, SalesOrder};
use futures_util::StreamExt;
use std::sync::Arc;

/// One order to explain: a number to read first, or an order already read
/// (by the blocked-orders query).
pub enum Work {
    Number(String),
    Order(Box<SalesOrder>),
}

impl Work {
    fn number(&self) -> &str {
        match self {
            Work::Number(number) => number,
            Work::Order(order) => &order.sales_order,
        }
    }
}

/// What the fan-out needs from the agent.
pub struct FanOut<'a> {
    pub specialists: &'a [Box<dyn Specialist>],
    pub router: &'a Router,
    /// The source as the caller sees it.
    pub orders: Arc<dyn OrderSource>,
    pub settings: &'a BatchSettings,
    pub progress: &'a Progress,
    /// The language the user is answered in.
    pub language: Language,
}

fn item(order: &str, specialist: Option<&str>, state: ItemState, text: String) -> BatchItem {
    BatchItem {
        order: order.to_string(),
        specialist: specialist.map(str::to_string),
        state,
        explanation: text,
        proposal: None,
        approval: None,
    }
}

impl FanOut<'_> {
    /// Every order explained, in the order given.
    pub async fn run(&self, work: Vec<Work>) -> Vec<BatchItem> {
        let total = work.len();
        let timeout = self.settings.item_timeout();
        let jobs = work.into_iter().enumerate().map(|(index, work)| async move {
            let number = work.number().to_string();
            let explained = tokio::time::timeout(timeout, self.explain(work)).await;
            let done = match explained {
                Ok(Ok(item)) => item,
                Ok(Err(error)) => {
                    tracing::warn!(%error, sales_order = %number, "batch item: backend read failed");
                    let (refusal, text) =
                        crate::agent::language::catalog::backend_error(&error, self.language);
                    let state = match refusal {
                        Refusal::Rejected => ItemState::Rejected,
                        Refusal::Failed => ItemState::Failed,
                    };
                    item(
                        &number,
                        None,
                        state,
                        say(
                            self.language,
                            "order-unconfigured",
                            &[("order", number.as_str().into()), ("unconfigured", text.into())],
                        ),
                    )
                }
                Err(_) => {
                    tracing::warn!(sales_order = %number, "batch item: no answer within the item timeout");
                    item(
                        &number,
                        None,
                        ItemState::TimedOut,
                        say(
                            self.language,
                            "batch-item-timed-out",
                            &[
                                ("order", number.as_str().into()),
                                (
                                    "seconds",
                                    crate::agent::language::locale::number(
                                        self.language,
                                        timeout.as_secs_f64(),
                                    )
                                    .into(),
                                ),
                            ],
                        ),
                    )
                }
            };
            (index, done)
        });
        let mut results: Vec<Option<BatchItem>> = vec![None; total];
        let mut stream =
            futures_util::stream::iter(jobs).buffer_unordered(self.settings.in_flight());
        let mut finished = 0;
        while let Some((index, done)) = stream.next().await {
            finished += 1;
            self.progress.publish(say(
                self.language,
                "batch-progress",
                &[
                    ("done", finished.into()),
                    ("total", total.into()),
                    ("order", done.order.as_str().into()),
                ],
            ));
            results[index] = Some(done);
        }
        results.into_iter().flatten().collect()
    }

    async fn explain(&self, work: Work) -> Result<BatchItem, BackendError> {
        let order = match work {
            Work::Order(order) => *order,
            Work::Number(number) => {
                // The order's own fields may name its specialist, and that
                // specialist may answer from them without the rest.
                let Some(fields) = self.orders.sales_order_fields(&number).await? else {
                    return Ok(not_found(&number, self.language));
                };
                if let Some(specialist) = own_block::by_status(self.specialists, &fields)
                    && specialist.answers_from_fields(&fields)
                {
                    return self.explained(specialist, fields).await;
                }
                match self.orders.sales_order(&number).await? {
                    Some(order) => order,
                    None => return Ok(not_found(&number, self.language)),
                }
            }
        };
        let number = order.sales_order.clone();
        if own_block::none(&order) {
            let language = self.language;
            let text = match crate::agent::specialists::unconfigured_blocks(&order, language) {
                Some(unconfigured) => say(
                    language,
                    "order-unconfigured",
                    &[
                        ("order", number.as_str().into()),
                        ("unconfigured", unconfigured.into()),
                    ],
                ),
                None => say(
                    language,
                    "not-blocked",
                    &[("order", number.as_str().into())],
                ),
            };
            return Ok(item(&number, None, ItemState::Completed, text));
        }
        let Some(specialist) = own_block::specialist_for(self.specialists, self.router, &order)
        else {
            return Ok(item(
                &number,
                None,
                ItemState::Failed,
                say(
                    self.language,
                    "batch-unknown-block",
                    &[
                        ("order", number.as_str().into()),
                        ("note", order.block_note.as_str().into()),
                    ],
                ),
            ));
        };
        self.explained(specialist, order).await
    }

    /// `specialist`'s answer for `order`, as the order's item.
    async fn explained(
        &self,
        specialist: &dyn Specialist,
        order: SalesOrder,
    ) -> Result<BatchItem, BackendError> {
        let number = order.sales_order.clone();
        let id = specialist.skill().id;
        let span = tracing::info_span!(
            "specialist",
            otel.name = "specialist",
            a2a.specialist = id,
            routing.basis = RoutingBasis::OrderBlock.as_str(),
            sap.sales_order = number.as_str(),
        );
        let reply = tracing::Instrument::instrument(
            specialist.explain(&order, self.orders.as_ref(), self.language),
            span,
        )
        .await?;
        let state = match reply.outcome {
            Outcome::Completed | Outcome::InputRequired => ItemState::Completed,
            Outcome::Failed => ItemState::Failed,
            Outcome::Rejected => ItemState::Rejected,
        };
        Ok(BatchItem {
            proposal: reply.proposal,
            ..item(&number, Some(id), state, reply.text)
        })
    }
}

fn not_found(number: &str, language: Language) -> BatchItem {
    item(
        number,
        None,
        ItemState::Failed,
        say(language, "not-found", &[("order", number.into())]),
    )
}
