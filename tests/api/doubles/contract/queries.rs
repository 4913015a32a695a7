//! The query options of s4hana.md §3.3 (`$select`, `$filter` in the forms the
//! reference uses, `$top`, `$orderby`, `$inlinecount`, `$count`,
//! `$format`), the error body and statuses of §3.4, `$metadata` and the
//! service document.

use super::support::{SALES, client, field, get, results, s4_token, send};
use crate::doubles::s4hana::S4Double;
use crate::doubles::s4hana::users::known::CLERK;
use serde_json::Value;
use std::collections::BTreeSet;

fn keys(value: &Value) -> BTreeSet<String> {
    value
        .as_object()
        .map(|object| object.keys().cloned().collect())
        .unwrap_or_default()
}

#[tokio::test]
async fn select_trims_the_properties_and_keeps_the_metadata() {
    let double = S4Double::start().await;
    let token = s4_token(CLERK.1);
    // The reference's typical list read.
    let orders = results(
        &double,
        SALES,
        "A_SalesOrder?$filter=SoldToParty eq '10023' and TotalCreditCheckStatus eq 'B'&$select=SalesOrder,TotalNetAmount,TransactionCurrency&$top=50",
        &token,
    )
    .await;
    assert_eq!(field(&orders, "SalesOrder"), ["4711"]);
    assert_eq!(
        keys(&orders[0]),
        [
            "__metadata",
            "SalesOrder",
            "TotalNetAmount",
            "TransactionCurrency"
        ]
        .map(String::from)
        .into(),
        "only the selected properties, no deferred links"
    );
    assert!(orders[0]["__metadata"]["etag"].is_string());
    // A path into an expansion selects inside it.
    let answer = get(
        &double,
        SALES,
        "A_SalesOrder('4725')?$select=SalesOrder,to_Item/Material,to_Item/to_PricingElement/ConditionRateValue&$expand=to_Item,to_Item/to_PricingElement",
        &token,
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let d = &answer.json()["d"];
    assert_eq!(
        keys(d),
        ["__metadata", "SalesOrder", "to_Item"]
            .map(String::from)
            .into()
    );
    let item = &d["to_Item"]["results"][0];
    assert_eq!(
        keys(item),
        ["__metadata", "Material", "to_PricingElement"]
            .map(String::from)
            .into()
    );
    assert_eq!(
        keys(&item["to_PricingElement"]["results"][0]),
        ["__metadata", "ConditionRateValue"]
            .map(String::from)
            .into()
    );
    assert_eq!(
        item["to_PricingElement"]["results"][0]["ConditionRateValue"],
        "3900.000000000"
    );
    // Selecting a navigation property without expanding it: a deferred link.
    let answer = get(
        &double,
        SALES,
        "A_SalesOrder('4711')?$select=SalesOrder,to_Text",
        &token,
    )
    .await;
    let d = &answer.json()["d"];
    assert_eq!(
        keys(d),
        ["__metadata", "SalesOrder", "to_Text"]
            .map(String::from)
            .into()
    );
    assert!(d["to_Text"]["__deferred"]["uri"].is_string());
}

#[tokio::test]
async fn filter_finds_the_blocked_orders_by_status_and_block_codes() {
    let double = S4Double::start().await;
    let token = s4_token(CLERK.1);
    for (filter, expected) in [
        (
            "TotalCreditCheckStatus eq 'B' or TotalCreditCheckStatus eq 'C'",
            vec!["4711"],
        ),
        ("TotalCreditCheckStatus eq 'D'", vec![]),
        ("DeliveryBlockReason ne ''", vec!["4740"]),
        ("HeaderBillingBlockReason ne ''", vec!["4725"]),
        (
            "DeliveryBlockReason eq 'ZL' or HeaderBillingBlockReason eq 'ZP'",
            vec!["4725", "4740"],
        ),
        (
            "(TotalCreditCheckStatus eq 'B' or TotalCreditCheckStatus eq 'C') or DeliveryBlockReason ne '' or HeaderBillingBlockReason ne ''",
            vec!["4711", "4725", "4740"],
        ),
        (
            "SoldToParty eq '10051' and not (DeliveryBlockReason eq '')",
            vec!["4740"],
        ),
        (
            "TotalNetAmount gt 900M and TotalNetAmount le 1800.00M",
            vec!["4711", "4740"],
        ),
        (
            "RequestedDeliveryDate ge datetime'2026-12-07T00:00:00'",
            vec!["4711", "4723", "4740"],
        ),
        (
            "LastChangeDateTime lt datetimeoffset'2026-11-29T00:00:00Z'",
            vec!["4723"],
        ),
        (
            "startswith(SoldToParty,'100') and substringof('0',SalesOrder)",
            vec!["4730", "4740"],
        ),
    ] {
        let orders = results(
            &double,
            SALES,
            &format!("A_SalesOrder?$filter={filter}&$select=SalesOrder"),
            &token,
        )
        .await;
        assert_eq!(field(&orders, "SalesOrder"), expected, "{filter}");
    }
    // Percent-encoded as a client sends it, with a doubled quote.
    let orders = results(
        &double,
        SALES,
        "A_SalesOrder?%24filter=SoldToParty%20eq%20%2710023%27%20and%20PurchaseOrderByCustomer%20ne%20%27O%27%27Neil%27",
        &token,
    )
    .await;
    assert_eq!(field(&orders, "SalesOrder"), ["4711", "4730"]);
}

#[tokio::test]
async fn top_skip_orderby_inlinecount_and_count() {
    let double = S4Double::start().await;
    let token = s4_token(CLERK.1);
    let orders = results(
        &double,
        SALES,
        "A_SalesOrder?$orderby=SalesOrder desc&$top=2",
        &token,
    )
    .await;
    assert_eq!(field(&orders, "SalesOrder"), ["4740", "4730"]);
    let orders = results(
        &double,
        SALES,
        "A_SalesOrder?$orderby=TotalNetAmount&$skip=1&$top=2",
        &token,
    )
    .await;
    assert_eq!(
        field(&orders, "SalesOrder"),
        ["4723", "4740"],
        "ordered as decimals, not as strings"
    );
    let answer = get(
        &double,
        SALES,
        "A_SalesOrder?$inlinecount=allpages&$top=1&$filter=SoldToParty eq '10023'",
        &token,
    )
    .await;
    let d = &answer.json()["d"];
    assert_eq!(d["__count"], "2", "__count is a string, before $top");
    assert_eq!(d["results"].as_array().map(Vec::len), Some(1));
    let answer = get(&double, SALES, "A_SalesOrder/$count", &token).await;
    assert_eq!((answer.status, answer.text.as_str()), (200, "5"));
    assert!(
        answer
            .header("content-type")
            .unwrap_or("")
            .starts_with("text/plain")
    );
    let answer = get(
        &double,
        SALES,
        "A_SalesOrder('4711')/to_Partner/$count",
        &token,
    )
    .await;
    assert_eq!(answer.text, "4");
    let answer = get(&double, SALES, "A_SalesOrder('4711')/SoldToParty", &token).await;
    assert_eq!(
        answer.json()["d"]["SoldToParty"],
        "10023",
        "a single property"
    );
}

/// Every error has the body of §3.4.
fn check_error_body(body: &Value, message_part: &str) {
    let error = &body["error"];
    assert!(
        error["code"].as_str().is_some_and(|code| !code.is_empty()),
        "{body}"
    );
    assert_eq!(error["message"]["lang"], "en");
    let message = error["message"]["value"].as_str().unwrap_or("");
    assert!(
        message.contains(message_part),
        "'{message}' should say '{message_part}'"
    );
    let inner = &error["innererror"];
    let transaction = inner["transactionid"].as_str().unwrap_or("");
    assert_eq!(transaction.len(), 32, "{transaction}");
    assert!(transaction.chars().all(|c| c.is_ascii_hexdigit()));
    let timestamp = inner["timestamp"].as_str().unwrap_or("");
    assert!(
        timestamp.len() == 22 && timestamp.as_bytes()[14] == b'.',
        "yyyymmddhhmmss.fffffff: {timestamp}"
    );
    assert_eq!(inner["application"]["service_namespace"], "/SAP/");
    assert_eq!(inner["errordetails"][0]["severity"], "error");
    assert!(inner["Error_Resolution"].is_object());
}

#[tokio::test]
async fn unknown_keys_segments_and_services_and_bad_queries() {
    let double = S4Double::start().await;
    let token = s4_token(CLERK.1);
    let answer = get(&double, SALES, "A_SalesOrder('9999')", &token).await;
    assert_eq!(answer.status, 404, "an unknown key");
    check_error_body(&answer.json(), "A_SalesOrder");
    assert_eq!(
        answer.json()["error"]["innererror"]["application"]["service_id"],
        SALES
    );
    let answer = get(&double, SALES, "A_SalesOrder('4711')/Address2", &token).await;
    assert_eq!(answer.status, 404);
    check_error_body(
        &answer.json(),
        "Resource not found for the segment 'Address2'.",
    );
    let answer = get(&double, SALES, "A_SalesOrderX", &token).await;
    assert_eq!(answer.status, 404);
    let answer = get(
        &double,
        "API_CREDIT_MANAGEMENT",
        "A_CrdtMgmtCreditExposure",
        &token,
    )
    .await;
    assert_eq!(answer.status, 403, "an unknown service is 403 (§3.4)");
    check_error_body(&answer.json(), "No service found");

    for (query, says) in [
        (
            "A_SalesOrder?$filter=Foo eq 'x'",
            "Property Foo not found in type A_SalesOrderType",
        ),
        ("A_SalesOrder?$filter=SoldToParty eq", "Incomplete"),
        (
            "A_SalesOrder?$filter=SoldToParty in ('10023')",
            "Invalid $filter",
        ),
        (
            "A_SalesOrder?$filter=TotalNetAmount eq '1800.00'",
            "not compatible",
        ),
        (
            "A_SalesOrder?$filter=RequestedDeliveryDate eq '2026-12-08'",
            "not compatible",
        ),
        ("A_SalesOrder?$filter=SoldToParty eq '10023", "Unterminated"),
        (
            "A_SalesOrder?$select=SalesOrder,Foo",
            "Property Foo not found",
        ),
        (
            "A_SalesOrder?$select=to_Item/Material",
            "needs to_Item in $expand",
        ),
        ("A_SalesOrder?$expand=_Item", "Property _Item not found"),
        ("A_SalesOrder?$top=ten", "$top"),
        ("A_SalesOrder?$search=4711", "not supported"),
        ("A_SalesOrder?$orderby=LongText", "not found"),
        (
            "A_SalesOrder('4711')/to_Text?$filter=LongText eq 'x'",
            "not filterable",
        ),
        ("A_SalesOrder(4711)", "Invalid literal"),
        (
            "A_BusinessPartnerAddress(BusinessPartner='10051')",
            "AddressID missing",
        ),
    ] {
        let answer = get(
            &double,
            if query.starts_with("A_Business") {
                "API_BUSINESS_PARTNER"
            } else {
                SALES
            },
            query,
            &token,
        )
        .await;
        assert_eq!(answer.status, 400, "{query}: {}", answer.text);
        check_error_body(&answer.json(), says);
    }
}

#[tokio::test]
async fn metadata_service_document_and_formats() {
    let double = S4Double::start().await;
    let token = s4_token(CLERK.1);
    let answer = get(&double, SALES, "$metadata", &token).await;
    assert_eq!(answer.status, 200);
    assert!(
        answer
            .header("content-type")
            .unwrap_or("")
            .starts_with("application/xml")
    );
    for part in [
        "<edmx:Edmx Version=\"1.0\"",
        "<EntityType Name=\"A_SalesOrderType\"",
        "<Property Name=\"LastChangeDateTime\" Type=\"Edm.DateTimeOffset\" Precision=\"7\" ConcurrencyMode=\"Fixed\"",
        "<Property Name=\"TotalNetAmount\" Type=\"Edm.Decimal\" Precision=\"16\" Scale=\"3\" sap:unit=\"TransactionCurrency\"",
        "<NavigationProperty Name=\"to_PricingElement\"",
        "<EntitySet Name=\"A_SalesOrderScheduleLine\" EntityType=\"API_SALES_ORDER_SRV.A_SalesOrderScheduleLineType\" sap:creatable=\"false\" sap:updatable=\"false\" sap:deletable=\"false\"",
        "<FunctionImport Name=\"releaseApprovalRequest\"",
    ] {
        assert!(answer.text.contains(part), "$metadata has {part}");
    }
    assert!(
        !answer.text.contains("ReferentialConstraint"),
        "S/4's metadata has none"
    );
    let answer = get(
        &double,
        "API_SLS_DOC_WITH_CREDIT_BLOCK",
        "$metadata",
        &token,
    )
    .await;
    assert!(answer.text.contains(
        "<FunctionImport Name=\"ReleaseCreditBlock\" ReturnType=\"API_SLS_DOC_WITH_CREDIT_BLOCK.ReturnMessage\" m:HttpMethod=\"POST\"><Parameter Name=\"SalesDocument\" Type=\"Edm.String\" Mode=\"In\"/>"
    ));
    let answer = get(&double, "API_CRDTMBUSINESSPARTNER", "$metadata", &token).await;
    assert!(
        answer
            .text
            .contains("<Schema Namespace=\"cds_api_crdtmbusinesspartner\"")
    );

    let answer = get(&double, SALES, "", &token).await;
    let sets = answer.json()["d"]["EntitySets"].clone();
    assert!(
        sets.as_array()
            .is_some_and(|sets| sets.iter().any(|set| set == "A_SalesOrderText")),
        "{sets}"
    );

    // Without Accept: application/json or $format=json S/4 answers Atom XML.
    let atom = send(
        client()
            .get(format!(
                "{}/A_SalesOrder('4711')",
                double.service_url(SALES)
            ))
            .bearer_auth(&token),
    )
    .await;
    assert_eq!(atom.status, 200);
    assert!(
        atom.header("content-type")
            .unwrap_or("")
            .starts_with("application/atom+xml")
    );
    assert!(atom.text.starts_with("<?xml"));
    assert!(atom.text.contains("<d:SalesOrder>4711</d:SalesOrder>"));
    assert!(
        atom.text
            .contains("<d:TotalNetAmount m:type=\"Edm.Decimal\">1800.00</d:TotalNetAmount>")
    );
    let json = send(
        client()
            .get(format!(
                "{}/A_SalesOrder('4711')?$format=json",
                double.service_url(SALES)
            ))
            .bearer_auth(&token),
    )
    .await;
    assert_eq!(
        json.json()["d"]["SalesOrder"],
        "4711",
        "$format=json without Accept"
    );
    let feed = send(
        client()
            .get(format!("{}/A_SalesOrder?$top=2", double.service_url(SALES)))
            .bearer_auth(&token)
            .header("accept", "application/atom+xml"),
    )
    .await;
    assert!(
        feed.text.contains("<feed ") && feed.text.matches("<entry").count() == 2,
        "{}",
        feed.text
    );
}
