//! The batch answer: a summary line ("3 of 4 orders explained; 4711 could
//! not be read in time"), one line per order in a stable order, a line on
//! what was left out past the bound, and one approval question for every
//! proposal the caller's role may approve. What the role may not do is
//! said on the order's own line, with who may decide.

use super::{BatchItem, BatchReport, ItemState};
use crate::agent::approval::batch::{Offer, batch_question};
use crate::agent::approval::{PendingOrder, PendingState};
use crate::agent::language::Language;
use crate::agent::language::catalog::{and_list, text as say};
use crate::agent::{Approvals, Caller, Outcome, Reply};

/// Orders past the bound: how many, and how to narrow the question.
pub struct LeftOut {
    pub count: usize,
    pub hint: String,
}

/// "3 of 4 orders explained; 4711 could not be read in time." in
/// `language`.
pub fn summary(items: &[BatchItem], language: Language) -> String {
    let of = |state: ItemState| -> Vec<&str> {
        items
            .iter()
            .filter(|item| item.state == state)
            .map(|item| item.order.as_str())
            .collect()
    };
    let mut text = say(
        language,
        "batch-explained",
        &[
            ("done", of(ItemState::Completed).len().into()),
            ("total", items.len().into()),
        ],
    );
    for (state, id) in [
        (ItemState::TimedOut, "batch-timed-out"),
        (ItemState::Failed, "batch-failed"),
        (ItemState::Rejected, "batch-refused"),
    ] {
        let orders = of(state);
        if !orders.is_empty() {
            let clause = say(
                language,
                id,
                &[("orders", and_list(language, &orders).into())],
            );
            text = say(
                language,
                "clause-join",
                &[("left", text.into()), ("right", clause.into())],
            );
        }
    }
    text.push('.');
    text
}

/// One line, whatever the specialist's text holds: line breaks and runs
/// of spaces become one space, but a no-break space stays (French puts a
/// narrow one before `:` and in `50 700,00`, so neither breaks apart).
fn one_line(text: &str) -> String {
    text.split(|c: char| c.is_whitespace() && !NO_BREAK.contains(&c))
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The no-break spaces: U+00A0, and U+202F (narrow).
const NO_BREAK: [char; 2] = ['\u{A0}', '\u{202F}'];

/// Offer the items' proposals, then the reply: text (in `language`), data
/// (its summary in English, as calling agents have always read it), what
/// waits.
pub fn compose(
    mut items: Vec<BatchItem>,
    left_out: Option<LeftOut>,
    approvals: &Approvals,
    caller: &Caller,
    language: Language,
) -> Reply {
    let mut pending = Vec::new();
    for item in &mut items {
        let Some(proposal) = item.proposal.clone() else {
            continue;
        };
        if item.state != ItemState::Completed {
            continue;
        }
        match approvals.offer_item(&proposal, caller, language) {
            Offer::Offered(note) => {
                item.approval = Some(note);
                pending.push(PendingOrder {
                    proposal,
                    state: PendingState::Pending,
                });
            }
            Offer::Refused {
                note,
                reason,
                dropped,
            } => {
                item.explanation = format!("{} {reason}", item.explanation);
                item.approval = Some(note);
                if dropped {
                    item.proposal = None;
                }
            }
            Offer::NeedsOwnQuestion(reason) => {
                item.explanation = format!("{} {reason}", item.explanation);
            }
        }
    }
    let mut text = summary(&items, language);
    let summary = summary(&items, Language::En);
    text.push('\n');
    let nobody = say(language, "batch-no-specialist", &[]);
    for item in &items {
        let who = item.specialist.as_deref().unwrap_or(&nobody);
        text.push_str("\n- ");
        text.push_str(&say(
            language,
            "batch-item",
            &[
                ("order", item.order.as_str().into()),
                ("who", who.into()),
                ("text", one_line(&item.explanation).into()),
            ],
        ));
    }
    let not_listed = left_out.as_ref().map_or(0, |left| left.count);
    if let Some(left) = &left_out {
        text.push_str(&format!("\n\n{}", left.hint));
    }
    let outcome = if pending.is_empty() {
        Outcome::Completed
    } else {
        text.push_str(&format!("\n\n{}", batch_question(&pending, language)));
        Outcome::InputRequired
    };
    Reply {
        batch: Some(BatchReport {
            summary,
            orders: items,
            not_listed,
            approvals: Vec::new(),
            pending,
        }),
        ..Reply::new(outcome, text)
    }
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn one_line_keeps_no_break_spaces() {
        assert_eq!(one_line("a\n\nb  c\r\nd"), "a b c d");
        assert_eq!(
            one_line("client 10023\u{202F}: 50\u{202F}700,00\u{A0}EUR\n\nfin"),
            "client 10023\u{202F}: 50\u{202F}700,00\u{A0}EUR fin"
        );
    }
}
