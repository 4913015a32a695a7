//! The reads of one question, as OData V2 requests, and their mapping to
//! the normalised order, credit account, price and incompletion.

use super::audited;
use super::loaded::{AddressCheck, Loaded, PartnerAddress};
use super::odata::{self, decimal, literal, query, results, text};
use super::shared::S4Shared;
use super::transport::{Read, Target};
use crate::audit::AccessLog;
use crate::backend::{
    Amount, BackendError, BlockKind, BlockRules, BlockedQuery, Blocks, CreditAccount, Incompletion,
    PriceCondition, SalesOrder, SalesOrderItem, Subject,
};
use futures_util::future::join_all;
use serde_json::Value;
use std::collections::HashMap;

const SALES_ORDER_SRV: &str = "API_SALES_ORDER_SRV";
pub(super) const BUSINESS_PARTNER: &str = "API_BUSINESS_PARTNER";
const CREDIT: &str = "API_CRDTMBUSINESSPARTNER";
const JOURNAL: &str = "API_OPLACCTGDOCITEMCUBE_SRV";
const PRICES: &str = "API_SLSPRICINGCONDITIONRECORD_SRV";

/// The services `diagnose` checks (`$metadata` of each).
pub const SERVICES: &[&str] = &[SALES_ORDER_SRV, BUSINESS_PARTNER, CREDIT, JOURNAL, PRICES];

const HEADER_SELECT: &str = "SalesOrder,SoldToParty,TotalNetAmount,TransactionCurrency,\
TotalCreditCheckStatus,DeliveryBlockReason,HeaderBillingBlockReason,\
to_Item/SalesOrderItem,to_Item/Material,to_Item/RequestedQuantity,to_Item/NetAmount,\
to_Item/to_PricingElement/ConditionType,to_Item/to_PricingElement/ConditionRateValue,\
to_Item/to_PricingElement/ConditionInactiveReason,\
to_PricingElement/ConditionType,to_PricingElement/ConditionRateValue,\
to_PricingElement/ConditionInactiveReason,\
to_Text/Language,to_Text/LongTextID,to_Text/LongText,\
to_Partner/PartnerFunction,to_Partner/Customer,to_Partner/AddressID";
/// The order with its items and their pricing elements (the header's as a
/// fallback: s4hana-demo-data notes real S/4 may keep item conditions off
/// the header set), texts and partners: one round trip.
const HEADER_EXPAND: &str =
    "to_Item,to_Item/to_PricingElement,to_PricingElement,to_Text,to_Partner";

fn unreadable(what: &str, reason: String) -> BackendError {
    BackendError::Unavailable(format!("S/4HANA sent an unreadable {what}: {reason}"))
}

/// `A_SalesOrder` with `to_Item`, `to_Text`, `to_Partner` → the normalised
/// order (its block note of its own fields) and its checked partners, in
/// one round trip. Their addresses are a read of their own ([`gaps`]),
/// made only when an answer needs them.
pub(crate) async fn sales_order(
    shared: &S4Shared,
    target: &Target,
    number: &str,
) -> Result<Option<Loaded>, BackendError> {
    let path = format!(
        "A_SalesOrder({}){}",
        literal(number),
        query(&[
            ("$select", HEADER_SELECT.into()),
            ("$expand", HEADER_EXPAND.into())
        ])
    );
    let read = Read {
        service: SALES_ORDER_SRV,
        entity_set: "A_SalesOrder",
        path,
        sales_order: Some(number),
        what: Subject::SalesOrder(number.to_string()),
    };
    let Some(row) = shared.transport.get(target, read).await? else {
        return Ok(None);
    };
    let (order, partners) = map_order(shared, &row)?;
    Ok(Some(Loaded {
        order,
        partners,
        addresses: AddressCheck::NotRead,
    }))
}

/// The order's block note: its own fields' blocks and, once its partners'
/// addresses were checked, the first incomplete one.
pub(crate) fn block_note(shared: &S4Shared, order: &SalesOrder, gaps: &[Incompletion]) -> String {
    let incomplete = gaps.first().map(|gap| object_words(&gap.object));
    shared.rules.block_note(order, incomplete.as_deref())
}

fn object_words(object: &str) -> String {
    match object {
        "ShipToAddress" => "delivery address".into(),
        "SoldToAddress" => "sold-to address".into(),
        other => other.to_string(),
    }
}

fn map_order(
    shared: &S4Shared,
    row: &Value,
) -> Result<(SalesOrder, Vec<PartnerAddress>), BackendError> {
    let rules = &shared.rules;
    let item_rows = results(&row["to_Item"]);
    // The header's element stands for the item only when there is one item.
    let header_rate = if item_rows.len() == 1 {
        condition_rate(rules, &row["to_PricingElement"])?
    } else {
        None
    };
    let items = item_rows
        .iter()
        .map(|item| {
            Ok(SalesOrderItem {
                sales_order_item: text(item, "SalesOrderItem"),
                material: text(item, "Material"),
                requested_quantity: odata::quantity(item, "RequestedQuantity"),
                net_amount: decimal(item, "NetAmount").map_err(|e| unreadable("order item", e))?,
                condition_rate: condition_rate(rules, &item["to_PricingElement"])?.or(header_rate),
            })
        })
        .collect::<Result<Vec<_>, BackendError>>()?;
    let note = results(&row["to_Text"])
        .iter()
        .find(|t| {
            text(t, "LongTextID") == rules.customer_note_text_id
                && text(t, "Language").eq_ignore_ascii_case(&rules.customer_note_language)
        })
        .map(|t| text(t, "LongText"))
        .unwrap_or_default();
    let mut order = SalesOrder {
        sales_order: text(row, "SalesOrder"),
        sold_to_party: text(row, "SoldToParty"),
        total_net_amount: decimal(row, "TotalNetAmount")
            .map_err(|e| unreadable("sales order", e))?,
        transaction_currency: text(row, "TransactionCurrency"),
        total_credit_check_status: text(row, "TotalCreditCheckStatus"),
        delivery_block_reason: text(row, "DeliveryBlockReason"),
        header_billing_block_reason: text(row, "HeaderBillingBlockReason"),
        block_note: String::new(),
        customer_note: note,
        items,
        blocks: Blocks::default(),
        unconfigured_blocks: Vec::new(),
        etag: text(&row["__metadata"], "etag"),
        last_change_date_time: String::new(),
    };
    rules.classify(&mut order);
    order.block_note = rules.block_note(&order, None);
    let partners_rows = results(&row["to_Partner"]);
    let mut partners = Vec::new();
    for function in &rules.checked_partner_functions {
        if let Some(partner) = partners_rows
            .iter()
            .find(|p| text(p, "PartnerFunction") == *function)
        {
            let wanted = PartnerAddress {
                function: function.clone(),
                partner: text(partner, "Customer"),
                address_id: text(partner, "AddressID"),
            };
            if !wanted.partner.is_empty() {
                partners.push(wanted);
            }
        }
    }
    Ok((order, partners))
}

/// The rate of the first active pricing element of the configured
/// condition type (`PPR0`) in an expanded `to_PricingElement`.
fn condition_rate(rules: &BlockRules, elements: &Value) -> Result<Option<Amount>, BackendError> {
    results(elements)
        .iter()
        .find(|element| {
            text(element, "ConditionType") == rules.price_condition_type
                && text(element, "ConditionInactiveReason").is_empty()
        })
        .map(|element| {
            decimal(element, "ConditionRateValue").map_err(|e| unreadable("pricing element", e))
        })
        .transpose()
}

/// The required address fields each partner's address leaves empty (each
/// address read a data access in `accesses`).
pub(crate) async fn gaps(
    shared: &S4Shared,
    target: &Target,
    accesses: &AccessLog,
    order: &SalesOrder,
    partners: &[PartnerAddress],
) -> Result<Vec<Incompletion>, BackendError> {
    let found = addresses(shared, target, accesses, partners, Some(&order.sales_order)).await?;
    Ok(gaps_from(shared, order, partners, &found))
}

/// (business partner, address id) → the address (`None`: not there).
type Addresses = HashMap<(String, String), Option<Value>>;

/// Each (partner, address) pair once, in the order first named.
fn distinct(partners: &[PartnerAddress]) -> Vec<&PartnerAddress> {
    let mut distinct: Vec<&PartnerAddress> = Vec::new();
    for partner in partners {
        if !distinct
            .iter()
            .any(|seen| seen.partner == partner.partner && seen.address_id == partner.address_id)
        {
            distinct.push(partner);
        }
    }
    distinct
}

/// The distinct addresses of `partners`, read in parallel; each one found
/// is a data access.
async fn addresses(
    shared: &S4Shared,
    target: &Target,
    accesses: &AccessLog,
    partners: &[PartnerAddress],
    sales_order: Option<&str>,
) -> Result<Addresses, BackendError> {
    let distinct = distinct(partners);
    let reads = distinct
        .iter()
        .map(|partner| address(shared, target, partner, sales_order));
    let mut found = HashMap::new();
    for (partner, result) in distinct.iter().zip(join_all(reads).await) {
        let address = result?;
        if address.is_some() {
            audited::address_read(
                accesses,
                &partner.partner,
                &shared.rules.required_address_fields,
            );
        }
        found.insert(
            (partner.partner.clone(), partner.address_id.clone()),
            address,
        );
    }
    Ok(found)
}

/// The gaps of one order's partners in addresses read before.
fn gaps_from(
    shared: &S4Shared,
    order: &SalesOrder,
    partners: &[PartnerAddress],
    found: &Addresses,
) -> Vec<Incompletion> {
    let mut gaps = Vec::new();
    for partner in distinct(partners) {
        let key = (partner.partner.clone(), partner.address_id.clone());
        let Some(Some(row)) = found.get(&key) else {
            continue;
        };
        let missing: Vec<String> = shared
            .rules
            .required_address_fields
            .iter()
            .filter(|field| text(row, field).trim().is_empty())
            .cloned()
            .collect();
        if !missing.is_empty() {
            gaps.push(Incompletion {
                sales_order: order.sales_order.clone(),
                business_partner: partner.partner.clone(),
                object: match partner.function.as_str() {
                    "SH" => "ShipToAddress".into(),
                    "SP" => "SoldToAddress".into(),
                    other => format!("{other}Address"),
                },
                missing_fields: missing,
            });
        }
    }
    gaps
}

/// The address the partner uses (`AddressID`), else its first address.
async fn address(
    shared: &S4Shared,
    target: &Target,
    partner: &PartnerAddress,
    sales_order: Option<&str>,
) -> Result<Option<Value>, BackendError> {
    let select = shared.rules.required_address_fields.join(",");
    let what = Subject::PartnerAddress(partner.partner.clone());
    if partner.address_id.is_empty() {
        let path = format!(
            "A_BusinessPartner({})/to_BusinessPartnerAddress{}",
            literal(&partner.partner),
            query(&[("$select", select), ("$top", "1".into())])
        );
        let read = Read {
            service: BUSINESS_PARTNER,
            entity_set: "A_BusinessPartnerAddress",
            path,
            sales_order,
            what,
        };
        return Ok(shared
            .transport
            .get(target, read)
            .await?
            .and_then(|set| results(&set).first().cloned()));
    }
    let path = format!(
        "A_BusinessPartnerAddress(BusinessPartner={},AddressID={}){}",
        literal(&partner.partner),
        literal(&partner.address_id),
        query(&[("$select", select)])
    );
    let read = Read {
        service: BUSINESS_PARTNER,
        entity_set: "A_BusinessPartnerAddress",
        path,
        sales_order,
        what,
    };
    shared.transport.get(target, read).await
}

/// The credit limit (`CreditManagementAccount`) and the open receivables
/// (`A_OperationalAcctgDocItemCube`, summed), read in parallel: a data
/// access of the customer's credit data when either answered with rows.
pub(crate) async fn credit_account(
    shared: &S4Shared,
    target: &Target,
    accesses: &AccessLog,
    customer: &str,
) -> Result<Option<CreditAccount>, BackendError> {
    let mut filter = format!("BusinessPartner eq {}", literal_raw(customer));
    if let Some(segment) = &shared.settings.credit_segment {
        filter.push_str(&format!(" and CreditSegment eq {}", literal_raw(segment)));
    }
    let account = Read {
        service: CREDIT,
        entity_set: "CreditManagementAccount",
        path: format!(
            "CreditManagementAccount{}",
            query(&[
                ("$filter", filter),
                (
                    "$select",
                    "BusinessPartner,CreditSegment,CreditLimitAmount,CreditSegmentCurrency".into()
                ),
                ("$top", "1".into()),
            ])
        ),
        sales_order: None,
        what: Subject::CreditAccount(customer.to_string()),
    };
    let open = Read {
        service: JOURNAL,
        entity_set: "A_OperationalAcctgDocItemCube",
        path: format!(
            "A_OperationalAcctgDocItemCube{}",
            query(&[
                (
                    "$filter",
                    format!(
                        "Customer eq {} and FinancialAccountType eq 'D' and IsCleared eq false",
                        literal_raw(customer)
                    )
                ),
                (
                    "$select",
                    "AmountInCompanyCodeCurrency,CompanyCodeCurrency".into()
                ),
                ("$top", "5000".into()),
            ])
        ),
        sales_order: None,
        what: Subject::OpenItems(customer.to_string()),
    };
    let (account, open) = tokio::try_join!(
        shared.transport.get(target, account),
        shared.transport.get(target, open)
    )?;
    audited::credit_read(
        accesses,
        customer,
        account.as_ref().is_some_and(|set| !results(set).is_empty()),
        open.as_ref().is_some_and(|set| !results(set).is_empty()),
    );
    let Some(account) = account.as_ref().and_then(|set| results(set).first()) else {
        return Ok(None);
    };
    let mut open_items = Amount::from_cents(0);
    for row in open.as_ref().map(results).unwrap_or(&[]) {
        open_items = open_items
            + decimal(row, "AmountInCompanyCodeCurrency")
                .map_err(|e| unreadable("journal entry item", e))?;
    }
    Ok(Some(CreditAccount {
        business_partner: text(account, "BusinessPartner"),
        credit_limit_amount: decimal(account, "CreditLimitAmount")
            .map_err(|e| unreadable("credit account", e))?,
        open_items_amount: open_items,
        currency: text(account, "CreditSegmentCurrency"),
    }))
}

/// A literal for inside a `$filter` (encoded with the whole option).
pub(super) fn literal_raw(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

/// The customer's price for the material: the validity rows of the
/// configured condition type that match customer and material today, then
/// their records (two queries; V2 has no `in`).
pub(crate) async fn list_price(
    shared: &S4Shared,
    target: &Target,
    customer: &str,
    material: &str,
) -> Result<Option<PriceCondition>, BackendError> {
    let today = odata::today_literal();
    let mut filter = format!(
        "ConditionType eq {} and Customer eq {} and Material eq {} \
         and ConditionValidityStartDate le {today} and ConditionValidityEndDate ge {today}",
        literal_raw(&shared.rules.price_condition_type),
        literal_raw(customer),
        literal_raw(material),
    );
    if let Some(org) = &shared.settings.sales_organization {
        filter.push_str(&format!(" and SalesOrganization eq {}", literal_raw(org)));
    }
    if let Some(channel) = &shared.settings.distribution_channel {
        filter.push_str(&format!(
            " and DistributionChannel eq {}",
            literal_raw(channel)
        ));
    }
    let what = Subject::PriceList(customer.to_string());
    let validity = Read {
        service: PRICES,
        entity_set: "A_SlsPrcgCndnRecdValidity",
        path: format!(
            "A_SlsPrcgCndnRecdValidity{}",
            query(&[("$filter", filter), ("$select", "ConditionRecord".into())])
        ),
        sales_order: None,
        what: what.clone(),
    };
    let rows = shared.transport.get(target, validity).await?;
    let mut records: Vec<String> = Vec::new();
    for row in rows.as_ref().map(results).unwrap_or(&[]) {
        let record = text(row, "ConditionRecord");
        if !record.is_empty() && !records.contains(&record) {
            records.push(record);
        }
    }
    if records.is_empty() {
        return Ok(None);
    }
    let filter = records
        .iter()
        .map(|record| format!("ConditionRecord eq {}", literal_raw(record)))
        .collect::<Vec<_>>()
        .join(" or ");
    let read = Read {
        service: PRICES,
        entity_set: "A_SlsPrcgConditionRecord",
        path: format!(
            "A_SlsPrcgConditionRecord{}",
            query(&[
                ("$filter", filter),
                (
                    "$select",
                    "ConditionRecord,ConditionRateValue,ConditionRateValueUnit,ConditionIsDeleted"
                        .into()
                ),
            ])
        ),
        sales_order: None,
        what,
    };
    let rows = shared.transport.get(target, read).await?;
    let by_record: HashMap<String, &Value> = rows
        .as_ref()
        .map(results)
        .unwrap_or(&[])
        .iter()
        .filter(|row| row["ConditionIsDeleted"] != Value::Bool(true))
        .map(|row| (text(row, "ConditionRecord"), row))
        .collect();
    let Some(row) = records.iter().find_map(|record| by_record.get(record)) else {
        return Ok(None);
    };
    Ok(Some(PriceCondition {
        customer: customer.to_string(),
        material: material.to_string(),
        condition_rate_value: decimal(row, "ConditionRateValue")
            .map_err(|e| unreadable("price record", e))?,
        condition_currency: text(row, "ConditionRateValueUnit"),
    }))
}

/// The `$filter` of a blocked-orders query: open orders, of the customer,
/// with the configured block codes of the kind asked for. `None`: the kind
/// matches nothing with these rules (no query is needed). Incomplete master
/// data has no field in V2 (s4hana.md §2.3): for it, and for "any block",
/// the filter lists the open orders and their addresses are checked.
fn blocked_filter(rules: &BlockRules, query: &BlockedQuery) -> Option<String> {
    let any_of = |field: &str, codes: &[String]| -> Option<String> {
        let terms: Vec<String> = codes
            .iter()
            .filter(|code| !code.is_empty())
            .map(|code| format!("{field} eq {}", literal_raw(code)))
            .collect();
        (!terms.is_empty()).then(|| format!("({})", terms.join(" or ")))
    };
    let mut terms = vec!["OverallSDProcessStatus ne 'C'".to_string()];
    if let Some(customer) = &query.customer {
        terms.push(format!("SoldToParty eq {}", literal_raw(customer)));
    }
    match query.kind {
        None | Some(BlockKind::MasterData) => {}
        Some(BlockKind::Credit) => {
            let blocked: Vec<String> = rules
                .credit_blocked_statuses
                .iter()
                .filter(|status| !rules.credit_released_statuses.contains(status))
                .cloned()
                .collect();
            terms.push(any_of("TotalCreditCheckStatus", &blocked)?);
        }
        Some(BlockKind::PriceDispute) => {
            terms.push(any_of(
                "HeaderBillingBlockReason",
                &rules.price_dispute_billing_blocks,
            )?);
        }
        Some(BlockKind::Delivery) => {
            if rules.delivery_block_codes.is_empty() {
                terms.push("DeliveryBlockReason ne ''".into());
            } else {
                terms.push(any_of("DeliveryBlockReason", &rules.delivery_block_codes)?);
            }
        }
    }
    Some(terms.join(" and "))
}

/// Open orders with a block or missing address data, in number order: one
/// OData query (`$filter` on the block fields of the kind asked for,
/// `$top`, the order's items, texts and partners expanded), then, where
/// the master data matters (any block, or that kind), the distinct partner
/// addresses in parallel. Each order as [`sales_order`] reads it, with its
/// address check when it was made.
pub(crate) async fn blocked_orders(
    shared: &S4Shared,
    target: &Target,
    accesses: &AccessLog,
    wanted: &BlockedQuery,
) -> Result<Vec<Loaded>, BackendError> {
    if wanted.limit == 0 {
        return Ok(Vec::new());
    }
    let Some(filter) = blocked_filter(&shared.rules, wanted) else {
        return Ok(Vec::new());
    };
    let checks_addresses = matches!(wanted.kind, None | Some(BlockKind::MasterData));
    // Filtered on the server, the first `limit` rows are the answer; when
    // the addresses decide, the open orders are read up to the scan bound.
    let scan = shared.settings.max_listed_orders as usize;
    let top = if checks_addresses {
        scan
    } else {
        wanted.limit.min(scan)
    };
    let read = Read {
        service: SALES_ORDER_SRV,
        entity_set: "A_SalesOrder",
        path: format!(
            "A_SalesOrder{}",
            query(&[
                ("$filter", filter),
                ("$select", HEADER_SELECT.into()),
                ("$expand", HEADER_EXPAND.into()),
                ("$orderby", "SalesOrder".into()),
                ("$top", top.to_string()),
            ])
        ),
        sales_order: None,
        what: Subject::SalesOrders,
    };
    let Some(set) = shared.transport.get(target, read).await? else {
        return Ok(Vec::new());
    };
    let mut mapped = Vec::new();
    for row in results(&set) {
        mapped.push(map_order(shared, row)?);
    }
    let found = if checks_addresses {
        let all: Vec<PartnerAddress> = mapped
            .iter()
            .flat_map(|(_, partners)| partners.iter().cloned())
            .collect();
        addresses(shared, target, accesses, &all, None).await?
    } else {
        HashMap::new()
    };
    let mut blocked = Vec::new();
    for (order, partners) in mapped {
        let (incomplete, addresses) = if checks_addresses {
            let gaps = gaps_from(shared, &order, &partners, &found);
            (!gaps.is_empty(), AddressCheck::Read(gaps))
        } else {
            (false, AddressCheck::NotRead)
        };
        if wanted.wants(order.blocks, incomplete) {
            blocked.push(Loaded {
                order,
                partners,
                addresses,
            });
        }
        if blocked.len() == wanted.limit {
            break;
        }
    }
    Ok(blocked)
}
