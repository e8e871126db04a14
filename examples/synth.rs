//! Writes a synthetic rule set (native TOML) and a URL list for measuring
//! `crawlspace check` through a pipe:
//!
//! ```sh
//! cargo run --release --example synth -- 1000 1000000 /tmp/bench
//! time target/release/crawlspace check --rules /tmp/bench/rules.toml < /tmp/bench/urls.txt > /dev/null
//! ```

use std::io::Write;

use crawlspace::rules::dialect::write::to_toml;
use crawlspace::rules::synth;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: synth RULES URLS DIR";
    let (Some(rules), Some(urls), Some(dir)) = (args.get(1), args.get(2), args.get(3)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let (Ok(rules), Ok(urls)) = (rules.parse::<usize>(), urls.parse::<usize>()) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    std::fs::create_dir_all(dir)?;
    let set = synth::rule_set(rules, 42);
    std::fs::write(
        format!("{dir}/rules.toml"),
        to_toml(&set, "synthetic rules from examples/synth.rs"),
    )?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(format!("{dir}/urls.txt"))?);
    for url in synth::urls(urls, 7, &set) {
        writeln!(out, "{url}")?;
    }
    out.flush()
}
