//! `crawlspace convert-links`: makes a finished mirror browsable offline,
//! as wget's `--convert-links` does. Saved pages keep the links their
//! server wrote (`/docs/a.html`, `http://host/b`), which lead nowhere from
//! a folder on disk. This pass reads every saved HTML page the URL log
//! names and rewrites each link (`a`, `area`, `link` `href`; `frame`,
//! `iframe`, `img`, `script`, `embed`, `source`, `track`, `audio`,
//! `video`, `input` `src`; each URL of `img` and `source` `srcset`, its
//! descriptors kept; `video` `poster`; `object` `data`; `form` `action`;
//! the CSS of `style` attributes and `<style>` elements, module `sheet`):
//!
//! - to a URL the log holds as saved (after its redirects, when the link's
//!   target was one): the relative path of that copy, fragment kept;
//! - to anything else, when the link was relative: the absolute URL, so
//!   that it still works with a network; absolute links stay as they are.
//!
//! A changed attribute keeps what the page said in `data-crawlspace-NAME`,
//! and a later run converts from that: after a refresh deleted a copy or
//! saved a new one, running it again points every link right. The first
//! `<base href>` is followed, and every `href` of a `<base>` moves to
//! `data-crawlspace-href` (the relative paths are the file's own). A value with characters outside ASCII is left as written:
//! the log does not keep the charset the page was read with, and a guess
//! could point the link elsewhere. It is done after the crawl, from the
//! log, because only then is it known which links have a copy. Pages are
//! rewritten with lol_html (a streaming HTML rewriter made for this:
//! everything but the changed attributes passes through byte for byte),
//! written beside and renamed into place, and only when something
//! changed.

use std::cell::RefCell;
use std::path::{Component, Path, PathBuf};

use lol_html::html_content::{ContentType, Element, TextType};
use lol_html::{HtmlRewriter, Settings, element, text};
use url::Url;

use crate::crawl::links::srcset;
use crate::rules::normalize;
use crate::store::{Query, State, StoreError, UrlLog};

mod sheet;

/// Where a changed attribute keeps the page's own value: `data-crawlspace-`
/// and the attribute's name.
pub const ORIGINAL_PREFIX: &str = "data-crawlspace-";

/// The attributes rewritten, with the elements that carry them. `srcset`
/// holds a list of URLs ([`Links::rewrite_srcset`]), `style` CSS
/// ([`Links::rewrite_style`]), the others one URL.
const LINK_ATTRIBUTES: [(&str, &str); 7] = [
    ("href", "a[href], area[href], link[href]"),
    (
        "src",
        "frame[src], iframe[src], img[src], script[src], embed[src], source[src], \
         track[src], audio[src], video[src], input[src]",
    ),
    ("srcset", "img[srcset], source[srcset]"),
    ("style", "[style]"),
    ("poster", "video[poster]"),
    ("data", "object[data]"),
    ("action", "form[action]"),
];

/// How many redirects a link is followed through to its copy.
const MAX_HOPS: usize = 10;

/// What a run did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Converted {
    /// Pages rewritten.
    pub pages: u64,
    /// Stylesheets rewritten (module `sheet`).
    pub sheets: u64,
    /// Pages and stylesheets read whose links were already as they
    /// should be.
    pub unchanged: u64,
    /// Links that point to a copy in the mirror once the run is over, in
    /// the files it rewrote and in those already right.
    pub local: u64,
    /// Relative links to URLs without a copy, absolute once the run is
    /// over (by this run or an earlier one).
    pub absolute: u64,
    /// Pages not where the log says they were saved (the command run in
    /// another folder than the crawl, or the copy removed since).
    pub missing: Vec<String>,
    /// Pages that could not be converted: `path: why`.
    pub failed: Vec<String>,
}

/// Converts the links of every saved HTML page of `log`. Pages are found
/// where their records say they were saved, relative to the folder the
/// command runs in, as the crawl wrote them.
pub fn convert_links(log: &UrlLog) -> Result<Converted, StoreError> {
    let mut done = Converted::default();
    let query = Query {
        state: Some(State::Saved),
        ..Query::default()
    };
    let mut after = None;
    loop {
        let page = log.page(&query, after, 500)?;
        let Some((last, _)) = page.last() else {
            break;
        };
        after = Some(*last);
        for (_, record) in page {
            let Some(content_type) = record.content_type.as_deref() else {
                continue;
            };
            let html = content_type.eq_ignore_ascii_case("text/html")
                || content_type.eq_ignore_ascii_case("application/xhtml+xml");
            let css = content_type.eq_ignore_ascii_case("text/css");
            let (true, Some(saved)) = (html || css, record.saved_path.as_deref()) else {
                continue;
            };
            let Ok(url) = Url::parse(&record.url) else {
                continue;
            };
            let path = Path::new(saved);
            let converted = match html {
                true => convert_page(log, &url, path, &mut done),
                false => sheet::convert_sheet(log, &url, path, &mut done),
            };
            if let Err(why) = converted {
                done.failed.push(format!("{}: {why}", path.display()));
            }
        }
    }
    Ok(done)
}

/// Rewrites one saved page in place.
fn convert_page(
    log: &UrlLog,
    page_url: &Url,
    path: &Path,
    done: &mut Converted,
) -> Result<(), String> {
    let Some(bytes) = read_copy(path, done)? else {
        return Ok(());
    };
    // lol_html reads encodings that keep ASCII as ASCII; UTF-16 does not.
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return Err("a UTF-16 page: left as it is".into());
    }
    let utf8 = std::str::from_utf8(&bytes).is_ok();
    let links = RefCell::new(Links {
        utf8,
        ..Links::new(log, page_url, path)?
    });
    let style_text = RefCell::new(String::new());
    let mut output = Vec::with_capacity(bytes.len() + 128);
    {
        let rewrite = |el: &mut Element<'_, '_>, name: &str| {
            // What the page said: kept by an earlier run, or the value.
            let kept = format!("{ORIGINAL_PREFIX}{name}");
            let Some(original) = el.get_attribute(&kept).or_else(|| el.get_attribute(name)) else {
                return Ok(());
            };
            let now = el.get_attribute(name);
            let mut links = links.borrow_mut();
            let new = match name {
                "srcset" => links.rewrite_srcset(&original),
                "style" => links.rewrite_style(&original),
                _ => links.rewrite(&original),
            };
            let new = new.unwrap_or_else(|| original.clone());
            // Compared as values: lol_html hands the attribute over as
            // written, `&quot;` and all.
            let decode = crate::crawl::links::decode;
            if now.as_deref().map(decode) == Some(decode(&new)) {
                return Ok(());
            }
            links.changed = true;
            let set = el
                .set_attribute(name, &new)
                .and_then(|()| match new == original {
                    true => {
                        el.remove_attribute(&kept);
                        Ok(())
                    }
                    false => el.set_attribute(&kept, &original),
                });
            if let Err(e) = set {
                links.error = Some(e.to_string());
            }
            Ok(())
        };
        let mut settings = Settings::new()
            .with_strict(false)
            .append_element_content_handler(element!("base", |el| {
                // The first only, as browsers and the crawler read it. Its
                // `href` goes, so that links are the file's own, and stays
                // as `data-crawlspace-href` for the next run.
                let kept = format!("{ORIGINAL_PREFIX}href");
                let Some(href) = el.get_attribute(&kept).or_else(|| el.get_attribute("href"))
                else {
                    return Ok(());
                };
                let mut links = links.borrow_mut();
                if !std::mem::replace(&mut links.base_seen, true)
                    && let Ok(base) = links.base.join(&crate::crawl::links::decode(href.trim()))
                {
                    links.base = base;
                }
                if el.get_attribute("href").is_some() {
                    links.changed = true;
                    el.remove_attribute("href");
                    if let Err(e) = el.set_attribute(&kept, &href) {
                        links.error = Some(e.to_string());
                    }
                }
                Ok(())
            }));
        // A `<style>` element's text, gathered chunk by chunk (its chunks
        // taken out of the output) and written back whole at its last,
        // converted as a stylesheet is. Only on a UTF-8 page: on another,
        // lol_html would write the text back with U+FFFD for the bytes it
        // could not read, handler or no, so there is none.
        let style_handler = text!("style", |chunk| {
            if chunk.text_type() != TextType::RawText {
                return Ok(());
            }
            let mut text = style_text.borrow_mut();
            text.push_str(chunk.as_str());
            chunk.remove();
            if !chunk.last_in_text_node() {
                return Ok(());
            }
            let css = std::mem::take(&mut *text);
            let mut links = links.borrow_mut();
            let new = sheet::rewrite_css(&css, &mut links, true);
            links.changed |= new.is_some();
            chunk.replace(new.as_deref().unwrap_or(&css), ContentType::Html);
            Ok(())
        });
        if utf8 {
            settings = settings.append_element_content_handler(style_handler);
        }
        for (name, selector) in LINK_ATTRIBUTES {
            let rewrite = &rewrite;
            settings = settings.append_element_content_handler(element!(selector, move |el| {
                rewrite(el, name)
            }));
        }
        let mut rewriter = HtmlRewriter::new(settings, |chunk: &[u8]| {
            output.extend_from_slice(chunk);
        });
        rewriter.write(&bytes).map_err(|e| e.to_string())?;
        rewriter.end().map_err(|e| e.to_string())?;
    }
    let links = links.into_inner();
    if let Some(error) = links.error {
        return Err(error);
    }
    done.local += links.local;
    done.absolute += links.absolute;
    if !links.changed {
        done.unchanged += 1;
        return Ok(());
    }
    super::replace(path, &output).map_err(|e| e.to_string())?;
    done.pages += 1;
    Ok(())
}

/// A saved copy's bytes; `None` (noted in `done`) when it is not there.
fn read_copy(path: &Path, done: &mut Converted) -> Result<Option<Vec<u8>>, String> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            done.missing.push(path.display().to_string());
            Ok(None)
        }
        Err(e) => Err(e.to_string()),
    }
}

/// What the link handlers share for one page.
struct Links<'a> {
    log: &'a UrlLog,
    /// The page's URL, or its first `<base href>` once met.
    base: Url,
    base_seen: bool,
    /// The page's folder, canonical.
    from_dir: PathBuf,
    /// The page is UTF-8, as lol_html reads it. Otherwise a value that
    /// holds more than one URL (`srcset`, `style`) is rewritten only when
    /// it is ASCII: lol_html hands other bytes over as U+FFFD, and writing
    /// the value back would lose them.
    utf8: bool,
    local: u64,
    absolute: u64,
    /// Something in the page changed: it is written back.
    changed: bool,
    error: Option<String>,
}

impl<'a> Links<'a> {
    /// For the copy at `path` of the page or stylesheet at `url`.
    fn new(log: &'a UrlLog, url: &Url, path: &Path) -> Result<Links<'a>, String> {
        let from = std::fs::canonicalize(path).map_err(|e| e.to_string())?;
        Ok(Links {
            log,
            base: url.clone(),
            base_seen: false,
            from_dir: from.parent().unwrap_or(Path::new("/")).to_path_buf(),
            utf8: true,
            local: 0,
            absolute: 0,
            changed: false,
            error: None,
        })
    }

    /// The new value of a link attribute as written in the page (entities
    /// and all, as lol_html hands it over and takes it back), or `None` to
    /// leave it.
    fn rewrite(&mut self, raw: &str) -> Option<String> {
        let decoded = crate::crawl::links::decode(raw);
        self.rewrite_value(&decoded).map(|new| escape_amp(&new))
    }

    /// [`Self::rewrite`] for a `style` attribute: each `url(…)` of its CSS
    /// (module `sheet`); what it said is kept in `data-crawlspace-style`
    /// as for other attributes.
    fn rewrite_style(&mut self, raw: &str) -> Option<String> {
        if !self.utf8 && !raw.is_ascii() {
            return None;
        }
        let decoded = crate::crawl::links::decode(raw);
        sheet::rewrite_css(&decoded, self, false).map(|new| escape_amp(&new))
    }

    /// [`Self::rewrite`] for a `srcset`: each candidate's URL rewritten,
    /// its descriptors and the separators kept. `None` when no URL
    /// changes.
    fn rewrite_srcset(&mut self, raw: &str) -> Option<String> {
        if !self.utf8 && !raw.is_ascii() {
            return None;
        }
        let decoded = crate::crawl::links::decode(raw);
        let mut out = String::with_capacity(decoded.len() + 32);
        let mut copied = 0;
        let mut changed = false;
        for range in srcset::url_ranges(&decoded) {
            let (Some(before), Some(url)) =
                (decoded.get(copied..range.start), decoded.get(range.clone()))
            else {
                continue;
            };
            out.push_str(before);
            match self.rewrite_value(url) {
                Some(new) => {
                    changed = true;
                    // A comma starting a URL would be read as a separator,
                    // one ending it would end the candidate there.
                    if new.starts_with(',') {
                        out.push_str("./");
                    }
                    let kept = new.trim_end_matches(',');
                    out.push_str(kept);
                    out.push_str(&"%2C".repeat(new.len() - kept.len()));
                }
                None => out.push_str(url),
            }
            copied = range.end;
        }
        out.push_str(decoded.get(copied..).unwrap_or_default());
        changed.then(|| escape_amp(&out))
    }

    /// The new value of one decoded link, not yet escaped for an
    /// attribute, or `None` to leave it.
    fn rewrite_value(&mut self, decoded: &str) -> Option<String> {
        let value = decoded.trim();
        // In-page anchors; and text outside ASCII, which the page's
        // charset (not kept in the log) may have meant otherwise.
        if value.is_empty() || value.starts_with('#') || !value.is_ascii() {
            return None;
        }
        let resolved = self.base.join(value).ok()?;
        if !matches!(resolved.scheme(), "http" | "https") {
            return None;
        }
        let fragment = resolved.fragment().map(str::to_string);
        if let Some(copy) = self.copy_of(&resolved) {
            self.local += 1;
            let mut relative = relative_href(&self.from_dir, &copy);
            if let Some(fragment) = fragment {
                relative.push('#');
                relative.push_str(&fragment);
            }
            return Some(relative);
        }
        // Relative: it would lead to a file that is not there.
        let relative = Url::parse(value).is_err();
        relative.then(|| {
            self.absolute += 1;
            resolved.to_string()
        })
    }

    /// The canonical path of the copy the log holds for `url`, following
    /// its redirects.
    fn copy_of(&self, url: &Url) -> Option<PathBuf> {
        let mut text = normalize(url.as_str()).ok()?.to_string();
        // Each hop is a record of its own, its target as the log wrote it.
        for _ in 0..=MAX_HOPS {
            let id = self.log.id_of(&text).ok()??;
            let record = self.log.get(id).ok()??;
            if let Some(next) = record.redirect_to {
                text = next;
                continue;
            }
            let saved = record.saved_path.filter(|_| record.state == State::Saved)?;
            return std::fs::canonicalize(saved).ok();
        }
        None
    }
}

/// `to` as an `href` from the folder `from_dir` (both canonical): `..` up
/// to what they share, then down, each name percent-encoded where a URL
/// would read it otherwise (mirror names hold `%`, `@`, `&`).
fn relative_href(from_dir: &Path, to: &Path) -> String {
    let from: Vec<Component<'_>> = from_dir.components().collect();
    let to_parts: Vec<Component<'_>> = to.components().collect();
    let shared = from
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut parts: Vec<String> = vec!["..".to_string(); from.len() - shared];
    for part in &to_parts[shared..] {
        parts.push(encode_name(&part.as_os_str().to_string_lossy()));
    }
    parts.join("/")
}

/// A value as written into an attribute: lol_html escapes only `"`, and a
/// bare `&` could start a character reference (`#s&copy` reads `#s©`).
fn escape_amp(value: &str) -> String {
    value.replace('&', "&amp;")
}

/// A file name as a URL path segment.
fn encode_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        // Whitespace would split a `srcset` candidate; characters outside
        // ASCII are written as their UTF-8 bytes, the path a browser reads,
        // so that what is written is ASCII whatever the page's charset.
        let encoded = matches!(c, '%' | '&' | '#' | '?' | '"' | '\'' | '<' | '>' | '\\')
            || c.is_ascii_whitespace()
            || c.is_ascii_control()
            || !c.is_ascii();
        if !encoded {
            out.push(c);
            continue;
        }
        let mut buf = [0u8; 4];
        for b in c.encode_utf8(&mut buf).bytes() {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// For tests: a copy of `url` saved at `path` (written) and its record
/// in `log`, as a crawl leaves them.
#[cfg(test)]
fn log_saved_copy(log: &UrlLog, url: &str, path: &Path) -> crate::store::UrlRecord {
    std::fs::write(path, "PNG").unwrap();
    let record = crate::store::UrlRecord {
        url: url.into(),
        state: State::Saved,
        saved_path: Some(path.display().to_string()),
        ..Default::default()
    };
    log.discover(&record).unwrap();
    record
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values the converter leaves as they are: in-page anchors, other
    /// schemes, and text outside ASCII (the page's charset is not kept).
    #[test]
    fn what_is_left_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let log = UrlLog::open(&dir.path().join("db"), 1 << 20).unwrap();
        let mut links = Links {
            log: &log,
            base: Url::parse("http://h/a/page.html").unwrap(),
            base_seen: false,
            from_dir: dir.path().to_path_buf(),
            utf8: true,
            local: 0,
            absolute: 0,
            changed: false,
            error: None,
        };
        for value in [
            "#top",
            "mailto:a@b.c",
            "javascript:void(0)",
            "caf\u{e9}.html",
            "  ",
        ] {
            assert_eq!(links.rewrite(value), None, "{value:?}");
        }
        // No copy: relative made absolute, `&` escaped; absolute left.
        assert_eq!(
            links.rewrite("x.html?a=1&amp;b=2#s&amp;t").as_deref(),
            Some("http://h/a/x.html?a=1&amp;b=2#s&amp;t")
        );
        assert_eq!(links.rewrite("http://other/x"), None);
    }

    /// Each candidate of a `srcset` is rewritten as a single link would
    /// be, descriptors and separators kept; a copy whose name ends in a
    /// comma gets it encoded, so that the candidate does not end early.
    #[test]
    fn srcset_candidates_are_rewritten_one_by_one() {
        let dir = tempfile::tempdir().unwrap();
        let log = UrlLog::open(&dir.path().join("db"), 1 << 20).unwrap();
        let copy = dir.path().join("x,");
        let record = log_saved_copy(&log, "http://h/a/x,", &copy);
        // `r` redirects to it, so a link to `r` leads to that copy.
        let redirect = crate::store::UrlRecord {
            url: "http://h/a/r".into(),
            redirect_to: Some(record.url.clone()),
            ..Default::default()
        };
        log.discover(&redirect).unwrap();
        let mut links = Links {
            log: &log,
            base: Url::parse("http://h/a/page.html").unwrap(),
            base_seen: false,
            from_dir: std::fs::canonicalize(dir.path()).unwrap(),
            utf8: true,
            local: 0,
            absolute: 0,
            changed: false,
            error: None,
        };
        // Nothing to change: left as written.
        assert_eq!(links.rewrite_srcset("http://o/x.png 1x, #y 2x"), None);
        assert_eq!(
            links
                .rewrite_srcset(" y.png 1x,\n/z.png?a=1&amp;b=2 (2x, 3x),r 4x")
                .as_deref(),
            Some(" http://h/a/y.png 1x,\nhttp://h/z.png?a=1&amp;b=2 (2x, 3x),x%2C 4x")
        );
        assert_eq!((links.local, links.absolute), (1, 2));
    }

    #[test]
    fn relative_hrefs_go_up_then_down_and_encode_names() {
        let from = Path::new("/m/h_80/docs/guide");
        assert_eq!(
            relative_href(from, Path::new("/m/h_80/docs/guide/a.html")),
            "a.html"
        );
        assert_eq!(
            relative_href(from, Path::new("/m/h_80/index.html")),
            "../../index.html"
        );
        assert_eq!(
            relative_href(from, Path::new("/m/h_80/list/index@a=1&b=%2F.html")),
            "../../list/index@a=1%26b=%252F.html"
        );
        assert_eq!(
            relative_href(from, Path::new("/m/other_81/x.html")),
            "../../../other_81/x.html"
        );
        // Whitespace and text outside ASCII as UTF-8 bytes: what is written
        // is ASCII, and no `srcset` candidate splits on it.
        assert_eq!(
            relative_href(from, Path::new("/m/h_80/docs/guide/caf\u{e9} a\tb.png")),
            "caf%C3%A9%20a%09b.png"
        );
    }

    /// A page that is not UTF-8: its links are converted, while `<style>`
    /// and the `srcset` and `style` values outside ASCII stay byte for
    /// byte (lol_html would hand their Latin-1 bytes over as U+FFFD).
    #[test]
    fn a_page_not_in_utf8_keeps_its_css_and_srcset_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let log = UrlLog::open(&dir.path().join("db"), 1 << 20).unwrap();
        let page = dir.path().join("index.html");
        let style = b"<style>b{font-family:\"Caf\xe9\";background:url(/bg.png)}</style>".to_vec();
        let attrs = b"<img srcset=\"a.png 1x, caf\xe9.png 2x\" style=\"content:'\xe9';background:url(/i.png)\">";
        let mut html = style.clone();
        html.extend_from_slice(attrs);
        html.extend_from_slice(b"<a href=\"x.html\">x</a>");
        std::fs::write(&page, &html).unwrap();
        let url = Url::parse("http://h/index.html").unwrap();
        let mut done = Converted::default();
        convert_page(&log, &url, &page, &mut done).unwrap();
        assert_eq!((done.pages, done.absolute), (1, 1), "{done:?}");
        let mut want = style;
        want.extend_from_slice(attrs);
        want.extend_from_slice(
            b"<a href=\"http://h/x.html\" data-crawlspace-href=\"x.html\">x</a>",
        );
        assert_eq!(std::fs::read(&page).unwrap(), want);
    }

    /// A copy whose path starts with a comma: `./` keeps the comma in the
    /// `srcset` candidate's URL.
    #[test]
    fn a_srcset_path_starting_with_a_comma() {
        let dir = tempfile::tempdir().unwrap();
        let log = UrlLog::open(&dir.path().join("db"), 1 << 20).unwrap();
        let copy = dir.path().join(",v2.png");
        log_saved_copy(&log, "http://h/,v2.png", &copy);
        let mut links = Links::new(&log, &Url::parse("http://h/p.html").unwrap(), &copy).unwrap();
        assert_eq!(
            links.rewrite_srcset("/,v2.png 2x").as_deref(),
            Some("./,v2.png 2x")
        );
        let urls: Vec<&str> = srcset::url_ranges("./,v2.png 2x")
            .map(|r| &"./,v2.png 2x"[r])
            .collect();
        assert_eq!(urls, ["./,v2.png"]);
    }
}
