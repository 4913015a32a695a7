//! PostgreSQL ends the service's connections (a restart, a failover,
//! `pg_terminate_backend`) while the database stays up: the next calls are
//! served on fresh connections without the caller noticing. Only this test's
//! backends are ended: they carry an `application_name` of their own.

use crate::helpers::{Store, TestApp, approval, postgres_url, state, wait_until};
use serde_json::json;
use std::time::{Duration, Instant};

/// A connection to the test server that is not the service's.
async fn admin_pool() -> sqlx::AnyPool {
    let base = std::env::var("TEST_DATABASE_URL").expect("TEST_DATABASE_URL is set");
    sqlx::any::AnyPoolOptions::new()
        .max_connections(1)
        .connect(&base)
        .await
        .expect("the test PostgreSQL answers")
}

/// End every backend named `application`, and wait until PostgreSQL lists
/// none of them any more (the termination is asynchronous; the pool may
/// open new ones meanwhile); how many there were.
async fn terminate_backends(admin: &sqlx::AnyPool, application: &str) -> usize {
    let pids: Vec<i32> = sqlx::query_scalar(
        "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()",
    )
    .bind(application)
    .fetch_all(admin)
    .await
    .expect("pg_stat_activity is readable");
    for pid in &pids {
        sqlx::query("SELECT pg_terminate_backend($1)")
            .bind(*pid)
            .execute(admin)
            .await
            .expect("the backend is terminated");
    }
    for pid in &pids {
        let gone = wait_until(Duration::from_secs(10), async || {
            let alive: i64 =
                sqlx::query_scalar("SELECT count(*) FROM pg_stat_activity WHERE pid = $1")
                    .bind(*pid)
                    .fetch_one(admin)
                    .await
                    .expect("pg_stat_activity is readable");
            alive == 0
        })
        .await;
        assert!(gone, "backend {pid} outlived pg_terminate_backend");
    }
    pids.len()
}

#[tokio::test]
async fn calls_after_postgres_ended_the_pools_connections_succeed() {
    let Some(url) = postgres_url("calls_after_postgres_ended_the_pools_connections").await else {
        return;
    };
    sqlx::any::install_default_drivers();
    let application = format!("oea_drop_{}", uuid::Uuid::new_v4().simple());
    let app = TestApp::builder()
        .store(Store::Postgres(format!(
            "{url}&application_name={application}"
        )))
        // Two connections: one task writer, which keeps its connection between
        // writes (the default pool has five, each taking one on its first write).
        .settings(|settings| settings.store.max_connections = 2)
        .spawn()
        .await;
    let admin = admin_pool().await;
    let clerk = app.as_role("ar_clerk");
    let asked = clerk
        .send_text("the customer disputes the price on 4725")
        .await;
    assert_eq!(state(&asked), "input-required");

    // Every kind of call, each right after the pool lost all its
    // connections: a read, a task write with the ledger, a new task.
    assert!(terminate_backends(&admin, &application).await > 0);
    let started = Instant::now();
    let read = app.rpc("tasks/get", json!({ "id": asked["id"] })).await;
    assert!(read.get("error").is_none(), "tasks/get: {read}");
    assert_eq!(state(&read["result"]), "input-required");

    assert!(terminate_backends(&admin, &application).await > 0);
    let filed = clerk.reply(&asked, "approve").await;
    assert_eq!(approval(&filed)["status"], "filed", "{filed}");

    assert!(terminate_backends(&admin, &application).await > 0);
    let body = clerk
        .rpc(
            "message/send",
            json!({ "message": crate::helpers::user_message("why is order 4711 blocked by credit") }),
        )
        .await;
    assert!(body.get("error").is_none(), "message/send: {body}");
    assert_eq!(state(&body["result"]), "completed", "{body}");
    eprintln!(
        "three calls on ended connections took {:?}",
        started.elapsed()
    );
    assert_eq!(app.actions().await.len(), 1, "filed once");
    admin.close().await;
}
