//! Who the double lets in and as whom (s4hana.md §4.2, §5), what a user may
//! read, and the recording tests assert on ("the double sees the propagated
//! token per user", "no call was made").

use super::support::{SALES, client, field, get, results, s4_token, send};
use crate::doubles::s4hana::users::known::{CLERK, COMM_USER, CREDIT_MANAGER, SANDBOX};
use crate::doubles::s4hana::users::{S4_OAUTH_ISSUER, mint_token};
use crate::doubles::s4hana::{Access, Denial, S4Double, Scope, User};
use crate::helpers::key_server;

#[tokio::test]
async fn the_double_records_each_call_with_the_user_its_token_stands_for() {
    let double = S4Double::start().await;
    assert!(double.requests().is_empty(), "no call was made yet");
    let clerk = s4_token(CLERK.1);
    let manager = s4_token(CREDIT_MANAGER.1);
    get(
        &double,
        SALES,
        "A_SalesOrder('4711')?$expand=to_Text",
        &clerk,
    )
    .await;
    get(&double, SALES, "A_SalesOrder('4711')", &manager).await;
    let recorded = double.requests();
    assert_eq!(recorded.len(), 2);
    assert_eq!(recorded[0].user.as_deref(), Some(CLERK.0));
    assert_eq!(recorded[0].email.as_deref(), Some(CLERK.1));
    assert_eq!(
        recorded[0].header("Authorization"),
        Some(format!("Bearer {clerk}").as_str())
    );
    assert_eq!(
        recorded[0].target,
        format!("/sap/opu/odata/sap/{SALES}/A_SalesOrder('4711')?$expand=to_Text")
    );
    assert_eq!(recorded[0].query, "$expand=to_Text");
    assert_eq!(
        recorded[0].path,
        format!("/sap/opu/odata/sap/{SALES}/A_SalesOrder('4711')"),
        "as sent"
    );
    assert_eq!(recorded[0].header("accept"), Some("application/json"));
    assert_eq!(recorded[0].status, Some(200));
    assert_eq!(recorded[1].user.as_deref(), Some(CREDIT_MANAGER.0));
    double.clear_requests();
    assert!(double.requests().is_empty());
}

#[tokio::test]
async fn credentials_that_name_no_user_are_refused_with_401() {
    let double = S4Double::start().await;
    let url = format!("{}/A_SalesOrder('4711')", double.service_url(SALES));
    let anonymous = send(client().get(&url)).await;
    assert_eq!(anonymous.status, 401);
    assert!(anonymous.header("www-authenticate").is_some());
    // The user's own IAS token is not an S/4 token: the destination must exchange it.
    let ias = key_server::token(&key_server::user_claims());
    assert_eq!(
        get(&double, SALES, "A_SalesOrder('4711')", &ias)
            .await
            .status,
        401
    );
    let expired = mint_token(S4_OAUTH_ISSUER, CLERK.1, 0, &[]);
    assert_eq!(
        get(&double, SALES, "A_SalesOrder('4711')", &expired)
            .await
            .status,
        401
    );
    let stranger = s4_token("nobody@example.com");
    assert_eq!(
        get(&double, SALES, "A_SalesOrder('4711')", &stranger)
            .await
            .status,
        401
    );
    assert_eq!(
        get(&double, SALES, "A_SalesOrder('4711')", "opaque-token")
            .await
            .status,
        401
    );
    let recorded = double.requests();
    assert_eq!(recorded.len(), 5);
    assert!(
        recorded
            .iter()
            .all(|request| request.user.is_none() && request.status == Some(401))
    );

    let basic = send(
        client()
            .get(&url)
            .basic_auth(COMM_USER.0, Some(COMM_USER.1))
            .header("accept", "application/json"),
    )
    .await;
    assert_eq!(
        basic.status, 200,
        "a technical user with basic authentication"
    );
    let wrong = send(client().get(&url).basic_auth(COMM_USER.0, Some("wrong"))).await;
    assert_eq!(wrong.status, 401);
    let sandbox = send(
        client()
            .get(&url)
            .header("APIKey", SANDBOX.1)
            .header("accept", "application/json"),
    )
    .await;
    assert_eq!(sandbox.status, 200, "the API sandbox's key header");
    double.register_token("opaque-token", CLERK.1);
    assert_eq!(
        get(&double, SALES, "A_SalesOrder('4711')", "opaque-token")
            .await
            .status,
        200
    );
    let users: Vec<Option<String>> = double.requests()[5..]
        .iter()
        .map(|request| request.user.clone())
        .collect();
    assert_eq!(
        users,
        [
            Some(COMM_USER.0.to_string()),
            None,
            Some(SANDBOX.0.to_string()),
            Some(CLERK.0.to_string())
        ]
    );
}

#[tokio::test]
async fn reads_outside_a_users_authorization_are_403_or_hidden() {
    let double = S4Double::start().await;
    double.add_user(User::business(
        "CB9980000199",
        "restricted@example.com",
        Access {
            read: Scope::only(&["4711", "4730"]),
            change: Scope::Nothing,
            services: None,
        },
    ));
    let token = s4_token("restricted@example.com");
    let answer = get(&double, SALES, "A_SalesOrder('4723')", &token).await;
    assert_eq!(answer.status, 403, "{}", answer.text);
    assert_eq!(
        answer.json()["error"]["message"]["value"],
        "No authorization to display sales document 4723"
    );
    assert_eq!(
        get(&double, SALES, "A_SalesOrder('4723')/to_Item", &token)
            .await
            .status,
        403
    );
    let visible = results(&double, SALES, "A_SalesOrder", &token).await;
    assert_eq!(
        field(&visible, "SalesOrder"),
        ["4711", "4730"],
        "lists hold only what the user may see"
    );
    let items = results(&double, SALES, "A_SalesOrderItem", &token).await;
    assert_eq!(field(&items, "SalesOrder"), ["4711", "4730"]);
    assert_eq!(
        get(&double, SALES, "A_SalesOrder('4711')", &token)
            .await
            .status,
        200
    );

    double.set_denial(Denial::Hidden);
    let answer = get(&double, SALES, "A_SalesOrder('4723')", &token).await;
    assert_eq!(
        answer.status, 404,
        "filtered by access control: 404 on the key"
    );

    double.set_access(
        "restricted@example.com",
        Access {
            services: Some([SALES.to_string()].into()),
            ..Access::full()
        },
    );
    let answer = get(
        &double,
        "API_BUSINESS_PARTNER",
        "A_BusinessPartner('10023')",
        &token,
    )
    .await;
    assert_eq!(answer.status, 403, "no business role for the service");
    assert!(
        answer
            .text
            .contains("no authorization for service API_BUSINESS_PARTNER")
    );
    assert_eq!(
        get(&double, SALES, "A_SalesOrder('4723')", &token)
            .await
            .status,
        200
    );
}
