//! The rules benchmark: verdicts per second for 10, 1,000 and 10,000
//! synthetic rules ([`crawlspace::rules::synth`]), three ways:
//!
//! - `fast`: [`CompiledRules::evaluate`] on pre-parsed URLs (building the
//!   [`UrlFacts`] counts, parsing does not);
//! - `fast_parse`: the same with [`normalize`] (URL parsing) per URL;
//! - `naive`: [`CompiledRules::evaluate_naive`], the rule-by-rule loop, on a
//!   smaller sample.
//!
//! Before measuring, every benchmark URL is checked: the fast and the naive
//! evaluator must agree on the verdict.
//!
//! `cargo bench --bench rules` runs criterion. With
//! `CRAWLSPACE_BENCH_SUMMARY=1` it skips criterion and prints the table the
//! README quotes, from plain timed loops on one thread: the fast path's
//! rounds for the three sizes are interleaved, timed by the clock and by the
//! thread's own CPU time, and each size's slowdown against 10 rules is taken
//! round by round, so that a change in the machine's load between sizes
//! does not show up as a slowdown.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crawlspace::rules::{
    CompiledRules, Known, Scratch, TraceMode, UrlFacts, Verdict, normalize, synth,
};
use criterion::{BenchmarkId, Criterion, Throughput};
use url::Url;

const SIZES: [usize; 3] = [10, 1_000, 10_000];
const RULES_SEED: u64 = 42;
const URLS_SEED: u64 = 7;
/// URLs per criterion iteration, fast paths.
const BATCH: usize = 2_000;
/// URLs timed on a fresh scratch in the summary.
const COLD_URLS: usize = 2_000;
/// URLs per timed loop in the summary, fast paths.
const SUMMARY_URLS: usize = 200_000;

/// URLs for the naive loop: it costs time in proportion to the rules.
fn naive_sample(rules: usize) -> usize {
    match rules {
        0..=100 => 20_000,
        101..=1_000 => 2_000,
        _ => 200,
    }
}

/// URLs on which the summary checks that fast and naive agree: all of
/// them where the naive loop is quick enough, else a tenth (the check on
/// all 200,000 at 10,000 rules takes over three minutes).
fn summary_check(rules: usize) -> usize {
    if rules <= 1_000 {
        SUMMARY_URLS
    } else {
        SUMMARY_URLS / 10
    }
}

/// One rule-set size, ready to evaluate.
struct Case {
    rules: usize,
    compiled: CompiledRules,
    /// How long `CompiledRules::new` took.
    compile_time: Duration,
    texts: Vec<String>,
    parsed: Vec<Url>,
}

impl Case {
    fn new(rules: usize, urls: usize) -> Case {
        let set = synth::rule_set(rules, RULES_SEED);
        let start = Instant::now();
        let compiled = CompiledRules::new(&set);
        let compile_time = start.elapsed();
        assert_eq!(
            compiled.disabled().count(),
            0,
            "every synthetic rule compiles"
        );
        let texts = synth::urls(urls, URLS_SEED, &set);
        let parsed = texts
            .iter()
            .map(|t| normalize(t).expect("synthetic URLs parse"))
            .collect();
        Case {
            rules,
            compiled,
            compile_time,
            texts,
            parsed,
        }
    }

    /// Fast verdicts on the first `count` pre-parsed URLs. The scratch is
    /// reused across calls, as a crawler thread would: a fresh one starts
    /// with cold lazy-DFA caches.
    fn fast(&self, count: usize, scratch: &mut Scratch) -> usize {
        let known = Known::default();
        let mut fetched = 0;
        for url in &self.parsed[..count] {
            let facts = UrlFacts::new(url, &known);
            fetched += usize::from(
                self.compiled
                    .evaluate(&facts, scratch, TraceMode::Off)
                    .fetch,
            );
        }
        fetched
    }

    /// Fast verdicts on the first `count` URLs, parsing each.
    fn fast_parse(&self, count: usize, scratch: &mut Scratch) -> usize {
        let known = Known::default();
        let mut fetched = 0;
        for text in &self.texts[..count] {
            let url = normalize(text).expect("synthetic URLs parse");
            let facts = UrlFacts::new(&url, &known);
            fetched += usize::from(
                self.compiled
                    .evaluate(&facts, scratch, TraceMode::Off)
                    .fetch,
            );
        }
        fetched
    }

    /// Naive verdicts on the first `count` pre-parsed URLs.
    fn naive(&self, count: usize, scratch: &mut Scratch) -> usize {
        let known = Known::default();
        let mut fetched = 0;
        for url in &self.parsed[..count] {
            let facts = UrlFacts::new(url, &known);
            fetched += usize::from(
                self.compiled
                    .evaluate_naive(&facts, scratch, TraceMode::Off)
                    .fetch,
            );
        }
        fetched
    }

    /// Panics unless both evaluators give the same verdict on the first
    /// `count` URLs; returns how many URLs were fetched, matched by a rule
    /// that set `fetch`, and filtered, to show the mix is not trivial.
    fn check(&self, count: usize) -> (usize, usize, usize) {
        let known = Known::default();
        let (mut fast, mut naive) = (self.compiled.scratch(), self.compiled.scratch());
        let key = |v: &Verdict| (v.fetch, v.save, v.follow, v.filtered, v.priority, v.log);
        let (mut fetched, mut decided, mut filtered) = (0, 0, 0);
        for (text, url) in self.texts.iter().zip(&self.parsed).take(count) {
            let facts = UrlFacts::new(url, &known);
            let a = self.compiled.evaluate(&facts, &mut fast, TraceMode::Off);
            let b = self
                .compiled
                .evaluate_naive(&facts, &mut naive, TraceMode::Off);
            assert_eq!(
                key(&a),
                key(&b),
                "{} rules, {text}: fast and naive disagree",
                self.rules
            );
            assert_eq!(
                a, b,
                "{} rules, {text}: fast and naive verdicts differ",
                self.rules
            );
            fetched += usize::from(a.fetch);
            decided += usize::from(a.fetch_set_by.is_some());
            filtered += usize::from(a.filtered);
        }
        (fetched, decided, filtered)
    }
}

fn main() {
    if let Some(spec) = std::env::var_os("CRAWLSPACE_BENCH_PROFILE") {
        profile(&spec.to_string_lossy());
        return;
    }
    if std::env::var_os("CRAWLSPACE_BENCH_SUMMARY").is_some_and(|v| v == "1") {
        summary();
        return;
    }
    let mut c = Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1))
        .configure_from_args();
    for rules in SIZES {
        let case = Case::new(rules, BATCH);
        let (fetched, decided, filtered) = case.check(BATCH);
        eprintln!(
            "{rules} rules: fast == naive on all {BATCH} URLs ({fetched} fetched, {decided} decided by a rule, {filtered} filtered)"
        );
        let mut group = c.benchmark_group(format!("rules/{rules}"));
        group.throughput(Throughput::Elements(BATCH as u64));
        let mut scratch = case.compiled.scratch();
        group.bench_function(BenchmarkId::new("fast", rules), |b| {
            b.iter(|| black_box(case.fast(BATCH, &mut scratch)))
        });
        group.bench_function(BenchmarkId::new("fast_parse", rules), |b| {
            b.iter(|| black_box(case.fast_parse(BATCH, &mut scratch)))
        });
        let sample = naive_sample(rules).min(BATCH);
        group.throughput(Throughput::Elements(sample as u64));
        group.bench_function(BenchmarkId::new("naive", rules), |b| {
            b.iter(|| black_box(case.naive(sample, &mut scratch)))
        });
        group.finish();
    }
    c.final_summary();
}

/// `CRAWLSPACE_BENCH_PROFILE=RULES:ROUNDS[:URLS]`: one warm-up pass over
/// `URLS` URLs ([`PROFILE_URLS`] by default), then `ROUNDS` more, for cachegrind or `perf`.
/// Run it with `ROUNDS` = N and 4N and difference the totals so that
/// building the rules cancels out; prints CPU-seconds and verdicts per
/// CPU-second of the timed rounds too.
fn profile(spec: &str) {
    let numbers: Vec<usize> = spec.split(':').filter_map(|n| n.parse().ok()).collect();
    let [rules, rounds, ..] = numbers[..] else {
        panic!("CRAWLSPACE_BENCH_PROFILE=RULES:ROUNDS[:URLS]");
    };
    let urls = numbers.get(2).copied().unwrap_or(PROFILE_URLS);
    let case = Case::new(rules, urls);
    eprintln!("{rules} rules: compiled in {:.2?}", case.compile_time);
    let mut scratch = case.compiled.scratch();
    black_box(case.fast(urls, &mut scratch));
    let before = thread_cpu_seconds();
    let mut fetched = 0;
    for _ in 0..rounds {
        fetched += black_box(case.fast(urls, &mut scratch));
    }
    let spent = thread_cpu_seconds() - before;
    let verdicts = urls * rounds;
    println!(
        "{rules} rules: {verdicts} verdicts ({fetched} fetched) in {spent:.3} CPU-s: {} verdicts/CPU-s",
        group(verdicts as f64 / spent.max(1e-9))
    );
}

/// URLs per round of [`profile`].
const PROFILE_URLS: usize = 20_000;

/// Runs `work` on `count` URLs until at least `min` has passed (three
/// rounds at least, the first a warm-up) and returns the best rate, in
/// verdicts per second.
fn rate(count: usize, min: Duration, mut work: impl FnMut(usize) -> usize) -> f64 {
    black_box(work(count));
    let (mut best, mut spent, mut rounds) = (f64::MAX, Duration::ZERO, 0);
    while rounds < 2 || spent < min {
        let start = Instant::now();
        black_box(work(count));
        let took = start.elapsed();
        best = best.min(took.as_secs_f64());
        spent += took;
        rounds += 1;
    }
    count as f64 / best
}

/// Rounds of the fast path per size in the summary, interleaved.
const SUMMARY_ROUNDS: usize = 15;

/// The CPU time of the calling thread, in seconds (the first field of
/// `/proc/thread-self/schedstat`, in nanoseconds): unlike the wall clock it
/// does not count time the thread spent waiting for a core that another
/// process had, and unlike `/proc/self/stat` it is not counted in 10 ms ticks.
fn thread_cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat")
        .expect("/proc/thread-self/schedstat (Linux) gives the thread's CPU time");
    let nanos: u64 = stat
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .expect("schedstat starts with the CPU time in nanoseconds");
    nanos as f64 * 1e-9
}

/// One timed pass of the fast path: seconds on the clock and on the thread's CPU.
#[derive(Clone, Copy)]
struct Round {
    wall: f64,
    cpu: f64,
}

/// Times [`SUMMARY_ROUNDS`] passes of every case's fast path, interleaved
/// (the order of the sizes turns around every round), so that a change in
/// the machine's load falls on every size alike; the ratios between sizes
/// are then taken round by round.
fn interleaved_rounds(cases: &[Case], scratches: &mut [Scratch]) -> Vec<Vec<Round>> {
    let mut rounds = vec![Vec::with_capacity(SUMMARY_ROUNDS); cases.len()];
    for round in 0..SUMMARY_ROUNDS {
        let mut order: Vec<usize> = (0..cases.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        for i in order {
            let (wall, cpu) = (Instant::now(), thread_cpu_seconds());
            black_box(cases[i].fast(SUMMARY_URLS, &mut scratches[i]));
            rounds[i].push(Round {
                wall: wall.elapsed().as_secs_f64(),
                cpu: thread_cpu_seconds() - cpu,
            });
        }
    }
    rounds
}

/// The median and the range of `values`.
fn spread(mut values: Vec<f64>) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    let median = values[values.len() / 2];
    (median, values[0], values[values.len() - 1])
}

fn summary() {
    println!(
        "rules benchmark summary: one thread, TraceMode::Off, {SUMMARY_URLS} synthetic URLs per fast loop"
    );
    let mut cases = Vec::new();
    let mut others = Vec::new();
    for rules in SIZES {
        let case = Case::new(rules, SUMMARY_URLS);
        let built = case.compile_time;
        let sample = naive_sample(rules);
        let start = Instant::now();
        let checked = summary_check(rules);
        let (fetched, decided, filtered) = case.check(checked);
        eprintln!(
            "{rules} rules: compiled in {built:.2?}; fast == naive on {checked} URLs in {:.1?} \
             ({fetched} fetched, {decided} decided by a rule, {filtered} filtered)",
            start.elapsed()
        );
        // What a fresh scratch costs: its lazy-DFA caches start empty.
        let cold = {
            let mut scratch = case.compiled.scratch();
            let start = Instant::now();
            black_box(case.fast(COLD_URLS, &mut scratch));
            start.elapsed()
        };
        eprintln!(
            "{rules} rules: the first {COLD_URLS} verdicts on a fresh Scratch took {cold:.2?}"
        );
        let mut scratch = case.compiled.scratch();
        let second = Duration::from_secs(1);
        let parse = rate(SUMMARY_URLS, second, |n| case.fast_parse(n, &mut scratch));
        let naive = rate(sample, second, |n| case.naive(n, &mut scratch));
        others.push((parse, naive, sample));
        cases.push(case);
    }
    let mut scratches: Vec<Scratch> = cases.iter().map(|c| c.compiled.scratch()).collect();
    for (case, scratch) in cases.iter().zip(&mut scratches) {
        black_box(case.fast(SUMMARY_URLS, scratch)); // warm-up
    }
    let rounds = interleaved_rounds(&cases, &mut scratches);
    let per_second = |rs: &[Round], cpu: bool| {
        spread(
            rs.iter()
                .map(|r| SUMMARY_URLS as f64 / if cpu { r.cpu } else { r.wall })
                .collect(),
        )
    };
    // Round by round, how much slower than the smallest rule set.
    let slowdown = |rs: &[Round], cpu: bool| {
        spread(
            rs.iter()
                .zip(&rounds[0])
                .map(|(r, base)| {
                    if cpu {
                        r.cpu / base.cpu
                    } else {
                        r.wall / base.wall
                    }
                })
                .collect(),
        )
    };
    println!();
    println!(
        "{SUMMARY_ROUNDS} interleaved rounds per size; median (lowest-highest) of the rounds; \
         per CPU-second = the thread's own CPU time"
    );
    println!();
    println!(
        "| rules | fast, pre-parsed (verdicts/s) | per CPU-second | fast incl. parse (verdicts/s, best) | naive loop (verdicts/s) | speed-up vs naive | slowdown vs 10 rules | per CPU-second |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for ((case, rs), (parse, naive, sample)) in cases.iter().zip(&rounds).zip(others) {
        let (fast, fast_lo, fast_hi) = per_second(rs, false);
        let (cpu, cpu_lo, cpu_hi) = per_second(rs, true);
        let (slow, slow_lo, slow_hi) = slowdown(rs, false);
        let (slow_cpu, slow_cpu_lo, slow_cpu_hi) = slowdown(rs, true);
        println!(
            "| {} | {} ({}-{}) | {} ({}-{}) | {} | {} ({} URLs) | {:.0}x | {:.2}x ({:.2}-{:.2}) | {:.2}x ({:.2}-{:.2}) |",
            group(case.rules as f64),
            group(fast),
            group(fast_lo),
            group(fast_hi),
            group(cpu),
            group(cpu_lo),
            group(cpu_hi),
            group(parse),
            group(naive),
            group(sample as f64),
            fast / naive,
            slow,
            slow_lo,
            slow_hi,
            slow_cpu,
            slow_cpu_lo,
            slow_cpu_hi,
        );
    }
}

/// `1234567.8` as `1,234,568`.
fn group(value: f64) -> String {
    let digits = format!("{:.0}", value);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
