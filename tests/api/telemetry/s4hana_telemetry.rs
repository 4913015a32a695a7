//! One `backend.read` span per OData call of the S/4HANA source, children
//! of the turn in the caller's trace: service, entity set, HTTP status,
//! latency, retries and the sales order, never a token (the real binary,
//! spans exported over OTLP/HTTP to a loopback receiver).

use crate::doubles::destination::{self, Destination, DestinationDouble};
use crate::doubles::otlp::{hex, int, text};
use crate::doubles::s4hana::{S4Double, Step};
use crate::helpers::binary::start_binary;
use crate::helpers::key_server::{self, KeyServer, user_claims};
use crate::helpers::wait_until;
use actix_web::{App, HttpResponse, HttpServer, web};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::json;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

type Spans = Arc<Mutex<Vec<Span>>>;

async fn traces(body: web::Bytes, seen: web::Data<Spans>) -> HttpResponse {
    let Ok(request) = ExportTraceServiceRequest::decode(body) else {
        return HttpResponse::BadRequest().finish();
    };
    let mut seen = seen.lock().unwrap();
    for resource in request.resource_spans {
        for scope in resource.scope_spans {
            seen.extend(scope.spans);
        }
    }
    HttpResponse::Ok().finish()
}

pub(crate) async fn receiver() -> (String, Spans) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen: Spans = Arc::default();
    let data = web::Data::new(Arc::clone(&seen));
    let server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .route("/v1/traces", web::post().to(traces))
            .route(
                "/v1/metrics",
                web::post().to(|| async { HttpResponse::Ok().finish() }),
            )
    })
    .workers(1)
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    (format!("http://127.0.0.1:{port}"), seen)
}

#[tokio::test]
async fn every_odata_call_is_a_backend_read_span_without_a_token() {
    let keys = KeyServer::start().await;
    let s4 = S4Double::start().await;
    s4.script("A_SalesOrder('4711')", vec![Step::StatusRetryAfter(429, 0)]);
    let destinations =
        DestinationDouble::start(vec![Destination::saml_bearer("S4HANA_ORDERS", &s4.url)]).await;
    let (url, seen) = receiver().await;
    let running = start_binary(&[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", url.as_str()),
        ("OTEL_BSP_SCHEDULE_DELAY", "100"),
        ("AGENT__AUTH__CLIENT_ID", key_server::CLIENT_ID),
        ("AGENT__AUTH__DOMAINS", "accounts.test"),
        ("AGENT__AUTH__APP_TID", key_server::APP_TID),
        ("AGENT__AUTH__URL", key_server::ISSUER),
        ("AGENT__AUTH__TEST_KEY_SERVER", &keys.url),
        ("AGENT__BACKEND__SOURCE", "s4hana"),
        ("AGENT__BACKEND__S4HANA__ALLOW_LOOPBACK_HTTP", "true"),
        (
            "AGENT__BACKEND__S4HANA__DESTINATION_SERVICE__TOKEN_URL",
            &destinations.url,
        ),
        (
            "AGENT__BACKEND__S4HANA__DESTINATION_SERVICE__URI",
            &destinations.url,
        ),
        (
            "AGENT__BACKEND__S4HANA__DESTINATION_SERVICE__CLIENT_ID",
            destination::CLIENT_ID,
        ),
        (
            "AGENT__BACKEND__S4HANA__DESTINATION_SERVICE__CLIENT_SECRET",
            destination::CLIENT_SECRET,
        ),
    ])
    .await;
    let user_token = key_server::token(&user_claims());
    let response = crate::helpers::http_client()
        .post(format!("http://127.0.0.1:{}/", running.port))
        .bearer_auth(&user_token)
        .header("traceparent", format!("00-{TRACE_ID}-00f067aa0ba902b7-01"))
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "message/send",
            "params": {"message": crate::helpers::user_message("why is order 4711 blocked by credit")}}))
        .send()
        .await
        .unwrap();
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["result"]["status"]["state"], "completed", "{body}");
    let s4_calls = s4.requests().len();
    let reads = || {
        seen.lock()
            .unwrap()
            .iter()
            .filter(|span| span.name == "backend.read")
            .cloned()
            .collect::<Vec<_>>()
    };
    wait_until(Duration::from_secs(10), async || {
        reads().len() >= s4_calls - 1
    })
    .await;
    let _ = running.terminate().await;
    let reads = reads();
    assert_eq!(
        reads.len(),
        s4_calls - 1,
        "one span per OData call (the 429 retry is counted in its read)"
    );
    let all = seen.lock().unwrap().clone();
    let order_read = reads
        .iter()
        .find(|span| text(&span.attributes, "odata.entity_set").as_deref() == Some("A_SalesOrder"))
        .expect("the order read");
    assert_eq!(
        text(&order_read.attributes, "odata.service").as_deref(),
        Some("API_SALES_ORDER_SRV")
    );
    assert_eq!(
        text(&order_read.attributes, "sap.sales_order").as_deref(),
        Some("4711")
    );
    assert_eq!(
        int(&order_read.attributes, "http.response.status_code"),
        Some(200)
    );
    assert_eq!(int(&order_read.attributes, "backend.retries"), Some(1));
    assert!(int(&order_read.attributes, "backend.latency_ms").is_some());
    let sets: Vec<String> = reads
        .iter()
        .filter_map(|span| text(&span.attributes, "odata.entity_set"))
        .collect();
    for set in ["CreditManagementAccount", "A_OperationalAcctgDocItemCube"] {
        assert!(sets.iter().any(|s| s == set), "{set} in {sets:?}");
    }
    for span in &reads {
        assert_eq!(hex(&span.trace_id), TRACE_ID, "in the caller's trace");
        assert!(!span.parent_span_id.is_empty(), "a child of the turn");
        for attribute in &span.attributes {
            let value = format!("{:?}", attribute.value);
            assert!(
                !value.contains("eyJ") && !value.contains("Bearer"),
                "no token in {value}"
            );
        }
    }
    // The turn's spans hold no token either.
    for span in &all {
        for attribute in &span.attributes {
            let value = format!("{:?}", attribute.value);
            assert!(
                !value.contains(&user_token[..30]),
                "no user token in {}: {value}",
                span.name
            );
        }
    }
}
