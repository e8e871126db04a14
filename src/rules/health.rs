//! Rule health before a crawl (SPEC §4): rules that can never take effect
//! because an earlier rule shadows them. An earlier enabled rule with `stop`
//! whose condition holds wherever this rule's does ends processing first;
//! an earlier `may-not-have` filter that holds wherever this rule's condition
//! holds vetoes every URL the rule could act on, and a `must-have` filter
//! that cannot hold there does the same. In a `first_match` block, an
//! earlier rule of the block that holds wherever this one does is the one
//! that takes effect (a catch-all before the rules after it, say).
//!
//! "Holds wherever" is decided conservatively from the literals: equal
//! tests, prefixes of prefixes, exact values inside prefixes, suffixes and
//! substrings, hosts inside domains, and `all`/`any` lists. When in doubt the
//! rule is not marked: a false "shadowed" would send users chasing nothing.

use super::model::{Case, Condition, Filter, Matcher, Rule, RuleSet, Test};

/// Why a rule can never take effect, per rule in document order (`None`:
/// nothing found against it).
pub fn shadowed(rules: &RuleSet) -> Vec<Option<String>> {
    let mut out = Vec::new();
    // Earlier rules that may shadow later ones, with their number.
    let mut earlier: Vec<(String, &Rule, Vec<Condition>)> = Vec::new();
    // The numbers of the blocks with `first_match`.
    let mut first_match_blocks: Vec<String> = Vec::new();
    walk(
        &rules.rules,
        &mut Vec::new(),
        &mut Vec::new(),
        true,
        &mut |number, rule, context, live| {
            // Where the rule can act: a `must-have` filter acts where its
            // condition does NOT hold, so on every URL that reaches it.
            let own = if rule.filter == Some(Filter::MustHave) {
                Condition::All(context.to_vec())
            } else {
                effective(rule, context)
            };
            // A rule's own block is evaluated with it, so ancestors never count.
            let verdict = earlier
                .iter()
                .filter(|(n, _, _)| !number.starts_with(&format!("{n}.")))
                .find_map(|(n, e, e_context)| shadow_reason(n, e, e_context, &own))
                .or_else(|| first_match_shadow(number, &earlier, &first_match_blocks, &own));
            out.push(verdict);
            if rule.first_match {
                first_match_blocks.push(number.to_string());
            }
            // Only a rule that is evaluated can shadow: not one switched
            // off, nor one inside a block that is.
            if live {
                earlier.push((number.to_string(), rule, context.to_vec()));
            }
        },
    );
    out
}

/// Visits rules depth first with their number (`3.2`), the conditions of
/// the rules holding them, and whether the rule is evaluated at all (it and
/// every block holding it enabled).
fn walk<'a>(
    rules: &'a [Rule],
    number: &mut Vec<usize>,
    context: &mut Vec<Condition>,
    parent_live: bool,
    visit: &mut impl FnMut(&str, &'a Rule, &[Condition], bool),
) {
    for (i, rule) in rules.iter().enumerate() {
        number.push(i + 1);
        let text: Vec<String> = number.iter().map(usize::to_string).collect();
        let live = parent_live && rule.enabled;
        visit(&text.join("."), rule, context, live);
        context.push(own_condition(rule).unwrap_or(Condition::All(Vec::new())));
        walk(&rule.rules, number, context, live, visit);
        context.pop();
        number.pop();
    }
}

/// The rule's own condition with `negate` applied; `None` holds always.
fn own_condition(rule: &Rule) -> Option<Condition> {
    match (&rule.condition, rule.negate) {
        (None, false) => None,
        (None, true) => Some(Condition::Any(Vec::new())), // never holds
        (Some(c), false) => Some(c.clone()),
        (Some(c), true) => Some(Condition::Not(Box::new(c.clone()))),
    }
}

/// Everything that holds when the rule takes effect: its blocks' conditions
/// and its own.
fn effective(rule: &Rule, context: &[Condition]) -> Condition {
    let mut all = context.to_vec();
    all.extend(own_condition(rule));
    Condition::All(all)
}

fn shadow_reason(
    number: &str,
    earlier: &Rule,
    context: &[Condition],
    later: &Condition,
) -> Option<String> {
    let holds = effective(earlier, context);
    if earlier.stop && implies(later, &holds) {
        return Some(format!(
            "never takes effect: rule {number} ({}) stops first wherever it holds",
            earlier.name
        ));
    }
    match earlier.filter {
        Some(Filter::MayNotHave) if implies(later, &holds) => Some(format!(
            "never fetches: the may-not-have filter of rule {number} ({}) vetoes every URL it holds for",
            earlier.name
        )),
        Some(Filter::MustHave) if context.is_empty() && excludes(later, &holds) => Some(format!(
            "never fetches: the must-have filter of rule {number} ({}) cannot hold where it does",
            earlier.name
        )),
        _ => None,
    }
}

/// In a `first_match` block, an earlier rule of the same block that holds
/// wherever this one does (`own`, its effective condition) is the one
/// that takes effect: the rest of the block is skipped.
fn first_match_shadow(
    number: &str,
    earlier: &[(String, &Rule, Vec<Condition>)],
    first_match_blocks: &[String],
    own: &Condition,
) -> Option<String> {
    let (block, _) = number.rsplit_once('.')?;
    if !first_match_blocks.iter().any(|b| b == block) {
        return None;
    }
    let same_block = |n: &str| n.rsplit_once('.').is_some_and(|(b, _)| b == block);
    earlier
        .iter()
        .filter(|(n, _, _)| same_block(n))
        .find(|(_, e, e_context)| implies(own, &effective(e, e_context)))
        .map(|(n, e, _)| {
            format!(
                "never takes effect: rule {n} ({}) comes first in its first-match block wherever it holds",
                e.name
            )
        })
}

/// Whether `a` holding guarantees `b` holds (conservative: false when unsure).
fn implies(a: &Condition, b: &Condition) -> bool {
    match (a, b) {
        (_, Condition::All(bs)) => bs.iter().all(|b| implies(a, b)),
        (_, Condition::Any(bs)) if bs.iter().any(|b| implies(a, b)) => true,
        (Condition::All(as_), _) => as_.iter().any(|a| implies(a, b)),
        (Condition::Any(as_), _) => !as_.is_empty() && as_.iter().all(|a| implies(a, b)),
        (Condition::Test(x), Condition::Test(y)) => test_implies(x, y),
        (Condition::Not(x), Condition::Not(y)) => implies(y, x),
        (Condition::Test(x), Condition::Not(y)) => match y.as_ref() {
            Condition::Test(y) => tests_exclude(x, y),
            _ => false,
        },
        _ => false,
    }
}

/// Whether `a` holding guarantees `b` does not.
fn excludes(a: &Condition, b: &Condition) -> bool {
    match (a, b) {
        (Condition::All(as_), _) => as_.iter().any(|a| excludes(a, b)),
        (_, Condition::All(bs)) => bs.iter().any(|b| excludes(a, b)),
        (Condition::Test(x), Condition::Test(y)) => tests_exclude(x, y),
        (_, Condition::Not(y)) => implies(a, y),
        _ => false,
    }
}

/// Both tests compare the same field the same way; their texts, folded when
/// the comparison ignores case.
fn comparable<'a>(x: &'a Test, y: &'a Test) -> Option<(String, String)> {
    if x.field != y.field || x.case != y.case {
        return None;
    }
    let text = |m: &Matcher| match m {
        Matcher::Exact(s)
        | Matcher::Prefix(s)
        | Matcher::Suffix(s)
        | Matcher::Contains(s)
        | Matcher::Domain(s) => Some(s.clone()),
        _ => None,
    };
    let fold = |s: String| match x.case {
        Case::Insensitive => s.to_lowercase(),
        Case::Sensitive => s,
    };
    Some((fold(text(&x.matcher)?), fold(text(&y.matcher)?)))
}

fn test_implies(x: &Test, y: &Test) -> bool {
    if x == y {
        return true;
    }
    let Some((a, b)) = comparable(x, y) else {
        return false;
    };
    use Matcher::*;
    match (&x.matcher, &y.matcher) {
        (Exact(_), Exact(_)) => a == b,
        (Exact(_), Prefix(_)) | (Prefix(_), Prefix(_)) => a.starts_with(&b),
        (Exact(_), Suffix(_)) | (Suffix(_), Suffix(_)) => a.ends_with(&b),
        (Exact(_) | Prefix(_) | Suffix(_) | Contains(_), Contains(_)) => a.contains(&b),
        (Exact(_) | Domain(_), Domain(_)) => a == b || a.ends_with(&format!(".{b}")),
        _ => false,
    }
}

/// Two tests that can never hold together (different exact values, a value
/// outside a prefix or domain).
fn tests_exclude(x: &Test, y: &Test) -> bool {
    let Some((a, b)) = comparable(x, y) else {
        return false;
    };
    use Matcher::*;
    match (&x.matcher, &y.matcher) {
        (Exact(_), Exact(_)) => a != b,
        (Exact(_), Prefix(_)) => !a.starts_with(&b),
        (Prefix(_), Exact(_)) => !b.starts_with(&a),
        (Prefix(_), Prefix(_)) => !a.starts_with(&b) && !b.starts_with(&a),
        (Exact(_), Domain(_)) => a != b && !a.ends_with(&format!(".{b}")),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::dialect::native;

    fn health(toml: &str) -> Vec<Option<String>> {
        shadowed(&native::parse(toml).expect("rules").rules)
    }

    #[test]
    fn cases() {
        // (what, rules, which rule numbers (1-based, document order) are marked)
        let cases: &[(&str, &str, &[usize])] = &[
            (
                "an unconditional stop shadows everything after it",
                "[[rules]]\nname='all'\nstop=true\n[[rules]]\nname='x'\nmatch={field='path',prefix='/a/'}\naction='exclude'\n",
                &[2],
            ),
            (
                "a stop on a wider prefix shadows a narrower one",
                "[[rules]]\nname='a'\nmatch={field='path',prefix='/a/'}\nstop=true\n[[rules]]\nname='ab'\nmatch={field='path',prefix='/a/b/'}\naction='exclude'\n",
                &[2],
            ),
            (
                "a narrower stop does not shadow a wider rule",
                "[[rules]]\nname='ab'\nmatch={field='path',prefix='/a/b/'}\nstop=true\n[[rules]]\nname='a'\nmatch={field='path',prefix='/a/'}\naction='exclude'\n",
                &[],
            ),
            (
                "a may-not-have filter vetoes a rule inside its domain",
                "[[rules]]\nname='no ads'\nmatch={field='host',domain='ads.example'}\nfilter='may-not-have'\n[[rules]]\nname='cdn'\nmatch={field='host',exact='cdn.ads.example'}\naction='download'\n",
                &[2],
            ),
            (
                "a must-have host filter vetoes a rule for another host",
                "[[rules]]\nname='only a'\nmatch={field='host',exact='a.example'}\nfilter='must-have'\n[[rules]]\nname='b'\nmatch={field='host',exact='b.example'}\naction='download'\n[[rules]]\nname='a too'\nmatch={field='host',exact='a.example'}\naction='download'\n",
                &[2],
            ),
            (
                "a disabled stop shadows nothing",
                "[[rules]]\nname='all'\nenabled=false\nstop=true\n[[rules]]\nname='x'\naction='exclude'\n",
                &[],
            ),
            (
                "case-sensitive and insensitive tests are not compared",
                "[[rules]]\nname='a'\nmatch={field='path',prefix='/A/',case='sensitive'}\nstop=true\n[[rules]]\nname='b'\nmatch={field='path',prefix='/a/b'}\naction='exclude'\n",
                &[],
            ),
            (
                "a nested rule inherits its block's condition",
                "[[rules]]\nname='stop a'\nmatch={field='path',prefix='/a/'}\nstop=true\n[[rules]]\nname='block'\nmatch={field='path',prefix='/a/x'}\n  [[rules.rules]]\n  name='inner'\n  match={field='query',contains='id='}\n  action='exclude'\n",
                &[2, 3],
            ),
            (
                "a stop inside a switched-off block shadows nothing",
                "[[rules]]\nname='off'\nenabled=false\n  [[rules.rules]]\n  name='stop all'\n  stop=true\n[[rules]]\nname='after'\nmatch={field='path',prefix='/a/'}\n",
                &[],
            ),
            (
                "a block's own stop does not shadow its nested rules",
                "[[rules]]\nname='block'\nmatch={field='path',prefix='/a/'}\nstop=true\n  [[rules.rules]]\n  name='inner'\n  action='exclude'\n[[rules]]\nname='after'\nmatch={field='path',prefix='/a/b'}\n",
                &[3],
            ),
            (
                "in a first-match block, rules after one that always matches",
                "[[rules]]\nname='fm'\nfirst_match=true\n  [[rules.rules]]\n  name='always'\n  priority='high'\n  [[rules.rules]]\n  name='later'\n  action='download'\n[[rules]]\nname='outside'\naction='exclude'\n",
                &[3],
            ),
            (
                "in a first-match block, a narrower rule after a wider one, not the reverse",
                "[[rules]]\nname='fm'\nfirst_match=true\n  [[rules.rules]]\n  name='ab'\n  match={field='path',prefix='/a/b/'}\n  [[rules.rules]]\n  name='a'\n  match={field='path',prefix='/a/'}\n  [[rules.rules]]\n  name='abc'\n  match={field='path',prefix='/a/b/c'}\n",
                &[4],
            ),
            (
                "a must-have filter acts where its condition fails: not shadowed by a narrower rule",
                "[[rules]]\nname='fm'\nfirst_match=true\n  [[rules.rules]]\n  name='docs'\n  match={field='path',prefix='/docs/'}\n  [[rules.rules]]\n  name='v2 only'\n  match={field='path',prefix='/docs/v2/'}\n  filter='must-have'\n[[rules]]\nname='a stops'\nmatch={field='path',prefix='/a/'}\nstop=true\n[[rules]]\nname='only /a/b'\nmatch={field='path',prefix='/a/b'}\nfilter='must-have'\n",
                &[],
            ),
            (
                "a must-have filter after an unconditional stop never acts",
                "[[rules]]\nname='all'\nstop=true\n[[rules]]\nname='only /a'\nmatch={field='path',prefix='/a'}\nfilter='must-have'\n",
                &[2],
            ),
            (
                "a block without first_match lets every nested rule act",
                "[[rules]]\nname='block'\n  [[rules.rules]]\n  name='always'\n  priority='high'\n  [[rules.rules]]\n  name='later'\n  action='download'\n",
                &[],
            ),
        ];
        for (what, toml, marked) in cases {
            let got: Vec<usize> = health(toml)
                .iter()
                .enumerate()
                .filter(|(_, m)| m.is_some())
                .map(|(i, _)| i + 1)
                .collect();
            assert_eq!(&got, marked, "{what}");
        }
    }

    #[test]
    fn the_reason_names_the_rule() {
        let h = health("[[rules]]\nname='all'\nstop=true\n[[rules]]\nname='x'\n");
        assert_eq!(
            h[1].as_deref(),
            Some("never takes effect: rule 1 (all) stops first wherever it holds")
        );
        let h = health(
            "[[rules]]\nname='fm'\nfirst_match=true\n  [[rules.rules]]\n  name='any'\n  [[rules.rules]]\n  name='x'\n",
        );
        assert_eq!(
            h[2].as_deref(),
            Some(
                "never takes effect: rule 1.1 (any) comes first in its first-match block wherever it holds"
            )
        );
    }
}
