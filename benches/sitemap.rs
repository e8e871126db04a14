//! The sitemap benchmark: [`parse_sitemap`] on sitemaps at the sitemaps.org
//! caps, all produced by [`SyntheticSitemap`] (heavy entries: `lastmod` and
//! three hreflang alternates each, padded with a comment):
//!
//! - `urlset_50mib_lazy`: 45,000 entries of 1,150 bytes (49.4 MiB) read from
//!   the lazy generator itself, never held in memory, as a fetch streams it;
//! - `urlset_50mib_memory`: the same file from memory (the difference is
//!   the generator's own cost);
//! - `urlset_50mib_gzip`: the same file gzipped in memory first, so the
//!   time includes inflating it;
//! - `urlset_50k_urls`: 50,000 unpadded entries (21 MiB), from memory;
//! - `text_50k_urls`: a plain-text sitemap of 50,000 URLs, from memory.
//!
//! Every case is checked once before measuring: all entries found, no cap
//! hit, no error. Throughput is in uncompressed bytes.
//!
//! `cargo bench --bench sitemap` runs criterion. With
//! `CRAWLSPACE_BENCH_SUMMARY=1` it skips criterion and prints a table from
//! plain timed loops. Peak memory is measured by `examples/sitemap_mem.rs`.

use std::hint::black_box;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

use crawlspace::crawl::sitemap::synth::SyntheticSitemap;
use crawlspace::crawl::sitemap::{SitemapReport, parse_sitemap};
use criterion::{Criterion, Throughput};
use flate2::Compression;
use flate2::write::GzEncoder;

const BIG_ENTRIES: usize = 45_000;
const BIG_ENTRY_LEN: usize = 1_150;
const URLS: usize = 50_000;

/// One benchmark input: how to make a fresh reader over it.
enum Input {
    Lazy { entries: usize, entry_len: usize },
    Memory(Vec<u8>),
}

struct Case {
    name: &'static str,
    input: Input,
    /// Uncompressed bytes.
    bytes: u64,
    entries: usize,
}

impl Case {
    fn parse(&self) -> SitemapReport {
        let mut count = 0usize;
        let report = match &self.input {
            Input::Lazy { entries, entry_len } => {
                parse_sitemap(SyntheticSitemap::new(*entries, *entry_len), |e| {
                    count += 1;
                    black_box(e);
                })
            }
            Input::Memory(bytes) => parse_sitemap(bytes.as_slice(), |e| {
                count += 1;
                black_box(e);
            }),
        };
        assert_eq!(count, report.entries());
        report
    }

    fn check(&self) {
        let report = self.parse();
        assert_eq!(report.entries(), self.entries, "{}: {report}", self.name);
        assert_eq!(report.bytes, self.bytes, "{}: {report}", self.name);
        assert_eq!((report.cap, &report.error), (None, &None), "{}", self.name);
    }
}

fn all_bytes(mut reader: impl Read) -> Vec<u8> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).expect("in-memory read");
    bytes
}

fn cases() -> Vec<Case> {
    let big = SyntheticSitemap::new(BIG_ENTRIES, BIG_ENTRY_LEN);
    let big_bytes = big.total_bytes();
    let big = all_bytes(big);
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(&big).expect("in-memory write");
    let gzipped = encoder.finish().expect("in-memory gzip");
    let small = all_bytes(SyntheticSitemap::new(URLS, SyntheticSitemap::MIN_ENTRY_LEN));
    let text: String = (0..URLS)
        .map(|i| format!("https://www.example.com/catalogue/item-{i:010}.html\n"))
        .collect();
    vec![
        Case {
            name: "urlset_50mib_lazy",
            input: Input::Lazy {
                entries: BIG_ENTRIES,
                entry_len: BIG_ENTRY_LEN,
            },
            bytes: big_bytes,
            entries: BIG_ENTRIES,
        },
        Case {
            name: "urlset_50mib_memory",
            input: Input::Memory(big),
            bytes: big_bytes,
            entries: BIG_ENTRIES,
        },
        Case {
            name: "urlset_50mib_gzip",
            input: Input::Memory(gzipped),
            bytes: big_bytes,
            entries: BIG_ENTRIES,
        },
        Case {
            name: "urlset_50k_urls",
            bytes: small.len() as u64,
            input: Input::Memory(small),
            entries: URLS,
        },
        Case {
            name: "text_50k_urls",
            bytes: text.len() as u64,
            input: Input::Memory(text.into_bytes()),
            entries: URLS,
        },
    ]
}

fn summary(cases: &[Case]) {
    println!("| case | input | MiB | ms per file | MB/s | entries/s |");
    println!("|---|---|---:|---:|---:|---:|");
    for case in cases {
        let input = match &case.input {
            Input::Lazy { .. } => "lazy reader".to_string(),
            Input::Memory(bytes) => format!("{:.1} MiB in memory", mib(bytes.len() as u64)),
        };
        let mut runs = 0u32;
        let start = Instant::now();
        while runs < 3 || start.elapsed() < Duration::from_secs(5) {
            black_box(case.parse());
            runs += 1;
        }
        let per_file = start.elapsed().as_secs_f64() / f64::from(runs);
        println!(
            "| {} | {input} | {:.1} | {:.0} | {:.0} | {:.0} |",
            case.name,
            mib(case.bytes),
            per_file * 1e3,
            case.bytes as f64 / per_file / 1e6,
            case.entries as f64 / per_file,
        );
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1u32 << 20)
}

fn main() {
    let cases = cases();
    for case in &cases {
        case.check();
    }
    if std::env::var_os("CRAWLSPACE_BENCH_SUMMARY").is_some_and(|v| v == "1") {
        summary(&cases);
        return;
    }
    let mut c = Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_secs(10))
        .warm_up_time(Duration::from_secs(1))
        .configure_from_args();
    {
        let mut group = c.benchmark_group("sitemap");
        for case in &cases {
            group.throughput(Throughput::Bytes(case.bytes));
            group.bench_function(case.name, |b| b.iter(|| black_box(case.parse())));
        }
        group.finish();
    }
    c.final_summary();
}
