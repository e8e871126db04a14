//! Trap hints (SPEC §4): URL patterns that keep growing during a crawl —
//! calendars, repeated path segments, endless query strings — each proposed
//! as a ready-made rule that the user can add with one key. Pure: fed the
//! most recently discovered URLs, it groups them by pattern and proposes a
//! rule for every group past a threshold.

use std::collections::{HashMap, HashSet};

use url::Url;

use crate::rules::model::{Condition, Field, Filter, Matcher, Rule, Test};

/// Distinct URLs a pattern needs before it is proposed.
pub const MIN_URLS: usize = 12;

/// Distinct months a dated path needs before it is proposed: a blog's
/// archive spans a few, a calendar that links to the next month forever
/// spans years.
pub const MIN_MONTHS: usize = 24;

/// And how far past this month the latest of them must be: a blog's
/// archive of many years lies in the past, a calendar's links run on into
/// years that have not come.
pub const FUTURE_MONTHS: u32 = 12;

/// At most this many hints are shown.
pub const MAX_HINTS: usize = 6;

/// Example URLs kept per hint.
const EXAMPLES: usize = 3;

/// One proposed rule.
#[derive(Debug, Clone, PartialEq)]
pub struct TrapHint {
    /// One line: the pattern and how many URLs it has produced.
    pub summary: String,
    pub examples: Vec<String>,
    /// A `may-not-have` filter that stops the pattern, logged.
    pub rule: Rule,
}

/// Group key → (distinct URLs, examples, the proposed rule).
type Groups = HashMap<String, (HashSet<String>, Vec<String>, Rule)>;

/// Finds growing patterns among `urls` (most recent discoveries), dated
/// paths judged against this month.
pub fn hints<'a>(urls: impl IntoIterator<Item = &'a str>) -> Vec<TrapHint> {
    hints_at(urls, this_month())
}

/// [`hints`], with `now` the month (`2026-11`) a calendar must run
/// [`FUTURE_MONTHS`] past.
pub fn hints_at<'a>(urls: impl IntoIterator<Item = &'a str>, now: (u32, u32)) -> Vec<TrapHint> {
    let (year, month) = now;
    let horizon = format!("{}-{month:02}", year + FUTURE_MONTHS / 12);
    let mut groups: Groups = HashMap::new();
    for text in urls {
        let Ok(url) = Url::parse(text) else { continue };
        let path = url.path();
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        if let Some(seg) = repeated_segment(&segments) {
            let key = format!("repeat {seg}");
            add(&mut groups, key, text, || repeat_rule(seg));
        }
        if let Some((prefix, month)) = calendar_prefix(&segments) {
            // Counted by distinct month, not by URL.
            let key = format!("calendar {prefix}");
            add_distinct(&mut groups, key, &month, text, || {
                calendar_rule(&prefix, year + FUTURE_MONTHS / 12 + 1)
            });
        }
        if url.query().is_some_and(|q| !q.is_empty()) {
            let key = format!("query {path}");
            add(&mut groups, key, text, || query_rule(path));
        }
    }
    let mut found: Vec<TrapHint> = groups
        .into_iter()
        .filter(|(key, (distinct, _, _))| {
            if key.starts_with("calendar ") {
                // Months as `2031-07`: in order as text.
                distinct.len() >= MIN_MONTHS
                    && distinct
                        .iter()
                        .max()
                        .is_some_and(|latest| *latest > horizon)
            } else {
                distinct.len() >= MIN_URLS
            }
        })
        .map(|(key, (distinct, examples, rule))| {
            let latest = distinct.iter().max().cloned().unwrap_or_default();
            TrapHint {
                summary: summary(&key, distinct.len(), &latest),
                examples,
                rule,
            }
        })
        .collect();
    found.sort_by(|a, b| b.summary.cmp(&a.summary));
    found.sort_by_key(|h| std::cmp::Reverse(count_of(&h.summary)));
    found.truncate(MAX_HINTS);
    found
}

fn add(groups: &mut Groups, key: String, url: &str, rule: impl FnOnce() -> Rule) {
    add_distinct(groups, key, url, url, rule);
}

/// Counts `distinct` (a URL, or a month) in the group, keeping `url` as an
/// example when it adds something new.
fn add_distinct(
    groups: &mut Groups,
    key: String,
    distinct: &str,
    url: &str,
    rule: impl FnOnce() -> Rule,
) {
    let entry = groups
        .entry(key)
        .or_insert_with(|| (HashSet::new(), Vec::new(), rule()));
    if entry.0.insert(distinct.to_string()) && entry.1.len() < EXAMPLES {
        entry.1.push(url.to_string());
    }
}

/// This month by the system clock, as (year, month), UTC.
fn this_month() -> (u32, u32) {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400);
    month_of_day(days)
}

/// The (year, month) of a day counted from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, for days after the epoch).
fn month_of_day(days: u64) -> (u32, u32) {
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (
        u32::try_from(year).unwrap_or(u32::MAX),
        u32::try_from(month).unwrap_or(1),
    )
}

/// `latest`: the group's greatest distinct value (a calendar's latest
/// month).
fn summary(key: &str, n: usize, latest: &str) -> String {
    let (kind, what) = key.split_once(' ').unwrap_or((key, ""));
    match kind {
        "repeat" => format!(
            "{} the path segment /{what}/ three times or more",
            match n {
                1 => "1 URL repeats".to_string(),
                n => format!("{n} URLs repeat"),
            }
        ),
        "calendar" => format!(
            "{n} different months under {what}, up to {latest}: a calendar that keeps going"
        ),
        _ => format!(
            "{} on {what}",
            crate::text::counted(n as u64, "query string", "query strings")
        ),
    }
}

/// The count a summary starts with, for ordering.
fn count_of(summary: &str) -> usize {
    summary
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// A segment that occurs three times or more in the path.
fn repeated_segment<'a>(segments: &[&'a str]) -> Option<&'a str> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for s in segments {
        let c = counts.entry(s).or_default();
        *c += 1;
        if *c >= 3 {
            return Some(s);
        }
    }
    None
}

/// The path up to a date and the date's month: (`/calendar/`, `2031-07`)
/// for `/calendar/2031/07/`, or for `/calendar/2031-07-01`.
fn calendar_prefix(segments: &[&str]) -> Option<(String, String)> {
    let year = |s: &str| {
        s.len() == 4
            && s.bytes().all(|b| b.is_ascii_digit())
            && (s.starts_with("19") || s.starts_with("20"))
    };
    let month = |s: &str| s.parse::<u32>().is_ok_and(|m| (1..=12).contains(&m)) && s.len() <= 2;
    let dated = |s: &str| {
        let parts: Vec<&str> = s.split('-').collect();
        parts.len() >= 2 && year(parts[0]) && month(parts[1])
    };
    for (i, s) in segments.iter().enumerate() {
        let when = if dated(s) {
            let mut parts = s.split('-');
            Some(format!("{}-{:0>2}", parts.next()?, parts.next()?))
        } else if year(s) {
            segments
                .get(i + 1)
                .filter(|m| month(m))
                .map(|m| format!("{s}-{m:0>2}"))
        } else {
            None
        };
        if let Some(when) = when {
            let mut prefix = String::from("/");
            for p in &segments[..i] {
                prefix.push_str(p);
                prefix.push('/');
            }
            return Some((prefix, when));
        }
    }
    None
}

fn test(field: Field, matcher: Matcher) -> Condition {
    Condition::Test(Test {
        field,
        matcher,
        case: Default::default(),
    })
}

fn trap_rule(name: String, condition: Condition) -> Rule {
    let mut rule = Rule::new(name, 0);
    rule.condition = Some(condition);
    rule.filter = Some(Filter::MayNotHave);
    rule.log = Some(true);
    rule
}

fn repeat_rule(segment: &str) -> Rule {
    let s = regex::escape(segment);
    trap_rule(
        format!("trap: /{segment}/ repeated in the path"),
        test(
            Field::Path,
            Matcher::Regex(format!("/{s}/(?:.*/)?{s}/(?:.*/)?{s}(?:/|$)")),
        ),
    )
}

/// The rule for a calendar under `prefix`: its years from `from` on (the
/// past and the coming year stay: an archive's months are pages too).
fn calendar_rule(prefix: &str, from: u32) -> Rule {
    trap_rule(
        format!("trap: calendar under {prefix}, {from} on"),
        test(
            Field::Path,
            Matcher::Regex(format!("^{}({})", regex::escape(prefix), years_from(from))),
        ),
    )
}

/// A regex alternation for the four-digit years `from` to 9999
/// (`2028`: `202[8-9]|20[3-9][0-9]|2[1-9][0-9][0-9]|[3-9][0-9][0-9][0-9]`).
fn years_from(from: u32) -> String {
    let digits: Vec<u32> = format!("{:04}", from.min(9999))
        .chars()
        .filter_map(|c| c.to_digit(10))
        .collect();
    let mut parts = Vec::new();
    for at in (0..digits.len()).rev() {
        // The digits before `at` as they are, a larger one at `at` (the
        // same one too, for the last), any after.
        let lowest = if at == digits.len() - 1 {
            digits[at]
        } else {
            digits[at] + 1
        };
        if lowest > 9 {
            continue;
        }
        let head: String = digits[..at].iter().map(u32::to_string).collect();
        let tail = "[0-9]".repeat(digits.len() - 1 - at);
        parts.push(format!("{head}[{lowest}-9]{tail}"));
    }
    parts.join("|")
}

fn query_rule(path: &str) -> Rule {
    trap_rule(
        format!("trap: query strings on {path}"),
        Condition::All(vec![
            test(Field::Path, Matcher::Exact(path.to_string())),
            test(Field::Query, Matcher::Regex(".".into())),
        ]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::model::RuleSet;
    use crate::rules::{CompiledRules, Known, UrlFacts};

    /// Whether the hint's rule filters `url`.
    fn stops(hint: &TrapHint, url: &str) -> bool {
        let rules = CompiledRules::new(&RuleSet {
            rules: vec![hint.rule.clone()],
            ..RuleSet::default()
        });
        let url = Url::parse(url).expect("url");
        let v = rules.evaluate(
            &UrlFacts::new(&url, &Known::default()),
            &mut rules.scratch(),
            crate::rules::TraceMode::Off,
        );
        v.filtered
    }

    /// The years a calendar rule filters start at the one given.
    #[test]
    fn years_from_matches_exactly_the_later_years() {
        for from in [2028, 2030, 2099, 2100, 1999, 9999] {
            let re = regex::Regex::new(&format!("^({})$", years_from(from))).expect("a regex");
            for year in 1000..=9999u32 {
                assert_eq!(
                    re.is_match(&year.to_string()),
                    year >= from,
                    "{from}: {year}"
                );
            }
        }
    }

    #[test]
    fn each_kind_of_trap_is_proposed_with_a_working_rule() {
        // (what, generator of the i-th URL, a URL the rule must stop, one it must not)
        type Gen = fn(usize) -> String;
        let cases: &[(&str, Gen, &str, &str)] = &[
            (
                "calendar months",
                |i| format!("http://h/calendar/{}/{:02}/", 2030 + i / 12, i % 12 + 1),
                "http://h/calendar/2099/01/",
                "http://h/calendar/",
            ),
            (
                "dated pages",
                |i| format!("http://h/events/{}-{:02}-01", 2031 + i / 12, i % 12 + 1),
                "http://h/events/2040-01-01",
                "http://h/events/",
            ),
            (
                "repeated segments",
                |i| format!("http://h/a/b/a/b/a/{i}"),
                "http://h/x/a/y/a/a",
                "http://h/a/b/a/c",
            ),
            (
                "endless query strings",
                |i| format!("http://h/search?q={i}&page=1"),
                "http://h/search?sort=up",
                "http://h/search",
            ),
        ];
        for (what, gen_url, stopped, kept) in cases {
            let urls: Vec<String> = (0..MIN_MONTHS.max(MIN_URLS)).map(gen_url).collect();
            let found = hints(urls.iter().map(String::as_str));
            let Some(hint) = found.first() else {
                panic!("{what}: no hint");
            };
            assert!(
                stops(hint, stopped),
                "{what}: {} should stop {stopped}",
                hint.summary
            );
            assert!(
                !stops(hint, kept),
                "{what}: {} should keep {kept}",
                hint.summary
            );
            assert!(!hint.examples.is_empty());
        }
    }

    #[test]
    fn a_dated_archive_of_a_few_months_is_no_calendar_trap() {
        // Forty posts over five months, like the demo blog's archive.
        let urls: Vec<String> = (0..40)
            .map(|i| format!("http://h/blog/2023/{:02}/post-{i}.html", 8 + i % 5))
            .collect();
        assert!(hints(urls.iter().map(String::as_str)).is_empty());
    }

    /// Years of monthly archives in the past are no trap; the same months
    /// running on past next year are.
    #[test]
    fn a_calendar_trap_runs_into_the_future() {
        let months = |from: u32| -> Vec<String> {
            (0..48)
                .map(|i| format!("http://h/blog/{}/{:02}/", from + i / 12, i % 12 + 1))
                .collect()
        };
        let past = months(2021);
        assert!(hints_at(past.iter().map(String::as_str), (2026, 11)).is_empty());
        let ahead = months(2025);
        let found = hints_at(ahead.iter().map(String::as_str), (2026, 11));
        assert_eq!(
            found.first().map(|h| h.summary.as_str()),
            Some("48 different months under /blog/, up to 2028-12: a calendar that keeps going")
        );
        // Its rule keeps this year's and next year's months.
        let hint = &found[0];
        assert_eq!(hint.rule.name, "trap: calendar under /blog/, 2028 on");
        for (url, stopped) in [
            ("http://h/blog/2026/05/", false),
            ("http://h/blog/2027/12/", false),
            ("http://h/blog/2028/01/", true),
            ("http://h/blog/2140/01/", true),
        ] {
            assert_eq!(stops(hint, url), stopped, "{url}");
        }
        // Up to next year's same month is not far enough.
        let near: Vec<String> = (0..25)
            .map(|i| {
                format!(
                    "http://h/cal/{}/{:02}/",
                    2024 + (i + 10) / 12,
                    (i + 10) % 12 + 1
                )
            })
            .collect();
        assert!(near.last().is_some_and(|u| u.ends_with("/2026/11/")));
        assert!(hints_at(near.iter().map(String::as_str), (2025, 11)).is_empty());
    }

    #[test]
    fn the_month_of_a_day() {
        assert_eq!(month_of_day(0), (1970, 1));
        assert_eq!(month_of_day(31), (1970, 2));
        // 2000-02-29 and 2000-03-01.
        assert_eq!(month_of_day(11_016), (2000, 2));
        assert_eq!(month_of_day(11_017), (2000, 3));
        // 2026-11-27.
        assert_eq!(month_of_day(20_784), (2026, 11));
        assert_eq!(month_of_day(20_819), (2027, 1));
    }

    #[test]
    fn small_groups_are_not_proposed() {
        let urls: Vec<String> = (0..MIN_URLS - 1)
            .map(|i| format!("http://h/search?q={i}"))
            .collect();
        assert!(hints(urls.iter().map(String::as_str)).is_empty());
        assert!(hints(["not a url", "http://h/"]).is_empty());
    }
}
