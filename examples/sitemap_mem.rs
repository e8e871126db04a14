//! Peak memory of the sitemap parser: parses sitemaps of 50 MiB and more
//! that never exist in memory (they are generated while being read, or
//! gzipped to a small buffer first) and reports the growth of the process's
//! peak resident set (`VmHWM` in `/proc/self/status`, Linux) over each parse.
//! Before each case the peak is reset (`5` into `/proc/self/clear_refs`) when
//! the kernel allows it; otherwise growth over the peak so far is shown.
//!
//! ```sh
//! cargo run --release --example sitemap_mem
//! ```
//!
//! Holding a 50 MiB file would take 50 MiB; the parser should take a few
//! hundred KiB whatever the size, since entries are handed over one by one
//! and no XML item may exceed 1 MiB.

use std::io::{self, Read, Write};
use std::time::Instant;

use crawlspace::crawl::sitemap::synth::SyntheticSitemap;
use crawlspace::crawl::sitemap::{SitemapReport, parse_sitemap};
use flate2::Compression;
use flate2::write::GzEncoder;

/// A urlset with one entry, then a comment that never ends: one endless
/// XML item.
struct EndlessComment {
    /// Bytes of the head handed out so far.
    at: usize,
}

impl Read for EndlessComment {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        const HEAD: &[u8] = b"<urlset><url><loc>http://ex.com/1</loc></url><!--";
        if let Some(rest) = HEAD.get(self.at..).filter(|rest| !rest.is_empty()) {
            let n = rest.len().min(buf.len());
            buf[..n].copy_from_slice(&rest[..n]);
            self.at += n;
            return Ok(n);
        }
        buf.fill(b'c');
        Ok(buf.len())
    }
}

/// A status line of this process in KiB, such as `VmHWM`.
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Resets the peak resident set to the current one, if the kernel allows.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn measure(name: &str, bytes_in: &str, parse: impl FnOnce() -> SitemapReport) {
    let reset = reset_peak();
    let before = status_kib("VmHWM:").unwrap_or(0);
    let start = Instant::now();
    let report = parse();
    let secs = start.elapsed().as_secs_f64();
    let after = status_kib("VmHWM:").unwrap_or(0);
    println!(
        "| {name} | {bytes_in} | {:.1} | {} | {} | {} | {:.2} | {report} |",
        report.bytes as f64 / f64::from(1u32 << 20),
        before,
        after,
        after.saturating_sub(before),
        secs,
    );
    if !reset {
        println!("(peak not reset: growth is over the peak so far)");
    }
}

const CASES: [&str; 4] = ["lazy", "gzip", "over", "endless"];

/// Runs one case (in a process of its own, so that memory freed by one
/// case cannot hide the next one's growth).
fn run_case(case: &str) {
    match case {
        "lazy" => measure("urlset 49.4 MiB", "lazy reader", || {
            parse_sitemap(SyntheticSitemap::new(45_000, 1_150), |e| {
                std::hint::black_box(e);
            })
        }),
        "gzip" => {
            // Gzipped first, streaming, so that only the compressed bytes
            // are ever held.
            let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
            io::copy(&mut SyntheticSitemap::new(45_000, 1_150), &mut encoder).expect("gzip");
            let gzipped = encoder.finish().expect("gzip");
            measure(
                "urlset 49.4 MiB, gzip",
                &format!("{:.1} MiB in memory", gzipped.len() as f64 / 1048576.0),
                || {
                    parse_sitemap(gzipped.as_slice(), |e| {
                        std::hint::black_box(e);
                    })
                },
            );
        }
        "over" => measure("urlset 60 MiB (over the cap)", "lazy reader", || {
            parse_sitemap(SyntheticSitemap::new(45_000, 1_400), |e| {
                std::hint::black_box(e);
            })
        }),
        _ => measure("one endless comment", "lazy reader", || {
            parse_sitemap(EndlessComment { at: 0 }, |e| {
                std::hint::black_box(e);
            })
        }),
    }
}

fn main() {
    if status_kib("VmHWM:").is_none() {
        eprintln!("no /proc/self/status VmHWM here (Linux only)");
        std::process::exit(1);
    }
    let args: Vec<String> = std::env::args().collect();
    if let (Some("--case"), Some(case)) = (args.get(1).map(String::as_str), args.get(2)) {
        run_case(case);
        return;
    }
    println!(
        "| case | input | MiB parsed | VmHWM before (KiB) | after (KiB) | growth (KiB) | s | report |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---|");
    io::stdout().flush().ok();
    let me = std::env::current_exe().expect("own path");
    for case in CASES {
        let status = std::process::Command::new(&me)
            .args(["--case", case])
            .status()
            .expect("run a case");
        if !status.success() {
            eprintln!("case {case} failed: {status}");
            std::process::exit(1);
        }
    }
}
