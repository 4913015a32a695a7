//! Writes to S/4HANA as the user (`reference/s4hana.md` §3.5, §1.4): the
//! CSRF handshake (`x-csrf-token: Fetch` on a GET of the service root, the
//! token kept with the session's cookies), a MERGE of changed fields with
//! `If-Match` = the ETag of the order as it was read (204), a sales order
//! text through `to_Text` (201), a MERGE of an existing text with `If-Match`
//! = the ETag its read gave (never without one), and the `ReleaseCreditBlock` function
//! import. The reads an executor needs to tell "already done" (the order's
//! date, block and credit status with its ETag; its texts) are here too.
//! Statuses become [`WriteError`]s: 412 `Stale`, 403 `Forbidden`, 400 and
//! other refusals `Refused`, timeouts/429/5xx `Transient`. A 403 with
//! `x-csrf-token: Required` fetches once more in a new session; nothing
//! else is retried here (the executor decides). One `backend.write` span
//! per call; never a token, cookie or CSRF token in a log.

mod session;
mod writer;

use super::S4HanaSource;
use super::odata;
use super::transport::Read;
use crate::backend::Subject;
use crate::secret::BearerToken;
use serde_json::{Map, Value, json};
use session::Write;
use std::sync::Arc;

pub use writer::{S4Writer, WriteError};

const SALES: &str = "API_SALES_ORDER_SRV";
const CREDIT_BLOCK: &str = "API_SLS_DOC_WITH_CREDIT_BLOCK";

/// The fields of an order an executor decides on, with its ETag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderState {
    pub etag: String,
    /// `YYYY-MM-DD`, or empty.
    pub requested_delivery_date: String,
    pub delivery_block_reason: String,
    pub total_credit_check_status: String,
    /// The customer whose order it is (the data subject of a write).
    pub sold_to_party: String,
}

/// One sales order text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderText {
    pub language: String,
    pub long_text_id: String,
    pub long_text: String,
    /// The ETag the read gave (`__metadata.etag`); empty for a new text.
    pub etag: String,
}

impl S4HanaSource {
    /// A writer as `user`; in destination mode there is none without one.
    pub async fn writer(&self, user: Option<&BearerToken>) -> Result<S4Writer, WriteError> {
        let target = self
            .shared()
            .transport
            .target(user)
            .await
            .map_err(|error| WriteError::from_read(error, ""))?;
        Ok(S4Writer {
            shared: Arc::clone(self.shared()),
            target,
            session: tokio::sync::Mutex::new(None),
        })
    }
}

/// `2026-12-18` as OData V2's `/Date(<ms>)/` (midnight UTC).
pub fn odata_date(date: &str) -> Option<String> {
    let mut parts = date.splitn(3, '-');
    let year: i32 = parts.next()?.parse().ok()?;
    let month: u8 = parts.next()?.parse().ok()?;
    let day: u8 = parts.next()?.parse().ok()?;
    let month = time::Month::try_from(month).ok()?;
    let date = time::Date::from_calendar_date(year, month, day).ok()?;
    let ms = date.midnight().assume_utc().unix_timestamp() * 1000;
    Some(format!("/Date({ms})/"))
}

/// `/Date(<ms>)/` as `YYYY-MM-DD`; empty for null or another shape.
fn iso_date(value: &Value) -> String {
    let Some(text) = value.as_str() else {
        return String::new();
    };
    let Some(ms) = text
        .strip_prefix("/Date(")
        .and_then(|rest| rest.strip_suffix(")/"))
        .and_then(|ms| ms.split(['+', '-']).next())
        .and_then(|ms| ms.parse::<i64>().ok())
    else {
        return String::new();
    };
    crate::clock::rfc3339_from_unix_ms(ms)[..10].to_string()
}

fn text_of(value: &Value, key: &str) -> String {
    value[key].as_str().unwrap_or_default().to_string()
}

impl S4Writer {
    /// The order's state as S/4HANA has it now; `None` if not there.
    pub async fn order_state(&self, order: &str) -> Result<Option<OrderState>, WriteError> {
        let read = Read {
            service: SALES,
            entity_set: "A_SalesOrder",
            path: format!(
                "A_SalesOrder({})?$select=SalesOrder,SoldToParty,RequestedDeliveryDate,DeliveryBlockReason,TotalCreditCheckStatus",
                odata::literal(order)
            ),
            sales_order: Some(order),
            what: Subject::SalesOrder(order.to_string()),
        };
        let Some(value) = self
            .shared
            .transport
            .get(&self.target, read)
            .await
            .map_err(|error| WriteError::from_read(error, order))?
        else {
            return Ok(None);
        };
        Ok(Some(OrderState {
            etag: text_of(&value["__metadata"], "etag"),
            requested_delivery_date: iso_date(&value["RequestedDeliveryDate"]),
            delivery_block_reason: text_of(&value, "DeliveryBlockReason"),
            total_credit_check_status: text_of(&value, "TotalCreditCheckStatus"),
            sold_to_party: text_of(&value, "SoldToParty"),
        }))
    }

    /// The order's texts.
    pub async fn texts(&self, order: &str) -> Result<Vec<OrderText>, WriteError> {
        let read = Read {
            service: SALES,
            entity_set: "A_SalesOrderText",
            path: format!("A_SalesOrder({})/to_Text", odata::literal(order)),
            sales_order: Some(order),
            what: Subject::SalesOrderTexts(order.to_string()),
        };
        let value = self
            .shared
            .transport
            .get(&self.target, read)
            .await
            .map_err(|error| WriteError::from_read(error, order))?
            .unwrap_or(Value::Null);
        Ok(odata::results(&value)
            .iter()
            .map(|row| OrderText {
                language: text_of(row, "Language"),
                long_text_id: text_of(row, "LongTextID"),
                long_text: text_of(row, "LongText"),
                etag: text_of(&row["__metadata"], "etag"),
            })
            .collect())
    }

    /// MERGE `fields` onto the order with `If-Match: etag`; 204 is success.
    pub async fn update_order(
        &self,
        order: &str,
        etag: &str,
        fields: &Map<String, Value>,
    ) -> Result<(), WriteError> {
        let path = format!("A_SalesOrder({})", odata::literal(order));
        let body = Value::Object(fields.clone()).to_string();
        self.send(
            Write {
                method: "MERGE",
                service: SALES,
                entity_set: "A_SalesOrder",
                path,
                body: Some(body),
                if_match: Some(etag),
                order,
            },
            &[204],
        )
        .await
        .map(|_| ())
    }

    /// A new text on the order (201).
    pub async fn create_text(&self, order: &str, text: &OrderText) -> Result<(), WriteError> {
        let body = json!({
            "Language": text.language,
            "LongTextID": text.long_text_id,
            "LongText": text.long_text,
        })
        .to_string();
        self.send(
            Write {
                method: "POST",
                service: SALES,
                entity_set: "A_SalesOrderText",
                path: format!("A_SalesOrder({})/to_Text", odata::literal(order)),
                body: Some(body),
                if_match: None,
                order,
            },
            &[200, 201],
        )
        .await
        .map(|_| ())
    }

    /// Replace the text of an existing sales order text: a MERGE with
    /// `If-Match` = the ETag the text was read with (204; a 412 is
    /// [`WriteError::Stale`]). A text read without an ETag is not written:
    /// the agent never overwrites what it cannot match.
    pub async fn update_text(
        &self,
        order: &str,
        text: &OrderText,
        long_text: &str,
    ) -> Result<(), WriteError> {
        if text.etag.is_empty() {
            return Err(WriteError::Refused(format!(
                "text {} ({}) of sales order {order} was read without an ETag; it is not overwritten blindly",
                text.long_text_id, text.language
            )));
        }
        let path = format!(
            "A_SalesOrderText(SalesOrder={},Language={},LongTextID={})",
            odata::literal(order),
            odata::literal(&text.language),
            odata::literal(&text.long_text_id)
        );
        self.send(
            Write {
                method: "MERGE",
                service: SALES,
                entity_set: "A_SalesOrderText",
                path,
                body: Some(json!({ "LongText": long_text }).to_string()),
                if_match: Some(&text.etag),
                order,
            },
            &[204],
        )
        .await
        .map(|_| ())
    }

    /// `ReleaseCreditBlock` for a sales order; S/4HANA's message on success.
    pub async fn release_credit_block(&self, order: &str) -> Result<String, WriteError> {
        let answer = self
            .send(
                Write {
                    method: "POST",
                    service: CREDIT_BLOCK,
                    entity_set: "ReleaseCreditBlock",
                    path: format!(
                        "ReleaseCreditBlock?SalesDocument={}&SDDocumentCategory='C'",
                        odata::literal(order)
                    ),
                    body: None,
                    if_match: None,
                    order,
                },
                &[200, 204],
            )
            .await?;
        let value: Value = serde_json::from_str(&answer).unwrap_or(Value::Null);
        let d = &value["d"];
        let result = if d.get("ReleaseCreditBlock").is_some() {
            &d["ReleaseCreditBlock"]
        } else {
            d
        };
        let message = text_of(result, "Message");
        if text_of(result, "MessageType") == "E" {
            return Err(WriteError::Refused(if message.is_empty() {
                "S/4HANA refused to release the credit block".into()
            } else {
                message
            }));
        }
        Ok(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_go_to_odata_and_back() {
        assert_eq!(
            odata_date("2026-12-18").as_deref(),
            Some("/Date(1797552000000)/")
        );
        assert_eq!(iso_date(&json!("/Date(1797552000000)/")), "2026-12-18");
        assert_eq!(iso_date(&json!("/Date(1797552000000+0000)/")), "2026-12-18");
        assert_eq!(iso_date(&Value::Null), "");
        assert!(odata_date("2026-02-30").is_none());
        assert!(odata_date("18.12.2026").is_none());
    }
}
