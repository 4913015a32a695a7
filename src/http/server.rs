//! Binding the listener and running the actix server on it: workers,
//! connection limit, request timeout, closed clients, graceful shutdown
//! (actix handles SIGTERM within `server.shutdown_timeout_secs`; the time
//! SIGTERM came is kept, so the turns still running get the same grace,
//! `startup.rs`), and the one middleware (local origins only while
//! authentication is off).

use super::ServerSettings;
use super::state::AppState;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{App, HttpServer, web};
use std::net::{SocketAddr, TcpListener};

#[derive(Debug, thiserror::Error)]
#[error("cannot listen on {address}: {source}")]
pub struct BindError {
    address: String,
    source: std::io::Error,
}

/// A bound listener, not yet served: the port is known before the card is
/// built (it names the public URL when none is configured).
pub struct Bound {
    listener: TcpListener,
    address: String,
    pub local: SocketAddr,
}

impl Bound {
    /// Without a public URL: the address bound, written by `SocketAddr`
    /// (IPv6 in brackets), 127.0.0.1 for "any".
    pub fn default_public_url(&self) -> String {
        default_public_url(self.local)
    }
}

/// Bind `server.host:server.port` (port 0: any free one); without a
/// `server.host`, every address when `reachable` (others must reach the
/// instance), else loopback only.
pub fn bind(settings: &ServerSettings, reachable: bool) -> Result<Bound, BindError> {
    let address = settings.address(reachable);
    let failed = |source| BindError {
        address: address.clone(),
        source,
    };
    let listener = TcpListener::bind(&address).map_err(failed)?;
    let local = listener.local_addr().map_err(failed)?;
    Ok(Bound {
        listener,
        address,
        local,
    })
}

/// The running server: it serves until SIGTERM (or SIGINT) and a graceful
/// stop.
pub struct Serving(actix_web::dev::Server);

impl Serving {
    /// Wait until the server has stopped; also when it was asked to stop
    /// (SIGTERM or SIGINT; the time it stopped when no signal was seen),
    /// where the grace of what runs on after the server starts.
    pub async fn until_stopped(self) -> (std::io::Result<()>, tokio::time::Instant) {
        let asked = tokio::spawn(stop_asked());
        let stopped = self.0.await;
        let asked = match asked.is_finished() {
            true => asked.await.ok().flatten(),
            false => {
                asked.abort();
                None
            }
        };
        (stopped, asked.unwrap_or_else(tokio::time::Instant::now))
    }
}

/// When SIGTERM or SIGINT arrives (actix hears them too, and stops the
/// server); `None` when neither can be listened to.
async fn stop_asked() -> Option<tokio::time::Instant> {
    use tokio::signal::unix::{SignalKind, signal};
    let (mut terminate, mut interrupt) = match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) {
        (Ok(terminate), Ok(interrupt)) => (terminate, interrupt),
        (Err(error), _) | (_, Err(error)) => {
            tracing::warn!(%error, "cannot listen for SIGTERM: the shutdown grace starts when the server has stopped");
            return None;
        }
    };
    tokio::select! {
        _ = terminate.recv() => {}
        _ = interrupt.recv() => {}
    }
    Some(tokio::time::Instant::now())
}

/// Serve the routes on `bound` with `state`.
pub fn serve(
    bound: Bound,
    state: AppState,
    settings: &ServerSettings,
) -> Result<Serving, BindError> {
    let state = web::Data::new(state);
    let workers = settings.workers();
    let server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .wrap(actix_web::middleware::from_fn(only_local))
            .configure(super::routes)
    })
    .shutdown_timeout(settings.shutdown_timeout_secs)
    .client_request_timeout(settings.head_timeout())
    // A client that closes its connection ends its response at once, an
    // event stream too (its slot is free again): HTTP/1.1 clients do not
    // half-close and wait for an answer.
    .h1_allow_half_closed(false)
    .workers(workers)
    .max_connections(settings.connections_per_worker(workers));
    let Bound {
        listener, address, ..
    } = bound;
    Ok(Serving(
        server
            .listen(listener)
            .map_err(|source| BindError { address, source })?
            .run(),
    ))
}

/// Requests from elsewhere while authentication is off are answered here,
/// before any handler ([`super::LocalOrigins`]); with authentication on
/// all pass.
async fn only_local(
    request: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let refusal = request
        .app_data::<web::Data<AppState>>()
        .and_then(|state| state.local_origins.as_ref())
        .and_then(|origins| origins.refusal(&request));
    match refusal {
        Some(answer) => Ok(request.into_response(answer).map_into_right_body()),
        None => Ok(next.call(request).await?.map_into_left_body()),
    }
}

fn default_public_url(bound: SocketAddr) -> String {
    let ip = if bound.ip().is_unspecified() {
        std::net::Ipv4Addr::LOCALHOST.into()
    } else {
        bound.ip()
    };
    format!("http://{}/", SocketAddr::new(ip, bound.port()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_public_url_is_the_bound_address() {
        for (bound, url) in [
            ("0.0.0.0:8080", "http://127.0.0.1:8080/"),
            ("[::]:8080", "http://127.0.0.1:8080/"),
            ("127.0.0.1:9", "http://127.0.0.1:9/"),
            ("[::1]:8080", "http://[::1]:8080/"),
        ] {
            let written = default_public_url(bound.parse().unwrap());
            assert_eq!(written, url);
            // It is a URL as the card's readers parse it.
            assert_eq!(reqwest::Url::parse(&written).unwrap().as_str(), url);
        }
    }
}
