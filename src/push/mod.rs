//! Push notifications: the service and the delivery state it keeps per
//! task (`service`), configs per task (`configs`: judged, bounded in size
//! by `config_size`, kept with the task in the task store so any instance
//! can deliver, reached through the engine), the webhook guard (`guard`), the ordered delivery worker and the
//! heartbeat (`worker`), HTTP delivery with retries (`delivery`), Joule's
//! callback format and token (`joule`), and the settings (`settings`).
//! Deliveries keep the event order per task and never block a turn.

pub mod action_hook;
mod config_size;
mod configs;
mod delivery;
pub mod guard;
mod joule;
mod service;
mod settings;
mod worker;

pub use configs::PushObserver;
pub use service::{PushService, PushSetupError};
pub use settings::PushSettings;
