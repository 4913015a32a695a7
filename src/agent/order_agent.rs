//! The agent behind the card: route, then let one specialist answer; a
//! batch of orders goes to [`super::batch`].

use super::approval::{self, Approvals, PendingApproval};
use super::batch::answer::{self, LeftOut};
use super::batch::fan_out::{FanOut, Work};
use super::batch::{self as batches, BatchRequest};
use super::input::DataFields;
use super::language::Language;
use super::language::catalog::{self, text as say};
use super::own_block;
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
        specialists::registry()
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
    fn which_problem(&self, decision: &RoutingDecision, language: Language) -> String {
        let ids: Vec<&str> = if decision.tied.is_empty() {
            self.specialists.iter().map(|s| s.skill().id).collect()
        } else {
            decision
                .tied
                .iter()
                .filter_map(|id| self.specialist(id).map(|s| s.skill().id))
                .collect()
        };
        let names = skill_words(language, "skill-name", &ids);
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        say(
            language,
            "which-problem",
            &[("problems", catalog::or_list(language, &names).into())],
        )
    }

    /// The short answer to an ask for orders beyond blocked ones ("list all
    /// sales orders from last week"): what this agent does, and how to ask.
    fn what_i_do(&self, language: Language) -> String {
        let ids: Vec<&str> = self.specialists.iter().map(|s| s.skill().id).collect();
        let kinds = skill_words(language, "skill-kind", &ids);
        let kinds: Vec<&str> = kinds.iter().map(String::as_str).collect();
        say(
            language,
            "what-i-do",
            &[("kinds", catalog::or_list(language, &kinds).into())],
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
    async fn batch(&self, request: BatchRequest, turn: &Turn, language: Language) -> Reply {
        let orders = Arc::clone(&self.orders).as_user(turn.caller.reading());
        let bound = self.batch.bound();
        let (work, left_out) = match request {
            BatchRequest::Named(numbers) => {
                let count = numbers.len().saturating_sub(bound);
                let left_out = (count > 0).then(|| LeftOut {
                    count,
                    hint: say(
                        language,
                        "named-left-out",
                        &[("count", count.into()), ("bound", bound.into())],
                    ),
                });
                let work: Vec<Work> = numbers.into_iter().take(bound).map(Work::Number).collect();
                (work, left_out)
            }
            BatchRequest::Blocked { customer, kind } => {
                // A customer named by name is found first, as the caller.
                let customer = match customer {
                    Some(customer) => {
                        match batches::customer::settle(orders.as_ref(), customer, language).await {
                            Ok(settled) => Some(settled),
                            Err(reply) => return reply,
                        }
                    }
                    None => None,
                };
                let shown = customer.as_ref().map(|customer| customer.shown.as_str());
                let what = describe_query(shown, kind, true, language);
                let one_of_what = describe_query(shown, kind, false, language);
                // More than the bound is asked for, to say how many more match.
                let probe = bound.saturating_mul(COUNT_PAST_THE_BOUND);
                let query = BlockedQuery {
                    customer: customer.map(|customer| customer.number),
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
                        let (refusal, text) = catalog::backend_error(&error, language);
                        let outcome = match refusal {
                            crate::backend::Refusal::Rejected => Outcome::Rejected,
                            crate::backend::Refusal::Failed => Outcome::Failed,
                        };
                        return Reply::new(outcome, text);
                    }
                    Err(_) => {
                        return Reply::new(
                            Outcome::Failed,
                            say(
                                language,
                                "blocked-not-listed-in-time",
                                &[("what", what.into())],
                            ),
                        );
                    }
                };
                if found.is_empty() {
                    return Reply::new(
                        Outcome::Completed,
                        say(language, "blocked-none-found", &[("what", what.into())]),
                    );
                }
                let count = found.len().saturating_sub(bound);
                let at_least = found.len() >= probe;
                let more = if count == 1 && !at_least {
                    say(
                        language,
                        "blocked-one-more",
                        &[("what", one_of_what.into())],
                    )
                } else {
                    say(
                        language,
                        "blocked-more",
                        &[
                            ("atLeast", if at_least { "yes" } else { "no" }.into()),
                            ("count", count.into()),
                            ("what", what.as_str().into()),
                        ],
                    )
                };
                let left_out = (count > 0).then(|| LeftOut {
                    count,
                    hint: say(
                        language,
                        "blocked-left-out",
                        &[("more", more.into()), ("bound", bound.into())],
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
            language,
        };
        let span = tracing::info_span!(
            "batch",
            otel.name = "batch",
            batch.orders = work.len(),
            batch.not_listed = left_out.as_ref().map_or(0, |left| left.count),
        );
        let items = tracing::Instrument::instrument(fan_out.run(work), span).await;
        answer::compose(items, left_out, &self.approvals, &turn.caller, language)
    }

    async fn answer(
        &self,
        turn: &Turn,
        language: Language,
    ) -> Result<Reply, crate::backend::BackendError> {
        // Every read of this turn is made as the caller.
        let orders = Arc::clone(&self.orders).as_user(turn.caller.reading());
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
                let question = self.which_problem(&decision, language);
                return Ok(Reply {
                    routing: Some(decision),
                    ..Reply::new(Outcome::InputRequired, question)
                });
            };
            let Some(order) = orders.sales_order(number).await? else {
                return Ok(Reply {
                    routing: Some(decision),
                    ..specialists::not_found(number, language)
                });
            };
            if own_block::none(&order) {
                let text = match specialists::unconfigured_blocks(&order, language) {
                    Some(unconfigured) => say(
                        language,
                        "order-unconfigured",
                        &[
                            ("order", number.into()),
                            ("unconfigured", unconfigured.into()),
                        ],
                    ),
                    None => say(language, "not-blocked", &[("order", number.into())]),
                };
                return Ok(Reply {
                    routing: Some(decision),
                    ..Reply::new(Outcome::Completed, text)
                });
            }
            // The words named no kind of block; the order's own block does.
            let Some(own) = own_block::specialist_for(&self.specialists, &self.router, &order)
            else {
                let question = self.which_problem(&decision, language);
                return Ok(Reply {
                    routing: Some(decision),
                    ..Reply::new(Outcome::InputRequired, question)
                });
            };
            decision.specialist = Some(own.skill().id.to_string());
            decision.basis = RoutingBasis::OrderBlock;
            decision.tied.clear();
        }

        let Some(specialist) = decision
            .specialist
            .as_deref()
            .and_then(|id| self.specialist(id))
        else {
            return Ok(Reply::new(
                Outcome::Failed,
                say(language, "no-specialist", &[]),
            ));
        };
        let span = tracing::info_span!(
            "specialist",
            otel.name = "specialist",
            a2a.specialist = specialist.skill().id,
            routing.basis = decision.basis.as_str(),
        );
        let mut reply = tracing::Instrument::instrument(
            specialists::handle(
                specialist,
                sales_order.as_deref(),
                orders.as_ref(),
                language,
            ),
            span,
        )
        .await?;
        if reply.outcome == Outcome::Rejected
            && let Some(number) = sales_order.as_deref()
        {
            self.name_own_block(&mut reply, specialist, number, orders.as_ref(), language)
                .await?;
        }
        reply.routing = Some(decision);
        Ok(reply)
    }

    /// A specialist declined the order (`rejected`: a specialist rejects
    /// only an order whose block is not its kind): the answer names the
    /// block the order does have and how to ask about it. The order was
    /// read in this turn already, as the user (the source keeps it for the
    /// turn); a failed read ends the turn as any failed read does.
    async fn name_own_block(
        &self,
        reply: &mut Reply,
        declined_by: &dyn Specialist,
        number: &str,
        orders: &dyn OrderSource,
        language: Language,
    ) -> Result<(), crate::backend::BackendError> {
        let Some(order) = orders.sales_order(number).await? else {
            return Ok(());
        };
        let Some(own) = own_block::specialist_for(&self.specialists, &self.router, &order) else {
            return Ok(());
        };
        if own.skill().id == declined_by.skill().id {
            return Ok(());
        }
        reply.text.push(' ');
        reply.text.push_str(&say(
            language,
            "own-block-ask",
            &[("order", number.into()), ("kind", own.skill().id.into())],
        ));
        Ok(())
    }
}

/// What a blocked-orders query asks for, in the plural ("credit blocks of
/// customer 10023") or for one of them ("credit block of customer 10023").
fn describe_query(
    customer: Option<&str>,
    kind: Option<BlockKind>,
    plural: bool,
    language: Language,
) -> String {
    let kind = match kind {
        None => "any",
        Some(BlockKind::Credit) => "credit",
        Some(BlockKind::PriceDispute) => "pricing",
        Some(BlockKind::MasterData) => "masterdata",
        Some(BlockKind::Delivery) => "delivery",
    };
    let id = if plural {
        "blocked-many"
    } else {
        "blocked-one"
    };
    let what = say(language, id, &[("kind", kind.into())]);
    match customer {
        Some(customer) => say(
            language,
            "of-customer",
            &[("what", what.into()), ("customer", customer.into())],
        ),
        None => what,
    }
}

/// Each skill's name (`skill-name`) or its kind in a sentence
/// (`skill-kind`) in `language`.
fn skill_words(language: Language, id: &str, skills: &[&str]) -> Vec<String> {
    skills
        .iter()
        .map(|skill| say(language, id, &[("skill", (*skill).into())]))
        .collect()
}

/// A user of a language whose catalog is not complete is answered in
/// English, and told so in their own language on the first answer of the
/// conversation in it (docs/routing.md#languages).
fn said_once(mut reply: Reply, turn: &Turn) -> Reply {
    let language = turn.language.language;
    if catalog::answering(language) == language || turn.language.continues_conversation {
        return reply;
    }
    let note = say(language, "answers-in-english", &[]);
    reply.text = format!("{note}\n\n{}", reply.text);
    reply
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
        let reply = self
            .respond_in(&turn, catalog::answering(turn.language.language))
            .await;
        said_once(reply, &turn)
    }
}

impl OrderExceptionAgent {
    /// The turn's answer, in `language` (the language the user is answered in).
    async fn respond_in(&self, turn: &Turn, language: Language) -> Reply {
        match turn.pending.clone() {
            Some(PendingApproval::One(pending)) => {
                return self.approvals.answer(pending, turn).await;
            }
            Some(PendingApproval::Batch(pending)) => {
                return self.approvals.answer_batch(pending, turn).await;
            }
            None => {}
        }
        if approval::decision(&turn.text) != approval::Decision::Unclear {
            return Reply::new(Outcome::Rejected, say(language, "nothing-waiting", &[]));
        }
        let kind_of = |text: &str| self.kind_of(text);
        if let Some(request) = batches::recognise(&turn.text, kind_of).or_else(|| {
            let earlier = turn.earlier.iter().map(|said| said.text.as_str());
            batches::answers_which_customer(earlier, &turn.text, kind_of)
        }) {
            return self.batch(request, turn, language).await;
        }
        if batches::beyond_reach(&turn.text, |text| self.kind_of(text)) {
            // The router placed the words with no specialist: its decision
            // goes with the answer, as with the question which problem it
            // is, so clients and the eval read "none" from the metadata.
            let mut decision = self.router.route(&turn.text);
            decision.language = Some(turn.language.language);
            decision.language_source = Some(turn.language.source);
            return Reply {
                routing: Some(decision),
                ..Reply::new(Outcome::InputRequired, self.what_i_do(language))
            };
        }
        match tokio::time::timeout(self.backend_timeout, self.answer(turn, language))
            .await
            .unwrap_or_else(|_| {
                Err(crate::backend::BackendError::Unavailable(format!(
                    "no answer within {} s",
                    self.backend_timeout.as_secs_f64()
                )))
            }) {
            Ok(reply) => self.approvals.offer(reply, &turn.caller, language),
            Err(error) => {
                tracing::warn!(%error, "backend read failed");
                let (refusal, text) = catalog::backend_error(&error, language);
                let outcome = match refusal {
                    crate::backend::Refusal::Rejected => Outcome::Rejected,
                    crate::backend::Refusal::Failed => Outcome::Failed,
                };
                Reply::new(outcome, text)
            }
        }
    }
}
