use super::*;

#[test]
fn ranges_parse_and_contain() {
    let cases = [
        ("[:10]", 10, true),
        ("[:10]", 11, false),
        ("[11:12]", 11, true),
        ("[11:12]", 13, false),
        ("[30:]", 30, true),
        ("[30:]", 29, false),
        ("3:3", 3, true),
    ];
    for (text, value, expect) in cases {
        let r: Range = text.parse().unwrap();
        assert_eq!(r.contains(value), expect, "{text} contains {value}");
    }
    for bad in ["[a:3]", "[5:2]", "[]", "[-1:3]", "7"] {
        assert!(bad.parse::<Range>().is_err(), "{bad} should be rejected");
    }
}

/// Seed 003 (WCA): "allow address 9.0.0.0 255.0.0.0" covers any address
/// with 9 in the first octet; ":: ::" and "0.0.0.0 0.0.0.0" match anything.
#[test]
fn cidr_forms_from_seed_003() {
    let ip = |s: &str| s.parse::<IpAddr>().unwrap();
    let cases = [
        ("9.0.0.0 255.0.0.0", "9.20.30.40", true),
        ("9.0.0.0 255.0.0.0", "10.20.30.40", false),
        ("9.0.0.0/8", "9.1.2.3", true),
        ("0.0.0.0 0.0.0.0", "203.0.113.9", true),
        (":: ::", "2001:db8::5", true),
        ("[2001:db8:0:1:0:0:0:1]", "2001:db8:0:1::1", true),
        ("[2001:db8:0:1:0:0:0:1]", "2001:db8:0:1::2", false),
        ("2001:db8::/32", "2001:db8:ffff::1", true),
        ("2001:db8::/32", "2001:db9::1", false),
        ("10.0.0.0 255.0.255.0", "10.7.0.9", true),
        ("10.0.0.0 255.0.255.0", "10.7.1.9", false),
        ("192.168.1.7", "192.168.1.7", true),
        ("127.0.0.0/8", "::ffff:127.0.0.1", true),
        ("2001:db8::/32", "192.0.2.1", false),
    ];
    for (rule, addr, expect) in cases {
        let c: Cidr = rule.parse().unwrap();
        assert_eq!(c.contains(ip(addr)), expect, "{rule} contains {addr}");
    }
    for bad in [
        "9.0.0.0/33",
        "9.0.0.0 255.0.0",
        "9.0.0.0 ffff::",
        "not-an-ip",
        "::/129",
    ] {
        assert!(bad.parse::<Cidr>().is_err(), "{bad} should be rejected");
    }
    assert_eq!(
        "9.0.0.0 255.0.0.0".parse::<Cidr>().unwrap().to_string(),
        "9.0.0.0/8"
    );
    assert_eq!(
        "10.0.0.0 255.0.255.0".parse::<Cidr>().unwrap().to_string(),
        "10.0.0.0 255.0.255.0"
    );
}

/// A regex reads as it was written in the config (`'\.png$'`), not with every
/// backslash doubled; values that need escapes to be seen keep them.
#[test]
fn test_values_are_shown_as_written() {
    let shown = |matcher: Matcher| {
        Test {
            field: Field::Path,
            matcher,
            case: Case::Insensitive,
        }
        .to_string()
    };
    assert_eq!(
        shown(Matcher::Regex(r"\.(png|gif)$".into())),
        r"path regex '\.(png|gif)$'"
    );
    assert_eq!(
        shown(Matcher::Regex(r#"a"\d"#.into())),
        r#"path regex 'a"\d'"#
    );
    assert_eq!(shown(Matcher::Prefix("/a/".into())), r#"path prefix "/a/""#);
    // A quote, a control or an invisible character: escaped, double-quoted.
    assert_eq!(
        shown(Matcher::Regex(r"it's\d".into())),
        r#"path regex "it's\\d""#
    );
    assert_eq!(
        shown(Matcher::Regex("\\d\u{1b}[2J".into())),
        r#"path regex "\\d\u{1b}[2J""#
    );
    assert_eq!(
        shown(Matcher::Regex("\\d\u{202e}".into())),
        r#"path regex "\\d\u{202e}""#
    );
}
