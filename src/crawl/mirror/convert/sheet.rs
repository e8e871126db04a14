//! `convert-links` for a saved stylesheet: each `url(…)` and `@import`
//! (module `crate::crawl::links::css`) pointed at the copy of what it names,
//! as a page's links are, relative to the stylesheet's own folder (CSS
//! resolves them against the stylesheet, not the page).
//!
//! CSS has no attribute to keep what the sheet said, so a changed
//! reference is followed by a comment that does: `url(../img/a@v=2.png)
//! /*crawlspace-url: /img/a.png?v=2*/` (written without the space). A later
//! run converts from that comment, so that a refresh that deleted a copy or
//! saved a new one is followed, and a reference that goes back to what the
//! sheet said loses its comment. Everything else passes through byte for
//! byte; a sheet that is not UTF-8 (nearly all are) is left as it is.

use std::path::Path;
use url::Url;

use super::{Converted, Links, read_copy};
use crate::crawl::links::css::css_urls;
use crate::store::UrlLog;

/// Opens the comment that keeps what a changed reference said.
const KEPT_OPEN: &str = "/*crawlspace-url: ";
const KEPT_CLOSE: &str = "*/";

/// Rewrites one saved stylesheet in place, when something in it changes.
pub(super) fn convert_sheet(
    log: &UrlLog,
    sheet_url: &Url,
    path: &Path,
    done: &mut Converted,
) -> Result<(), String> {
    let Some(bytes) = read_copy(path, done)? else {
        return Ok(());
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Err("a stylesheet that is not UTF-8: left as it is".into());
    };
    let mut links = Links::new(log, sheet_url, path)?;
    let output = rewrite_css(text, &mut links, true);
    done.local += links.local;
    done.absolute += links.absolute;
    let Some(output) = output else {
        done.unchanged += 1;
        return Ok(());
    };
    super::super::replace(path, output.as_bytes()).map_err(|e| e.to_string())?;
    done.sheets += 1;
    Ok(())
}

/// CSS with its references converted, or `None` when nothing changes.
/// With `comments`, what a changed reference said is kept in a comment
/// after it and read back from there (a stylesheet, a `<style>` element);
/// without, the caller keeps the original (a `style` attribute, in
/// `data-crawlspace-style`) and hands that over each time.
pub(super) fn rewrite_css(text: &str, links: &mut Links<'_>, comments: bool) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 256);
    let mut copied = 0;
    let mut changed = false;
    for reference in css_urls(text) {
        let (start, mut end) = (reference.range.start, reference.range.end);
        // What an earlier run kept, right after the reference.
        let kept = text
            .get(end..)
            .and_then(|rest| rest.strip_prefix(KEPT_OPEN))
            .and_then(|rest| rest.find(KEPT_CLOSE).map(|at| &rest[..at]))
            .filter(|_| comments);
        let original = kept.map_or(reference.url.clone(), unkeep);
        let mut new = match links.rewrite_value(&original) {
            Some(new) if new != original && comments => format!(
                "{}{KEPT_OPEN}{}{KEPT_CLOSE}",
                reference.written(&new),
                keep(&original)
            ),
            Some(new) if new != original => reference.written(&new),
            // Back to what the sheet said (only worth writing when an
            // earlier run had changed it).
            _ if kept.is_some() => reference.written(&original),
            _ => continue,
        };
        if let Some(kept) = kept {
            end += KEPT_OPEN.len() + kept.len() + KEPT_CLOSE.len();
            // Restored without a comment of its own: another such comment
            // right after would read as this reference's next time.
            let another = text
                .get(end..)
                .is_some_and(|rest| rest.starts_with(KEPT_OPEN));
            if another && !new.ends_with(KEPT_CLOSE) {
                new.push(' ');
            }
        }
        if text.get(start..end) == Some(new.as_str()) {
            continue;
        }
        out.push_str(text.get(copied..start).unwrap_or_default());
        out.push_str(&new);
        copied = end;
        changed = true;
    }
    out.push_str(text.get(copied..).unwrap_or_default());
    changed.then_some(out)
}

/// The characters [`keep`] writes as `%XX`: `%` itself (so that the
/// others read back exactly), `*` (a `*/` would end the comment), `<` and
/// `>` (a `</style>` would end a `<style>` element).
const KEPT_ESCAPES: [(char, &str); 4] = [('%', "%25"), ('*', "%2A"), ('<', "%3C"), ('>', "%3E")];

/// A URL as the comment keeps it: [`KEPT_ESCAPES`] escaped, so that the
/// comment holds it whatever it holds, and [`unkeep`] gives it back.
fn keep(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        match KEPT_ESCAPES.iter().find(|(plain, _)| *plain == c) {
            Some((_, escaped)) => out.push_str(escaped),
            None => out.push(c),
        }
    }
    out
}

/// The URL a comment keeps, as [`keep`] wrote it.
fn unkeep(kept: &str) -> String {
    let mut out = String::with_capacity(kept.len());
    let mut rest = kept;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        match KEPT_ESCAPES
            .iter()
            .find(|(_, escaped)| after.starts_with(escaped))
        {
            Some((plain, escaped)) => {
                out.push(*plain);
                rest = &after[escaped.len()..];
            }
            // Not written by `keep` (an edited comment): as it is.
            None => {
                out.push('%');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log whose `http://h/img/a.png?v=2` is saved at `dir/h/img/a@v=2.png`,
    /// and a sheet at `dir/h/css/site.css`.
    #[test]
    fn references_point_at_copies_and_keep_what_the_sheet_said() {
        let dir = tempfile::tempdir().unwrap();
        let log = UrlLog::open(&dir.path().join("db"), 1 << 20).unwrap();
        let img = dir.path().join("h/img");
        std::fs::create_dir_all(&img).unwrap();
        std::fs::create_dir_all(dir.path().join("h/css")).unwrap();
        let copy = img.join("a@v=2.png");
        super::super::log_saved_copy(&log, "http://h/img/a.png?v=2", &copy);
        let sheet = dir.path().join("h/css/site.css");
        std::fs::write(&sheet, "").unwrap();
        let url = Url::parse("http://h/css/site.css").unwrap();
        let mut links = Links::new(&log, &url, &sheet).unwrap();
        let css = "@import 'more.css';\nb{background:url(/img/a.png?v=2) no-repeat}\n\
                   i{background:url(\"http://o/x.png\")}/* url(c.png) */";
        let once = rewrite_css(css, &mut links, true).expect("changed");
        assert_eq!(
            once,
            "@import \"http://h/css/more.css\"/*crawlspace-url: more.css*/;\n\
             b{background:url(../img/a@v=2.png)/*crawlspace-url: /img/a.png?v=2*/ no-repeat}\n\
             i{background:url(\"http://o/x.png\")}/* url(c.png) */"
        );
        assert_eq!((links.local, links.absolute), (1, 1));
        // Again: nothing changes.
        assert_eq!(rewrite_css(&once, &mut links, true), None);
        // The copy gone from the log's view (a refresh deleted it): the
        // reference goes back to an absolute URL, from what the comment kept.
        let stale = once.replace("../img/a@v=2.png", "gone.png");
        assert_eq!(
            rewrite_css(&stale, &mut links, true).as_deref(),
            Some(once.as_str())
        );
        // A string of `image-set` is rewritten as a string.
        assert_eq!(
            rewrite_css("x{b:image-set('/img/a.png?v=2' 1x)}", &mut links, true).as_deref(),
            Some("x{b:image-set(\"../img/a@v=2.png\"/*crawlspace-url: /img/a.png?v=2*/ 1x)}")
        );
        std::fs::remove_file(&copy).unwrap();
        let deleted = rewrite_css(&once, &mut links, true).expect("changed");
        assert!(
            deleted.contains(
                "url(http://h/img/a.png?v=2)/*crawlspace-url: /img/a.png?v=2*/ no-repeat"
            ),
            "{deleted}"
        );
    }

    /// Whatever a URL holds, the comment keeps it whole and gives it back
    /// as it was: `*/`, `</style>`, and `%2A` written as such.
    #[test]
    fn a_kept_url_comes_back_as_it_was() {
        assert_eq!(keep("/a*/b"), "/a%2A/b");
        assert_eq!(keep("</style><img>"), "%3C/style%3E%3Cimg%3E");
        for url in [
            "/a*/b",
            "/a%2A/b.png",
            "</style>",
            "%",
            "%2",
            "100%25",
            "/é%3c*",
        ] {
            let kept = keep(url);
            assert!(!kept.contains("*/") && !kept.contains('<'), "{kept}");
            assert_eq!(unkeep(&kept), url);
        }
        // `%` not followed by one of the escapes is left.
        assert_eq!(unkeep("%41%"), "%41%");
    }
}

#[cfg(test)]
mod random_tests {
    use super::*;

    /// Random CSS-ish text: every rewrite ends without a panic, and a
    /// second run over its output changes nothing (the comments read back
    /// what the first run kept).
    #[test]
    fn random_css_converts_once_and_then_stays() {
        let pieces = [
            "url(",
            ")",
            "url(a.png)",
            "url('b c.png')",
            "url(\"/d.png?x=1\")",
            "@import ",
            "'e.css'",
            "\"f.css\"",
            ";",
            "{",
            "}",
            "(",
            "[",
            "]",
            "/*",
            "*/",
            "\\",
            "\\3c ",
            "é",
            " ",
            "\n",
            "image-set(",
            "\"g.png\" 1x",
            ",",
            "@namespace ",
            "http://o/x.png",
            "/*crawlspace-url: h.png*/",
            "%2A",
            "</style>",
            "url(i.png)/*crawlspace-url: ",
        ];
        let dir = tempfile::tempdir().unwrap();
        let log = UrlLog::open(&dir.path().join("db"), 1 << 20).unwrap();
        let sheet = dir.path().join("s.css");
        std::fs::write(&sheet, "").unwrap();
        let url = Url::parse("http://h/css/s.css").unwrap();
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        // Every other text from pieces that keep the CSS well formed, so
        // that many references are reached and converted.
        let whole = [
            "url(a.png)",
            "url('b c.png')",
            "url(\"/d.png?x=1\")",
            "@import 'e.css';",
            " ",
            "\n",
            "b{c:url(j.png)}",
            "x{y:image-set(\"g.png\" 1x)}",
            "é",
            "/* c */",
            "x{y:url(/k/l.png) no-repeat}",
            "@import url(m.css);",
            "url(i.png)/*crawlspace-url: n.png*/",
        ];
        let mut changed = 0;
        for round in 0..3000 {
            let palette: &[&str] = if round % 2 == 0 { &whole } else { &pieces };
            let mut next = || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            };
            let mut css = String::new();
            for _ in 0..next() % 16 {
                css.push_str(palette[(next() % palette.len() as u64) as usize]);
            }
            let mut links = Links::new(&log, &url, &sheet).unwrap();
            let first = rewrite_css(&css, &mut links, true);
            changed += usize::from(first.is_some());
            let once = first.unwrap_or_else(|| css.clone());
            assert_eq!(
                rewrite_css(&once, &mut links, true),
                None,
                "not stable: {css:?} -> {once:?}"
            );
        }
        // The pieces make references to convert often enough to matter.
        assert!(changed > 500, "only {changed} of 3000 changed");
    }
}
