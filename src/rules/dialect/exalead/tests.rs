use super::*;
use crate::rules::fuzz::XorShift;
use crate::rules::model::Flags;

fn parse_ok(text: &str) -> Parsed {
    match parse(text) {
        Ok(p) => p,
        Err(e) => panic!("parse failed at line {}: {}\n{text}", e.line, e.message),
    }
}

/// Parses `body` as the content of a single `<Rule>` and returns it.
fn one_rule(body: &str) -> Rule {
    let mut parsed = parse_ok(&format!("<Rules>\n<Rule>{body}</Rule>\n</Rules>"));
    assert_eq!(parsed.rules.rules.len(), 1, "{body}");
    parsed.rules.rules.remove(0)
}

fn test(field: Field, matcher: Matcher, case: Case) -> Condition {
    Condition::Test(Test {
        field,
        matcher,
        case,
    })
}

fn flags(fetch: Option<bool>, save: Option<bool>, follow: Option<bool>) -> Flags {
    Flags {
        fetch,
        save,
        follow,
    }
}

/// Seed 002, "Crawl Rule Actions": the index-and-follow example, verbatim
/// (including its `ar:` prefix, `litteral` spelling and line breaks).
#[test]
fn seed_002_action_example() {
    let text = r#"<Rules group="example" key="auto">
<Rule>
<ar:Atom litteral="true" value="http://www.example.com/"
norm="none" kind="prefix" field="url"/>
<Index/>
<Follow/>
<Accept/>
</Rule>
</Rules>"#;
    let parsed = parse_ok(text);
    assert!(parsed.notes.is_empty(), "{:?}", parsed.notes);
    let rules = &parsed.rules.rules;
    assert_eq!(rules.len(), 1);
    let rule = &rules[0];
    assert_eq!(rule.name, "rule 1");
    assert_eq!(rule.origin.line, 2);
    assert!(rule.enabled);
    assert_eq!(rule.action, None);
    assert_eq!(
        rule.condition,
        Some(test(
            Field::Url,
            Matcher::Prefix("http://www.example.com/".into()),
            Case::Sensitive
        ))
    );
    assert_eq!(rule.set, flags(Some(true), Some(true), Some(true)));
}

/// Seed 002, the shortcut table: every row, as the seed writes it.
#[test]
fn seed_002_shortcuts() {
    let i = Case::Insensitive;
    let cases = [
        (
            r#"<Domain val="foo.com" />"#,
            test(Field::Host, Matcher::Domain("foo.com".into()), i),
        ),
        (
            r#"<Path val="/cgi-bin" />"#,
            test(Field::Path, Matcher::Prefix("/cgi-bin".into()), i),
        ),
        (
            r#"<Ext val=".gif" />"#,
            test(Field::Path, Matcher::Suffix(".gif".into()), i),
        ),
        (
            r#"<Host val="www.wikipedia.org" />"#,
            test(Field::Host, Matcher::Exact("www.wikipedia.org".into()), i),
        ),
        (
            r#"<Url val="http://en.wikipedia.org/wiki" />"#,
            test(
                Field::Url,
                Matcher::Exact("http://en.wikipedia.org/wiki".into()),
                i,
            ),
        ),
        (
            r#"<Scheme val="http" />"#,
            test(Field::Scheme, Matcher::Exact("http".into()), i),
        ),
        (
            r#"<Query val="q=foo" />"#,
            test(Field::Query, Matcher::Exact("q=foo".into()), i),
        ),
        (
            r#"<InQuery val="q=foo" />"#,
            test(Field::Query, Matcher::Contains("q=foo".into()), i),
        ),
        (
            r#"<Length field="path" val="[30:]" />"#,
            test(
                Field::Path,
                Matcher::Range(Range {
                    lo: Some(30),
                    hi: None,
                }),
                i,
            ),
        ),
        // Length without a field measures the path; with one, that field.
        (
            r#"<Length val="[:10]" />"#,
            test(
                Field::Path,
                Matcher::Range(Range {
                    lo: None,
                    hi: Some(10),
                }),
                i,
            ),
        ),
        (
            r#"<Length field="query" val="[11:12]" />"#,
            test(
                Field::Query,
                Matcher::Range(Range {
                    lo: Some(11),
                    hi: Some(12),
                }),
                i,
            ),
        ),
        // The seed's own atom example, and `value` accepted on shortcuts.
        (
            r#"<Atom field="path" kind="prefix" norm="none" value="/watch" />"#,
            test(
                Field::Path,
                Matcher::Prefix("/watch".into()),
                Case::Sensitive,
            ),
        ),
        (
            r#"<ar:Path value="/a" norm="none"/>"#,
            test(Field::Path, Matcher::Prefix("/a".into()), Case::Sensitive),
        ),
        // The seed's own expansion of Domain, read back.
        (
            r#"<Or><Atom field="host" kind="suffix" value=".foo.com" /><Atom field="host" kind="exact" value="foo.com" /></Or>"#,
            Condition::Any(vec![
                test(Field::Host, Matcher::Suffix(".foo.com".into()), i),
                test(Field::Host, Matcher::Exact("foo.com".into()), i),
            ]),
        ),
    ];
    for (xml, expect) in cases {
        let rule = one_rule(xml);
        assert_eq!(rule.condition, Some(expect), "{xml}");
        assert!(rule.set.is_empty(), "{xml}");
    }
}

/// Seed 002: "the val attribute is a regular expression"; regex values
/// are anchored by their kind, plain ones become literal matchers.
#[test]
fn seed_002_regex_values_and_anchoring() {
    let i = Case::Insensitive;
    let cases = [
        (
            r#"<Atom field="path" kind="exact" value="/a+"/>"#,
            Matcher::Regex("^(?:/a+)$".into()),
        ),
        (
            r#"<Atom field="path" kind="prefix" value="/(a|b)"/>"#,
            Matcher::Regex("^(?:/(a|b))".into()),
        ),
        (
            r#"<Atom field="path" kind="suffix" value="\.(gif|png)"/>"#,
            Matcher::Regex(r"(?:\.(gif|png))$".into()),
        ),
        (
            r#"<Atom field="path" kind="inside" value="[0-9]+"/>"#,
            Matcher::Regex("[0-9]+".into()),
        ),
        (
            r#"<Domain val="(foo|bar)\.com"/>"#,
            Matcher::Regex(r"(?:^|\.)(?:(foo|bar)\.com)$".into()),
        ),
        (
            r#"<InQuery val="id=\d+"/>"#,
            Matcher::Regex(r"id=\d+".into()),
        ),
        // Escaped metacharacters only: the plain text it means.
        (
            r#"<Atom field="path" kind="suffix" value="\.gif"/>"#,
            Matcher::Suffix(".gif".into()),
        ),
        (
            r#"<Host val="www\.foo\.com"/>"#,
            Matcher::Exact("www.foo.com".into()),
        ),
        (
            r#"<Path val="/a\?b\\c"/>"#,
            Matcher::Prefix(r"/a?b\c".into()),
        ),
        // An escape alongside a bare dot: a regex after all.
        (
            r#"<Host val="a.b\.c"/>"#,
            Matcher::Regex(r"^(?:a.b\.c)$".into()),
        ),
        // litteral="true" takes metacharacters as themselves.
        (
            r#"<Atom field="query" kind="inside" litteral="true" value="a[1]"/>"#,
            Matcher::Contains("a[1]".into()),
        ),
        (
            r#"<Url literal="true" val="http://x/?q=(1)"/>"#,
            Matcher::Exact("http://x/?q=(1)".into()),
        ),
        (
            r#"<Atom field="url" kind="prefix" litteral="false" value="http://x/"/>"#,
            Matcher::Prefix("http://x/".into()),
        ),
    ];
    for (xml, expect) in cases {
        let rule = one_rule(xml);
        let Some(Condition::Test(t)) = rule.condition else {
            panic!("{xml}: not a test")
        };
        assert_eq!(t.matcher, expect, "{xml}");
        assert_eq!(t.case, i, "{xml}");
    }
}

/// Seed 002: norm none/norm/lower, and the default "case insensitive
/// match that corresponds to non".
#[test]
fn seed_002_norm_levels() {
    let cases = [
        ("none", Case::Sensitive),
        ("norm", Case::Insensitive),
        ("lower", Case::Insensitive),
        ("non", Case::Insensitive),
    ];
    for (norm, expect) in cases {
        let rule = one_rule(&format!(r#"<Host norm="{norm}" val="a.com"/>"#));
        let Some(Condition::Test(t)) = rule.condition else {
            panic!("{norm}: not a test")
        };
        assert_eq!(t.case, expect, "norm={norm}");
    }
}

/// Seed 002, the action table: every row, flags as individual settings.
#[test]
fn seed_002_action_table() {
    let (t, f, n) = (Some(true), Some(false), None);
    // (row, xml, fetch/save/follow)
    let cases = [
        (
            "Index and follow",
            "<Index/><Follow/><Accept/>",
            flags(t, t, t),
        ),
        (
            "Index and don't follow",
            "<Index/><NoFollow/><Accept/>",
            flags(t, t, f),
        ),
        (
            "Follow but don't index",
            "<NoIndex/><Follow/><Accept/>",
            flags(t, f, t),
        ),
        ("Index", "<Index/><Accept/>", flags(t, t, n)),
        ("Follow", "<Follow/><Accept/>", flags(t, n, t)),
        ("Don't index", "<NoIndex/>", flags(n, f, n)),
        ("Don't follow", "<NoFollow/>", flags(n, n, f)),
        ("Ignore", "<NoIndex/><NoFollow/><Ignore/>", flags(f, f, f)),
        ("Source", r#"<Source name="intranet"/>"#, flags(n, n, n)),
        (
            "Add meta",
            r#"<AddMeta value="v1" name="team"/>"#,
            flags(n, n, n),
        ),
        ("Priority", r#"<Priority shift="-2"/>"#, flags(n, n, n)),
    ];
    for (row, xml, expect) in cases {
        let rule = one_rule(&format!(r#"<Host val="a.com"/>{xml}"#));
        assert_eq!(rule.set, expect, "{row}");
        assert_eq!(rule.action, None, "{row}: presets are never used");
    }
    assert_eq!(
        one_rule(r#"<Source name="intranet"/>"#).source.as_deref(),
        Some("intranet")
    );
    assert_eq!(
        one_rule(r#"<AddMeta value="v1" name="team"/><AddMeta name="k" value="a &amp; b"/>"#).meta,
        vec![
            ("team".to_string(), "v1".to_string()),
            ("k".to_string(), "a & b".to_string())
        ]
    );
    let shifts = [
        ("-2", Priority::Highest),
        ("-1", Priority::High),
        ("0", Priority::Normal),
        ("1", Priority::Low),
        ("+1", Priority::Low),
        ("2", Priority::Lowest),
    ];
    for (shift, expect) in shifts {
        let rule = one_rule(&format!(r#"<Priority shift="{shift}"/>"#));
        assert_eq!(rule.priority, Some(expect), "shift {shift}");
    }
}

/// Seed 002: And, Or, Not nest to any depth; several conditions in one
/// rule must all hold; a rule with only actions always holds.
#[test]
fn seed_002_boolean_nesting() {
    let i = Case::Insensitive;
    let host = |v: &str| test(Field::Host, Matcher::Exact(v.into()), i);
    let path = |v: &str| test(Field::Path, Matcher::Prefix(v.into()), i);
    let cases = [
        (
            r#"<And><Host val="a.com"/><Not><Path val="/private"/></Not></And>"#,
            Some(Condition::All(vec![
                host("a.com"),
                Condition::Not(Box::new(path("/private"))),
            ])),
        ),
        (
            r#"<Or><And><Host val="a.com"/><Path val="/x"/></And><Not><Or><Host val="b.com"/></Or></Not></Or>"#,
            Some(Condition::Any(vec![
                Condition::All(vec![host("a.com"), path("/x")]),
                Condition::Not(Box::new(Condition::Any(vec![host("b.com")]))),
            ])),
        ),
        (
            r#"<exa:Host val="a.com"/><Index/><Path val="/x"/>"#,
            Some(Condition::All(vec![host("a.com"), path("/x")])),
        ),
        ("<Index/>", None),
        ("", None),
    ];
    for (xml, expect) in cases {
        assert_eq!(one_rule(xml).condition, expect, "{xml}");
    }
}

/// Seed 002 notes that CrawlConfig.xml holds the rules: a wrapper, the
/// XML declaration, comments, prefixes, names, groups and nested rules.
#[test]
fn seed_002_wrapper_groups_names_and_nesting() {
    let text = r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- crawl configuration -->
<exa:CrawlConfig xmlns:exa="exa:com.exalead.actionrules.v21">
  <Crawler name="c">
    <exa:Rules group="g" key="k">
      <exa:Rule name="site">
        <exa:Domain val="example.com"/>
        <exa:Accept/>
        <exa:Rule>
          <exa:Path val="/private"/>
          <exa:Ignore/>
        </exa:Rule>
      </exa:Rule>
      <Rules key="inner">
        <Rule><Ext val=".pdf"/><NoIndex/></Rule>
      </Rules>
      <Rule/>
    </exa:Rules>
  </Crawler>
</exa:CrawlConfig>
"#;
    let parsed = parse_ok(text);
    let rules = &parsed.rules.rules;
    let summary: Vec<(&str, usize, usize)> = rules
        .iter()
        .map(|r| (r.name.as_str(), r.origin.line, r.rules.len()))
        .collect();
    assert_eq!(
        summary,
        vec![("site", 6, 1), ("rule 2", 15, 0), ("rule 3", 17, 0)]
    );
    let nested = &rules[0].rules[0];
    assert_eq!((nested.name.as_str(), nested.origin.line), ("rule 1.1", 9));
    assert_eq!(nested.set, flags(Some(false), None, None));
    assert_eq!(rules[2].condition, None);
    assert!(parsed.notes.is_empty(), "{:?}", parsed.notes);

    // A bare <Rule> root and an empty <Rules/> are both fine.
    assert_eq!(parse_ok("<Rule><Index/></Rule>").rules.rules.len(), 1);
    // Two roots are not one XML file.
    for (two, line) in [
        ("<Rules/>\n<Rules><Rule><Index/></Rule></Rules>", 2),
        ("<Rules>\n</Rules>\n<Rule/>", 3),
    ] {
        let e = parse(two).expect_err(two);
        assert_eq!(e.line, line, "{two}");
        assert!(e.message.contains("a second root element"), "{}", e.message);
    }
    assert!(
        parse_ok("<?xml version=\"1.0\"?>\n<Rules/>")
            .rules
            .rules
            .is_empty()
    );
}

/// Seed 002 documents attributes it uses; anything else is kept visible
/// as a note rather than dropped silently.
#[test]
fn seed_002_unknown_attributes_and_text_are_noted() {
    let parsed = parse_ok(
        "<Rules>\n<Rule key=\"x\">\n<Host val=\"a\" weight=\"3\"/>\nstray\n</Rule>\n</Rules>",
    );
    let notes: Vec<(usize, &str)> = parsed
        .notes
        .iter()
        .map(|n| (n.line, n.message.as_str()))
        .collect();
    assert_eq!(
        notes,
        vec![
            (2, "attribute `key` on <Rule> is not used and was ignored"),
            (
                3,
                "attribute `weight` on <Host> is not used and was ignored"
            ),
            (4, "text inside <Rule> is not used and was ignored"),
        ]
    );
}

/// Seed 002 files with mistakes: each error names the line.
#[test]
fn seed_002_errors_name_the_line() {
    let cases = [
        ("<Rules>\n<Rule>\n<Bogus/>\n</Rule>\n</Rules>", 3, "Bogus"),
        (
            "<Rules>\n<Rule>\n<ar:Bogus/>\n</Rule>\n</Rules>",
            3,
            "ar:Bogus",
        ),
        ("<Rules>\n<Bogus/>\n</Rules>", 2, "Bogus"),
        (
            "<Rules>\n<Rule>\n<And>\n<Index/>\n</And>\n</Rule>\n</Rules>",
            4,
            "Index",
        ),
        (
            "<Rules>\n<Rule>\n<Atom field=\"fragment\" kind=\"exact\" value=\"x\"/>\n</Rule></Rules>",
            3,
            "fragment",
        ),
        (
            "<Rules>\n<Rule>\n<Atom field=\"url\" kind=\"around\" value=\"x\"/>\n</Rule></Rules>",
            3,
            "around",
        ),
        (
            "<Rules>\n<Rule>\n<Atom field=\"url\" kind=\"exact\"/>\n</Rule></Rules>",
            3,
            "val",
        ),
        (
            "<Rules>\n<Rule>\n<Atom kind=\"exact\" value=\"x\"/>\n</Rule></Rules>",
            3,
            "field",
        ),
        (
            "<Rules>\n<Rule>\n<Host norm=\"upper\" val=\"x\"/>\n</Rule></Rules>",
            3,
            "upper",
        ),
        (
            "<Rules>\n<Rule>\n<Host litteral=\"maybe\" val=\"x\"/>\n</Rule></Rules>",
            3,
            "maybe",
        ),
        (
            "<Rules>\n<Rule>\n\n<Length val=\"[a:b]\"/>\n</Rule></Rules>",
            4,
            "[a:b]",
        ),
        (
            "<Rules>\n<Rule>\n<Atom field=\"path\" kind=\"length\" value=\"[9:2]\"/>\n</Rule></Rules>",
            3,
            "9",
        ),
        (
            "<Rules>\n<Rule>\n<Priority shift=\"5\"/>\n</Rule></Rules>",
            3,
            "shift",
        ),
        (
            "<Rules>\n<Rule>\n<Priority shift=\"high\"/>\n</Rule></Rules>",
            3,
            "high",
        ),
        ("<Rules>\n<Rule>\n<Priority/>\n</Rule></Rules>", 3, "shift"),
        ("<Rules>\n<Rule>\n<Source/>\n</Rule></Rules>", 3, "name"),
        (
            "<Rules>\n<Rule>\n<AddMeta name=\"a\"/>\n</Rule></Rules>",
            3,
            "value",
        ),
        (
            "<Rules>\n<Rule>\n<Not>\n<Host val=\"a\"/><Host val=\"b\"/></Not>\n</Rule></Rules>",
            3,
            "exactly one",
        ),
        ("<Rules>\n<Rule>\n<Not/>\n</Rule></Rules>", 3, "exactly one"),
        (
            "<Rules>\n<Rule>\n<Index>\n<Follow/></Index>\n</Rule></Rules>",
            4,
            "Follow",
        ),
        // Malformed XML: the line where the parser stopped.
        ("<Rules>\n<Rule>\n</Rules>", 3, "malformed XML"),
        (
            "<Rules>\n<Rule>\n</Rule>\n</Rule>\n</Rules>",
            4,
            "malformed XML",
        ),
        ("<Rules>\n<Rule>\n<Index/>\n", 3, "<Rule>"),
        ("<Rules>\n<Rule>\n<Host val=\"a", 3, "malformed XML"),
        ("<Rules>\n<Rule name=x>\n</Rule>\n</Rules>", 2, "attribute"),
        ("<Rules>\n<Rule\n\n name=x>\n</Rule>\n</Rules>", 4, "quotes"),
        (
            "<Rules>\n<Rule>\n<Host val=\"a\" val=\"b\"/>\n</Rule>\n</Rules>",
            3,
            "twice",
        ),
        (
            "<Rules>\n<Rule>\n<Host\n val=\"&bogus;\"/>\n</Rule>\n</Rules>",
            3,
            "bogus",
        ),
        (
            "<Rules><Rule>\n<Url val=\"/?a=1&b=2\"/>\n</Rule></Rules>",
            2,
            "&amp;",
        ),
        // Nothing to read.
        ("", 1, "no <Rules>"),
        // The file as a whole: its first line, not the empty one after
        // its last newline.
        (
            "<CrawlConfig>\n<Crawler/>\n</CrawlConfig>\n",
            1,
            "no <Rules>",
        ),
        // Cut short: the last line that holds anything.
        ("<Rules>\n<Rule>\n\n", 2, "ends before <Rule>"),
        ("just text", 1, "no <Rules>"),
    ];
    for (text, line, needle) in cases {
        match parse(text) {
            Ok(p) => panic!("expected an error for {text:?}, got {p:?}"),
            Err(e) => {
                assert_eq!(e.line, line, "{text:?}: {}", e.message);
                assert!(
                    e.message.contains(needle),
                    "{text:?}: `{}` lacks `{needle}`",
                    e.message
                );
            }
        }
    }
}

/// Seed 002 importer on hostile input: deep nesting is refused, not a
/// stack overflow.
#[test]
fn seed_002_deep_nesting_is_an_error() {
    let deep = format!("<Rules><Rule>{}", "<Not>".repeat(10_000));
    let err = parse(&deep).err().map(|e| e.message).unwrap_or_default();
    assert!(err.contains("nested"), "{err}");
    let deep_ok = format!(
        "<Rules><Rule>{}<Host val=\"a\"/>{}</Rule></Rules>",
        "<Not>".repeat(100),
        "</Not>".repeat(100)
    );
    assert!(parse(&deep_ok).is_ok());
}

const VALID: &str = r#"<?xml version="1.0"?>
<!-- seed 002 -->
<Rules group="example" key="auto">
  <Rule name="a">
    <ar:Atom litteral="true" value="http://www.example.com/" norm="none" kind="prefix" field="url"/>
    <Index/><Follow/><Accept/>
  </Rule>
  <Rule>
    <Or><Domain val="foo.com"/><Not><Path val="/cgi-bin"/></Not><Length field="path" val="[30:]"/></Or>
    <NoIndex/><NoFollow/><Ignore/><Source name="s"/><AddMeta name="n" value="v"/><Priority shift="-1"/>
    <Rule><InQuery val="q=(foo|bar)"/><Index/></Rule>
  </Rule>
</Rules>
"#;

/// Seed 002 importer never panics: random bytes, random XML-ish
/// tokens, every truncation and random mutations of a valid file.
#[test]
fn seed_002_no_panic_on_any_input() {
    assert_eq!(parse_ok(VALID).rules.rules.len(), 2);
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for _ in 0..3000 {
        let len = rng.below(200);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let _ = parse(&String::from_utf8_lossy(&bytes));
    }
    let tokens = [
        "<",
        ">",
        "/",
        "/>",
        "</",
        "=",
        "\"",
        "'",
        " ",
        "\n",
        "&",
        ";",
        "&amp;",
        "<!--",
        "-->",
        "<?xml ?>",
        "<![CDATA[",
        "]]>",
        "Rules",
        "Rule",
        "Atom",
        "And",
        "Or",
        "Not",
        "Domain",
        "Length",
        "Priority",
        "AddMeta",
        "ar:",
        "field",
        "kind",
        "value",
        "val",
        "shift",
        "norm",
        "url",
        "length",
        "[1:",
        "]",
        "-2",
        "\\",
        "(",
        "|",
        "x",
    ];
    for _ in 0..3000 {
        let n = rng.below(60);
        let text: String = (0..n).map(|_| tokens[rng.below(tokens.len())]).collect();
        let _ = parse(&text);
    }
    for end in 0..=VALID.len() {
        if VALID.is_char_boundary(end) {
            let _ = parse(&VALID[..end]);
        }
    }
    let mut bytes = VALID.as_bytes().to_vec();
    for _ in 0..3000 {
        let mut mutated = bytes.clone();
        for _ in 0..=rng.below(4) {
            let at = rng.below(mutated.len());
            match rng.below(3) {
                0 => mutated[at] = rng.next() as u8,
                1 => {
                    mutated.remove(at);
                }
                _ => mutated.insert(at, b"<>/\"=&:"[rng.below(7)]),
            }
        }
        let _ = parse(&String::from_utf8_lossy(&mutated));
        // Drift sometimes, so that mutations pile up.
        if rng.below(10) == 0 && !mutated.is_empty() {
            bytes = mutated;
        }
    }
}

/// A URL written as text is compared with normalized URLs, so it is
/// written normalized: lower-case scheme and host, no default port, and a
/// whole URL with no path gets its `/` (the path keeps its case).
#[test]
fn url_values_are_written_normalized() {
    let s = Case::Sensitive;
    let cases = [
        (
            r#"<ar:Atom litteral="true" value="HTTP://WWW.Example.com/Docs" norm="none" kind="prefix" field="url"/>"#,
            Matcher::Prefix("http://www.example.com/Docs".into()),
        ),
        (
            r#"<Url val="http://example.com" norm="none"/>"#,
            Matcher::Exact("http://example.com/".into()),
        ),
        (
            r#"<Url val="http://example.com:80/b" norm="none"/>"#,
            Matcher::Exact("http://example.com/b".into()),
        ),
    ];
    for (atom, want) in cases {
        let rule = one_rule(&format!("{atom}<Index/>"));
        assert_eq!(rule.condition, Some(test(Field::Url, want, s)), "{atom}");
    }
}

/// Text outside the root element is a file cut or pasted together: an
/// error naming its line. An empty `<Or>` or `<And>` is taken as XML
/// has it, with a note saying what it does.
#[test]
fn stray_text_is_an_error_and_empty_groups_are_noted() {
    let err = parse("<Rules>\n<Rule><Path val=\"/a\"/><Index/></Rule>\n</Rules>\ntrailing junk\n")
        .expect_err("text after the root");
    assert_eq!(err.line, 4, "{err:?}");
    assert!(
        err.message
            .contains("text after the root element <Rules> (line 1)"),
        "{err:?}"
    );

    let parsed = parse_ok(
        "<Rules>\n<Rule><Or/><Index/></Rule>\n<Rule><And></And><Index/></Rule>\n</Rules>\n",
    );
    let notes: Vec<(usize, &str)> = parsed
        .notes
        .iter()
        .map(|n| (n.line, n.message.as_str()))
        .collect();
    assert_eq!(
        notes,
        [
            (2, "<Or> holds no condition, so it never holds"),
            (3, "<And> holds no condition, so it always holds")
        ]
    );
}
