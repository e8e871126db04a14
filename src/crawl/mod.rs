//! The crawler: an async engine on tokio that applies the rule engine to
//! every URL it meets, schedules fetches through the weighted queues of SPEC
//! §2.2 with per-host politeness, and records everything in the URL log.
//!
//! Pure parts (no I/O): [`frontier`] (the queues and the scheduling rule),
//! [`links`] (links, robots meta and title from an HTML body), [`robots`]
//! (robots.txt per RFC 9309: groups, longest match, the deciding line),
//! [`sitemap`] (sitemap files and indexes, gzip, the 50,000-URL and 50 MiB
//! caps, streamed). [`mirror`]
//! maps a URL to its file in the saved mirror and writes it.
//! [`engine`] is the coordinator loop and [`detail`] what it tells the
//! console about queues, hosts and rule hits; `task` is one fetch (DNS, phases 1b
//! and 2, body, links, saving) and the robots.txt fetch; `sitemaps` streams
//! one sitemap file into the parser; `robots_cache` holds each host's
//! robots.txt and when it expires; `directives` says what robots meta and
//! `X-Robots-Tag` mean for a page; `report` turns verdicts into log text; [`notices`] holds what the
//! crawl has to say beside its counts, for the display to show.
//! Only `fetch` names reqwest.

pub mod detail;
mod directives;
pub mod engine;
pub mod fetch;
pub mod frontier;
pub mod hosts;
pub mod links;
pub mod mirror;
pub mod notices;
mod report;
pub(crate) use report::beyond_depth;
pub mod robots;
mod robots_cache;
pub mod sitemap;
mod sitemaps;
mod task;
