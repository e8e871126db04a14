use super::*;
use crate::rules::fuzz::XorShift;
use crate::rules::model::{Cidr, Condition, Range, Rule, text_matchers};

fn test(field: Field, matcher: Matcher, case: Case) -> Test {
    Test {
        field,
        matcher,
        case,
    }
}

fn kinds(t: &Test) -> Vec<LintKind> {
    lint_test(t).into_iter().map(|(kind, _)| kind).collect()
}

#[test]
fn regex_cases() {
    use Field::*;
    use LintKind::*;
    let cases: &[(&str, Field, Option<LintKind>)] = &[
        // Seed 000: the two escaping warnings, and their fixed forms.
        ("application/epub+zip", ContentType, Some(UnescapedPlus)),
        (r"application/epub\+zip", ContentType, None),
        ("image/svg+xml", ContentType, Some(UnescapedPlus)),
        ("^application/epub+zip$", ContentType, Some(UnescapedPlus)),
        ("example.com", Host, Some(UnescapedDot)),
        (r"example\.com", Host, None),
        ("www.ibm.com", Url, Some(UnescapedDot)),
        (r"\.anu.edu\.au", Url, Some(UnescapedDot)),
        ("(www.)?", Host, None),
        ("a.?b", Url, None),
        ("foo.+bar", Url, None),
        ("foo.*bar", Url, None),
        ("[.]com", Url, None),
        ("[].]com", Url, None),
        (r"[\].]com", Url, None),
        (".com", Url, None),
        ("com.", Url, None),
        (r".*\.pdf$", Path, None),
        (r"[a-z]+\.html", Path, None),
        (r"\w+/\w+", ContentType, None),
        ("a+", Url, None),
        ("ab+c", Url, None),
        ("^text/html+", ContentType, None),
        // Anchors against the field's shape.
        ("^http", Path, Some(ImpossibleAnchor)),
        ("^http", Url, None),
        ("^/folder", Path, None),
        ("^folder", Path, Some(ImpossibleAnchor)),
        ("^www", Url, Some(ImpossibleAnchor)),
        ("^/", Url, Some(ImpossibleAnchor)),
        (r"^example\.com", Url, Some(ImpossibleAnchor)),
        (r"^https?://www\.", Url, None),
        ("^(?:file|ftp|mailto):", Url, None),
        ("^http:www", Url, Some(ImpossibleAnchor)),
        ("^HTTP", Url, None),
        ("^(/a|b)", Path, None),
        ("^(a|b)", Path, Some(ImpossibleAnchor)),
        ("(?m)^folder", Path, Some(ImpossibleAnchor)),
        (r"^.*folder", Path, None),
        ("^http://", Host, Some(ImpossibleAnchor)),
        ("^http://", Authority, Some(ImpossibleAnchor)),
        ("^http://", AuthorityPathQuery, Some(ImpossibleAnchor)),
        (r"^www\.example\.com:8080$", Authority, None),
        (r"^www\.example\.com/folder", AuthorityPathQuery, None),
        (
            r"^www\.example\.com/folder",
            Authority,
            Some(ImpossibleAnchor),
        ),
        (r"^/folder", AuthorityPathQuery, Some(ImpossibleAnchor)),
        (r"^\?sort", Query, Some(ImpossibleAnchor)),
        ("^sort=", Query, None),
        (r"^\.", Extension, Some(ImpossibleAnchor)),
        ("^pdf$", Extension, None),
        ("^https:", Scheme, Some(ImpossibleAnchor)),
        (r"^\[::1\]", Host, None),
        // Text the field never contains, anywhere in the match.
        (r"example\.com/", Host, Some(NeverMatches)),
        (r"example\.com:8080", Host, Some(NeverMatches)),
        (r"\[::1\]", Host, None),
        ("#top", Path, Some(NeverMatches)),
        (r"\.pdf$", Extension, Some(NeverMatches)),
        (":80", Port, Some(NeverMatches)),
        ("^80$", Port, None),
        // Does not parse: the compiler reports it, lint stays quiet.
        ("example.com(", Host, None),
    ];
    for &(pattern, field, expect) in cases {
        let t = test(field, Matcher::Regex(pattern.into()), Case::Insensitive);
        let got = kinds(&t);
        assert_eq!(
            got,
            expect.into_iter().collect::<Vec<_>>(),
            "regex {pattern:?} on {field}: {:?}",
            lint_test(&t)
        );
    }
}

#[test]
fn literal_and_matcher_cases() {
    use Case::*;
    use Field::*;
    use LintKind::*;
    let cidr: Cidr = "10.0.0.0/8".parse().unwrap();
    let range: Range = "[1:3]".parse().unwrap();
    let cases: Vec<(Field, Matcher, Case, Option<LintKind>)> = vec![
        // The media type alone, lower-cased: never its parameters.
        (
            ContentType,
            Matcher::Exact("text/html; charset=utf-8".into()),
            Insensitive,
            Some(ImpossibleAnchor),
        ),
        (
            ContentType,
            Matcher::Prefix("Text/".into()),
            Sensitive,
            Some(NeverMatches),
        ),
        (
            ContentType,
            Matcher::Prefix("Text/".into()),
            Insensitive,
            None,
        ),
        // WCA's `forbid httpfoo`: a URL prefix no web URL starts with.
        (
            Url,
            Matcher::Prefix("httpfoo".into()),
            Insensitive,
            Some(ImpossibleAnchor),
        ),
        (Url, Matcher::Prefix("http".into()), Insensitive, None),
        (Url, Matcher::Prefix("https".into()), Insensitive, None),
        (
            Path,
            Matcher::Prefix("folder/".into()),
            Insensitive,
            Some(ImpossibleAnchor),
        ),
        (Path, Matcher::Prefix("/folder/".into()), Insensitive, None),
        (
            Path,
            Matcher::Wildcard("*/private/*".into()),
            Insensitive,
            None,
        ),
        (
            Path,
            Matcher::Wildcard("private/*".into()),
            Insensitive,
            Some(ImpossibleAnchor),
        ),
        (
            Url,
            Matcher::Prefix("www.ibm.com/".into()),
            Insensitive,
            Some(ImpossibleAnchor),
        ),
        (
            Url,
            Matcher::Prefix("HTTP://www.ibm.com/".into()),
            Insensitive,
            None,
        ),
        (
            Url,
            Matcher::Wildcard("http://*.ibm.com/*".into()),
            Insensitive,
            None,
        ),
        (
            Host,
            Matcher::Wildcard("*.corp.example".into()),
            Insensitive,
            None,
        ),
        (
            Authority,
            Matcher::Prefix("example.com/".into()),
            Insensitive,
            Some(ImpossibleAnchor),
        ),
        (
            Query,
            Matcher::Exact("?a=1".into()),
            Insensitive,
            Some(ImpossibleAnchor),
        ),
        (
            Extension,
            Matcher::Exact(".pdf".into()),
            Insensitive,
            Some(ImpossibleAnchor),
        ),
        (
            Extension,
            Matcher::Suffix(".pdf".into()),
            Insensitive,
            Some(ImpossibleAnchor),
        ),
        (Extension, Matcher::Exact("pdf".into()), Insensitive, None),
        (Extension, Matcher::Exact("PDF".into()), Insensitive, None),
        (
            Extension,
            Matcher::Exact("PDF".into()),
            Sensitive,
            Some(NeverMatches),
        ),
        (
            Scheme,
            Matcher::Exact("HTTP".into()),
            Sensitive,
            Some(NeverMatches),
        ),
        (
            Scheme,
            Matcher::Exact("http:".into()),
            Insensitive,
            Some(ImpossibleAnchor),
        ),
        (
            Host,
            Matcher::Exact("WWW.IBM.COM".into()),
            Sensitive,
            Some(NeverMatches),
        ),
        (Path, Matcher::Exact("/A.HTML".into()), Sensitive, None),
        // Unanchored regexes too: a capital the match needs, on a field
        // normalization lower-cases.
        (
            Host,
            Matcher::Regex("Example".into()),
            Sensitive,
            Some(NeverMatches),
        ),
        (
            Host,
            Matcher::Regex(r"www\.Example".into()),
            Sensitive,
            Some(NeverMatches),
        ),
        (Host, Matcher::Regex("Example".into()), Insensitive, None),
        (Host, Matcher::Regex("(?i)Example".into()), Sensitive, None),
        (Path, Matcher::Regex("Example".into()), Sensitive, None),
        (
            Path,
            Matcher::Contains("#top".into()),
            Insensitive,
            Some(NeverMatches),
        ),
        (
            Host,
            Matcher::Contains("/".into()),
            Insensitive,
            Some(NeverMatches),
        ),
        (
            Host,
            Matcher::Domain("example.com".into()),
            Insensitive,
            None,
        ),
        (
            Url,
            Matcher::Domain("example.com".into()),
            Insensitive,
            Some(NeverMatches),
        ),
        (
            Host,
            Matcher::Domain(".example.com".into()),
            Insensitive,
            Some(NeverMatches),
        ),
        (
            Host,
            Matcher::Domain("http://example.com".into()),
            Insensitive,
            Some(NeverMatches),
        ),
        (Address, Matcher::Cidr(cidr), Insensitive, None),
        (Host, Matcher::Cidr(cidr), Insensitive, Some(NeverMatches)),
        (
            Address,
            Matcher::Range(range),
            Insensitive,
            Some(NeverMatches),
        ),
        (Path, Matcher::Range(range), Insensitive, None),
        (PathDepth, Matcher::Range(range), Insensitive, None),
    ];
    for (field, matcher, case, expect) in cases {
        let t = test(field, matcher, case);
        let got = kinds(&t);
        assert_eq!(
            got,
            expect.into_iter().collect::<Vec<_>>(),
            "{t}: {:?}",
            lint_test(&t)
        );
    }
    // Upper case on a lower-cased field is reported once, not also as a
    // bad anchor.
    let t = test(Host, Matcher::Prefix("WWW.".into()), Sensitive);
    assert_eq!(kinds(&t), [NeverMatches]);
}

/// The host part of `url` text is lower-case and has no default port
/// after normalization: written otherwise (an Exalead `Url`, a Funnelback
/// substring), the test never matches.
#[test]
fn a_url_s_host_with_capitals_or_a_default_port_never_matches() {
    use Case::*;
    use Field::*;
    use LintKind::*;
    let cases: Vec<(Matcher, Case, Option<LintKind>)> = vec![
        (
            Matcher::Prefix("http://WWW.Example.com/".into()),
            Sensitive,
            Some(ImpossibleAnchor),
        ),
        (
            Matcher::Prefix("http://WWW.Example.com/".into()),
            Insensitive,
            None,
        ),
        (
            Matcher::Prefix("http://www.example.com/Docs".into()),
            Sensitive,
            None,
        ),
        (
            Matcher::Exact("http://example.com:80/b".into()),
            Sensitive,
            Some(ImpossibleAnchor),
        ),
        (
            Matcher::Exact("https://example.com:443/".into()),
            Sensitive,
            Some(ImpossibleAnchor),
        ),
        (
            Matcher::Exact("https://example.com:80/".into()),
            Sensitive,
            None,
        ),
        (
            Matcher::Contains("WWW.Example.com/Private".into()),
            Sensitive,
            Some(NeverMatches),
        ),
        (
            Matcher::Contains("www.example.com/Private".into()),
            Sensitive,
            None,
        ),
        (
            Matcher::Contains("/Private/Index.html".into()),
            Sensitive,
            None,
        ),
        (Matcher::Contains("Index.HTML".into()), Sensitive, None),
        (
            Matcher::Contains("Annual.Report.PDF?v=2".into()),
            Sensitive,
            None,
        ),
        (
            Matcher::Prefix("http://h:80".into()),
            Sensitive,
            Some(OpenDefaultPort),
        ),
        (Matcher::Prefix("http://h:8080".into()), Sensitive, None),
        (
            Matcher::Exact("http://h:80".into()),
            Sensitive,
            Some(ImpossibleAnchor),
        ),
        (
            Matcher::Wildcard("https://h:443*".into()),
            Sensitive,
            Some(OpenDefaultPort),
        ),
        (
            Matcher::Prefix("http://h:80/".into()),
            Sensitive,
            Some(ImpossibleAnchor),
        ),
        (
            Matcher::Wildcard("http://Example.com/*".into()),
            Sensitive,
            Some(ImpossibleAnchor),
        ),
    ];
    for (matcher, case, want) in cases {
        let t = test(Url, matcher, case);
        assert_eq!(kinds(&t).first().copied(), want, "{t:?}");
    }
    let t = test(
        Url,
        Matcher::Contains("WWW.Example.com/x".into()),
        Sensitive,
    );
    let said = lint_test(&t)[0].1.clone();
    assert!(said.contains("the host in url is lower-case"), "{said}");
    let t = test(Url, Matcher::Prefix("http://a.com:80/".into()), Sensitive);
    let said = lint_test(&t)[0].1.clone();
    assert!(said.contains("default port `:80`"), "{said}");
    let t = test(Url, Matcher::Prefix("http://a.com:80".into()), Sensitive);
    let said = lint_test(&t)[0].1.clone();
    assert!(said.contains("only longer ports such as `:8080`"), "{said}");
    assert!(said.contains("end the host with `/`"), "{said}");
}

/// The messages name the fix concretely, as seed 000 does.
#[test]
fn messages_say_how_to_fix() {
    let cases = [
        (
            Field::Host,
            Matcher::Regex("example.com".into()),
            r"write `example\.com`",
        ),
        (
            Field::Url,
            Matcher::Regex("www.ibm.com".into()),
            r"write `www\.ibm\.com`",
        ),
        (
            Field::ContentType,
            Matcher::Regex("application/epub+zip".into()),
            r"write `application/epub\+zip`",
        ),
        (
            Field::Path,
            Matcher::Prefix("folder/".into()),
            "write `/folder/`",
        ),
        (
            Field::Path,
            Matcher::Regex("^folder".into()),
            "write `^/folder`",
        ),
        (
            Field::Path,
            Matcher::Regex("^http".into()),
            "field = \"url\"",
        ),
        (
            Field::Url,
            Matcher::Regex(r"^www\.".into()),
            r"write `^https?://www\.`",
        ),
        (
            Field::Url,
            Matcher::Prefix("www.ibm.com".into()),
            "write `https://www.ibm.com`",
        ),
        (
            Field::Query,
            Matcher::Regex(r"^\?sort".into()),
            "write `^sort`",
        ),
        (
            Field::Extension,
            Matcher::Suffix(".PDF".into()),
            "write `pdf`",
        ),
        (
            Field::Extension,
            Matcher::Regex(r"^\.pdf$".into()),
            "write `^pdf$`",
        ),
        (
            Field::Host,
            Matcher::Domain(".ibm.com".into()),
            "write `ibm.com`",
        ),
        (Field::Host, Matcher::Domain("ibm.com".into()), ""),
    ];
    for (field, matcher, want) in cases {
        let t = test(field, matcher, Case::Insensitive);
        let lints = lint_test(&t);
        if want.is_empty() {
            assert!(lints.is_empty(), "{t}: {lints:?}");
            continue;
        }
        assert_eq!(lints.len(), 1, "{t}: {lints:?}");
        assert!(
            lints[0].1.contains(want),
            "{t}: {:?} should contain {want:?}",
            lints[0].1
        );
        assert!(!lints[0].1.contains('\n'));
    }
    let t = test(
        Field::Url,
        Matcher::Regex("a\nb.c".into()),
        Case::Insensitive,
    );
    assert!(lint_test(&t).iter().all(|(_, m)| !m.contains('\n')));
}

#[test]
fn lint_rules_reports_paths_and_lines() {
    let regex =
        |field, p: &str| Condition::Test(test(field, Matcher::Regex(p.into()), Case::Insensitive));
    let mut outer = Rule::new("outer", 5);
    outer.condition = Some(Condition::All(vec![
        regex(Field::Host, "example.com"),
        Condition::Not(Box::new(Condition::Test(test(
            Field::Path,
            Matcher::Prefix("folder/".into()),
            Case::Insensitive,
        )))),
    ]));
    let mut clean_inner = Rule::new("clean inner", 8);
    clean_inner.condition = Some(regex(Field::Path, r"\.pdf$"));
    let mut inner = Rule::new("inner", 9);
    inner.condition = Some(Condition::Any(vec![regex(
        Field::ContentType,
        "application/epub+zip",
    )]));
    outer.rules = vec![clean_inner, inner];
    let mut clean = Rule::new("clean", 2);
    clean.condition = Some(regex(Field::Host, r"example\.com"));
    let set = RuleSet {
        rules: vec![clean, outer, Rule::new("no condition", 12)],
        ..RuleSet::default()
    };

    let got: Vec<(Vec<usize>, usize, LintKind)> = lint_rules(&set)
        .into_iter()
        .map(|l| (l.path, l.line, l.kind))
        .collect();
    assert_eq!(
        got,
        [
            (vec![2], 5, LintKind::UnescapedDot),
            (vec![2], 5, LintKind::ImpossibleAnchor),
            (vec![2, 2], 9, LintKind::UnescapedPlus),
        ]
    );
}

/// Xorshift over an alphabet heavy in regex syntax: no input may panic.
#[test]
fn arbitrary_patterns_do_not_panic() {
    const ALPHABET: &[char] = &[
        '.', '+', '*', '?', '(', ')', '[', ']', '{', '}', '^', '$', '\\', '|', '/', ':', '-', '#',
        'a', 'b', 'z', 'A', 'W', '0', '9', ',', ' ', '\n', 'é', 'K', 'ſ', '=', '&', '@', 'x', 'p',
        'P', '<', '>', '!',
    ];
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for _ in 0..4000 {
        let len = rng.below(24);
        let text: String = (0..len)
            .map(|_| ALPHABET[rng.below(ALPHABET.len())])
            .collect();
        let field = Field::ALL[rng.below(Field::ALL.len())];
        let case = if rng.next().is_multiple_of(2) {
            Case::Insensitive
        } else {
            Case::Sensitive
        };
        for matcher in text_matchers(&text) {
            for (_, message) in lint_test(&test(field, matcher, case)) {
                assert!(!message.contains('\n'), "{message:?}");
            }
        }
    }
}

/// A normalized URL holds non-ASCII characters and spaces only encoded
/// (percent-encoded in a path or query, punycode in a host): a literal
/// written with them never matches, and the message gives the encoded form.
#[test]
fn characters_a_normalized_url_holds_only_encoded() {
    let lint = |field: Field, matcher: Matcher| {
        let t = Test {
            field,
            matcher,
            case: Case::Insensitive,
        };
        lint_test(&t)
    };
    let found = lint(Field::Path, Matcher::Contains("/über/".into()));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, LintKind::NeverMatches);
    assert!(
        found[0].1.contains("path never contains `ü`")
            && found[0].1.contains("percent-encoded, as `%C3%BC`"),
        "{found:?}"
    );
    let found = lint(Field::Query, Matcher::Exact("q=a b".into()));
    assert!(found[0].1.contains("`%20`"), "{found:?}");
    let found = lint(Field::Host, Matcher::Exact("bücher.example".into()));
    assert!(
        found[0].1.contains("punycode") && found[0].1.contains("write `xn--bcher-kva.example`"),
        "{found:?}"
    );
    let found = lint(Field::Host, Matcher::Domain("bücher.example".into()));
    assert_eq!(found.len(), 1, "{found:?}");
    // In the host part of a longer field: punycode too, in place.
    let found = lint(
        Field::Url,
        Matcher::Prefix("http://bücher.example/ü".into()),
    );
    assert!(
        found[0]
            .1
            .contains("write `http://xn--bcher-kva.example/ü`"),
        "{found:?}"
    );
    let found = lint(
        Field::Url,
        Matcher::Prefix("http://example.com/über".into()),
    );
    assert!(found[0].1.contains("`%C3%BC`"), "{found:?}");
    // A piece of a URL without its scheme (a Funnelback pattern) may name
    // a host: both encodings said.
    let found = lint(Field::Url, Matcher::Contains("bücher.de".into()));
    assert!(
        found[0].1.contains("`%C3%BC` in a path or query")
            && found[0].1.contains("punycode (`xn--bcher-kva.de`)"),
        "{found:?}"
    );
    let found = lint(Field::Host, Matcher::Exact("a b.example".into()));
    assert!(
        found[0].1.contains("host never contains a space"),
        "{found:?}"
    );
    // Written encoded, they are fine; other fields are not URL text.
    assert!(lint(Field::Path, Matcher::Contains("/%C3%BCber/".into())).is_empty());
    assert!(lint(Field::Host, Matcher::Exact("xn--bcher-kva.example".into())).is_empty());
    assert!(lint(Field::ContentType, Matcher::Exact("text/x-ü".into())).is_empty());
}

/// An empty `any` never holds and an empty `all` always does, at any depth:
/// both are a list whose tests were left out.
#[test]
fn empty_lists_are_linted() {
    let text = "[[rules]]\nname = \"none\"\nmatch = { any = [] }\naction = \"exclude\"\n\n\
                [[rules]]\nname = \"all\"\nmatch = { not = { all = [] } }\naction = \"exclude\"\n\n\
                [[rules]]\nname = \"fine\"\nmatch = { any = [ { field = \"path\", prefix = \"/a\" } ] }\naction = \"exclude\"\n";
    let set = crate::rules::dialect::native::parse(text)
        .expect("parses")
        .rules;
    let got: Vec<(Vec<usize>, usize, LintKind, String)> = lint_rules(&set)
        .into_iter()
        .map(|l| (l.path, l.line, l.kind, l.message))
        .collect();
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(
        (&got[0].0, got[0].1, got[0].2),
        (&vec![1], 1, LintKind::EmptyList)
    );
    assert!(got[0].3.contains("never matches"), "{got:?}");
    assert_eq!(
        (&got[1].0, got[1].1, got[1].2),
        (&vec![2], 6, LintKind::EmptyList)
    );
    assert_eq!(
        got[1].3, "`all = []` lists no test, so it always holds",
        "{got:?}"
    );
}
