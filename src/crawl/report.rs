//! How verdicts and crawler decisions become URL-log text: the trace lines
//! of a verdict, the one-line reason a URL is refused, and the crawler's own
//! trace entries (start, redirect, depth, live rules, robots.txt, rel=nofollow;
//! robots directives in `directives`, sitemaps in `sitemaps`).

use std::time::{SystemTime, UNIX_EPOCH};

use super::robots_cache::Check;
use crate::rules::verdict::Step;
use crate::rules::{CompiledRules, Verdict};
use crate::store::TraceLine;

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The decisive trace of a verdict, as log lines.
pub(crate) fn trace_lines(rules: &CompiledRules, verdict: &Verdict) -> Vec<TraceLine> {
    let info = rules.rule_info();
    verdict
        .trace
        .iter()
        .map(|e| {
            let i = &info[e.rule as usize];
            let mut detail = match e.step {
                Step::Matched => i.effects.clone(),
                _ => String::new(),
            };
            if e.filtered {
                detail.push_str(if detail.is_empty() {
                    "filtered"
                } else {
                    "; filtered"
                });
            }
            if e.priority_ignored {
                detail.push_str("; priority ignored (content-type rule)");
            }
            TraceLine {
                rule: i.number.clone(),
                name: i.name.clone(),
                line: i.line as u32,
                step: e.step.name().into(),
                detail,
            }
        })
        .collect()
}

/// One line saying why a verdict keeps a URL from being fetched.
pub(crate) fn refusal(rules: &CompiledRules, verdict: &Verdict) -> String {
    let info = rules.rule_info();
    let name = |r: u32| {
        let i = &info[r as usize];
        format!("rule {} {:?} ({})", i.number, i.name, i.place())
    };
    if let Some(&r) = verdict.filtered_by.first() {
        format!("filtered by {}", name(r))
    } else if let Some(r) = verdict.fetch_set_by {
        format!("excluded by {}", name(r))
    } else {
        format!(
            "not allowed by the disposition `{}`",
            rules.disposition().name()
        )
    }
}

/// Replaces the rule lines of a logged trace with a later evaluation's,
/// keeping the crawler's own lines (start, redirect, depth, ...): the final
/// verdict, not every phase, is what "why" needs.
pub(crate) fn retrace(trace: &mut Vec<TraceLine>, rules: Vec<TraceLine>) {
    trace.retain(|t| !t.rule.starts_with(|c: char| c.is_ascii_digit()));
    trace.extend(rules);
}

/// Why the crawl's depth limits refuse `url` met at `link_depth`: the
/// reason the log gives and the `depth` trace line's detail; `None` within
/// them. The crawler's veto, and what `explain` says of it.
pub(crate) fn beyond_depth(
    url: &url::Url,
    link_depth: u32,
    max_link_depth: u32,
    max_path_depth: u32,
) -> Option<(String, String)> {
    let path_depth = url.path().bytes().filter(|&b| b == b'/').count() as u32;
    // Both limits when both are passed: raising one alone would not do.
    let link = (link_depth > max_link_depth).then(|| {
        (
            format!("max_link_depth {max_link_depth} (link depth {link_depth})"),
            format!("link depth {link_depth} > max_link_depth {max_link_depth}"),
        )
    });
    let path = (path_depth > max_path_depth).then(|| {
        (
            format!("max_path_depth {max_path_depth} (path depth {path_depth})"),
            format!("path depth {path_depth} > max_path_depth {max_path_depth}"),
        )
    });
    match (link, path) {
        (Some((why, detail)), None) | (None, Some((why, detail))) => {
            Some((format!("beyond {why}"), detail))
        }
        (Some(link), Some(path)) => Some((
            format!("beyond {} and {}", link.0, path.0),
            format!("{}; {}", link.1, path.1),
        )),
        (None, None) => None,
    }
}

pub(crate) fn layer(rule: &str, detail: String) -> TraceLine {
    TraceLine {
        rule: rule.into(),
        name: rule.into(),
        line: 0,
        step: "matched".into(),
        detail,
    }
}

/// Trace layer of robots.txt's answer for a URL.
pub(crate) const ROBOTS_LAYER: &str = "robots";
/// Trace layer of a URL beyond `max_link_depth` or `max_path_depth`.
pub(crate) const DEPTH_LAYER: &str = "depth";
/// Trace layer of a link only ever marked rel=nofollow.
pub(crate) const NOFOLLOW_LAYER: &str = "rel-nofollow";
/// Trace layer of a URL the rules refused at its response headers: why it
/// was requested at all.
pub(crate) const HEADERS_LAYER: &str = "headers";

/// Why a URL that the rules refused once its headers came was requested:
/// the rules deferred when it was queued (their field unknown then), as its
/// logged trace names them. The refusal's own trace replaces those lines
/// and lists only decisive entries, so without this the log shows a
/// request the rules refuse and nothing that asked for it. `None` when the
/// logged trace has no deferred rule.
pub(crate) fn requested_for_headers(logged: &[TraceLine]) -> Option<TraceLine> {
    let deferred: Vec<String> = logged
        .iter()
        .filter(|t| t.step == "deferred" && t.rule.starts_with(|c: char| c.is_ascii_digit()))
        .map(|t| format!("{} {:?} (line {})", t.rule, t.name, t.line))
        .collect();
    if deferred.is_empty() {
        return None;
    }
    let (rules, verb) = match deferred.len() {
        1 => ("", "was"),
        _ => ("s", "were"),
    };
    let named = deferred.join(", ");
    Some(layer(
        HEADERS_LAYER,
        format!("requested as far as its headers: rule{rules} {named} {verb} deferred until then"),
    ))
}

/// robots.txt's answer as a trace line: layer `robots`, the deciding line
/// of the robots.txt file (0 when no rule decided), `allowed` or
/// `disallowed`, and the full description.
pub(crate) fn robots_line(check: &Check) -> TraceLine {
    TraceLine {
        rule: ROBOTS_LAYER.into(),
        name: "robots.txt".into(),
        line: check.line.unwrap_or(0),
        step: if check.allowed {
            "allowed"
        } else {
            "disallowed"
        }
        .into(),
        detail: check.text.clone(),
    }
}

/// Puts `line` in the trace in place of an earlier line of the same layer
/// (a URL fetched again gets today's answer, not two).
pub(crate) fn set_layer(trace: &mut Vec<TraceLine>, line: TraceLine) {
    match trace.iter_mut().find(|t| t.rule == line.rule) {
        Some(old) => *old = line,
        None => trace.push(line),
    }
}
