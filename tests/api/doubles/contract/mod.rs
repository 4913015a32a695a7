//! The doubles checked against the reference they follow, over real HTTP on
//! loopback: the S/4HANA double's reads in the demo's values and wire shapes
//! (s4hana.md §1, §3; s4-demo-data.md), its writes (CSRF, ETag, texts, the
//! credit-block function imports), who it lets in and what it records, its
//! fault injection; the Destination double per authentication type
//! (s4hana.md §4, btp-runtime.md §5); the connectivity proxy (s4hana.md
//! §4.2). The S/4HANA client tests build on these doubles.

mod audit_log;
mod destination;
mod faults;
mod identity;
mod proxy;
mod queries;
mod reads;
mod support;
mod writes;
