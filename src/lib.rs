//! crawlspace: a terminal crawl console.
//!
//! Architecture map:
//! - [`rules`]: the rule model of SPEC §1, its five dialect importers, the
//!   compiled evaluator and the verdict trace. No I/O beyond reading a file.
//! - [`config`]: crawl settings (`[crawl]`, `[queues]`) over the embedded
//!   `config/default.toml`.
//! - [`store`]: the URL log over sled: records, state index, persisted frontier.
//! - [`crawl`]: the async crawler: frontier, politeness, fetching, links.
//! - [`demo`]: the built-in demo site (assets/site plus dynamic traps,
//!   redirects and errors), served with axum on 127.0.0.1 for `crawlspace demo`.
//! - [`cli`]: the command line of SPEC §5 (clap) and the rule commands
//!   `explain`, `check`, `import`, `rules`.
//! - [`tui`]: the console (ratatui, crossterm): the rules, queues, URL log
//!   and explain views, fed by the crawl's events.
//! - [`text`]: wording shared by the layers above (counts and nouns).
//! - [`app`]: the wiring of the crawl commands (`crawl`, `demo`, the
//!   console, `log`): config, URL log, engine, progress display, Ctrl-C.

pub mod app;
pub mod cli;
pub mod config;
pub mod crawl;
pub mod demo;
pub mod rules;
pub mod store;
pub mod text;
pub mod tui;
