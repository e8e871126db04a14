//! What a fetched page's robots directives mean for the crawl (SPEC §2.3):
//! `<meta name="robots">` (or our own agent's meta) and `X-Robots-Tag`
//! headers combine by union, `noindex` keeps the page out of the mirror,
//! `nofollow` keeps its links out of the crawl unless `ignore_nofollow`,
//! and `noarchive`/`nosnippet` are recorded. Pure: it turns the two
//! [`RobotsMeta`] values into the trace lines and the robots text of the
//! page's log record, so the log says which of the two sources decided.

use super::links::RobotsMeta;
use super::report::layer;
use crate::store::TraceLine;

/// Trace layer of a page's robots meta.
pub(crate) const META_LAYER: &str = "robots-meta";
/// Trace layer of a response's `X-Robots-Tag` headers.
pub(crate) const HEADER_LAYER: &str = "x-robots-tag";
/// Trace layer saying how much text noindex regions kept out of the excerpt.
pub(crate) const REGIONS_LAYER: &str = "noindex-regions";

/// The robots directives of one response.
#[derive(Debug, Clone, Default)]
pub(crate) struct Directives {
    /// From the page's `<meta>` elements (HTML pages only).
    pub meta: RobotsMeta,
    /// From the response's `X-Robots-Tag` headers (any content type).
    pub header: RobotsMeta,
    /// `ignore_nofollow`: nofollow is reported but not obeyed.
    pub ignore_nofollow: bool,
}

/// The directive words a [`RobotsMeta`] holds, in a fixed order.
fn words(m: &RobotsMeta) -> Vec<&'static str> {
    [
        (m.noindex, "noindex"),
        (m.nofollow, "nofollow"),
        (m.noarchive, "noarchive"),
        (m.nosnippet, "nosnippet"),
    ]
    .into_iter()
    .filter_map(|(set, word)| set.then_some(word))
    .collect()
}

impl Directives {
    /// The page is not to be saved.
    pub(crate) fn noindex(&self) -> bool {
        self.meta.noindex || self.header.noindex
    }

    /// The page's links are not to be followed (`ignore_nofollow` aside).
    pub(crate) fn nofollow(&self) -> bool {
        (self.meta.nofollow || self.header.nofollow) && !self.ignore_nofollow
    }

    /// The excerpt is not to be kept: `noindex` or `nosnippet`.
    pub(crate) fn no_excerpt(&self) -> bool {
        self.noindex() || self.meta.nosnippet || self.header.nosnippet
    }

    /// One trace line per source that said anything: `meta robots
    /// nofollow`, `X-Robots-Tag: noindex`, with what was not obeyed.
    pub(crate) fn trace(&self) -> Vec<TraceLine> {
        let mut lines = Vec::new();
        for (meta, name, label) in [
            (&self.meta, META_LAYER, "meta robots"),
            (&self.header, HEADER_LAYER, "X-Robots-Tag:"),
        ] {
            if meta.raw.is_empty() {
                continue;
            }
            let found = words(meta);
            let mut detail = if found.is_empty() {
                format!("{label} no restriction for this crawler")
            } else {
                format!("{label} {}", found.join(", "))
            };
            if meta.nofollow && self.ignore_nofollow {
                detail.push_str(" (nofollow ignored: ignore_nofollow = true)");
            }
            lines.push(layer(name, detail));
        }
        lines
    }

    /// The robots text of the record: each meta and header as written
    /// (`meta robots: noindex; X-Robots-Tag: noarchive`), with the control
    /// and invisible characters a site put in them escaped, so that no
    /// reader of the log gets them raw (as a robots.txt line's).
    pub(crate) fn text(&self) -> Option<String> {
        let mut parts = Vec::new();
        // Meta entries read `name: content` (`robots: noindex`); header
        // entries already read `X-Robots-Tag: value`.
        parts.extend(self.meta.raw.iter().map(|m| format!("meta {m}")));
        parts.extend(self.header.raw.iter().cloned());
        (!parts.is_empty()).then(|| crate::text::escape_control(&parts.join("; ")))
    }

    /// Why a page the rules save was not saved, if a directive says so.
    pub(crate) fn not_saved(&self) -> Option<String> {
        let by = match (self.meta.noindex, self.header.noindex) {
            (true, true) => "meta robots and X-Robots-Tag",
            (true, false) => "meta robots",
            (false, true) => "X-Robots-Tag",
            (false, false) => return None,
        };
        Some(format!("not saved: noindex ({by})"))
    }

    /// Why the page's links were not followed, if a directive says so.
    pub(crate) fn not_followed(&self) -> Option<String> {
        if !self.nofollow() {
            return None;
        }
        let by = match (self.meta.nofollow, self.header.nofollow) {
            (true, true) => "meta robots and X-Robots-Tag",
            (true, false) => "meta robots",
            _ => "X-Robots-Tag",
        };
        Some(format!("links not followed: nofollow ({by})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(content: &str) -> RobotsMeta {
        let mut m = RobotsMeta::default();
        if !content.is_empty() {
            m.apply(content);
            m.raw.push(format!("robots: {content}"));
        }
        m
    }

    fn header(value: &str) -> RobotsMeta {
        let mut m = RobotsMeta::default();
        if !value.is_empty() {
            m.apply_header(value, "crawlspace");
        }
        m
    }

    /// meta × header × ignore_nofollow: what is saved and followed, and
    /// what the trace says.
    #[test]
    fn meta_and_header_combine_by_union() {
        /// (meta, header, ignore_nofollow, noindex, nofollow, trace details)
        type Case<'a> = (&'a str, &'a str, bool, bool, bool, &'a [&'a str]);
        let cases: &[Case<'_>] = &[
            ("", "", false, false, false, &[]),
            ("noindex", "", false, true, false, &["meta robots noindex"]),
            (
                "",
                "noindex",
                false,
                true,
                false,
                &["X-Robots-Tag: noindex"],
            ),
            (
                "nofollow",
                "",
                false,
                false,
                true,
                &["meta robots nofollow"],
            ),
            (
                "",
                "nofollow",
                false,
                false,
                true,
                &["X-Robots-Tag: nofollow"],
            ),
            (
                "noindex",
                "nofollow",
                false,
                true,
                true,
                &["meta robots noindex", "X-Robots-Tag: nofollow"],
            ),
            (
                "none",
                "",
                false,
                true,
                true,
                &["meta robots noindex, nofollow"],
            ),
            (
                "index, follow",
                "noarchive, nosnippet",
                false,
                false,
                false,
                &[
                    "meta robots no restriction for this crawler",
                    "X-Robots-Tag: noarchive, nosnippet",
                ],
            ),
            (
                "",
                "otherbot: noindex, nofollow",
                false,
                false,
                false,
                &["X-Robots-Tag: no restriction for this crawler"],
            ),
            (
                "",
                "crawlspace: noindex",
                false,
                true,
                false,
                &["X-Robots-Tag: noindex"],
            ),
            (
                "nofollow",
                "",
                true,
                false,
                false,
                &["meta robots nofollow (nofollow ignored: ignore_nofollow = true)"],
            ),
        ];
        for &(m, h, ignore, noindex, nofollow, trace) in cases {
            let d = Directives {
                meta: meta(m),
                header: header(h),
                ignore_nofollow: ignore,
            };
            let case = format!("meta {m:?}, header {h:?}, ignore {ignore}");
            assert_eq!(d.noindex(), noindex, "{case}");
            assert_eq!(d.nofollow(), nofollow, "{case}");
            assert_eq!(d.not_saved().is_some(), noindex, "{case}");
            assert_eq!(d.not_followed().is_some(), nofollow, "{case}");
            let details: Vec<String> = d.trace().into_iter().map(|t| t.detail).collect();
            assert_eq!(details, trace, "{case}");
        }
    }

    #[test]
    fn robots_text_lists_both_sources_as_written() {
        let d = Directives {
            meta: meta("noindex"),
            header: header("noarchive"),
            ignore_nofollow: false,
        };
        assert_eq!(
            d.text().as_deref(),
            Some("meta robots: noindex; X-Robots-Tag: noarchive")
        );
        assert_eq!(
            d.not_saved().as_deref(),
            Some("not saved: noindex (meta robots)")
        );
        assert!(d.no_excerpt());
        assert_eq!(Directives::default().text(), None);
    }
}
