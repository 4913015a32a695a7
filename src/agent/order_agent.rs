//! The agent behind the card: route, then let one specialist answer.

use super::approval::{self, Approvals};
use super::input::DataFields;
use super::router::{Router, RoutingBasis, RoutingDecision};
use super::specialists::{self, Skill, Specialist};
use super::text::find_sales_order;
use super::{Agent, Outcome, Reply, Turn, UserMessage};
use crate::backend::OrderSource;
use async_trait::async_trait;
use std::sync::Arc;
use std::time::Duration;

pub struct OrderExceptionAgent {
    specialists: Vec<Box<dyn Specialist>>,
    router: Router,
    orders: Arc<dyn OrderSource>,
    approvals: Approvals,
    /// A turn's backend reads together may take this long.
    backend_timeout: Duration,
}

impl OrderExceptionAgent {
    /// `approvals` must be built on the same order source and on the rule
    /// book of [`OrderExceptionAgent::registry`].
    pub fn new(orders: Arc<dyn OrderSource>, approvals: Approvals) -> Self {
        let specialists = specialists::all();
        let skills: Vec<&Skill> = specialists.iter().map(|s| s.skill()).collect();
        OrderExceptionAgent {
            router: Router::new(&skills),
            specialists,
            orders,
            approvals,
            backend_timeout: Duration::from_secs(120),
        }
    }

    /// Each specialist's skill id and the action it proposes: the rule
    /// book's allowlist of proposals is derived from it.
    pub fn registry() -> Vec<(&'static str, crate::agent::Action)> {
        specialists::all()
            .iter()
            .map(|s| (s.skill().id, s.proposes()))
            .collect()
    }

    pub fn with_backend_timeout(mut self, timeout: Duration) -> Self {
        self.backend_timeout = timeout;
        self
    }

    fn specialist(&self, id: &str) -> Option<&dyn Specialist> {
        self.specialists
            .iter()
            .find(|specialist| specialist.skill().id == id)
            .map(Box::as_ref)
    }

    /// The question when no specialist fits: name the candidates of a tie,
    /// or all kinds of problem.
    fn which_problem(&self, decision: &RoutingDecision) -> String {
        let names: Vec<&str> = if decision.tied.is_empty() {
            self.specialists.iter().map(|s| s.skill().name).collect()
        } else {
            decision
                .tied
                .iter()
                .filter_map(|id| self.specialist(id).map(|s| s.skill().name))
                .collect()
        };
        format!(
            "Which problem is it: {}? Please say which one and give the sales order number.",
            join_or(&names)
        )
    }

    async fn answer(&self, turn: &Turn) -> Result<Reply, crate::backend::BackendError> {
        // Every read of this turn is made as the caller.
        let orders = Arc::clone(&self.orders).as_user(turn.caller.user_token.as_ref());
        let mut said = turn.earlier.clone();
        said.push(UserMessage {
            text: turn.text.clone(),
            data: turn.data.clone(),
        });
        let read: Vec<(&str, DataFields)> = said
            .iter()
            .map(|message| (message.text.as_str(), DataFields::read(&message.data)))
            .collect();
        // The words route: the texts, and block notes passed as data.
        let everything = read
            .iter()
            .flat_map(|(text, fields)| std::iter::once(*text).chain(fields.note.as_deref()))
            .collect::<Vec<_>>()
            .join("\n");
        // The newest number wins: a follow-up may correct the order. Within a
        // message, a number passed as data is meant more surely than one in text.
        let sales_order = read.iter().rev().find_map(|(text, fields)| {
            fields
                .sales_order
                .clone()
                .or_else(|| find_sales_order(text))
        });
        let mut decision = self.router.route(&everything);

        if decision.specialist.is_none() {
            let Some(number) = sales_order.as_deref() else {
                let question = self.which_problem(&decision);
                return Ok(Reply {
                    routing: Some(decision),
                    ..Reply::new(Outcome::InputRequired, question)
                });
            };
            let Some(order) = orders.sales_order(number).await? else {
                return Ok(Reply {
                    routing: Some(decision),
                    ..specialists::not_found(number)
                });
            };
            if order.block_note.is_empty() {
                return Ok(Reply {
                    routing: Some(decision),
                    ..Reply::new(
                        Outcome::Completed,
                        format!("Sales order {number} is not blocked; nothing needs to be done."),
                    )
                });
            }
            // The words did not decide; the order's own block note does.
            let by_note = self.router.route(&order.block_note);
            if by_note.specialist.is_none() {
                let question = self.which_problem(&decision);
                return Ok(Reply {
                    routing: Some(decision),
                    ..Reply::new(Outcome::InputRequired, question)
                });
            }
            decision.specialist = by_note.specialist;
            decision.basis = RoutingBasis::OrderBlockNote;
            decision.tied.clear();
        }

        let Some(specialist) = decision
            .specialist
            .as_deref()
            .and_then(|id| self.specialist(id))
        else {
            return Ok(Reply::new(
                Outcome::Failed,
                "No specialist is available for this request.",
            ));
        };
        let span = tracing::info_span!(
            "specialist",
            otel.name = "specialist",
            a2a.specialist = specialist.skill().id,
            routing.basis = decision.basis.as_str(),
        );
        let mut reply = tracing::Instrument::instrument(
            specialists::handle(specialist, sales_order.as_deref(), orders.as_ref()),
            span,
        )
        .await?;
        reply.routing = Some(decision);
        Ok(reply)
    }
}

fn join_or(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

#[async_trait]
impl Agent for OrderExceptionAgent {
    fn skills(&self) -> Vec<&'static Skill> {
        self.specialists.iter().map(|s| s.skill()).collect()
    }

    fn offered_actions(&self) -> Vec<crate::agent::OfferedAction> {
        self.approvals.rules().offered(&Self::registry())
    }

    async fn respond(&self, turn: Turn) -> Reply {
        if let Some(pending) = turn.pending.clone() {
            return self.approvals.answer(pending, &turn).await;
        }
        if approval::decision(&turn.text) != approval::Decision::Unclear {
            return Reply::new(
                Outcome::Rejected,
                "Nothing in this conversation is waiting for your approval. Ask about a blocked \
                 sales order first; I will ask before anything is filed.",
            );
        }
        match tokio::time::timeout(self.backend_timeout, self.answer(&turn))
            .await
            .unwrap_or_else(|_| {
                Err(crate::backend::BackendError::Unavailable(format!(
                    "no answer within {} s",
                    self.backend_timeout.as_secs_f64()
                )))
            }) {
            Ok(reply) => self.approvals.offer(reply, &turn.caller),
            Err(error) => {
                tracing::warn!(%error, "backend read failed");
                let (refusal, text) = error.for_the_user();
                let outcome = match refusal {
                    crate::backend::Refusal::Rejected => Outcome::Rejected,
                    crate::backend::Refusal::Failed => Outcome::Failed,
                };
                Reply::new(outcome, text)
            }
        }
    }
}
