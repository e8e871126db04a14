//! Deterministic synthetic rule sets and URLs, for the rules benchmark
//! (`benches/rules.rs`) and for differential tests of the fast evaluator
//! against the rule-by-rule reference.
//!
//! [`rule_set`] builds a rule list shaped like a large real one: about half
//! host rules (domains, exact hosts, host wildcards), about a third literal
//! prefix/suffix/substring rules, the rest real regexes, with nested blocks
//! (some `first_match`), `all`/`any`/`not` conditions, actions, filters,
//! priorities and a few late `stop` rules. Every pattern carries its rule's
//! number, so a set of `n` rules really holds about `n` distinct patterns.
//! [`urls`] then builds URLs of 60 to 100 bytes, part of them aimed at the
//! rules (hosts, path pieces and query parameters read back from the rule
//! set, regex samples drawn from the parsed regex) so that some rules match.
//!
//! Everything comes from a seeded xorshift generator ([`Rng`]): the same
//! arguments give the same output on every machine, with no `rand` crate.

use regex_syntax::hir::{Class, Hir, HirKind};

use super::model::{
    Action, Case, Condition, Disposition, Field, Filter, Flags, Matcher, Priority, Range, Rule,
    RuleSet, Test,
};

/// A small deterministic pseudo-random generator (xorshift64*), seeded
/// through splitmix64 so that nearby seeds give unrelated streams.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        // xorshift never leaves the all-zero state, so avoid it.
        Rng(if z == 0 { 0x2545_F491_4F6C_DD1D } else { z })
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n` > 0); the slight modulo bias does not matter here.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn test(field: Field, matcher: Matcher) -> Condition {
    Condition::Test(Test {
        field,
        matcher,
        case: Case::Insensitive,
    })
}

fn sensitive(field: Field, matcher: Matcher) -> Condition {
    Condition::Test(Test {
        field,
        matcher,
        case: Case::Sensitive,
    })
}

/// A rule list of exactly `n` rules (nested ones included), deterministic
/// in `seed`. Its disposition is `disallow-log`, as for a crawl scoped to
/// the listed hosts.
pub fn rule_set(n: usize, seed: u64) -> RuleSet {
    let mut rng = Rng::new(seed);
    let mut rules = Vec::new();
    let mut total = 0;
    // A few `stop` rules late in the list, placed by rule count (nested included).
    let mut stops: Vec<usize> = if n >= 10 {
        vec![n - 2, n - 2 - n / 20, n - 2 - n / 10]
    } else {
        Vec::new()
    };
    stops.dedup();
    let mut i = 0;
    while total < n {
        let mut rule = if i == 0 {
            scheme_filter()
        } else if stops.last().is_some_and(|&at| total >= at) {
            stops.pop();
            stop_rule(i, &mut rng)
        } else if i % 20 == 10 && n - total >= 3 {
            nested_block(i, n - total, &mut rng)
        } else {
            match rng.below(100) {
                0..50 => host_rule(i, &mut rng),
                50..83 => literal_rule(i, &mut rng),
                _ => regex_rule(i, &mut rng),
            }
        };
        if i % 250 == 125 {
            // Rare negated rules: they are visited for every URL.
            rule.negate = true;
            rule.rules.clear();
            rule.first_match = false;
            rule.action = None;
            rule.filter = None;
            rule.stop = false;
            rule.set = Flags::default();
            rule.priority = Some(Priority::Low);
        }
        rule.origin.line = i + 1;
        total += 1 + rule.rules.len();
        rules.push(rule);
        i += 1;
    }
    RuleSet {
        disposition: Disposition::DisallowLog,
        rules,
    }
}

/// A must-have filter on the scheme, as most real lists start with.
fn scheme_filter() -> Rule {
    let mut rule = Rule::new("http-only", 1);
    rule.condition = Some(Condition::Any(vec![
        test(Field::Scheme, Matcher::Exact("http".into())),
        test(Field::Scheme, Matcher::Exact("https".into())),
    ]));
    rule.filter = Some(Filter::MustHave);
    rule.log = Some(true);
    rule
}

fn stop_rule(i: usize, rng: &mut Rng) -> Rule {
    let mut rule = Rule::new(format!("stop-{i}"), 0);
    rule.condition = Some(if rng.chance(50) {
        test(Field::Host, Matcher::Exact(format!("halt{i}.example.net")))
    } else {
        Condition::All(vec![
            test(
                Field::Host,
                Matcher::Domain(format!("dept{i}.corp-example.com")),
            ),
            test(Field::Path, Matcher::Contains(format!("/logout{i}"))),
        ])
    });
    rule.action = Some(Action::Exclude);
    rule.stop = true;
    rule
}

/// The host test of rule `i`: a domain, an exact host or a host wildcard.
fn host_test(i: usize, rng: &mut Rng) -> Condition {
    match rng.below(3) {
        0 => test(
            Field::Host,
            Matcher::Domain(format!("dept{i}.corp-example.com")),
        ),
        1 => test(Field::Host, Matcher::Exact(format!("www{i}.example.net"))),
        _ => test(
            Field::Host,
            Matcher::Wildcard(format!("*.shop{i}.example.org")),
        ),
    }
}

fn host_rule(i: usize, rng: &mut Rng) -> Rule {
    let mut rule = Rule::new(format!("host-{i}"), 0);
    let host = host_test(i, rng);
    rule.condition = Some(match rng.below(100) {
        0..15 => Condition::All(vec![
            host,
            Condition::Not(Box::new(test(
                Field::Extension,
                Matcher::Exact("zip".into()),
            ))),
        ]),
        15..25 => Condition::All(vec![
            host,
            test(Field::Path, Matcher::Prefix(format!("/portal{i}/"))),
        ]),
        25..30 => Condition::Any(vec![
            host,
            test(Field::Host, Matcher::Exact(format!("alt{i}.example.net"))),
        ]),
        30..33 => Condition::All(vec![
            host,
            test(
                Field::PathDepth,
                Matcher::Range(Range {
                    lo: None,
                    hi: Some(5),
                }),
            ),
        ]),
        _ => host,
    });
    match rng.below(10) {
        0..6 => rule.action = Some(Action::Download),
        6 => rule.action = Some(Action::DownloadNoScan),
        7 => rule.action = Some(Action::ExcludeScan),
        8 => {
            rule.action = Some(Action::Exclude);
            rule.log = Some(rng.chance(50));
        }
        _ => {
            rule.set = Flags {
                fetch: Some(true),
                save: Some(false),
                follow: None,
            }
        }
    }
    if rng.chance(20) {
        rule.priority = Some(*rng.pick(&Priority::ALL));
    }
    rule
}

fn literal_rule(i: usize, rng: &mut Rng) -> Rule {
    let mut rule = Rule::new(format!("literal-{i}"), 0);
    match rng.below(4) {
        0 => {
            let year = 1995 + i % 30;
            rule.condition = Some(test(
                Field::Path,
                Matcher::Prefix(format!("/archive{i}/{year}/")),
            ));
            if rng.chance(50) {
                rule.action = Some(Action::Exclude);
            } else {
                rule.priority = Some(Priority::Low);
            }
        }
        1 => {
            let ext = if rng.chance(50) { "pdf" } else { "zip" };
            rule.condition = Some(test(Field::Path, Matcher::Suffix(format!("_{i}.{ext}"))));
            rule.action = Some(if ext == "pdf" {
                Action::DownloadNoScan
            } else {
                Action::Exclude
            });
        }
        2 => {
            let needle = Matcher::Contains(format!("sessionid{i}="));
            rule.condition = Some(if rng.chance(10) {
                sensitive(Field::Url, needle)
            } else {
                test(Field::Url, needle)
            });
            rule.filter = Some(Filter::MayNotHave);
            rule.log = Some(rng.chance(30));
        }
        _ => {
            rule.condition = Some(test(
                Field::Url,
                Matcher::Prefix(format!("https://news{i}.example.com/section/")),
            ));
            rule.action = Some(Action::Download);
            rule.priority = Some(Priority::High);
        }
    }
    rule
}

fn regex_rule(i: usize, rng: &mut Rng) -> Rule {
    let mut rule = Rule::new(format!("regex-{i}"), 0);
    match rng.below(4) {
        0 => {
            rule.condition = Some(test(
                Field::Path,
                Matcher::Regex(format!("^/products{i}/[0-9]+/reviews")),
            ));
            rule.action = Some(Action::ExcludeScan);
        }
        1 => {
            let pattern = format!(r"/thumbs{i}/[a-z0-9_-]+\.(png|gif|jpe?g)$");
            rule.condition = Some(test(Field::Path, Matcher::Regex(pattern)));
            rule.set = Flags {
                fetch: None,
                save: Some(false),
                follow: Some(false),
            };
        }
        2 => {
            rule.condition = Some(test(
                Field::Url,
                Matcher::Regex(format!("[?&]page{i}=[0-9]{{3,}}")),
            ));
            rule.action = Some(Action::Exclude);
            rule.log = Some(false);
        }
        _ => {
            let pattern = format!("^/blog{i}/(19|20)[0-9]{{2}}/[0-9]{{2}}/");
            rule.condition = Some(if rng.chance(20) {
                Condition::All(vec![
                    test(Field::Path, Matcher::Regex(pattern)),
                    Condition::Not(Box::new(test(
                        Field::Query,
                        Matcher::Contains("preview".into()),
                    ))),
                ])
            } else {
                test(Field::Path, Matcher::Regex(pattern))
            });
            rule.priority = Some(Priority::Lowest);
        }
    }
    rule
}

/// A host rule with 2 or 3 nested rules (at most `room - 1`), half of them
/// `first_match` blocks.
fn nested_block(i: usize, room: usize, rng: &mut Rng) -> Rule {
    let mut rule = Rule::new(format!("team-{i}"), 0);
    rule.condition = Some(test(
        Field::Host,
        Matcher::Domain(format!("team{i}.corp-example.com")),
    ));
    rule.action = Some(Action::Download);
    rule.first_match = i % 40 == 10;
    let children = (2 + rng.below(2)).min(room - 1);
    for j in 0..children {
        let mut child = Rule::new(format!("team-{i}-{j}"), 0);
        match (j + rng.below(3)) % 3 {
            0 => {
                child.condition = Some(test(
                    Field::Path,
                    Matcher::Prefix(format!("/private{i}x{j}/")),
                ));
                child.action = Some(Action::Exclude);
            }
            1 => {
                child.condition = Some(test(
                    Field::Path,
                    Matcher::Regex(format!("^/docs{i}x{j}/v[0-9]+/")),
                ));
                child.priority = Some(Priority::High);
            }
            _ => {
                child.condition = Some(test(Field::Path, Matcher::Suffix(format!("_{i}x{j}.bak"))));
                child.action = Some(Action::Exclude);
                child.log = Some(false);
            }
        }
        rule.rules.push(child);
    }
    rule
}

/// Pieces of URLs that some rule of the set looks for.
#[derive(Debug, Default)]
struct Hints {
    hosts: Vec<String>,
    /// Whole URL beginnings (scheme, host and the start of the path).
    url_starts: Vec<String>,
    path_starts: Vec<String>,
    path_ends: Vec<String>,
    path_middles: Vec<String>,
    /// `name=value` query parameters.
    params: Vec<String>,
}

impl Hints {
    /// Reads every test of the set and keeps a sample that would make it hold.
    fn of(rules: &RuleSet, rng: &mut Rng) -> Hints {
        let mut hints = Hints::default();
        rules.walk(&mut |_, rule| {
            if let Some(condition) = &rule.condition {
                condition.for_each_test(&mut |t| hints.add(t, rng));
            }
        });
        hints
    }

    fn add(&mut self, t: &Test, rng: &mut Rng) {
        match (&t.field, &t.matcher) {
            (Field::Host, Matcher::Domain(d)) => {
                self.hosts.push(d.clone());
                self.hosts.push(format!("www.{d}"));
            }
            (Field::Host, Matcher::Exact(h)) => self.hosts.push(h.clone()),
            (Field::Host, Matcher::Wildcard(w)) => {
                let label = rng.pick(&HOST_LABELS);
                self.hosts.push(w.replace('*', label));
            }
            (Field::Path, Matcher::Prefix(p)) => self.path_starts.push(p.clone()),
            (Field::Path, Matcher::Suffix(s)) => self.path_ends.push(s.clone()),
            (Field::Path, Matcher::Contains(c)) => self.path_middles.push(c.clone()),
            (Field::Path, Matcher::Regex(r)) => {
                let Some(sample) = sample_regex(r, rng) else {
                    return;
                };
                if r.starts_with('^') {
                    self.path_starts.push(sample);
                } else if r.ends_with('$') {
                    self.path_ends.push(sample);
                } else {
                    self.path_middles.push(sample);
                }
            }
            (Field::Url, Matcher::Prefix(p)) => self.url_starts.push(p.clone()),
            (Field::Url, Matcher::Contains(c)) if c.ends_with('=') => {
                self.params.push(format!("{c}{}", rng.below(100_000)));
            }
            (Field::Url, Matcher::Regex(r)) => {
                if let Some(sample) = sample_regex(r, rng) {
                    self.params
                        .push(sample.trim_start_matches(['?', '&']).to_string());
                }
            }
            _ => {}
        }
    }
}

/// A string that `pattern` matches (anchors aside), or `None` when it does
/// not parse.
fn sample_regex(pattern: &str, rng: &mut Rng) -> Option<String> {
    let hir = regex_syntax::parse(pattern).ok()?;
    let mut out = String::new();
    sample_hir(&hir, rng, &mut out);
    Some(out)
}

fn sample_hir(hir: &Hir, rng: &mut Rng, out: &mut String) {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(lit) => out.push_str(&String::from_utf8_lossy(&lit.0)),
        HirKind::Class(Class::Unicode(class)) => {
            let ranges = class.ranges();
            let range = rng.pick(ranges);
            let span = u32::from(range.end()) - u32::from(range.start());
            let c = char::from_u32(
                u32::from(range.start()) + rng.below(span.min(25) as usize + 1) as u32,
            );
            out.push(
                c.filter(|c| c.is_ascii_graphic() && *c != '#')
                    .unwrap_or('x'),
            );
        }
        HirKind::Class(Class::Bytes(class)) => {
            let range = rng.pick(class.ranges());
            let b = range.start().saturating_add(
                rng.below(usize::from(range.end() - range.start()).min(25) + 1) as u8,
            );
            out.push(if b.is_ascii_graphic() && b != b'#' {
                char::from(b)
            } else {
                'x'
            });
        }
        HirKind::Repetition(rep) => {
            let extra = rep.max.map_or(2, |max| (max - rep.min).min(2));
            let count = rep.min + rng.below(extra as usize + 1) as u32;
            for _ in 0..count {
                sample_hir(&rep.sub, rng, out);
            }
        }
        HirKind::Capture(capture) => sample_hir(&capture.sub, rng, out),
        HirKind::Concat(parts) => parts.iter().for_each(|p| sample_hir(p, rng, out)),
        HirKind::Alternation(branches) => sample_hir(rng.pick(branches), rng, out),
    }
}

/// What a host wildcard's `*` stands for in generated URLs.
const HOST_LABELS: [&str; 3] = ["www", "m", "cdn"];
const WORDS: [&str; 24] = [
    "about",
    "news",
    "products",
    "team",
    "docs",
    "static",
    "img",
    "assets",
    "en",
    "de",
    "blog",
    "search",
    "category",
    "shop",
    "media",
    "press",
    "support",
    "wiki",
    "downloads",
    "people",
    "events",
    "archive",
    "view",
    "item",
];
const EXTENSIONS: [&str; 10] = [
    "html", "php", "pdf", "jpg", "png", "zip", "css", "js", "aspx", "htm",
];
const PARAMS: [&str; 8] = [
    "id",
    "sort",
    "lang",
    "utm_source",
    "ref",
    "q",
    "page",
    "preview",
];

/// `count` URLs of about 60 to 100 bytes, deterministic in `seed` and
/// `rules`. About half use a host from `rules`, and some carry path pieces
/// or query parameters that its literal and regex rules look for; the rest
/// are ordinary URLs on hosts no rule names. A few have upper-case path
/// segments, to exercise case-insensitive matching.
pub fn urls(count: usize, seed: u64, rules: &RuleSet) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let hints = Hints::of(rules, &mut Rng::new(seed ^ 0x5EED));
    (0..count).map(|_| one_url(&hints, &mut rng)).collect()
}

fn one_url(hints: &Hints, rng: &mut Rng) -> String {
    let target = 60 + rng.below(41);
    let mut url = if !hints.url_starts.is_empty() && rng.chance(8) {
        rng.pick(&hints.url_starts).clone()
    } else {
        let scheme = if rng.chance(85) { "https" } else { "http" };
        let host = if !hints.hosts.is_empty() && rng.chance(55) {
            rng.pick(&hints.hosts).clone()
        } else {
            match rng.below(3) {
                0 => format!("www.site{}.example.com", rng.below(5_000)),
                1 => format!("cdn{}.static-host.net", rng.below(500)),
                _ => format!("blog.example{}.io", rng.below(2_000)),
            }
        };
        let start = if !hints.path_starts.is_empty() && rng.chance(30) {
            rng.pick(&hints.path_starts).clone()
        } else {
            "/".to_string()
        };
        format!("{scheme}://{host}{start}")
    };
    let mut query = Vec::new();
    if !hints.params.is_empty() && rng.chance(12) {
        query.push(rng.pick(&hints.params).clone());
    }
    if rng.chance(30) {
        for _ in 0..1 + rng.below(2) {
            query.push(format!("{}={}", rng.pick(&PARAMS), rng.below(10_000)));
        }
    }
    let query_len: usize = query.iter().map(|q| q.len() + 1).sum();
    let end = if !hints.path_ends.is_empty() && rng.chance(15) {
        rng.pick(&hints.path_ends)
            .trim_start_matches('/')
            .to_string()
    } else if rng.chance(40) {
        format!(
            "{}-{}.{}",
            rng.pick(&WORDS),
            rng.below(1_000),
            rng.pick(&EXTENSIONS)
        )
    } else {
        format!("{}{}", rng.pick(&WORDS), rng.below(100))
    };
    // Segments already in the URL (from a hinted start), to keep 2 to 6 in all.
    let mut segments = url
        .splitn(4, '/')
        .nth(3)
        .map_or(0, |path| path.split('/').filter(|s| !s.is_empty()).count());
    let upper = rng.chance(5);
    let mut middle =
        (!hints.path_middles.is_empty() && rng.chance(3)).then(|| rng.pick(&hints.path_middles));
    while segments < 5 && (segments < 1 || url.len() + end.len() + query_len < target) {
        if !url.ends_with('/') {
            url.push('/');
        }
        if let Some(piece) = middle.take() {
            url.push_str(piece.trim_matches('/'));
        } else {
            let word = rng.pick(&WORDS);
            if upper && segments == 0 {
                url.push_str(&word.to_ascii_uppercase());
            } else {
                url.push_str(word);
            }
            if rng.chance(30) {
                url.push_str(&rng.below(10_000).to_string());
            }
        }
        segments += 1;
    }
    if !url.ends_with('/') {
        url.push('/');
    }
    url.push_str(&end);
    if !query.is_empty() {
        url.push('?');
        url.push_str(&query.join("&"));
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{CompiledRules, Known, TraceMode, UrlFacts, normalize};

    fn count_rules(set: &RuleSet) -> usize {
        let mut n = 0;
        set.walk(&mut |_, _| n += 1);
        n
    }

    #[test]
    fn sizes_are_exact_and_output_deterministic() {
        for n in [1, 2, 3, 10, 57, 1_000] {
            let set = rule_set(n, 7);
            assert_eq!(count_rules(&set), n, "rules in a set of {n}");
            assert_eq!(set, rule_set(n, 7));
        }
        let set = rule_set(100, 1);
        assert_eq!(urls(50, 3, &set), urls(50, 3, &set));
        assert_ne!(urls(50, 3, &set), urls(50, 4, &set));
    }

    /// Every rule brings its own pattern, so the set holds about n atoms.
    #[test]
    fn patterns_are_distinct_per_rule() {
        let set = rule_set(1_000, 11);
        let mut tests = std::collections::HashSet::new();
        let mut total = 0;
        set.walk(&mut |_, rule| {
            if let Some(c) = &rule.condition {
                c.for_each_test(&mut |t| {
                    total += 1;
                    tests.insert(t.clone());
                });
            }
        });
        assert!(
            tests.len() >= 1_000,
            "{} distinct tests of {total}",
            tests.len()
        );
        let c = CompiledRules::new(&set);
        assert_eq!(c.disabled().count(), 0, "every synthetic regex compiles");
    }

    #[test]
    fn urls_look_real_and_some_rules_match() {
        let set = rule_set(1_000, 5);
        let list = urls(2_000, 9, &set);
        let mean = list.iter().map(String::len).sum::<usize>() / list.len();
        assert!((60..=100).contains(&mean), "mean length {mean}");
        let c = CompiledRules::new(&set);
        let mut scratch = c.scratch();
        let known = Known::default();
        let mut fetched = 0;
        for text in &list {
            let url = normalize(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let depth = url.path_segments().map_or(0, |s| s.count());
            assert!((2..=7).contains(&depth), "{text}: {depth} segments");
            let v = c.evaluate(&UrlFacts::new(&url, &known), &mut scratch, TraceMode::Off);
            fetched += usize::from(v.fetch);
        }
        // Disallow-log: only URLs some rule lets in are fetched.
        assert!((200..1_800).contains(&fetched), "{fetched} of 2000 fetched");
    }

    /// Many negated rules (always visited, decided when compiling while
    /// none of their atoms matches) with every kind of effect, so that the
    /// fast walk folds long runs of them, stops and filters inside runs
    /// included: it must still agree with the rule-by-rule loop.
    #[test]
    fn fast_agrees_with_naive_on_negated_runs() {
        let known = Known::default();
        for seed in 0..6 {
            let mut set = rule_set(400, seed);
            let mut rng = Rng::new(seed ^ 0xABCD);
            for (i, rule) in set.rules.iter_mut().enumerate().skip(1) {
                if !rng.chance(60) || !rule.rules.is_empty() {
                    continue;
                }
                rule.negate = true;
                rule.stop = rng.chance(3);
                rule.filter = match rng.below(12) {
                    0 => Some(Filter::MustHave),
                    1 => Some(Filter::MayNotHave),
                    _ => None,
                };
                rule.log = rng.chance(50).then(|| rng.chance(50));
                rule.action = match rng.below(4) {
                    0 => Some(Action::Exclude),
                    1 => Some(Action::Download),
                    _ => None,
                };
                rule.priority = rng.chance(30).then(|| *rng.pick(&Priority::ALL));
                if i % 17 == 0 {
                    rule.source = Some(format!("s{i}"));
                }
            }
            let c = CompiledRules::new(&set);
            let (mut fast, mut naive) = (c.scratch(), c.scratch());
            for text in urls(3_000, seed + 100, &set) {
                let url = normalize(&text).unwrap();
                let facts = UrlFacts::new(&url, &known);
                for mode in [TraceMode::Off, TraceMode::Decisive] {
                    let a = c.evaluate(&facts, &mut fast, mode);
                    let b = c.evaluate_naive(&facts, &mut naive, mode);
                    assert_eq!(a, b, "seed {seed}, {mode:?}, {text}");
                }
            }
        }
    }

    /// The differential check: the indexed evaluator and the rule-by-rule
    /// loop reach the same verdict on every URL.
    #[test]
    fn fast_agrees_with_naive() {
        let known = Known::default();
        for n in [10, 1_000] {
            let set = rule_set(n, 42);
            let c = CompiledRules::new(&set);
            let (mut fast, mut naive) = (c.scratch(), c.scratch());
            for text in urls(2_000, 7, &set) {
                let url = normalize(&text).unwrap();
                let facts = UrlFacts::new(&url, &known);
                // Full traces too: the fast walk decides quiet always-visited
                // rules without evaluating them, and must say the same.
                for mode in [TraceMode::Off, TraceMode::Full] {
                    let a = c.evaluate(&facts, &mut fast, mode);
                    let b = c.evaluate_naive(&facts, &mut naive, mode);
                    let key = |v: &crate::rules::Verdict| {
                        (v.fetch, v.save, v.follow, v.filtered, v.priority, v.log)
                    };
                    assert_eq!(key(&a), key(&b), "n = {n}, {text}");
                    assert_eq!(a, b, "n = {n}, {mode:?}, {text}");
                }
            }
        }
    }
}
