use proptest::prelude::*;

use super::*;
use crate::rules::dialect::native::{self, SPEC_EXAMPLE};
use crate::rules::model::{
    Action, Cidr, Disposition, Field, Filter, Flags, Origin, Priority, Range, text_matchers,
};

/// Source lines are not part of the printed rules (they become
/// comments), so comparisons leave them out.
fn without_lines(set: RuleSet) -> RuleSet {
    set.without_lines()
}

/// Prints `set`, reads it back and returns the text, failing with the
/// text when it does not parse or comes back different.
fn assert_round_trip(set: &RuleSet) -> String {
    let text = to_toml(set, "round trip");
    let back = match native::parse(&text) {
        Ok(parsed) => parsed.rules,
        Err(e) => panic!("output does not parse: {e:?}\n{text}"),
    };
    assert_eq!(without_lines(back), without_lines(set.clone()), "\n{text}");
    text
}

fn test(field: Field, matcher: Matcher, case: Case) -> Condition {
    Condition::Test(Test {
        field,
        matcher,
        case,
    })
}

#[test]
fn spec_example_round_trips() {
    let Ok(parsed) = native::parse(SPEC_EXAMPLE) else {
        panic!("the SPEC example must parse")
    };
    let text = assert_round_trip(&parsed.rules);
    // The SPEC's own spelling of the two interesting values survives.
    assert!(text.contains(r#"match = { field = "path", regex = '\.(png|gif|jpe?g)$' }"#));
    assert!(text.contains(r#"set = { fetch = true, follow = true }"#));
    assert!(
        text.contains("\n  # line 47\n  [[rules.rules]]\n  name = \"no private area\"\n"),
        "{text}"
    );
}

/// The exact layout, so that a change to it is a visible decision.
#[test]
fn layout_follows_the_spec_example() {
    let mut parent = Rule::new("intranet only", 12);
    parent.condition = Some(test(
        Field::Host,
        Matcher::Wildcard("*.corp.example".into()),
        Case::Insensitive,
    ));
    parent.set = Flags {
        fetch: Some(true),
        save: None,
        follow: Some(true),
    };
    parent.first_match = true;
    let mut child = Rule::new("no private area", 13);
    child.condition = Some(test(
        Field::Path,
        Matcher::Prefix("/private/".into()),
        Case::Sensitive,
    ));
    child.filter = Some(Filter::MayNotHave);
    parent.rules.push(child);
    let mut last = Rule::new("built in", 0);
    last.enabled = false;
    last.condition = Some(Condition::All(vec![
        test(
            Field::Host,
            Matcher::Domain("a-rather-long-host-name.example.com".into()),
            Case::Insensitive,
        ),
        test(
            Field::Path,
            Matcher::Suffix("/and-a-long-path/logo.png".into()),
            Case::Sensitive,
        ),
    ]));
    last.action = Some(Action::Download);
    let set = RuleSet {
        disposition: Disposition::DisallowLog,
        rules: vec![parent, last],
    };
    let expected = r#"# imported from rules.txt (wca)
# second line

[crawl]
disposition = "disallow-log"

# line 12
[[rules]]
name = "intranet only"
match = { field = "host", wildcard = '*.corp.example' }
set = { fetch = true, follow = true }
first_match = true

  # line 13
  [[rules.rules]]
  name = "no private area"
  match = { field = "path", prefix = "/private/", case = "sensitive" }
  filter = "may-not-have"

[[rules]]
name = "built in"
enabled = false
match = { all = [ { field = "host", domain = "a-rather-long-host-name.example.com" },
                  { field = "path", suffix = "/and-a-long-path/logo.png", case = "sensitive" } ] }
action = "download"
"#;
    assert_eq!(
        to_toml(&set, "imported from rules.txt (wca)\nsecond line"),
        expected
    );
    assert_round_trip(&set);
}

/// Every matcher, case, field, combinator, action, flag, priority,
/// filter and rule key, with awkward strings everywhere.
#[test]
fn every_part_of_the_model_round_trips() {
    let awkward = [
        "plain",
        "it's \"quoted\"",
        r"C:\dir\file \d+",
        "two\nlines",
        "tab\there",
        "unicode é 日本 🦀 \u{202e}",
        "controls \u{0} \u{1} \u{8} \u{c} \u{1b} \r \u{7f} \u{85} \u{9f}",
        "",
        "'",
        "\\",
        "]] [[rules]] # not a table",
    ];
    let mut tests = Vec::new();
    for (i, s) in awkward.iter().enumerate() {
        let case = if i % 2 == 0 {
            Case::Sensitive
        } else {
            Case::Insensitive
        };
        for matcher in text_matchers(s) {
            tests.push(test(Field::Path, matcher, case));
        }
    }
    for field in Field::ALL {
        for case in [Case::Insensitive, Case::Sensitive] {
            tests.push(test(field, Matcher::Exact(field.name().into()), case));
        }
    }
    for cidr in [
        "9.0.0.0/8",
        "10.0.0.0 255.0.255.0",
        "0.0.0.0/0",
        "192.168.1.7",
        "2001:db8::/32",
        ":: ::",
        "2001:db8::1 ffff:0:ffff::",
        "::ffff:1.2.3.4/128",
    ] {
        let Ok(c) = cidr.parse::<Cidr>() else {
            panic!("{cidr}")
        };
        tests.push(test(Field::Address, Matcher::Cidr(c), Case::Insensitive));
        tests.push(test(Field::Address, Matcher::Cidr(c), Case::Sensitive));
    }
    for (lo, hi) in [
        (Some(1), Some(3)),
        (None, Some(10)),
        (Some(30), None),
        (None, None),
        (Some(7), Some(7)),
        (Some(u64::MAX), None),
    ] {
        tests.push(test(
            Field::PathDepth,
            Matcher::Range(Range { lo, hi }),
            Case::Insensitive,
        ));
    }

    // all/any/not nested three deep, plus the empty lists.
    let deep = Condition::All(vec![
        Condition::Any(vec![
            Condition::Not(Box::new(Condition::All(vec![
                tests[0].clone(),
                Condition::Not(Box::new(tests[3].clone())),
            ]))),
            tests[1].clone(),
        ]),
        Condition::Not(Box::new(Condition::Any(vec![tests[2].clone()]))),
        Condition::All(vec![]),
        Condition::Any(vec![]),
    ]);

    let mut rules = Vec::new();
    for (i, t) in tests.iter().enumerate() {
        let mut rule = Rule::new(awkward[i % awkward.len()], i + 1);
        rule.condition = Some(t.clone());
        rules.push(rule);
    }
    for (i, action) in Action::ALL.into_iter().enumerate() {
        let mut rule = Rule::new(format!("action {}", action.name()), 0);
        rule.action = Some(action);
        rule.priority = Some(Priority::ALL[i]);
        rule.log = Some(i % 2 == 0);
        rule.negate = i % 2 == 1;
        rules.push(rule);
    }
    let mut rule = Rule::new("lowest", 0);
    rule.priority = Some(Priority::Lowest);
    rule.filter = Some(Filter::MustHave);
    rule.stop = true;
    rule.condition = Some(deep);
    rules.push(rule);
    for fetch in [None, Some(true), Some(false)] {
        for save in [None, Some(true), Some(false)] {
            for follow in [None, Some(true), Some(false)] {
                let mut rule = Rule::new("flags", 0);
                rule.set = Flags {
                    fetch,
                    save,
                    follow,
                };
                rules.push(rule);
            }
        }
    }
    let meta_of = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    };
    for meta in [
        meta_of(&[("a", "1"), ("b-c_d", "2"), ("with space", "x\ny")]),
        meta_of(&[("n", "1"), ("n", "2")]),
        meta_of(&[("z", "last"), ("a", "first")]),
        meta_of(&[("", "empty name"), ("a.b", "dotted"), ("é", "\"")]),
        meta_of(&[("it's", "'"), ("\n", "\t")]),
    ] {
        let mut rule = Rule::new("meta", 0);
        rule.meta = meta;
        rule.source = Some("src \"1\"".into());
        rules.push(rule);
    }
    let mut rule = Rule::new("empty source, disabled, negated", 0);
    rule.source = Some(String::new());
    rule.enabled = false;
    rule.negate = true;
    rule.filter = Some(Filter::MayNotHave);
    rules.push(rule);

    // first_match blocks nested two deep, with siblings after each block.
    let mut inner = Rule::new("inner block", 90);
    inner.first_match = true;
    inner.condition = Some(tests[5].clone());
    inner.rules = vec![Rule::new("inner 1", 91), Rule::new("inner 2", 92)];
    let mut outer = Rule::new("outer block", 89);
    outer.first_match = true;
    outer.rules = vec![inner, Rule::new("after inner", 93)];
    outer.action = Some(Action::ExcludeScan);
    rules.push(outer);
    let mut plain_parent = Rule::new("parent without first_match", 94);
    plain_parent.rules = vec![Rule::new("only child", 95)];
    rules.push(plain_parent);
    rules.push(Rule::new("after everything", 96));

    for disposition in [
        Disposition::Allow,
        Disposition::Disallow,
        Disposition::DisallowLog,
    ] {
        let set = RuleSet {
            disposition,
            rules: rules.clone(),
        };
        let text = assert_round_trip(&set);
        assert!(text.contains("    [[rules.rules.rules]]\n"), "{text}");
    }
}

#[test]
fn strings_are_readable() {
    assert_eq!(pattern(r"\.html$"), r"'\.html$'");
    assert_eq!(pattern("it's"), r#""it's""#);
    assert_eq!(pattern("a\tb"), r#""a\tb""#);
    assert_eq!(basic("a\"b\\c\nd\u{1}"), r#""a\"b\\c\nd\u0001""#);
    // Invisible characters are written as escapes too, so that a name
    // typed with U+202E does not read backwards, unseen, in an editor.
    assert_eq!(basic("\u{202e}gnp.exe"), r#""\u202Egnp.exe""#);
    assert_eq!(basic("x\u{e0041}"), r#""x\U000E0041""#);
    assert_eq!(pattern("/\u{200b}a"), r#""/\u200Ba""#);
    let mut set = RuleSet::default();
    let mut rule = Rule::new("\u{202e}gnp.exe \u{e0041}", 0);
    rule.condition = Some(test(
        Field::Path,
        Matcher::Prefix("/\u{200b}".into()),
        Case::Insensitive,
    ));
    set.rules.push(rule);
    let text = assert_round_trip(&set);
    assert!(!text.chars().any(crate::rules::is_invisible), "{text}");
    assert_eq!(key_text("Content-Type_2"), "Content-Type_2");
    assert_eq!(key_text("a.b"), r#""a.b""#);
    assert_eq!(key_text(""), r#""""#);
}

#[test]
fn header_and_oddities_still_parse() {
    let mut rule = Rule::new("lonely first_match", 3);
    rule.first_match = true;
    let set = RuleSet {
        disposition: Disposition::Allow,
        rules: vec![rule],
    };
    let text = to_toml(&set, "bad \u{0} header\r\n\nline\u{7f}\r");
    let Ok(parsed) = native::parse(&text) else {
        panic!("{text}")
    };
    // A first_match without nested rules has no effect and is dropped.
    assert!(!parsed.rules.rules[0].first_match);
    assert!(text.starts_with("# bad \\u{0} header\n#\n# line\\u{7F}\\u{D}\n"));
    let empty = to_toml(&RuleSet::default(), "");
    assert_eq!(empty, "[crawl]\ndisposition = \"allow\"\n");
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::collection::vec(any::<char>(), 0..10).prop_map(String::from_iter),
        "[a-z'\\\\\"\\.\\*\\n\\t ]{0,6}",
    ]
}

fn cidr() -> impl Strategy<Value = Cidr> {
    prop_oneof![
        (any::<u32>(), 0u32..=32).prop_map(|(addr, bits)| Cidr::V4 {
            addr,
            mask: u32::MAX.checked_shl(32 - bits).unwrap_or(0),
        }),
        (any::<u32>(), any::<u32>()).prop_map(|(addr, mask)| Cidr::V4 { addr, mask }),
        (any::<u128>(), 0u32..=128).prop_map(|(addr, bits)| Cidr::V6 {
            addr,
            mask: u128::MAX.checked_shl(128 - bits).unwrap_or(0),
        }),
        (any::<u128>(), any::<u128>()).prop_map(|(addr, mask)| Cidr::V6 { addr, mask }),
    ]
}

fn range() -> impl Strategy<Value = Range> {
    (any::<Option<u64>>(), any::<Option<u64>>()).prop_map(|(a, b)| match (a, b) {
        (Some(a), Some(b)) => Range {
            lo: Some(a.min(b)),
            hi: Some(a.max(b)),
        },
        (lo, hi) => Range { lo, hi },
    })
}

/// Tests the native parser accepts: the `address` field takes only
/// `cidr`, `exact` and `regex`, and `cidr` only tests `address`.
fn leaf() -> impl Strategy<Value = Condition> {
    let case = prop_oneof![Just(Case::Insensitive), Just(Case::Sensitive)];
    let other_field = proptest::sample::select(
        Field::ALL
            .into_iter()
            .filter(|f| *f != Field::Address)
            .collect::<Vec<_>>(),
    );
    let other = (
        other_field,
        prop_oneof![
            text().prop_map(Matcher::Regex),
            text().prop_map(Matcher::Exact),
            text().prop_map(Matcher::Prefix),
            text().prop_map(Matcher::Suffix),
            text().prop_map(Matcher::Contains),
            text().prop_map(Matcher::Wildcard),
            text().prop_map(Matcher::Domain),
            range().prop_map(Matcher::Range),
        ],
    );
    let address = (
        Just(Field::Address),
        prop_oneof![
            cidr().prop_map(Matcher::Cidr),
            text().prop_map(Matcher::Exact),
            text().prop_map(Matcher::Regex),
        ],
    );
    (prop_oneof![3 => other, 1 => address], case).prop_map(|((field, matcher), case)| {
        Condition::Test(Test {
            field,
            matcher,
            case,
        })
    })
}

fn condition() -> impl Strategy<Value = Condition> {
    leaf().prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(Condition::All),
            proptest::collection::vec(inner.clone(), 0..3).prop_map(Condition::Any),
            inner.prop_map(|c| Condition::Not(Box::new(c))),
        ]
    })
}

/// Meta names come mostly from a small set so that repeats are common.
fn meta() -> impl Strategy<Value = Vec<(String, String)>> {
    let name = prop_oneof![
        proptest::sample::select(vec!["a", "b", "x-y", "a.b", ""]).prop_map(String::from),
        text(),
    ];
    proptest::collection::vec((name, text()), 0..4)
}

/// A rule without nested rules.
fn single_rule() -> impl Strategy<Value = Rule> {
    let action = proptest::option::of(proptest::sample::select(Action::ALL.to_vec()));
    let priority = proptest::option::of(proptest::sample::select(Priority::ALL.to_vec()));
    let filter = proptest::option::of(prop_oneof![
        Just(Filter::MustHave),
        Just(Filter::MayNotHave)
    ]);
    let flags =
        any::<(Option<bool>, Option<bool>, Option<bool>)>().prop_map(|(fetch, save, follow)| {
            Flags {
                fetch,
                save,
                follow,
            }
        });
    (
        (text(), any::<bool>(), proptest::option::of(condition())),
        (any::<bool>(), action, flags, priority),
        (any::<Option<bool>>(), filter, any::<bool>()),
        (meta(), proptest::option::of(text()), 0usize..1000),
    )
        .prop_map(
            |(
                (name, enabled, condition),
                (negate, action, set, priority),
                (log, filter, stop),
                (meta, source, line),
            )| Rule {
                name,
                enabled,
                condition,
                negate,
                action,
                set,
                priority,
                log,
                filter,
                stop,
                meta,
                source,
                rules: Vec::new(),
                first_match: false,
                origin: Origin { line },
            },
        )
}

fn rule_set() -> impl Strategy<Value = RuleSet> {
    let rule = single_rule().prop_recursive(3, 16, 3, |inner| {
        (
            single_rule(),
            proptest::collection::vec(inner, 0..3),
            any::<bool>(),
        )
            .prop_map(|(mut rule, rules, first_match)| {
                // The parser only accepts first_match with something to choose among.
                rule.first_match = first_match && !rules.is_empty();
                rule.rules = rules;
                rule
            })
    });
    let disposition = prop_oneof![
        Just(Disposition::Allow),
        Just(Disposition::Disallow),
        Just(Disposition::DisallowLog)
    ];
    (disposition, proptest::collection::vec(rule, 0..4))
        .prop_map(|(disposition, rules)| RuleSet { disposition, rules })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// A condition as the console's rule form shows it, on one line,
    /// reads back as itself.
    #[test]
    fn random_conditions_read_back_from_their_line(condition in condition()) {
        let text = super::condition_text(&condition);
        prop_assert!(!text.contains('\n'), "{}", text);
        prop_assert_eq!(native::parse_condition(&text), Ok(condition), "\n{}", text);
    }

    #[test]
    fn random_rule_sets_round_trip(set in rule_set(), header in text()) {
        let text = to_toml(&set, &header);
        let back = native::parse(&text);
        prop_assert!(back.is_ok(), "{:?}\n{}", back.err(), text);
        if let Ok(back) = back {
            prop_assert_eq!(without_lines(back.rules), without_lines(set), "\n{}", text);
        }
    }
}
