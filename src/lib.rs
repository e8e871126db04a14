//! crawlspace: a terminal crawl console.
//!
//! Architecture map:
//! - [`rules`]: the rule model of SPEC §1, its five dialect importers, the
//!   compiled evaluator and the verdict trace. No I/O beyond reading a file.
//! - [`config`]: crawl settings (`[crawl]`, `[queues]`) over the embedded
//!   `config/default.toml`.
//! - [`crawl`]: the async crawler: frontier, politeness, fetching, links.
//! - [`cli`]: the command line of SPEC §5 (clap) and the rule commands
//!   `explain`, `check`, `import`, `rules`.

pub mod cli;
pub mod config;
pub mod crawl;
pub mod rules;
