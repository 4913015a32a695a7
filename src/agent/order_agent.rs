//! The agent behind the card: route, then let one specialist answer; a
//! batch of orders goes to [`super::batch`].

use super::approval::{self, Approvals, PendingApproval};
use super::batch::answer::{self, LeftOut};
use super::batch::fan_out::{FanOut, Work};
use super::batch::{self as batches, BatchRequest};
use super::input::DataFields;
use super::router::{Router, RoutingBasis, RoutingDecision};
use super::settings::BatchSettings;
use super::specialists::{self, Skill, Specialist};
use super::text::find_sales_order;
use super::{Agent, Outcome, Reply, Turn, UserMessage};
use crate::backend::{BlockKind, BlockedQuery, OrderSource};
use async_trait::async_trait;
use std::sync::Arc;
use std::time::Duration;

/// A blocked-orders query asks for this many times the bound, so the
/// answer can say how many more match (or "at least" that many).
const COUNT_PAST_THE_BOUND: usize = 5;

pub struct OrderExceptionAgent {
    specialists: Vec<Box<dyn Specialist>>,
    router: Router,
    orders: Arc<dyn OrderSource>,
    approvals: Approvals,
    /// A turn's backend reads together may take this long.
    backend_timeout: Duration,
    batch: BatchSettings,
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
            batch: BatchSettings::default(),
        }
    }

    /// How batches of orders are fanned out (`batch.*` settings).
    pub fn with_batch_settings(mut self, settings: BatchSettings) -> Self {
        self.batch = settings;
        self
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

    /// The short answer to an ask for orders beyond blocked ones ("list all
    /// sales orders from last week"): what this agent does, and how to ask.
    fn what_i_do(&self) -> String {
        let kinds: Vec<String> = self
            .specialists
            .iter()
            .map(|s| s.skill().name.to_lowercase())
            .collect();
        let kinds: Vec<&str> = kinds.iter().map(String::as_str).collect();
        format!(
            "I explain blocked sales orders ({}); I do not list other orders. Ask \"show me all \
             blocked orders\", \"credit blocks of customer 10023\", or about one order: \"why is \
             4711 blocked?\"",
            join_or(&kinds)
        )
    }

    /// The kind of block the words are about, when the router is sure.
    fn kind_of(&self, text: &str) -> Option<BlockKind> {
        let decision = self.router.route(text);
        let id = decision.specialist?;
        self.specialist(&id).map(|specialist| specialist.handles())
    }

    /// Several orders: list them (a blocked-orders query) or take the
    /// named ones, fan them out, answer per order.
    async fn batch(&self, request: BatchRequest, turn: &Turn) -> Reply {
        let orders = Arc::clone(&self.orders).as_user(turn.caller.user_token.as_ref());
        let bound = self.batch.bound();
        let (work, left_out) = match request {
            BatchRequest::Named(numbers) => {
                let count = numbers.len().saturating_sub(bound);
                let (orders_were, them) = if count == 1 {
                    ("order was", "it")
                } else {
                    ("orders were", "them")
                };
                let left_out = (count > 0).then(|| LeftOut {
                    count,
                    hint: format!(
                        "{count} more {orders_were} named than one request looks at (at most \
                         {bound}); ask about {them} in another request."
                    ),
                });
                let work: Vec<Work> = numbers.into_iter().take(bound).map(Work::Number).collect();
                (work, left_out)
            }
            BatchRequest::Blocked { customer, kind } => {
                let what = describe_query(customer.as_deref(), kind, true);
                let one_of_what = describe_query(customer.as_deref(), kind, false);
                // More than the bound is asked for, to say how many more match.
                let probe = bound.saturating_mul(COUNT_PAST_THE_BOUND);
                let query = BlockedQuery {
                    customer,
                    kind,
                    limit: probe,
                };
                let listed =
                    tokio::time::timeout(self.batch.item_timeout(), orders.blocked_orders(&query))
                        .await;
                let found = match listed {
                    Ok(Ok(found)) => found,
                    Ok(Err(error)) => {
                        tracing::warn!(%error, "the blocked orders could not be listed");
                        let (refusal, text) = error.for_the_user();
                        let outcome = match refusal {
                            crate::backend::Refusal::Rejected => Outcome::Rejected,
                            crate::backend::Refusal::Failed => Outcome::Failed,
                        };
                        return Reply::new(outcome, text);
                    }
                    Err(_) => {
                        return Reply::new(
                            Outcome::Failed,
                            format!("The {what} could not be listed in time; please try again."),
                        );
                    }
                };
                if found.is_empty() {
                    return Reply::new(Outcome::Completed, format!("No {what} found."));
                }
                let count = found.len().saturating_sub(bound);
                let at_least = if found.len() >= probe {
                    "at least "
                } else {
                    ""
                };
                let more = if count == 1 && at_least.is_empty() {
                    format!("1 more {one_of_what} matches")
                } else {
                    format!("{at_least}{count} more {what} match")
                };
                let left_out = (count > 0).then(|| LeftOut {
                    count,
                    hint: format!(
                        "{more} than one request looks at (at most {bound}); \
                         narrow the question, for example to one customer (\"blocked orders of \
                         customer 10023\") or one kind of block (\"credit blocks\")."
                    ),
                });
                let work = found
                    .into_iter()
                    .take(bound)
                    .map(|order| Work::Order(Box::new(order)))
                    .collect();
                (work, left_out)
            }
        };
        let fan_out = FanOut {
            specialists: &self.specialists,
            router: &self.router,
            orders,
            settings: &self.batch,
            progress: &turn.progress,
        };
        let span = tracing::info_span!(
            "batch",
            otel.name = "batch",
            batch.orders = work.len(),
            batch.not_listed = left_out.as_ref().map_or(0, |left| left.count),
        );
        let items = tracing::Instrument::instrument(fan_out.run(work), span).await;
        answer::compose(items, left_out, &self.approvals, &turn.caller)
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
        decision.language = Some(turn.language.language);
        decision.language_source = Some(turn.language.source);

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
                let text = match specialists::unconfigured_blocks(&order) {
                    Some(unconfigured) => format!("Sales order {number}: {unconfigured}"),
                    None => {
                        format!("Sales order {number} is not blocked; nothing needs to be done.")
                    }
                };
                return Ok(Reply {
                    routing: Some(decision),
                    ..Reply::new(Outcome::Completed, text)
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

/// What a blocked-orders query asks for, in the plural ("credit blocks of
/// customer 10023") or for one of them ("credit block of customer 10023").
fn describe_query(customer: Option<&str>, kind: Option<BlockKind>, plural: bool) -> String {
    let noun = match kind {
        None => "blocked order",
        Some(BlockKind::Credit) => "credit block",
        Some(BlockKind::PriceDispute) => "price dispute",
        Some(BlockKind::MasterData) => "incomplete order",
        Some(BlockKind::Delivery) => "delivery block",
    };
    let what = if plural {
        format!("{noun}s")
    } else {
        noun.to_string()
    };
    match customer {
        Some(customer) => format!("{what} of customer {customer}"),
        None => what,
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
        match turn.pending.clone() {
            Some(PendingApproval::One(pending)) => {
                return self.approvals.answer(pending, &turn).await;
            }
            Some(PendingApproval::Batch(pending)) => {
                return self.approvals.answer_batch(pending, &turn).await;
            }
            None => {}
        }
        if approval::decision(&turn.text) != approval::Decision::Unclear {
            return Reply::new(
                Outcome::Rejected,
                "Nothing in this conversation is waiting for your approval. Ask about a blocked \
                 sales order first; I will ask before anything is filed.",
            );
        }
        if let Some(request) = batches::recognise(&turn.text, |text| self.kind_of(text)) {
            return self.batch(request, &turn).await;
        }
        if batches::beyond_reach(&turn.text, |text| self.kind_of(text)) {
            return Reply::new(Outcome::InputRequired, self.what_i_do());
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
