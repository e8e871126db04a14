//! Helpers shared by the crawl test binaries (`mod util;` in each).

use std::path::Path;
use std::sync::Arc;

use crawlspace::config::Config;
use crawlspace::crawl::engine::{Engine, Plan, check_start};
use crawlspace::rules::CompiledRules;
use crawlspace::rules::dialect::{Dialect, DialectChoice, parse_text};
use crawlspace::store::UrlLog;

/// The real engine for the native config `text` (settings and rules), with
/// its URL log in `dir/db` (16 MiB cache) and its mirror in `dir/mirror`.
/// The start URLs must be allowed.
pub fn engine_for(text: &str, dir: &Path) -> (Engine, Arc<UrlLog>) {
    let config = Config::from_toml("test.toml", text).expect("config");
    let loaded =
        parse_text("test.toml", text, DialectChoice::Given(Dialect::Native)).expect("rules");
    let compiled = CompiledRules::new(&loaded.parsed.rules);
    let start = check_start(&compiled, &config.crawl.start).expect("start URLs allowed");
    let log = Arc::new(UrlLog::open(&dir.join("db"), 16 << 20).expect("log"));
    let plan = Plan {
        weights: config.queues.in_order(),
        settings: config.crawl,
        start,
        out: dir.join("mirror"),
    };
    let engine = Engine::new(plan, log.clone(), Arc::new(compiled)).expect("engine");
    (engine, log)
}
