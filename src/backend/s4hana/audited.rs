//! Which S/4HANA reads are personal data of a business partner, named
//! for the audit log (docs/audit.md): the credit limit
//! (`CreditManagementAccount`) with the open receivables
//! (`A_OperationalAcctgDocItemCube`) of a customer, and a partner's
//! address (`A_BusinessPartnerAddress`, the fields the incompletion check
//! reads). The object and the data subject are the business partner, as
//! CAP names an entity (`<service>.<entity set>`), in the role `Customer`
//! (every partner read is the order's customer: sold-to or ship-to). The
//! order itself, its items, texts and prices, and customers found by name
//! are no data access (commercial data, or the name the user typed).

use crate::audit::{AccessLog, AuditObject, DataSubject};
use std::collections::BTreeMap;

/// The entity a business partner is, as the audit log names it.
const BUSINESS_PARTNER: &str = "API_BUSINESS_PARTNER.A_BusinessPartner";
/// The role every business partner the agent reads has.
const CUSTOMER_ROLE: &str = "Customer";

/// The credit account's fields read (`$select`, the key aside).
const CREDIT_ACCOUNT: [&str; 2] = ["CreditLimitAmount", "CreditSegmentCurrency"];
/// The open items' fields read.
const OPEN_ITEMS: [&str; 2] = ["AmountInCompanyCodeCurrency", "CompanyCodeCurrency"];

/// Business partner `id` as object and as data subject.
pub fn business_partner(id: &str) -> (AuditObject, DataSubject) {
    let ids = BTreeMap::from([("BusinessPartner".to_string(), id.to_string())]);
    (
        AuditObject {
            object_type: BUSINESS_PARTNER.into(),
            id: ids.clone(),
        },
        DataSubject {
            subject_type: BUSINESS_PARTNER.into(),
            role: Some(CUSTOMER_ROLE.into()),
            id: ids,
        },
    )
}

/// The credit data of `partner` was read: its credit account (when S/4HANA
/// had one) and its open items (when it had any).
pub(super) fn credit_read(log: &AccessLog, partner: &str, account: bool, open_items: bool) {
    let mut attributes: Vec<&str> = Vec::new();
    if account {
        attributes.extend(CREDIT_ACCOUNT);
    }
    if open_items {
        attributes.extend(OPEN_ITEMS);
    }
    if attributes.is_empty() || partner.is_empty() {
        return;
    }
    let (object, subject) = business_partner(partner);
    log.read(object, subject, &attributes);
}

/// An address of `partner` was read: the `fields` selected.
pub(super) fn address_read(log: &AccessLog, partner: &str, fields: &[String]) {
    if fields.is_empty() || partner.is_empty() {
        return;
    }
    let attributes: Vec<&str> = fields.iter().map(String::as_str).collect();
    let (object, subject) = business_partner(partner);
    log.read(object, subject, &attributes);
}
