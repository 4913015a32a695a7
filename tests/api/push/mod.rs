//! Push notifications: the config methods, the webhook guard, delivery to a
//! loopback receiver, and what one caller can make the push room hold.

mod notifications;
mod push_limits;
