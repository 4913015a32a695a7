//! S/4HANA as the user through a BTP destination: the order source, how many
//! stages a question waits for, approved actions carried out (and the action
//! hook, and exactly once across a crash), and `diagnose`.

mod actions_crash;
pub(crate) mod actions_hook;
mod actions_hook_destination;
pub(crate) mod actions_s4;
mod diagnose;
pub(crate) mod s4hana_source;
mod s4hana_stages;
