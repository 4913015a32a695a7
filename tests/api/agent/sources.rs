//! The walkthrough on each order source: the same test body against the
//! embedded demo data and against S/4HANA (the loopback S/4 double, direct
//! mode with its communication user). `on_each_source!(name, …)` turns
//! `async fn name(app: TestApp)` into the tests `name::embedded` and
//! `name::s4hana`.

use crate::doubles::s4hana::S4Double;
use crate::doubles::s4hana::users::known::COMM_USER;
use crate::helpers::{Settings, TestApp};
use order_exception_agent::SourceKind;

#[derive(Debug, Clone, Copy)]
pub enum Source {
    Embedded,
    S4hana,
}

/// An app on a source; the double lives as long as this value.
pub struct Sourced {
    pub app: TestApp,
    pub s4: Option<S4Double>,
}

/// Settings reading `s4` directly (a technical user: direct mode), for
/// [`TestAppBuilder::settings`](crate::helpers::TestAppBuilder::settings).
pub fn s4_direct(s4: &S4Double, settings: &mut Settings) {
    settings.backend.source = SourceKind::S4hana;
    settings.backend.s4hana.url = Some(s4.url.clone());
    settings.backend.s4hana.user = Some(COMM_USER.0.into());
    settings.backend.s4hana.password = Some(COMM_USER.1.into());
    settings.backend.s4hana.allow_loopback_http = true;
}

pub async fn spawn(source: Source) -> Sourced {
    match source {
        Source::Embedded => Sourced {
            app: TestApp::spawn().await,
            s4: None,
        },
        Source::S4hana => {
            let s4 = S4Double::start().await;
            let app = TestApp::builder()
                .settings(|settings| s4_direct(&s4, settings))
                .spawn()
                .await;
            Sourced { app, s4: Some(s4) }
        }
    }
}

/// One test body, two tests: `embedded` and `s4hana`.
#[macro_export]
macro_rules! on_each_source {
    ($($test:ident),* $(,)?) => {$(
        mod $test {
            #[tokio::test]
            async fn embedded() {
                let sourced = $crate::agent::sources::spawn($crate::agent::sources::Source::Embedded).await;
                super::$test(sourced.app.clone()).await;
            }

            #[tokio::test]
            async fn s4hana() {
                let sourced = $crate::agent::sources::spawn($crate::agent::sources::Source::S4hana).await;
                super::$test(sourced.app.clone()).await;
                let s4 = sourced.s4.as_ref().expect("the S/4 double");
                assert!(
                    !s4.requests().is_empty(),
                    "the answers came from the S/4 double"
                );
            }
        }
    )*};
}

/// The order source itself (not the app) on `source`, for the queries no
/// HTTP request reaches yet; the double, if any, lives in the pair.
pub async fn order_source(
    source: Source,
) -> (
    std::sync::Arc<dyn order_exception_agent::OrderSource>,
    Option<S4Double>,
) {
    let mut settings = Settings::default();
    let s4 = match source {
        Source::Embedded => None,
        Source::S4hana => {
            let s4 = S4Double::start().await;
            s4_direct(&s4, &mut settings);
            Some(s4)
        }
    };
    let orders = order_exception_agent::order_source(&settings).expect("the order source builds");
    (orders, s4)
}

/// Like [`on_each_source!`], for a body that takes the order source:
/// `async fn name(orders: Arc<dyn OrderSource>, s4: Option<&S4Double>)`.
#[macro_export]
macro_rules! on_each_order_source {
    ($($test:ident),* $(,)?) => {$(
        mod $test {
            #[tokio::test]
            async fn embedded() {
                let (orders, s4) =
                    $crate::agent::sources::order_source($crate::agent::sources::Source::Embedded).await;
                super::$test(orders, s4.as_ref()).await;
            }

            #[tokio::test]
            async fn s4hana() {
                let (orders, s4) =
                    $crate::agent::sources::order_source($crate::agent::sources::Source::S4hana).await;
                super::$test(orders, s4.as_ref()).await;
                assert!(
                    !s4.as_ref().expect("the S/4 double").requests().is_empty(),
                    "the answers came from the S/4 double"
                );
            }
        }
    )*};
}
