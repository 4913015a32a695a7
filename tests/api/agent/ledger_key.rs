//! The ledger tells a new request from a repeat, over HTTP: the
//! same approval of the same order in the same state is filed once, in any
//! task; asked again after the order changed in S/4HANA (a new
//! `LastChangeDateTime` and ETag), it is filed and carried out again; a
//! delivery date change for another date is a new request, for the same
//! date a repeat. With the demo data, the order's `LastChangeDateTime` is
//! its version: the same data is a repeat, also on a second instance of the
//! same store, a later `LastChangeDateTime` a new request.

use crate::helpers::{
    DeliveryDay, Store, TestApp, approval, delivery_day, delivery_day_in, state, status_text,
    user_message,
};
use crate::s4hana::actions_s4::{
    World, clerk, credit_manager, ledger_key, merges_of, reply, send, world_with,
};
use serde_json::{Value, json};

const CREDIT_4711: &str = "why is order 4711 blocked by credit";
const DELIVERY_4740: &str = "customer wants a later delivery date on 4740";

fn rows_of(rows: &[Value], order: &str) -> Vec<Value> {
    // `GET /actions` answers newest first; these read oldest first.
    rows.iter()
        .rev()
        .filter(|row| row["salesOrder"] == order)
        .cloned()
        .collect()
}

/// Writes of order texts (the agent's notes) in the S/4HANA double.
fn text_writes(world: &World) -> usize {
    world
        .s4
        .changes()
        .iter()
        .filter(|change| change.entity.contains("Text"))
        .count()
}

async fn ask_credit_review(world: &World, token: &str) -> Value {
    let asked = send(&world.app, token, user_message(CREDIT_4711)).await;
    assert_eq!(state(&asked), "input-required", "{asked}");
    assert_eq!(approval(&asked)["status"], "pending", "{asked}");
    asked
}

/// A credit manager whose role files the review note only (no release), so
/// that 4711 stays credit-blocked and can be asked about again.
async fn note_only_world() -> World {
    world_with(|s| {
        s.rules
            .decisions
            .insert("release_credit_block".into(), Vec::new());
    })
    .await
}

#[tokio::test]
async fn a_credit_review_asked_again_after_the_order_changed_is_filed_and_carried_out_again() {
    let world = note_only_world().await;
    let token = credit_manager();
    let first = ask_credit_review(&world, &token).await;
    let done = reply(&world.app, &token, &first, "approve").await;
    assert_eq!(approval(&done)["status"], "filed", "{done}");
    assert!(
        status_text(&done)
            .ends_with("Done in S/4HANA: a credit review note is on sales order 4711."),
        "{}",
        status_text(&done)
    );
    assert_eq!(text_writes(&world), 1);

    // Asked and approved again in a new task, the order unchanged: a
    // repeat. Nothing is filed, nothing written.
    let repeat = ask_credit_review(&world, &token).await;
    let again = reply(&world.app, &token, &repeat, "approve").await;
    assert_eq!(approval(&again)["status"], "already_filed", "{again}");
    assert!(
        status_text(&again).starts_with("Already filed: request_credit_review for order 4711")
            && status_text(&again).contains("Nothing new was filed."),
        "{}",
        status_text(&again)
    );
    assert_eq!(text_writes(&world), 1);
    assert_eq!(
        rows_of(
            &crate::s4hana::actions_s4::actions(&world.app, &token).await,
            "4711"
        )
        .len(),
        1
    );

    // The order changes in S/4HANA (a new credit check, say): a new
    // LastChangeDateTime and with it a new ETag.
    let before = world.s4.etag("A_SalesOrder", "'4711'").expect("an ETag");
    world.s4.set_field(
        "A_SalesOrder",
        "'4711'",
        "LastChangeDateTime",
        json!("/Date(1796144102774+0000)/"),
    );
    let after = world.s4.etag("A_SalesOrder", "'4711'").expect("an ETag");
    assert_ne!(before, after);
    let changed = ask_credit_review(&world, &token).await;
    let second = reply(&world.app, &token, &changed, "approve").await;
    assert_eq!(approval(&second)["status"], "filed", "{second}");
    assert!(
        status_text(&second)
            .ends_with("Done in S/4HANA: a credit review note is on sales order 4711."),
        "{}",
        status_text(&second)
    );
    assert_eq!(text_writes(&world), 2, "a second execution");

    let rows = rows_of(
        &crate::s4hana::actions_s4::actions(&world.app, &token).await,
        "4711",
    );
    assert_eq!(rows.len(), 2, "{rows:?}");
    let keys: Vec<_> = rows.iter().map(ledger_key).collect();
    assert_eq!(keys[0].order_version, before);
    assert_eq!(keys[1].order_version, after);
    assert!(rows.iter().all(|row| row["state"] == "done"), "{rows:?}");
    // Each request has its own note, found again by its own marker.
    let note = world
        .s4
        .entity(
            "A_SalesOrderText",
            "SalesOrder='4711',Language='EN',LongTextID='Z001'",
        )
        .expect("the agent's note");
    let note = note["LongText"].as_str().unwrap_or_default();
    for key in &keys {
        assert_eq!(note.matches(&key.note_marker()).count(), 1, "{note}");
    }

    // And a repeat of the new request is a repeat again.
    let repeat = ask_credit_review(&world, &token).await;
    let again = reply(&world.app, &token, &repeat, "approve").await;
    assert_eq!(approval(&again)["status"], "already_filed", "{again}");
    assert_eq!(text_writes(&world), 2);
}

/// Ask about 4740's delivery block and give `day`: the approval question.
async fn asked_for(world: &World, token: &str, day: &DeliveryDay) -> Value {
    let asked = send(&world.app, token, user_message(DELIVERY_4740)).await;
    assert_eq!(state(&asked), "input-required", "{asked}");
    let dated = reply(&world.app, token, &asked, &day.written).await;
    assert_eq!(approval(&dated)["status"], "pending", "{dated}");
    assert!(status_text(&dated).contains(&day.iso), "{dated}");
    dated
}

#[tokio::test]
async fn another_delivery_date_for_the_same_order_is_a_new_request_and_the_same_date_a_repeat() {
    // The block stays after a change, so 4740 may be asked about again.
    let world = world_with(|s| s.actions.clear_delivery_block = false).await;
    let token = clerk();
    let first_day = delivery_day();
    let second_day = delivery_day_in(400);
    // Three tasks on the same state of the order: two dates.
    let first = asked_for(&world, &token, &first_day).await;
    let other_date = asked_for(&world, &token, &second_day).await;
    let same_date = asked_for(&world, &token, &first_day).await;

    let done = reply(&world.app, &token, &first, "approve").await;
    assert_eq!(approval(&done)["status"], "filed", "{done}");
    assert_eq!(merges_of(&world.s4, "A_SalesOrder('4740')"), 1);

    // Another date: a new request, filed and carried out (the order
    // changed since it was explained, the block it was approved for is
    // still there: written with the new ETag).
    let moved = reply(&world.app, &token, &other_date, "approve").await;
    assert_eq!(approval(&moved)["status"], "filed", "{moved}");
    assert!(
        status_text(&moved).ends_with(&format!(
            "Done in S/4HANA: the requested delivery date of 4740 is now {}.",
            second_day.iso
        )),
        "{}",
        status_text(&moved)
    );
    assert_eq!(merges_of(&world.s4, "A_SalesOrder('4740')"), 2);
    assert_eq!(
        world.s4.entity("A_SalesOrder", "'4740'").expect("4740")["RequestedDeliveryDate"],
        second_day.odata.as_str()
    );

    // The first date again, proposed on the same state as the first
    // approval: a repeat; nothing filed, nothing written.
    let repeat = reply(&world.app, &token, &same_date, "approve").await;
    assert_eq!(approval(&repeat)["status"], "already_filed", "{repeat}");
    assert_eq!(merges_of(&world.s4, "A_SalesOrder('4740')"), 2);

    let rows = rows_of(
        &crate::s4hana::actions_s4::actions(&world.app, &token).await,
        "4740",
    );
    let requested: Vec<_> = rows.iter().map(|row| ledger_key(row).requested).collect();
    assert_eq!(requested, [first_day.iso.clone(), second_day.iso.clone()]);
    assert_eq!(
        ledger_key(&rows[0]).order_version,
        ledger_key(&rows[1]).order_version,
        "both proposed on the same state of the order"
    );
}

/// A fresh folder of its own, removed on drop.
struct Folder(std::path::PathBuf);

impl Folder {
    fn new() -> Folder {
        let dir = std::env::temp_dir().join(format!("oea-key-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("a folder");
        Folder(dir)
    }

    /// The demo data, with order `order`'s `LastChangeDateTime` set.
    fn demo_data(order: &str, last_change: &str) -> Folder {
        let folder = Folder::new();
        let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
        for file in [
            "credit.json",
            "prices.json",
            "incompletion.json",
            "customers.json",
        ] {
            std::fs::copy(source.join(file), folder.0.join(file)).expect("copied");
        }
        let orders = std::fs::read_to_string(source.join("orders.json")).expect("orders");
        let mut orders: Vec<Value> = serde_json::from_str(&orders).expect("JSON");
        for row in &mut orders {
            if row["SalesOrder"] == order {
                row["LastChangeDateTime"] = json!(last_change);
            }
        }
        std::fs::write(
            folder.0.join("orders.json"),
            Value::Array(orders).to_string(),
        )
        .expect("written");
        folder
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const DISPUTE_4725: &str = "Order 4725: Pricing: customer disputes the price.";

/// Ask about 4725's price dispute and approve it; the approval's status.
async fn approve_dispute(app: &TestApp) -> String {
    let clerk = app.as_role("ar_clerk");
    let asked = clerk.send_text(DISPUTE_4725).await;
    assert_eq!(state(&asked), "input-required", "{asked}");
    let answered = clerk.reply(&asked, "approve").await;
    approval(&answered)["status"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn with_the_demo_data_the_orders_last_change_tells_a_new_request_from_a_repeat() {
    let store = Folder::new();
    let on = |data: &Folder| {
        let data = data.0.clone();
        TestApp::builder()
            .store(Store::SqliteFile {
                dir: store.0.clone(),
                file: "ledger.sqlite3".into(),
            })
            .settings(move |s| s.backend.data_dir = Some(data))
    };
    let same = Folder::demo_data("4725", "2026-11-29T11:02:47.930Z");
    let app = on(&same).spawn().await;
    assert_eq!(approve_dispute(&app).await, "filed");
    assert_eq!(approve_dispute(&app).await, "already_filed");

    // A second instance on the same store and the same data: a repeat.
    let second = on(&same).spawn().await;
    assert_eq!(approve_dispute(&second).await, "already_filed");

    // The order changed since (a later LastChangeDateTime): a new request.
    let changed = Folder::demo_data("4725", "2026-12-02T16:20:00.000Z");
    let third = on(&changed).spawn().await;
    assert_eq!(approve_dispute(&third).await, "filed");
    assert_eq!(approve_dispute(&third).await, "already_filed");

    let rows = rows_of(&third.actions().await, "4725");
    let versions: Vec<_> = rows
        .iter()
        .map(|row| ledger_key(row).order_version)
        .collect();
    assert_eq!(
        versions,
        ["2026-11-29T11:02:47.930Z", "2026-12-02T16:20:00.000Z"]
    );
    assert!(rows.iter().all(|row| row["state"] == "done"), "{rows:?}");
}
