//! Tasks over time: their lifecycle, the turn's budget, the bounds on what a
//! caller may make the instance hold, and the stores that keep them across
//! restarts, crashes (of the service or the database) and dropped database
//! connections.

mod bounds;
mod budget;
mod crash;
mod dropped_connections;
mod durability;
mod lifecycle;
mod repeats;
mod shutdown;
