//! The crawler: an async engine on tokio that applies the rule engine to
//! every URL it meets, schedules fetches through the weighted queues of SPEC
//! §2.2 with per-host politeness, and records everything in the URL log.
//!
//! Pure parts (no I/O): [`frontier`] (the queues and the scheduling rule).
//! Only `fetch` names reqwest.

pub mod frontier;
