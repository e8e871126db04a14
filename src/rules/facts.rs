//! What a URL offers to a rule (SPEC §1.1): the normalized URL cut into its
//! fields, plus the facts learnt later (content type, address, link depth).
//!
//! Normalization is WHATWG parsing by the `url` crate (which lower-cases the
//! host, drops the default port and resolves dot segments) with the fragment
//! dropped. Every text field except `extension` is a slice of the one
//! serialization, so cutting a URL into fields allocates nothing in the
//! common case.

use std::borrow::Cow;
use std::net::IpAddr;

use url::{Position, Url};

use super::model::Field;

mod stored;

/// Facts about a URL that are not in the URL itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    /// Media type without parameters, once response headers are in.
    pub content_type: Option<String>,
    /// The resolved address, once DNS has answered.
    pub address: Option<IpAddr>,
    /// Hops from a start URL.
    pub link_depth: u32,
}

impl Default for Known {
    /// A discovered link one hop from a start URL, before DNS and headers:
    /// how `explain` and `check` treat a URL they are given.
    fn default() -> Known {
        Known {
            content_type: None,
            address: None,
            link_depth: 1,
        }
    }
}

impl Known {
    /// The same facts with a content type (parameters stripped, lower-cased).
    pub fn with_content_type(mut self, content_type: &str) -> Known {
        let media = content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        self.content_type = Some(media);
        self
    }
}

/// Why a text is not a URL that rules can look at.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    #[error("not a URL: {0}")]
    Parse(#[from] url::ParseError),
    /// `mailto:`, `javascript:`, `data:`: no host or path to judge. The
    /// crawler skips such links when it reads a page.
    #[error(
        "no host or path to judge (a URL like a mailto: or javascript: link): the crawler skips such links when it reads a page, and no rule sees them"
    )]
    NotHierarchical(String),
}

/// Parses and normalizes a URL the way every rule sees it.
pub fn normalize(text: &str) -> Result<Url, UrlError> {
    let mut url = Url::parse(text.trim())?;
    if url.cannot_be_a_base() {
        return Err(UrlError::NotHierarchical(text.trim().to_string()));
    }
    url.set_fragment(None);
    Ok(url)
}

/// The fields of one normalized URL plus what is known about its fetch.
#[derive(Debug, Clone)]
pub struct UrlFacts<'a> {
    pub url: &'a str,
    pub scheme: &'a str,
    pub host: &'a str,
    /// Effective port: the URL's own, else the scheme's default, else 0.
    pub port: u16,
    pub authority: &'a str,
    pub path: &'a str,
    pub query: &'a str,
    pub path_query: &'a str,
    pub authority_path_query: &'a str,
    pub extension: Cow<'a, str>,
    pub path_depth: u32,
    pub link_depth: u32,
    pub content_type: Option<&'a str>,
    pub address: Option<IpAddr>,
}

/// The `extension` field of a path: lower-cased, of the last segment.
fn extension_of(path: &str) -> Cow<'_, str> {
    let bytes = path.as_bytes();
    let last_segment = match memchr::memrchr(b'/', bytes) {
        Some(slash) => &path[slash + 1..],
        None => path,
    };
    let dot = memchr::memrchr(b'.', last_segment.as_bytes());
    match dot.map(|i| (&last_segment[..i], &last_segment[i + 1..])) {
        Some((_, ext)) if ext.bytes().any(|b| b.is_ascii_uppercase()) => {
            Cow::Owned(ext.to_ascii_lowercase())
        }
        Some((_, ext)) => Cow::Borrowed(ext),
        None => Cow::Borrowed(""),
    }
}

/// The `path_depth` field: the number of `/` in the path.
fn path_depth_of(path: &str) -> u32 {
    // A whole-slice fold: it vectorizes and stays small.
    path.bytes().fold(0, |n, b| n + u32::from(b == b'/'))
}

impl<'a> UrlFacts<'a> {
    pub fn new(url: &'a Url, known: &'a Known) -> UrlFacts<'a> {
        let path = url.path();
        UrlFacts {
            url: url.as_str(),
            scheme: url.scheme(),
            host: url.host_str().unwrap_or(""),
            port: url.port_or_known_default().unwrap_or(0),
            authority: &url[Position::BeforeHost..Position::AfterPort],
            path,
            query: url.query().unwrap_or(""),
            path_query: &url[Position::BeforePath..Position::AfterQuery],
            authority_path_query: &url[Position::BeforeHost..Position::AfterQuery],
            extension: extension_of(path),
            path_depth: path_depth_of(path),
            link_depth: known.link_depth,
            content_type: known.content_type.as_deref(),
            address: known.address,
        }
    }

    /// With the URL's host as its address when the host is an IP address
    /// and no address is known: `explain` and `check` judge address rules
    /// at once for such a URL, as the crawl does (it needs no DNS).
    pub fn with_host_address(mut self) -> UrlFacts<'a> {
        if self.address.is_none() {
            // A normalized host: an IPv4 address in dotted decimal, an IPv6
            // one in brackets.
            let host = self.host;
            self.address = match host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
                Some(v6) => v6.parse::<std::net::Ipv6Addr>().ok().map(IpAddr::V6),
                None => host.parse::<std::net::Ipv4Addr>().ok().map(IpAddr::V4),
            };
        }
        self
    }

    /// The facts of a URL taken from the log (already normalized), cut
    /// from its text without parsing it when that is sure to give the same
    /// facts as parsing (the common case); `None` when unsure: then parse
    /// it with `url::Url::parse` and use [`UrlFacts::new`]. For walks over
    /// every logged URL, where parsing would be a third of the time.
    pub fn from_normalized(url: &'a str, known: &'a Known) -> Option<UrlFacts<'a>> {
        stored::cut(url, known)
    }

    /// The facts of a URL taken from the log: [`UrlFacts::from_normalized`]
    /// when it can, else parsed into `parsed` (the caller's, so that the
    /// facts can borrow it); `None` when it does not parse.
    pub fn logged(
        url: &'a str,
        known: &'a Known,
        parsed: &'a mut Option<Url>,
    ) -> Option<UrlFacts<'a>> {
        if let Some(facts) = UrlFacts::from_normalized(url, known) {
            return Some(facts);
        }
        let url = parsed.insert(Url::parse(url).ok()?);
        Some(UrlFacts::new(url, known))
    }

    /// The text of a field; `None` while the field is not known yet.
    /// Numeric fields are written in decimal.
    pub fn text(&self, field: Field) -> Option<Cow<'_, str>> {
        Some(match field {
            Field::Url => Cow::Borrowed(self.url),
            Field::Scheme => Cow::Borrowed(self.scheme),
            Field::Host => Cow::Borrowed(self.host),
            Field::Port => Cow::Owned(self.port.to_string()),
            Field::Authority => Cow::Borrowed(self.authority),
            Field::Path => Cow::Borrowed(self.path),
            Field::Query => Cow::Borrowed(self.query),
            Field::PathQuery => Cow::Borrowed(self.path_query),
            Field::AuthorityPathQuery => Cow::Borrowed(self.authority_path_query),
            Field::Extension => Cow::Borrowed(self.extension.as_ref()),
            Field::PathDepth => Cow::Owned(self.path_depth.to_string()),
            Field::LinkDepth => Cow::Owned(self.link_depth.to_string()),
            Field::ContentType => Cow::Borrowed(self.content_type?),
            Field::Address => Cow::Owned(self.address?.to_string()),
        })
    }

    /// A field's text without allocating, for the text fields only.
    pub fn text_slice(&self, field: Field) -> Option<&str> {
        Some(match field {
            Field::Url => self.url,
            Field::Scheme => self.scheme,
            Field::Host => self.host,
            Field::Authority => self.authority,
            Field::Path => self.path,
            Field::Query => self.query,
            Field::PathQuery => self.path_query,
            Field::AuthorityPathQuery => self.authority_path_query,
            Field::Extension => self.extension.as_ref(),
            Field::ContentType => self.content_type?,
            _ => return None,
        })
    }

    /// The number a `range` test compares: the value of a numeric field, or
    /// the length in bytes of a text field.
    pub fn range_value(&self, field: Field) -> Option<u64> {
        Some(match field {
            Field::Port => u64::from(self.port),
            Field::PathDepth => u64::from(self.path_depth),
            Field::LinkDepth => u64::from(self.link_depth),
            Field::Address => return None,
            other => self.text_slice(other)?.len() as u64,
        })
    }

    pub fn is_known(&self, field: Field) -> bool {
        match field {
            Field::ContentType => self.content_type.is_some(),
            Field::Address => self.address.is_some(),
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SPEC §1.1's table, for its sample URL.
    #[test]
    fn spec_field_table() {
        let url =
            normalize("http://www.example.com:8080/folder/products.html?sort=name&order=asc#top")
                .unwrap();
        let known = Known {
            content_type: Some("text/html".into()),
            ..Known::default()
        };
        let f = UrlFacts::new(&url, &known);
        let expect = [
            (
                Field::Url,
                "http://www.example.com:8080/folder/products.html?sort=name&order=asc",
            ),
            (Field::Scheme, "http"),
            (Field::Host, "www.example.com"),
            (Field::Port, "8080"),
            (Field::Authority, "www.example.com:8080"),
            (Field::Path, "/folder/products.html"),
            (Field::Query, "sort=name&order=asc"),
            (
                Field::PathQuery,
                "/folder/products.html?sort=name&order=asc",
            ),
            (
                Field::AuthorityPathQuery,
                "www.example.com:8080/folder/products.html?sort=name&order=asc",
            ),
            (Field::Extension, "html"),
            (Field::PathDepth, "2"),
            (Field::LinkDepth, "1"),
            (Field::ContentType, "text/html"),
        ];
        for (field, value) in expect {
            assert_eq!(f.text(field).as_deref(), Some(value), "field {field}");
        }
        assert_eq!(f.text(Field::Address), None);
    }

    /// Seed 000 (WebCopy): the compare options for its sample address.
    #[test]
    fn webcopy_compare_options() {
        let url = normalize("http://www.example.com/folder/products?sort=name&order=asc").unwrap();
        let known = Known::default();
        let f = UrlFacts::new(&url, &known);
        assert_eq!(f.text(Field::Authority).unwrap(), "www.example.com");
        assert_eq!(
            f.text(Field::AuthorityPathQuery).unwrap(),
            "www.example.com/folder/products?sort=name&order=asc"
        );
        assert_eq!(
            f.text(Field::Url).unwrap(),
            "http://www.example.com/folder/products?sort=name&order=asc"
        );
        // WebCopy shows the path without its leading slash; SPEC §1.1 keeps it.
        assert_eq!(f.text(Field::Path).unwrap(), "/folder/products");
        assert_eq!(
            f.text(Field::PathQuery).unwrap(),
            "/folder/products?sort=name&order=asc"
        );
        assert_eq!(f.text(Field::Query).unwrap(), "sort=name&order=asc");
        assert_eq!(f.text(Field::Extension).unwrap(), "");
        assert_eq!(f.port, 80);
    }

    #[test]
    fn normalization() {
        let cases = [
            (
                "HTTP://WWW.Example.COM:80/a/./b/../c.HTML",
                "http://www.example.com/a/c.HTML",
            ),
            ("https://h:443/x#frag", "https://h/x"),
            ("http://h", "http://h/"),
            ("http://user:pw@h:81/p?q", "http://user:pw@h:81/p?q"),
        ];
        for (input, want) in cases {
            assert_eq!(normalize(input).unwrap().as_str(), want);
        }
        let url = normalize("http://user:pw@h:81/p.TXT?q").unwrap();
        let known = Known::default();
        let f = UrlFacts::new(&url, &known);
        assert_eq!(f.authority, "h:81");
        assert_eq!(f.authority_path_query, "h:81/p.TXT?q");
        assert_eq!(f.extension, "txt");
        for bad in ["www.ibm.com", "/relative", "mailto:a@b", "", "http://"] {
            assert!(normalize(bad).is_err(), "{bad} should be rejected");
        }
    }
}
