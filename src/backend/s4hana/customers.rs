//! Customers by name: `A_Customer` of `API_BUSINESS_PARTNER` (s4hana.md
//! §1.2: `Customer`, `CustomerName` S 80), read as the calling user like
//! every read. It is the one read whose `$filter` carries the user's own
//! words rather than digits, so the part of the name is bounded
//! ([`MAX_NAME_PART`]), stripped of control characters, and goes in only
//! as an OData string literal (a quote doubled, §3.3), with the whole
//! option percent-encoded by [`query`]. V2's `substringof` compares as
//! stored, so the filter asks for the part as typed, in lower case,
//! capitalised and in upper case (`or`; V2 has no `tolower` in the
//! reference's list of functions).

use super::odata::{query, results, text};
use super::reads::{BUSINESS_PARTNER, literal_raw};
use super::shared::S4Shared;
use super::transport::{Read, Target};
use crate::backend::{BackendError, Customer, MAX_NAME_PART, Subject};

/// The `$filter` for customers whose `CustomerName` contains `part` in one
/// of its spellings; `None`: the part is empty or too long to be in a name.
fn name_filter(part: &str) -> Option<String> {
    let part: String = part.chars().filter(|c| !c.is_control()).collect();
    let part = part.trim();
    if part.is_empty() || part.chars().count() > MAX_NAME_PART {
        return None;
    }
    let mut spellings: Vec<String> = Vec::with_capacity(4);
    for spelling in [
        part.to_string(),
        part.to_lowercase(),
        capitalised(part),
        part.to_uppercase(),
    ] {
        if !spellings.contains(&spelling) {
            spellings.push(spelling);
        }
    }
    Some(
        spellings
            .iter()
            .map(|spelling| format!("substringof({},CustomerName)", literal_raw(spelling)))
            .collect::<Vec<_>>()
            .join(" or "),
    )
}

/// Each word's first letter in upper case, the rest in lower case.
fn capitalised(part: &str) -> String {
    let mut out = String::with_capacity(part.len());
    let mut at_start = true;
    for c in part.chars() {
        if at_start {
            out.extend(c.to_uppercase());
        } else {
            out.extend(c.to_lowercase());
        }
        at_start = !c.is_alphanumeric();
    }
    out
}

/// The customers whose name contains `part`, in number order, at most
/// `limit` (`$top`), with only the two fields used (`$select`).
pub(crate) async fn customers_named(
    shared: &S4Shared,
    target: &Target,
    part: &str,
    limit: usize,
) -> Result<Vec<Customer>, BackendError> {
    let Some(filter) = name_filter(part) else {
        return Ok(Vec::new());
    };
    if limit == 0 {
        return Ok(Vec::new());
    }
    let read = Read {
        service: BUSINESS_PARTNER,
        entity_set: "A_Customer",
        path: format!(
            "A_Customer{}",
            query(&[
                ("$filter", filter),
                ("$select", "Customer,CustomerName".into()),
                ("$orderby", "Customer".into()),
                ("$top", limit.to_string()),
            ])
        ),
        sales_order: None,
        what: Subject::Customers(part.to_string()),
    };
    let Some(set) = shared.transport.get(target, read).await? else {
        return Ok(Vec::new());
    };
    Ok(results(&set)
        .iter()
        .map(|row| Customer {
            customer: text(row, "Customer"),
            customer_name: text(row, "CustomerName"),
        })
        .filter(|customer| !customer.customer.is_empty())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_goes_in_as_a_literal_in_each_spelling() {
        assert_eq!(
            name_filter("nordWind").as_deref(),
            Some(
                "substringof('nordWind',CustomerName) or substringof('nordwind',CustomerName) \
                 or substringof('Nordwind',CustomerName) or substringof('NORDWIND',CustomerName)"
            )
        );
        assert_eq!(
            name_filter("ACME").as_deref(),
            Some(
                "substringof('ACME',CustomerName) or substringof('acme',CustomerName) or substringof('Acme',CustomerName)"
            )
        );
    }

    /// A quote ends no literal: it is doubled, so `ACME') or (1 eq 1` is
    /// one string to look for, and the encoded query keeps `&`, `#` and
    /// `=` from starting another option.
    #[test]
    fn an_injection_attempt_stays_a_literal() {
        let filter = name_filter("ACME') or (1 eq 1").unwrap();
        assert!(
            filter.starts_with("substringof('ACME'') or (1 eq 1',CustomerName) or "),
            "{filter}"
        );
        let encoded = query(&[("$filter", name_filter("A&$top=9#'").unwrap())]);
        assert!(
            encoded.starts_with("?$filter=substringof('A%26$top%3D9%23''',CustomerName)"),
            "{encoded}"
        );
        assert!(
            !encoded.contains('&') && !encoded.contains('#'),
            "{encoded}"
        );
    }

    #[test]
    fn an_empty_or_overlong_part_is_no_query() {
        assert_eq!(name_filter(" \u{7} "), None);
        assert_eq!(name_filter(&"n".repeat(MAX_NAME_PART + 1)), None);
        assert!(name_filter(&"n".repeat(MAX_NAME_PART)).is_some());
    }
}
