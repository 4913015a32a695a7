//! Writes as s4hana.md §3.5 and §1.4 describe them: the CSRF handshake, ETag
//! and `If-Match` (412, 428), MERGE/PATCH answering 204 with a new ETag, an
//! order text created through `to_Text`, `ReleaseCreditBlock`, and 403 for
//! an order the user may not change.

use super::support::{SALES, client, fetch_csrf, get, s4_token, send};
use crate::doubles::s4hana::users::known::{CLERK, CREDIT_MANAGER, VIEWER};
use crate::doubles::s4hana::{Access, BusinessRefusal, FunctionShape, S4Double, Scope};
use reqwest::Method;
use serde_json::{Value, json};

/// 2026-12-18, the new delivery date of the example in docs/actions.md.
const NEW_DATE: &str = "/Date(1797552000000)/";

fn merge() -> Method {
    Method::from_bytes(b"MERGE").expect("MERGE is a method token")
}

async fn etag_of(double: &S4Double, order: &str, token: &str) -> String {
    let answer = get(double, SALES, &format!("A_SalesOrder('{order}')"), token).await;
    answer.json()["d"]["__metadata"]["etag"]
        .as_str()
        .expect("an ETag")
        .to_string()
}

/// A write to `A_SalesOrder('<order>')` with the given CSRF pair and If-Match.
async fn write(
    double: &S4Double,
    method: Method,
    order: &str,
    token: &str,
    csrf: Option<&(String, String)>,
    if_match: Option<&str>,
    body: &Value,
) -> super::support::Answer {
    let mut request = client()
        .request(
            method,
            format!("{}/A_SalesOrder('{order}')", double.service_url(SALES)),
        )
        .bearer_auth(token)
        .header("accept", "application/json")
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some((csrf, cookies)) = csrf {
        request = request
            .header("x-csrf-token", csrf)
            .header("cookie", cookies);
    }
    if let Some(etag) = if_match {
        request = request.header("if-match", etag);
    }
    send(request).await
}

#[tokio::test]
async fn a_write_needs_the_csrf_token_of_its_session_and_then_answers_204_with_a_new_etag() {
    let double = S4Double::start().await;
    let token = s4_token(CLERK.1);
    let before = etag_of(&double, "4740", &token).await;
    let change = json!({ "RequestedDeliveryDate": NEW_DATE, "DeliveryBlockReason": "" });

    let refused = write(
        &double,
        Method::PATCH,
        "4740",
        &token,
        None,
        Some(&before),
        &change,
    )
    .await;
    assert_eq!(refused.status, 403, "{}", refused.text);
    assert_eq!(refused.header("x-csrf-token"), Some("Required"));
    assert_eq!(
        refused.json()["error"]["message"]["value"],
        "CSRF token validation failed"
    );

    let (csrf, cookies) = fetch_csrf(&double, &token).await;
    let without_cookie = (csrf.clone(), String::new());
    let refused = write(
        &double,
        Method::PATCH,
        "4740",
        &token,
        Some(&without_cookie),
        Some(&before),
        &change,
    )
    .await;
    assert_eq!(
        refused.status, 403,
        "the token belongs to its session cookie"
    );
    assert_eq!(refused.header("x-csrf-token"), Some("Required"));
    assert_eq!(
        double.entity("A_SalesOrder", "'4740'").expect("4740")["DeliveryBlockReason"],
        "ZL"
    );
    assert!(double.changes().is_empty(), "nothing changed yet");

    let done = write(
        &double,
        Method::PATCH,
        "4740",
        &token,
        Some(&(csrf, cookies)),
        Some(&before),
        &change,
    )
    .await;
    assert_eq!(done.status, 204, "{}", done.text);
    assert!(done.text.is_empty(), "204 has no body");
    let order = double.entity("A_SalesOrder", "'4740'").expect("4740");
    assert_eq!(order["RequestedDeliveryDate"], NEW_DATE);
    assert_eq!(order["DeliveryBlockReason"], "");
    let answer = get(&double, SALES, "A_SalesOrder('4740')", &token).await;
    let after = answer.json()["d"]["__metadata"]["etag"]
        .as_str()
        .expect("an ETag")
        .to_string();
    assert_ne!(after, before, "every successful update gives a new ETag");
    assert_eq!(answer.header("etag"), Some(after.as_str()));
    assert_eq!(double.etag("A_SalesOrder", "'4740'"), Some(after));
    assert_ne!(
        answer.json()["d"]["LastChangeDateTime"],
        "/Date(1796057702774+0000)/"
    );
    let changes = double.changes();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].user, CLERK.0, "made as the calling user");
    assert_eq!(changes[0].entity, "A_SalesOrder('4740')");
    assert_eq!(
        changes[0].fields,
        change.as_object().cloned().expect("an object")
    );
    let patches: Vec<_> = double
        .requests()
        .into_iter()
        .filter(|request| request.method == "PATCH")
        .collect();
    assert_eq!(patches.len(), 3);
    assert!(
        patches.iter().all(
            |request| serde_json::from_str::<Value>(&request.body).ok().as_ref() == Some(&change)
        ),
        "the body is recorded"
    );
    assert_eq!(
        patches
            .iter()
            .map(|request| request.status)
            .collect::<Vec<_>>(),
        [Some(403), Some(403), Some(204)]
    );
}

#[tokio::test]
async fn a_csrf_token_is_good_only_for_the_user_it_was_fetched_for() {
    let double = S4Double::start().await;
    let clerk = s4_token(CLERK.1);
    let manager = s4_token(CREDIT_MANAGER.1);
    let csrf = fetch_csrf(&double, &clerk).await;
    let etag = etag_of(&double, "4740", &manager).await;
    let refused = write(
        &double,
        Method::PATCH,
        "4740",
        &manager,
        Some(&csrf),
        Some(&etag),
        &json!({ "DeliveryBlockReason": "" }),
    )
    .await;
    assert_eq!(refused.status, 403);
    assert_eq!(refused.header("x-csrf-token"), Some("Required"));
    // The SDK's way: HEAD on the resource URL with a trailing slash.
    let head = send(
        client()
            .head(format!(
                "{}/A_SalesOrder('4740')/",
                double.service_url(SALES)
            ))
            .bearer_auth(&manager)
            .header("x-csrf-token", "fetch"),
    )
    .await;
    assert_eq!(head.status, 200);
    assert!(
        head.header("x-csrf-token")
            .is_some_and(|token| token != "Required" && token != csrf.0)
    );
    assert!(
        head.all("set-cookie")
            .iter()
            .any(|cookie| cookie.starts_with("sap-usercontext="))
    );
}

#[tokio::test]
async fn a_stale_etag_is_412_a_missing_one_428_and_neither_changes_anything() {
    let double = S4Double::start().await;
    let token = s4_token(CLERK.1);
    let csrf = fetch_csrf(&double, &token).await;
    let first = etag_of(&double, "4740", &token).await;
    let change = json!({ "RequestedDeliveryDate": NEW_DATE });

    let missing = write(
        &double,
        Method::PATCH,
        "4740",
        &token,
        Some(&csrf),
        None,
        &change,
    )
    .await;
    assert_eq!(missing.status, 428, "{}", missing.text);
    assert!(
        missing.json()["error"]["message"]["value"]
            .as_str()
            .unwrap_or("")
            .contains("If-Match")
    );
    let rebuilt = "W/\"datetimeoffset'2026-11-30T16%3A55%3A02.774Z'\"";
    let wrong = write(
        &double,
        Method::PATCH,
        "4740",
        &token,
        Some(&csrf),
        Some(rebuilt),
        &change,
    )
    .await;
    assert_eq!(
        wrong.status, 412,
        "the ETag is opaque: a rebuilt one does not match"
    );
    assert_eq!(
        double.entity("A_SalesOrder", "'4740'").expect("4740")["RequestedDeliveryDate"],
        "/Date(1796601600000)/"
    );

    let merged = write(
        &double,
        merge(),
        "4740",
        &token,
        Some(&csrf),
        Some(&first),
        &json!({ "DeliveryBlockReason": "" }),
    )
    .await;
    assert_eq!(
        merged.status, 204,
        "MERGE is a partial update too: {}",
        merged.text
    );
    let stale = write(
        &double,
        Method::PATCH,
        "4740",
        &token,
        Some(&csrf),
        Some(&first),
        &change,
    )
    .await;
    assert_eq!(stale.status, 412, "the order changed since it was read");
    assert_eq!(
        double.entity("A_SalesOrder", "'4740'").expect("4740")["RequestedDeliveryDate"],
        "/Date(1796601600000)/"
    );
    assert_eq!(double.changes().len(), 1, "only the MERGE applied");
    // X-HTTP-Method tunnelling, with the current ETag.
    let current = etag_of(&double, "4740", &token).await;
    let tunnelled = send(
        client()
            .post(format!(
                "{}/A_SalesOrder('4740')",
                double.service_url(SALES)
            ))
            .bearer_auth(&token)
            .header("x-http-method", "MERGE")
            .header("x-csrf-token", &csrf.0)
            .header("cookie", &csrf.1)
            .header("if-match", &current)
            .header("content-type", "application/json")
            .body(change.to_string()),
    )
    .await;
    assert_eq!(tunnelled.status, 204, "{}", tunnelled.text);
    let recorded = double.requests();
    assert!(
        recorded.iter().any(|request| request.method == "MERGE"
            && request.header("if-match") == Some(first.as_str()))
    );
}

#[tokio::test]
async fn read_only_unknown_and_malformed_fields_are_400() {
    let double = S4Double::start().await;
    let token = s4_token(CLERK.1);
    let csrf = fetch_csrf(&double, &token).await;
    let etag = etag_of(&double, "4711", &token).await;
    for (body, says) in [
        (
            json!({ "TotalCreditCheckStatus": "D" }),
            "cannot be changed",
        ),
        (json!({ "Foo": "x" }), "Property Foo not found"),
        (json!({ "RequestedDeliveryDate": "2026-12-18" }), "/Date("),
        (
            json!({ "RequestedDeliveryDate": "/Date(1797552000001)/" }),
            "midnight",
        ),
        (json!({ "DeliveryBlockReason": "ZLX" }), "longer than 2"),
        (json!({ "SalesOrder": "4712" }), "Key property SalesOrder"),
        (json!({ "to_Item": { "results": [] } }), "Deep update"),
        (json!(["RequestedDeliveryDate"]), "not a JSON object"),
    ] {
        let answer = write(
            &double,
            Method::PATCH,
            "4711",
            &token,
            Some(&csrf),
            Some(&etag),
            &body,
        )
        .await;
        assert_eq!(answer.status, 400, "{body}: {}", answer.text);
        let message = answer.json()["error"]["message"]["value"]
            .as_str()
            .unwrap_or("")
            .to_string();
        assert!(
            message.contains(says),
            "{body}: '{message}' should say '{says}'"
        );
    }
    assert!(double.changes().is_empty());
    let absent = write(
        &double,
        Method::PATCH,
        "9999",
        &token,
        Some(&csrf),
        Some(&etag),
        &json!({}),
    )
    .await;
    assert_eq!(absent.status, 404);
    let delete = write(
        &double,
        Method::DELETE,
        "4711",
        &token,
        Some(&csrf),
        Some(&etag),
        &json!({}),
    )
    .await;
    assert_eq!(
        delete.status, 501,
        "not implemented by the double, and said so"
    );
}

#[tokio::test]
async fn an_order_text_is_created_through_to_text() {
    let double = S4Double::start().await;
    let token = s4_token(CLERK.1);
    let csrf = fetch_csrf(&double, &token).await;
    let note = json!({ "Language": "EN", "LongTextID": "Z001", "LongText": "Credit review requested by clerk@example.com" });
    let post = |csrf: Option<(String, String)>, url: String, body: Value| {
        let token = token.clone();
        async move {
            let mut request = client()
                .post(url)
                .bearer_auth(token)
                .header("accept", "application/json")
                .header("content-type", "application/json")
                .body(body.to_string());
            if let Some((csrf, cookies)) = csrf {
                request = request
                    .header("x-csrf-token", csrf)
                    .header("cookie", cookies);
            }
            send(request).await
        }
    };
    let to_text = format!("{}/A_SalesOrder('4711')/to_Text", double.service_url(SALES));
    let etag_before = double.etag("A_SalesOrder", "'4711'");
    let refused = post(None, to_text.clone(), note.clone()).await;
    assert_eq!(
        (refused.status, refused.header("x-csrf-token")),
        (403, Some("Required"))
    );

    let created = post(Some(csrf.clone()), to_text.clone(), note.clone()).await;
    assert_eq!(created.status, 201, "{}", created.text);
    let d = &created.json()["d"];
    let uri = format!(
        "{}/A_SalesOrderText(SalesOrder='4711',Language='EN',LongTextID='Z001')",
        double.service_url(SALES)
    );
    assert_eq!(d["__metadata"]["uri"], uri.as_str());
    assert_eq!(created.header("location"), Some(uri.as_str()));
    assert_eq!(d["SalesOrder"], "4711");
    assert_eq!(d["LongText"], note["LongText"]);
    let texts = get(&double, SALES, "A_SalesOrder('4711')/to_Text", &token).await;
    assert_eq!(
        texts.json()["d"]["results"][0]["LongText"],
        note["LongText"]
    );

    let again = post(Some(csrf.clone()), to_text.clone(), note.clone()).await;
    assert_eq!(again.status, 400, "the text exists already: {}", again.text);
    let direct = post(
        Some(csrf.clone()),
        format!("{}/A_SalesOrderText", double.service_url(SALES)),
        note.clone(),
    )
    .await;
    assert_eq!(direct.status, 405, "not creatable directly");
    let no_id = post(
        Some(csrf.clone()),
        to_text.clone(),
        json!({ "Language": "EN", "LongText": "x" }),
    )
    .await;
    assert_eq!(no_id.status, 400);
    // An existing text is updated with the ETag of its read: 428 without,
    // 412 with one from before a change.
    let read = get(
        &double,
        SALES,
        "A_SalesOrderText(SalesOrder='4711',Language='EN',LongTextID='Z001')",
        &token,
    )
    .await;
    let etag = read.header("etag").expect("a text has an ETag").to_string();
    assert_eq!(read.json()["d"]["__metadata"]["etag"], etag.as_str());
    let texts = get(&double, SALES, "A_SalesOrder('4711')/to_Text", &token).await;
    assert_eq!(
        texts.json()["d"]["results"][0]["__metadata"]["etag"],
        etag.as_str(),
        "the collection carries it too"
    );
    let patch = |if_match: Option<&str>, text: &str| {
        let mut request = client()
            .patch(uri.clone())
            .bearer_auth(&token)
            .header("x-csrf-token", &csrf.0)
            .header("cookie", &csrf.1)
            .header("content-type", "application/json")
            .body(json!({ "LongText": text }).to_string());
        if let Some(etag) = if_match {
            request = request.header("if-match", etag);
        }
        send(request)
    };
    let missing = patch(None, "Credit review requested (blind)").await;
    assert_eq!(missing.status, 428, "{}", missing.text);
    let update = patch(Some(&etag), "Credit review requested (updated)").await;
    assert_eq!(update.status, 204, "{}", update.text);
    let stale = patch(Some(&etag), "Credit review requested (stale)").await;
    assert_eq!(stale.status, 412, "the text changed: {}", stale.text);
    assert_eq!(
        double
            .entity(
                "A_SalesOrderText",
                "SalesOrder='4711',Language='EN',LongTextID='Z001'"
            )
            .expect("the text")["LongText"],
        "Credit review requested (updated)"
    );
    assert_eq!(
        double.etag("A_SalesOrder", "'4711'"),
        etag_before,
        "a text leaves the order's ETag alone"
    );
    assert_eq!(double.changes().len(), 2);
}

async fn credit_call(
    double: &S4Double,
    function: &str,
    query: &str,
    token: &str,
    csrf: Option<&(String, String)>,
) -> super::support::Answer {
    let mut request = client()
        .post(format!(
            "{}/{function}?{query}",
            double.service_url("API_SLS_DOC_WITH_CREDIT_BLOCK")
        ))
        .bearer_auth(token)
        .header("accept", "application/json");
    if let Some((csrf, cookies)) = csrf {
        request = request
            .header("x-csrf-token", csrf)
            .header("cookie", cookies);
    }
    send(request).await
}

#[tokio::test]
async fn release_credit_block_releases_4711_once() {
    let double = S4Double::start().await;
    let token = s4_token(CREDIT_MANAGER.1);
    let csrf = fetch_csrf(&double, &token).await;
    let before = etag_of(&double, "4711", &token).await;
    let query = "SalesDocument='4711'&SDDocumentCategory='C'";

    let refused = credit_call(&double, "ReleaseCreditBlock", query, &token, None).await;
    assert_eq!(
        (refused.status, refused.header("x-csrf-token")),
        (403, Some("Required"))
    );
    let wrong_method = send(
        client()
            .get(format!(
                "{}/ReleaseCreditBlock?{query}",
                double.service_url("API_SLS_DOC_WITH_CREDIT_BLOCK")
            ))
            .bearer_auth(&token)
            .header("accept", "application/json"),
    )
    .await;
    assert_eq!(wrong_method.status, 405, "the function import is POST");
    let missing = credit_call(
        &double,
        "ReleaseCreditBlock",
        "SalesDocument='4711'",
        &token,
        Some(&csrf),
    )
    .await;
    assert_eq!(missing.status, 400);
    assert!(missing.text.contains("SDDocumentCategory"));
    let check = credit_call(&double, "CheckCreditBlock", query, &token, Some(&csrf)).await;
    assert_eq!(
        check.json()["d"]["CheckCreditBlock"]["MessageType"],
        "W",
        "{}",
        check.text
    );

    let released = credit_call(&double, "ReleaseCreditBlock", query, &token, Some(&csrf)).await;
    assert_eq!(released.status, 200, "{}", released.text);
    let result = &released.json()["d"]["ReleaseCreditBlock"];
    assert_eq!(result["MessageType"], "S");
    assert_eq!(
        result["__metadata"]["type"],
        "API_SLS_DOC_WITH_CREDIT_BLOCK.ReturnMessage"
    );
    let order = double.entity("A_SalesOrder", "'4711'").expect("4711");
    assert_eq!(order["TotalCreditCheckStatus"], "D", "released");
    assert_ne!(
        double.etag("A_SalesOrder", "'4711'"),
        Some(before.clone()),
        "a new ETag"
    );
    let blocked = get(
        &double,
        "API_SLS_DOC_WITH_CREDIT_BLOCK",
        "A_CreditBlockedSalesDocument",
        &token,
    )
    .await;
    assert_eq!(
        blocked.json()["d"]["results"],
        json!([]),
        "4711 left the set"
    );
    let changes = double.changes();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].user, CREDIT_MANAGER.0);
    assert_eq!(
        changes[0].entity,
        "ReleaseCreditBlock(SalesDocument='4711')"
    );

    let again = credit_call(&double, "ReleaseCreditBlock", query, &token, Some(&csrf)).await;
    assert_eq!(again.status, 400, "not blocked any more: {}", again.text);
    assert!(
        again.json()["error"]["message"]["value"]
            .as_str()
            .unwrap_or("")
            .contains("not blocked")
    );
    // The other shapes a client must accept.
    double.set_function_shape(FunctionShape::Bare);
    double.set_business_refusal(BusinessRefusal::MessageTypeE);
    let again = credit_call(&double, "ReleaseCreditBlock", query, &token, Some(&csrf)).await;
    assert_eq!(again.status, 200);
    assert_eq!(again.json()["d"]["MessageType"], "E", "{}", again.text);
    assert_eq!(double.changes().len(), 1, "released exactly once");
}

#[tokio::test]
async fn reject_credit_block_needs_a_defined_reason() {
    let double = S4Double::start().await;
    let token = s4_token(CREDIT_MANAGER.1);
    let csrf = fetch_csrf(&double, &token).await;
    let unknown = credit_call(
        &double,
        "RejectCreditBlock",
        "SDDocumentCategory='C'&SalesDocumentRjcnReason='ZZ'&SalesDocument='4711'",
        &token,
        Some(&csrf),
    )
    .await;
    assert_eq!(unknown.status, 400);
    let rejected = credit_call(
        &double,
        "RejectCreditBlock",
        "SDDocumentCategory='C'&SalesDocumentRjcnReason='ZC'&SalesDocument='4711'",
        &token,
        Some(&csrf),
    )
    .await;
    assert_eq!(rejected.status, 200, "{}", rejected.text);
    assert_eq!(
        double.entity("A_SalesOrder", "'4711'").expect("4711")["OverallSDDocumentRejectionSts"],
        "C"
    );
    assert_eq!(
        double
            .entity("A_SalesOrderItem", "SalesOrder='4711',SalesOrderItem='10'")
            .expect("the item")["SalesDocumentRjcnReason"],
        "ZC"
    );
}

#[tokio::test]
async fn a_user_may_not_change_an_order_outside_their_authorization() {
    let double = S4Double::start().await;
    let viewer = s4_token(VIEWER.1);
    let csrf = fetch_csrf(&double, &viewer).await;
    let etag = etag_of(&double, "4740", &viewer).await;
    let refused = write(
        &double,
        Method::PATCH,
        "4740",
        &viewer,
        Some(&csrf),
        Some(&etag),
        &json!({ "DeliveryBlockReason": "" }),
    )
    .await;
    assert_eq!(refused.status, 403, "{}", refused.text);
    assert_eq!(
        refused.json()["error"]["message"]["value"],
        "No authorization to change sales document 4740"
    );
    let release = credit_call(
        &double,
        "ReleaseCreditBlock",
        "SalesDocument='4711'&SDDocumentCategory='C'",
        &viewer,
        Some(&csrf),
    )
    .await;
    assert_eq!(release.status, 403);

    let clerk = s4_token(CLERK.1);
    double.set_access(
        CLERK.1,
        Access {
            change: Scope::only(&["4711"]),
            ..Access::full()
        },
    );
    let csrf = fetch_csrf(&double, &clerk).await;
    let refused = write(
        &double,
        Method::PATCH,
        "4740",
        &clerk,
        Some(&csrf),
        Some(&etag),
        &json!({ "DeliveryBlockReason": "" }),
    )
    .await;
    assert_eq!(refused.status, 403);
    assert_eq!(
        double.entity("A_SalesOrder", "'4740'").expect("4740")["DeliveryBlockReason"],
        "ZL"
    );
    assert!(double.changes().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writes_with_one_etag_change_the_order_once() {
    let double = S4Double::start().await;
    let token = s4_token(CLERK.1);
    let csrf = fetch_csrf(&double, &token).await;
    let etag = etag_of(&double, "4740", &token).await;
    let change = json!({ "RequestedDeliveryDate": NEW_DATE, "DeliveryBlockReason": "" });
    let writes = (0..20).map(|_| {
        write(
            &double,
            Method::PATCH,
            "4740",
            &token,
            Some(&csrf),
            Some(&etag),
            &change,
        )
    });
    let statuses: Vec<u16> = futures_util::future::join_all(writes)
        .await
        .iter()
        .map(|answer| answer.status)
        .collect();
    assert_eq!(
        statuses.iter().filter(|status| **status == 204).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|status| **status == 412).count(),
        19,
        "{statuses:?}"
    );
    assert_eq!(double.changes().len(), 1);
}
