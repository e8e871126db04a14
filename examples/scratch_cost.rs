//! What a verdict costs with a fresh scratch against one lent by the
//! rules (`CompiledRules::lend_scratch`), as the crawler's fetch tasks
//! evaluate each URL: 2,000 synthetic URLs at 10, 1,000 and 10,000
//! synthetic rules, URL facts included, one thread.
//!
//! ```sh
//! cargo run --release --example scratch_cost
//! ```

use crawlspace::rules::{CompiledRules, Known, TraceMode, UrlFacts, Verdict, synth};
use std::time::Instant;
use url::Url;
/// Times both ways over the same URLs; the count of fetched verdicts is
/// printed so that the work cannot be optimized away.
fn main() {
    for n in [10usize, 1000, 10000] {
        let set = synth::rule_set(n, 7);
        let rules = CompiledRules::new(&set);
        let urls: Vec<Url> = synth::urls(2000, 9, &set)
            .iter()
            .filter_map(|u| Url::parse(u).ok())
            .collect();
        let mut fetched = 0u64;
        let fresh = per_verdict(&urls, &mut fetched, |facts| {
            rules.evaluate(facts, &mut rules.scratch(), TraceMode::Decisive)
        });
        let lent = per_verdict(&urls, &mut fetched, |facts| {
            rules.evaluate(facts, &mut rules.lend_scratch(), TraceMode::Decisive)
        });
        println!(
            "{n} rules: fresh scratch {fresh:.1} µs per verdict, lent {lent:.1} µs ({fetched})"
        );
    }
}

/// Microseconds per verdict of `verdict` over `urls`; counts the fetched
/// ones into `fetched`.
fn per_verdict(urls: &[Url], fetched: &mut u64, verdict: impl Fn(&UrlFacts) -> Verdict) -> f64 {
    let known = Known::default();
    let started = Instant::now();
    for url in urls {
        *fetched += u64::from(verdict(&UrlFacts::new(url, &known)).fetch);
    }
    started.elapsed().as_secs_f64() * 1e6 / urls.len() as f64
}
