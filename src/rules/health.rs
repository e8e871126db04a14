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

use std::collections::HashMap;

use super::model::{Case, Condition, Field, Filter, Matcher, Rule, RuleSet, Test};

/// Why a rule can never take effect, per rule in document order (`None`:
/// nothing found against it).
pub fn shadowed(rules: &RuleSet) -> Vec<Option<String>> {
    let mut out = Vec::new();
    // Earlier rules that may shadow any later one (a `stop`, a filter).
    let mut shadowers = Earlier::default();
    // The earlier rules of each `first_match` block, by block number.
    let mut first_match_blocks: HashMap<String, Earlier> = HashMap::new();
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
            let verdict = shadowers
                .candidates(&own)
                .filter(|e| !is_ancestor(&e.number, number))
                .find_map(|e| shadow_reason(&e.number, e.rule, &e.context, &own))
                .or_else(|| {
                    let (block, _) = number.rsplit_once('.')?;
                    first_match_blocks.get(block)?.first_match_shadow(&own)
                });
            out.push(verdict);
            if rule.first_match {
                first_match_blocks.insert(number.to_string(), Earlier::default());
            }
            // Only a rule that is evaluated can shadow: not one switched
            // off, nor one inside a block that is.
            if !live {
                return;
            }
            if rule.stop || rule.filter.is_some() {
                shadowers.push(number, rule, context);
            }
            let block = number.rsplit_once('.').map(|(block, _)| block);
            if let Some(earlier) = block.and_then(|b| first_match_blocks.get_mut(b)) {
                earlier.push(number, rule, context);
            }
        },
    );
    out
}

/// Whether rule `ancestor` holds rule `number` (`3` holds `3.2`).
fn is_ancestor(ancestor: &str, number: &str) -> bool {
    number
        .strip_prefix(ancestor)
        .is_some_and(|rest| rest.starts_with('.'))
}

/// An earlier rule that may shadow later ones.
struct Entry<'a> {
    number: String,
    rule: &'a Rule,
    /// The conditions of the blocks holding it.
    context: Vec<Condition>,
    /// Where it holds: `context` and its own condition.
    holds: Condition,
}

/// Earlier rules, indexed so that a later rule meets only those it could
/// be inside: with thousands of rules (an imported exclusion list, a long
/// first-match block) comparing every pair took minutes. A rule whose own
/// condition needs a literal test to hold is filed under that test; a later
/// rule looks up the keys its own tests could imply. The rest are compared
/// one by one, as before.
#[derive(Default)]
struct Earlier<'a> {
    entries: Vec<Entry<'a>>,
    by_key: HashMap<Key, Vec<usize>>,
    others: Vec<usize>,
}

/// A literal test, as it is filed: field, case, what kind of comparison,
/// and its text (folded when the test ignores case).
#[derive(PartialEq, Eq, Hash)]
struct Key {
    field: Field,
    case: Case,
    kind: Kind,
    text: String,
}

/// How a literal test compares.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    /// `exact`, and a `wildcard` without `*`.
    Exact,
    Prefix,
    Suffix,
    Contains,
    Domain,
    /// A `wildcard` of `*` and then a text without one (`*.ibm.com`).
    StarSuffix,
    /// Any other matcher (named by its key), implied only by the same test.
    Other(&'static str),
}

impl<'a> Earlier<'a> {
    fn push(&mut self, number: &str, rule: &'a Rule, context: &[Condition]) {
        let at = self.entries.len();
        // A `must-have` filter shadows where a later rule *excludes* its
        // condition, which no key of the later rule's tests finds.
        let filed = match rule.filter {
            Some(Filter::MustHave) => None,
            _ => own_condition(rule).as_ref().and_then(filed_test),
        };
        match filed {
            Some(key) => self.by_key.entry(key).or_default().push(at),
            None => self.others.push(at),
        }
        self.entries.push(Entry {
            number: number.to_string(),
            rule,
            context: context.to_vec(),
            holds: effective(rule, context),
        });
    }

    /// The earlier rules that could hold wherever `later` does, in order.
    fn candidates(&self, later: &Condition) -> impl Iterator<Item = &Entry<'a>> {
        let mut found: Vec<usize> = self.others.clone();
        let mut tests = Vec::new();
        tests_within(later, &mut tests);
        for test in tests {
            for key in keys_implied(test) {
                found.extend(self.by_key.get(&key).into_iter().flatten());
            }
        }
        found.sort_unstable();
        found.dedup();
        found.into_iter().map(|at| &self.entries[at])
    }

    /// In a `first_match` block, an earlier rule of the same block that
    /// holds wherever this one does (`own`, its effective condition) is the
    /// one that takes effect: the rest of the block is skipped.
    fn first_match_shadow(&self, own: &Condition) -> Option<String> {
        self.candidates(own)
            .find(|e| implies(own, &e.holds))
            .map(|e| {
                format!(
                    "never takes effect: rule {} ({}) comes first in its first-match block wherever it holds",
                    e.number, e.rule.name
                )
            })
    }
}

/// The literal test a condition needs to hold, when there is one to file
/// it under: the test itself, or one test of an `all` list.
fn filed_test(condition: &Condition) -> Option<Key> {
    match condition {
        Condition::Test(test) => key_of(test),
        Condition::All(all) => all.iter().find_map(|c| match c {
            Condition::Test(test) => key_of(test),
            _ => None,
        }),
        _ => None,
    }
}

/// How a test compares, for implications: its kind and its text (folded
/// when the test ignores case).
fn shape(test: &Test) -> (Kind, String) {
    let (kind, text) = match &test.matcher {
        Matcher::Exact(s) => (Kind::Exact, s.clone()),
        Matcher::Wildcard(s) if !s.contains('*') => (Kind::Exact, s.clone()),
        Matcher::Wildcard(s) => match s.strip_prefix('*') {
            Some(rest) if !rest.contains('*') => (Kind::StarSuffix, rest.to_string()),
            _ => (Kind::Other("wildcard"), s.clone()),
        },
        Matcher::Prefix(s) => (Kind::Prefix, s.clone()),
        Matcher::Suffix(s) => (Kind::Suffix, s.clone()),
        Matcher::Contains(s) => (Kind::Contains, s.clone()),
        Matcher::Domain(s) => (Kind::Domain, s.clone()),
        other => (Kind::Other(other.key()), other.value_text()),
    };
    // Folded as the rules compare (ASCII only); a regex never: lower-casing
    // `\D` makes it `\d`.
    let text = match (test.case, kind) {
        (Case::Insensitive, k) if !matches!(k, Kind::Other(_)) => text.to_ascii_lowercase(),
        _ => text,
    };
    (kind, text)
}

/// The key a test is filed under; `None` for the tests a later rule's
/// own tests cannot be looked up for (a `contains`, implied by any text
/// holding it) and for those that hold on every value (`*`, an empty
/// prefix): those go with the rules compared one by one.
fn key_of(test: &Test) -> Option<Key> {
    let (kind, text) = shape(test);
    let everywhere = text.is_empty()
        && matches!(
            kind,
            Kind::Prefix | Kind::Suffix | Kind::Contains | Kind::StarSuffix
        );
    (kind != Kind::Contains && !everywhere).then_some(Key {
        field: test.field,
        case: test.case,
        kind,
        text,
    })
}

/// The tests a condition holds through (not under a `not`): a rule whose
/// filed test none of them implies cannot hold wherever it does.
fn tests_within<'c>(condition: &'c Condition, out: &mut Vec<&'c Test>) {
    match condition {
        Condition::Test(test) => out.push(test),
        Condition::All(list) | Condition::Any(list) => {
            list.iter().for_each(|c| tests_within(c, out));
        }
        Condition::Not(_) => {}
    }
}

/// Every key of a test that `test` implies ([`test_implies`]).
fn keys_implied(test: &Test) -> Vec<Key> {
    let (kind, text) = shape(test);
    let text = text.as_str();
    let make = |kind: Kind, text: &str| Key {
        field: test.field,
        case: test.case,
        kind,
        text: text.to_string(),
    };
    let prefixes = || text.char_indices().map(|(i, _)| &text[..i]).chain([text]);
    let suffixes = || text.char_indices().map(|(i, _)| &text[i..]).chain([""]);
    let mut keys = Vec::new();
    match kind {
        Kind::Exact => {
            keys.push(make(Kind::Exact, text));
            keys.extend(prefixes().map(|p| make(Kind::Prefix, p)));
            keys.extend(suffixes().map(|s| make(Kind::Suffix, s)));
            keys.extend(suffixes().map(|s| make(Kind::StarSuffix, s)));
            keys.extend(domains(text).map(|d| make(Kind::Domain, d)));
        }
        Kind::Prefix => keys.extend(prefixes().map(|p| make(Kind::Prefix, p))),
        Kind::Suffix => keys.extend(suffixes().map(|s| make(Kind::Suffix, s))),
        Kind::Domain => keys.extend(domains(text).map(|d| make(Kind::Domain, d))),
        Kind::StarSuffix => {
            keys.extend(suffixes().map(|s| make(Kind::Suffix, s)));
            keys.extend(suffixes().map(|s| make(Kind::StarSuffix, s)));
            keys.extend(
                text.match_indices('.')
                    .map(|(i, _)| make(Kind::Domain, &text[i + 1..])),
            );
        }
        Kind::Contains | Kind::Other(_) => keys.push(make(kind, text)),
    }
    keys
}

/// A host and the domains above it: `a.b.c`, `b.c`, `c`.
fn domains(host: &str) -> impl Iterator<Item = &str> {
    std::iter::once(host).chain(host.match_indices('.').map(|(i, _)| &host[i + 1..]))
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

/// Both tests look at the same field with the same case mode: their
/// shapes, to compare.
fn comparable(x: &Test, y: &Test) -> Option<((Kind, String), (Kind, String))> {
    (x.field == y.field && x.case == y.case).then(|| (shape(x), shape(y)))
}

fn test_implies(x: &Test, y: &Test) -> bool {
    if x == y {
        return true;
    }
    let Some(((kx, a), (ky, b))) = comparable(x, y) else {
        return false;
    };
    use Kind::*;
    match (kx, ky) {
        (Exact, Exact) => a == b,
        (Exact | Prefix, Prefix) => a.starts_with(&b),
        (Exact | Suffix | StarSuffix, Suffix) => a.ends_with(&b),
        (Exact | StarSuffix, StarSuffix) => a.ends_with(&b),
        (Exact | Prefix | Suffix | Contains, Contains) => a.contains(&b),
        (Exact | Domain, Domain) => a == b || a.ends_with(&format!(".{b}")),
        (StarSuffix, Domain) => a.ends_with(&format!(".{b}")),
        (Other(p), Other(q)) => p == q && a == b,
        _ => false,
    }
}

/// Two tests that can never hold together (different exact values, a value
/// outside a prefix or domain).
fn tests_exclude(x: &Test, y: &Test) -> bool {
    let Some(((kx, a), (ky, b))) = comparable(x, y) else {
        return false;
    };
    use Kind::*;
    match (kx, ky) {
        (Exact, Exact) => a != b,
        (Exact, Prefix) => !a.starts_with(&b),
        (Prefix, Exact) => !b.starts_with(&a),
        (Prefix, Prefix) => !a.starts_with(&b) && !b.starts_with(&a),
        (Exact, Domain) => a != b && !a.ends_with(&format!(".{b}")),
        (Exact, StarSuffix) => !a.ends_with(&b),
        (StarSuffix, Exact) => !b.ends_with(&a),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::dialect::native;
    use proptest::prelude::*;

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

    /// A WCA domain block: first match wins, so a host inside an earlier
    /// wildcard, and anything after a lone `*`, never takes effect.
    #[test]
    fn wildcards_in_a_first_match_block() {
        let rules = crate::rules::dialect::wca::parse(
            "allow domain *.ibm.com\nforbid domain www.ibm.com\nforbid domain *\nallow domain x.com\n",
        )
        .expect("wca");
        let marked = shadowed(&rules.rules);
        assert_eq!(marked[0], None);
        assert_eq!(marked[1], None);
        let www = marked[2].as_deref().expect("www.ibm.com inside *.ibm.com");
        assert!(www.contains("rule 1.1 (allow domain *.ibm.com)"), "{www}");
        assert_eq!(marked[3], None);
        let x = marked[4].as_deref().expect("x.com after *");
        assert!(x.contains("rule 1.3"), "{x}");
    }

    /// The reference the index must agree with: every earlier rule
    /// compared with every later one.
    fn shadowed_pairwise(rules: &RuleSet) -> Vec<Option<String>> {
        let mut seen: Vec<(String, &Rule, Vec<Condition>, bool)> = Vec::new();
        let mut out = Vec::new();
        walk(
            &rules.rules,
            &mut Vec::new(),
            &mut Vec::new(),
            true,
            &mut |number, rule, context, live| {
                let own = if rule.filter == Some(Filter::MustHave) {
                    Condition::All(context.to_vec())
                } else {
                    effective(rule, context)
                };
                let first_match_block = number.rsplit_once('.').and_then(|(block, _)| {
                    seen.iter()
                        .any(|(n, r, _, _)| n == block && r.first_match)
                        .then_some(block)
                });
                let verdict = seen
                    .iter()
                    .filter(|(n, _, _, live)| *live && !is_ancestor(n, number))
                    .find_map(|(n, e, c, _)| shadow_reason(n, e, c, &own))
                    .or_else(|| {
                        let block = first_match_block?;
                        seen.iter()
                            .filter(|(n, _, _, live)| {
                                *live && n.rsplit_once('.').is_some_and(|(b, _)| b == block)
                            })
                            .find(|(_, e, c, _)| implies(&own, &effective(e, c)))
                            .map(|(n, e, _, _)| {
                                format!(
                                    "never takes effect: rule {n} ({}) comes first in its first-match block wherever it holds",
                                    e.name
                                )
                            })
                    });
                out.push(verdict);
                seen.push((number.to_string(), rule, context.to_vec(), live));
            },
        );
        out
    }

    fn arb_test() -> impl Strategy<Value = Test> {
        // Few texts, each a prefix, suffix or domain of others, so that
        // implications are common.
        let text = prop::sample::select(vec![
            "", "a", "b", "a.b", "x.a.b", "/a", "/a/b", "*", "*.b", "*b", "a*b", "*.a.b", "A.B",
            "*.A.b", "é.b", "É.b", r"\d", r"\D",
        ]);
        let matcher = (0..8usize, text).prop_map(|(kind, t)| {
            let t = t.to_string();
            match kind {
                0 => Matcher::Exact(t),
                1 => Matcher::Prefix(t),
                2 => Matcher::Suffix(t),
                3 => Matcher::Contains(t),
                4 => Matcher::Domain(t),
                5 => Matcher::Regex(t.replace('*', ".")),
                _ => Matcher::Wildcard(t),
            }
        });
        let field = prop::sample::select(vec![Field::Host, Field::Host, Field::Path]);
        let case =
            prop::sample::select(vec![Case::Insensitive, Case::Insensitive, Case::Sensitive]);
        (field, matcher, case).prop_map(|(field, matcher, case)| Test {
            field,
            matcher,
            case,
        })
    }

    fn arb_condition() -> impl Strategy<Value = Condition> {
        arb_test()
            .prop_map(Condition::Test)
            .prop_recursive(2, 8, 3, |inner| {
                prop_oneof![
                    4 => inner.clone(),
                    1 => prop::collection::vec(inner.clone(), 0..3).prop_map(Condition::All),
                    1 => prop::collection::vec(inner.clone(), 0..3).prop_map(Condition::Any),
                    1 => inner.prop_map(|c| Condition::Not(Box::new(c))),
                ]
            })
    }

    fn arb_rule(nested: Vec<Rule>) -> impl Strategy<Value = Rule> {
        (
            prop::option::of(arb_condition()),
            any::<[bool; 4]>(),
            prop::sample::select(vec![None, Some(Filter::MayNotHave), Some(Filter::MustHave)]),
        )
            .prop_map(
                move |(condition, [negate, stop, enabled, first_match], filter)| {
                    let mut rule = Rule::new("r", 0);
                    rule.condition = condition;
                    rule.negate = negate;
                    rule.stop = stop;
                    rule.enabled = enabled;
                    rule.first_match = first_match && !nested.is_empty();
                    rule.filter = filter;
                    rule.rules = nested.clone();
                    rule
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        /// The index finds what comparing every pair finds.
        #[test]
        fn the_index_finds_what_every_pair_finds(
            rules in prop::collection::vec(
                prop::collection::vec(arb_rule(Vec::new()), 0..5)
                    .prop_flat_map(arb_rule),
                1..12,
            )
        ) {
            let mut set = RuleSet { rules, ..RuleSet::default() };
            for (i, rule) in set.rules.iter_mut().enumerate() {
                rule.name = format!("r{i}");
            }
            prop_assert_eq!(shadowed(&set), shadowed_pairwise(&set));
        }
    }

    /// A regex is compared as written: `\D` is not `\d` lower-cased.
    #[test]
    fn regexes_differing_in_case_are_not_the_same() {
        let h = health(
            "[[rules]]\nname='digits'\nmatch={field='path',regex='^/\\d+$'}\nstop=true\n\
             [[rules]]\nname='not digits'\nmatch={field='path',regex='^/\\D+$'}\n",
        );
        assert_eq!(h[1], None);
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
