//! Facts straight from the text of a URL that is already normalized (the
//! URL log stores only [`super::normalize`]d URLs), without parsing it
//! again: the console's what-if cuts every logged URL into fields, and the
//! full WHATWG parse was a third of its time.
//!
//! The cut accepts only text that the full parse would give back unchanged:
//! `http` or `https`, a lower-case ASCII host name or a dotted-quad address
//! written the canonical way, an optional port that is not the scheme's
//! default, and a path and query of characters that parsing keeps as they
//! are, with no dot segments. Anything else (IPv6, user info, `xn--`
//! labels, percent-escapes in the host, upper case, fragments, other
//! schemes, …) is left to the full parse; a property test checks that both
//! give the same facts.

use super::{Known, UrlFacts, extension_of, path_depth_of};

/// The facts of `url` if it is plainly normalized, else `None` (then parse
/// it with `url::Url::parse` and use [`UrlFacts::new`]).
pub(super) fn cut<'a>(url: &'a str, known: &'a Known) -> Option<UrlFacts<'a>> {
    let (scheme, default_port) = if url.starts_with("http://") {
        ("http", 80)
    } else if url.starts_with("https://") {
        ("https", 443)
    } else {
        return None;
    };
    let authority_start = scheme.len() + 3;
    let rest = &url[authority_start..];
    // A normalized hierarchical URL always has a path that starts with '/'.
    let authority_end = authority_start + rest.find('/')?;
    let authority = &url[authority_start..authority_end];
    let (host, port) = match authority.split_once(':') {
        Some((host, port)) => (host, Some(port_number(port, default_port)?)),
        None => (authority, None),
    };
    if !plain_host(host) {
        return None;
    }
    let tail = &url[authority_end..];
    let (path, query) = match tail.split_once('?') {
        Some((path, query)) => (path, query),
        None => (tail, ""),
    };
    if !plain_path(path) || !plain_query(query) {
        return None;
    }
    Some(UrlFacts {
        url,
        scheme,
        host,
        port: port.unwrap_or(default_port),
        authority,
        path,
        query,
        path_query: tail,
        authority_path_query: &url[authority_start..],
        extension: extension_of(path),
        path_depth: path_depth_of(path),
        link_depth: known.link_depth,
        content_type: known.content_type.as_deref(),
        address: known.address,
    })
}

/// A port as the serializer writes it: decimal without leading zeros, in
/// range, and not the scheme's default (which normalization drops).
fn port_number(text: &str, default_port: u16) -> Option<u16> {
    let canonical = !text.is_empty()
        && text.len() <= 5
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    let port: u16 = text.parse().ok().filter(|_| canonical)?;
    (port != default_port).then_some(port)
}

/// A host the parser keeps as it is: lower-case ASCII labels of letters,
/// digits and hyphens, none empty and none an `xn--` (punycode) label,
/// whose last label does not start with a digit (a name that ends in a
/// number is parsed as an IPv4 address) — or a canonical dotted quad.
fn plain_host(host: &str) -> bool {
    let last = host.rsplit('.').next().unwrap_or("");
    if last.starts_with(|c: char| c.is_ascii_digit()) {
        return canonical_ipv4(host);
    }
    !host.is_empty()
        && host.split('.').all(|label| {
            !label.is_empty()
                && !label.starts_with("xn--")
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
}

/// Four decimal numbers of 0–255 without leading zeros, as the parser
/// writes an IPv4 address back.
fn canonical_ipv4(host: &str) -> bool {
    let mut parts = 0;
    let all_canonical = host.split('.').all(|part| {
        parts += 1;
        !part.is_empty()
            && part.len() <= 3
            && part.bytes().all(|b| b.is_ascii_digit())
            && (part == "0" || !part.starts_with('0'))
            && part.parse::<u8>().is_ok()
    });
    all_canonical && parts == 4
}

/// Bytes that path and query parsing copy unchanged (no percent-encoding,
/// no `\` turned into `/`, no tab or newline removed, nothing non-ASCII),
/// with `%` allowed only as the start of an escape; `extra` are more bytes
/// allowed, and `%2e` (an escaped dot) is refused unless `escaped_dot`.
fn kept(bytes: &[u8], extra: &[u8], escaped_dot: bool) -> bool {
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let ok = match b {
            b'%' => {
                let escape = match bytes.get(i + 1..i + 3) {
                    Some(&[h, l]) if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() => [h, l],
                    _ => return false,
                };
                i += 2;
                escaped_dot || !escape.eq_ignore_ascii_case(b"2e")
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' => true,
            b'-' | b'.' | b'_' | b'~' | b'!' | b'$' | b'&' | b'(' | b')' | b'*' | b'+' | b','
            | b';' | b'=' | b':' | b'@' | b'/' | b'[' | b']' | b'|' | b'^' => true,
            other => extra.contains(&other),
        };
        if !ok {
            return false;
        }
        i += 1;
    }
    true
}

/// A path of kept bytes with no segment that parsing would resolve: `.`,
/// `..`, or one spelled with `%2e` (refused anywhere in the path, which
/// is rare and keeps the check to one pass).
fn plain_path(path: &str) -> bool {
    path.starts_with('/')
        && kept(path.as_bytes(), b"'", false)
        && path
            .split('/')
            .all(|segment| segment != "." && segment != "..")
}

/// A query of kept bytes (`'` is escaped in the queries of special
/// schemes, so it is not one of them; `?` is).
fn plain_query(query: &str) -> bool {
    kept(query.as_bytes(), b"?", true)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use proptest::sample::select;
    use proptest::strategy::ValueTree;

    use super::*;
    use crate::rules::normalize;

    /// Both cuts of `text` agree: when the quick one answers, parsing gives
    /// a URL with the very same facts (compared through `Debug`, which
    /// shows every field).
    fn same_as_parsing(text: &str) -> Result<bool, TestCaseError> {
        let known = Known {
            content_type: Some("text/html".into()),
            ..Known::default()
        };
        let Some(quick) = cut(text, &known) else {
            return Ok(false);
        };
        let parsed = url::Url::parse(text);
        prop_assert!(parsed.is_ok(), "{text:?} cut but does not parse");
        let parsed = parsed.unwrap_or_else(|_| unreachable!());
        let full = UrlFacts::new(&parsed, &known);
        prop_assert_eq!(format!("{quick:?}"), format!("{full:?}"), "{:?}", text);
        Ok(true)
    }

    #[test]
    fn typical_normalized_urls_are_cut_without_parsing() {
        for url in [
            "http://127.0.0.1:8080/docs/3/page-7.html?lang=en",
            "https://www.example.com/",
            "http://a-b.example.org/a/b/c.TXT",
            "http://h:1/p;x=1/%41?q=a&b=%2f&c[]=1|2^3/?",
            "http://0.0.0.0/",
            "http://255.255.255.255:65535/x",
            "http://h/a.b.c/'quoted'",
        ] {
            assert!(matches!(same_as_parsing(url), Ok(true)), "{url}");
            let parsed = normalize(url).expect("normalized");
            assert_eq!(parsed.as_str(), url, "the case is normalized");
        }
    }

    #[test]
    fn anything_unusual_is_left_to_the_parser() {
        for url in [
            "http://user:pw@h/",
            "http://[::1]/",
            "http://xn--bcher-kva.example/",
            "http://Example.com/",
            "HTTP://h/",
            "http://h:80/",
            "https://h:443/",
            "http://h:080/",
            "http://h:65536/",
            "http://h:/",
            "http://h",
            "http://h?q",
            "http://1.2.3/",
            "http://1.2.3.04/",
            "http://256.1.1.1/",
            "http://0x7f.0.0.1/",
            "http://a.1/",
            "http://a..b/",
            "http://h./",
            "http://h%41/",
            "http://h_x/",
            "http://h/a/./b",
            "http://h/a/../b",
            "http://h/a/%2e/b",
            "http://h/a/.%2E",
            "http://h/a%2eb",
            "http://h/a b",
            "http://h/a\\b",
            "http://h/ä",
            "http://h/%zz",
            "http://h/%4",
            "http://h/{x}",
            "http://h/p?it's",
            "http://h/p#top",
            "ftp://h/",
            "file:///etc/passwd",
            "mailto:a@b",
            "",
        ] {
            assert!(matches!(same_as_parsing(url), Ok(false)), "{url}");
        }
    }

    /// Texts built from the pieces URLs are made of, usual and unusual.
    fn url_text() -> impl Strategy<Value = String> {
        let scheme = select(vec![
            "http://", "http://", "http://", "http://", "https://", "https://", "https://",
            "HTTP://", "Https://", "http:/", "http:", "ftp://", "ws://", "file://",
        ]);
        let userinfo = select(vec![
            "", "", "", "", "", "", "", "", "user@", "u:p@", "@", "a%40b@",
        ]);
        let host = prop_oneof![
            1 => select(vec![
                "127.0.0.1",
                "1.2.3",
                "01.2.3.4",
                "0x7f.0.0.1",
                "256.0.0.1",
                "1.2.3.4.5",
                "[::1]",
                "[2001:DB8::1]",
                "[::ffff:1.2.3.4]",
                "xn--bcher-kva.example",
                "xn--a.example",
                "a.xn--",
                "bücher.example",
                "EXAMPLE.com",
                "ex%41mple.com",
                "a..b",
                "a.",
                ".a",
                "",
            ])
            .prop_map(String::from),
            5 => "[a-z0-9-]{1,8}(\\.[a-z0-9-]{1,8}){0,3}",
            1 => "[a-zA-Z0-9_%.-]{1,14}",
            2 => "[0-9]{1,3}(\\.[0-9]{1,3}){0,4}",
        ];
        let port = select(vec![
            "", "", "", "", "", "", "", "", "", "", ":8080", ":8080", ":1", ":8080", ":80", ":443",
            ":0", ":080", ":65535", ":65536", ":", ":x",
        ]);
        let path = prop_oneof![
            1 => Just(String::new()),
            5 => "(/([a-zA-Z0-9._~!$&'()*+,;=:@\\[\\]|^-]|%[0-9a-fA-F]{2}){0,8}){1,4}",
            2 => "(/(\\.|\\.\\.|%2e|%2E|\\.%2e|[ -~]{0,6}|[äé\\t]{1,2})){1,4}",
        ];
        let query = prop_oneof![
            3 => Just(String::new()),
            3 => "\\?([a-zA-Z0-9=&/?:@'\\[\\]|^-]|%[0-9a-fA-F]{2}){0,12}",
            1 => "\\?[ -~ä]{0,10}",
        ];
        let fragment = select(vec!["", "", "", "", "", "", "#", "#top"]);
        (scheme, userinfo, host, port, path, query, fragment)
            .prop_map(|(s, u, h, p, path, q, f)| format!("{s}{u}{h}{p}{path}{q}{f}"))
    }

    /// The property below is not vacuous: many generated texts (and their
    /// normalized forms) take the quick cut, and many do not.
    #[test]
    fn the_generated_texts_take_both_ways() {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let (mut quick, mut texts) = (0, 0);
        for _ in 0..4096 {
            let text = url_text().new_tree(&mut runner).expect("a text").current();
            let normalized = normalize(&text).ok().map(|u| u.as_str().to_string());
            for text in std::iter::once(text).chain(normalized) {
                texts += 1;
                quick += usize::from(matches!(same_as_parsing(&text), Ok(true)));
            }
        }
        assert!(quick * 10 > texts, "{quick} of {texts} cut quickly");
        assert!(quick * 5 < texts * 4, "{quick} of {texts} cut quickly");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// For any text, and for the normalized form of any text that is a
        /// URL: the quick cut, when it answers, gives the parser's facts.
        #[test]
        fn the_quick_cut_gives_the_same_facts_as_parsing(text in url_text()) {
            same_as_parsing(&text)?;
            if let Ok(url) = normalize(&text) {
                same_as_parsing(url.as_str())?;
            }
        }
    }
}
