//! The URLs a stylesheet refers to: `url(…)` (background images, fonts of
//! `@font-face`, cursors) and `@import "…"`, which a browsable mirror must
//! hold as it holds a page's images; and where each is written, so that
//! `convert-links` can point it at the copy.
//!
//! Tokenizing is `cssparser`'s (Servo's and Firefox's CSS Syntax Level 3
//! tokenizer, already built for lol_html), so comments, strings with their
//! escapes, `url(` with or without quotes and bad URLs are read as a browser
//! reads them. Blocks are walked to [`MAX_NESTING`] levels; deeper ones are
//! skipped (no real stylesheet nests that far, and a crafted one must not
//! exhaust the stack). Nothing else of CSS is interpreted: an `@import`
//! that a browser would ignore because it comes after a rule is still
//! listed, which costs at most one fetch; `@namespace`'s `url(…)` is not a
//! reference; the bare strings of `image-set("a.png" 1x, …)` (and
//! `-webkit-image-set`) are, as its `url(…)`s.

use std::ops::Range;

use cssparser::{ParseError, Parser, ParserInput, Token};

/// Levels of nested blocks (`{`, `(`, `[`, functions) walked into.
pub const MAX_NESTING: usize = 32;

/// One reference to a URL in a stylesheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CssUrl {
    /// The URL, its CSS escapes resolved.
    pub url: String,
    /// The bytes that say it: the whole `url(…)`, or the string after
    /// `@import`. A rewrite replaces them with [`CssUrl::written`].
    pub range: Range<usize>,
    /// It is an `@import`: another stylesheet.
    pub import: bool,
    /// It was written as `url(…)` (not a bare string after `@import`).
    pub function: bool,
}

impl CssUrl {
    /// `url` written back in this reference's form: `url(…)` or `"…"`.
    /// In `url(…)` a URL without whitespace, quotes, parentheses,
    /// backslashes, `<`, `>` or control characters goes unquoted (the form
    /// that needs no escaping in a `style="…"` attribute either); anything
    /// else is quoted and escaped as CSS requires, and `<` and `>` as CSS
    /// escapes too, so that the text can never close a `<style>` element.
    pub fn written(&self, url: &str) -> String {
        let plain = !url.is_empty()
            && !url.chars().any(|c| {
                c.is_whitespace()
                    || c.is_control()
                    || matches!(c, '"' | '\'' | '(' | ')' | '\\' | '<' | '>')
            });
        if self.function && plain {
            return format!("url({url})");
        }
        let mut quoted = String::with_capacity(url.len() + 2);
        // Writing into a String cannot fail.
        let _ = cssparser::serialize_string(url, &mut quoted);
        let quoted = quoted.replace('<', "\\3c ").replace('>', "\\3e ");
        if self.function {
            format!("url({quoted})")
        } else {
            quoted
        }
    }
}

/// Every URL reference in `css`, in order.
pub fn css_urls(css: &str) -> Vec<CssUrl> {
    let mut input = ParserInput::new(css);
    let mut parser = Parser::new(&mut input);
    let mut found = Vec::new();
    walk(&mut parser, &mut found, 0, false);
    found
}

/// The walk's error type: it never fails, it stops at the end.
type Walked<'i> = Result<(), ParseError<'i, ()>>;

/// Reads the tokens of one block level, going into nested ones. In
/// `image_set` (the arguments of `image-set(…)`) a bare string is a URL.
fn walk<'i>(parser: &mut Parser<'i, '_>, found: &mut Vec<CssUrl>, depth: usize, image_set: bool) {
    // After `@import` (whitespace and comments between count for nothing).
    let mut import = false;
    // Inside an `@namespace` rule, up to its `;`.
    let mut namespace = false;
    loop {
        let start = parser.position().byte_index();
        let Ok(token) = parser.next_including_whitespace_and_comments() else {
            return;
        };
        let after_import = std::mem::take(&mut import);
        // A reference read here: its URL, and whether it is `url(…)`.
        let reference = match token {
            Token::WhiteSpace(_) | Token::Comment(_) => {
                import = after_import;
                None
            }
            Token::AtKeyword(name) => {
                import = name.eq_ignore_ascii_case("import");
                namespace = name.eq_ignore_ascii_case("namespace");
                None
            }
            Token::Semicolon => {
                namespace = false;
                None
            }
            Token::UnquotedUrl(url) => Some((url.to_string(), true)),
            Token::QuotedString(url) if after_import || image_set => Some((url.to_string(), false)),
            Token::Function(name) if name.eq_ignore_ascii_case("url") => {
                // `url("…")`: its first token is the string.
                let quoted: Result<Option<String>, ParseError<'i, ()>> =
                    parser.parse_nested_block(|inner| {
                        let mut url = None;
                        while let Ok(token) = inner.next() {
                            if let (None, Token::QuotedString(s)) = (&url, token) {
                                url = Some(s.to_string());
                            }
                        }
                        Ok(url)
                    });
                quoted.ok().flatten().map(|url| (url, true))
            }
            Token::Function(_)
            | Token::CurlyBracketBlock
            | Token::SquareBracketBlock
            | Token::ParenthesisBlock => {
                let strings_are_urls = matches!(token, Token::Function(name)
                    if name.eq_ignore_ascii_case("image-set")
                        || name.eq_ignore_ascii_case("-webkit-image-set"));
                // Deeper blocks are stepped over unread (cssparser's loop,
                // not a recursion), here rather than by the next `next`, so
                // that `start` above is where the next token starts.
                let _: Walked<'i> = parser.parse_nested_block(|inner| {
                    if depth < MAX_NESTING {
                        walk(inner, found, depth + 1, strings_are_urls);
                    }
                    Ok(())
                });
                None
            }
            _ => None,
        };
        // `@namespace svg url(…)` names a namespace, not a resource.
        if namespace {
            continue;
        }
        if let Some((url, function)) = reference {
            found.push(CssUrl {
                url,
                range: start..parser.position().byte_index(),
                import: after_import,
                function,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(css: &str) -> Vec<(String, &str, bool)> {
        css_urls(css)
            .into_iter()
            .map(|u| {
                let written = &css[u.range.clone()];
                (u.url, written, u.import)
            })
            .collect()
    }

    #[test]
    fn every_form_of_reference() {
        let css = r#"@import "base.css";
@import url(print.css) print;
@IMPORT 'x.css';
body { background: url(img/bg.png) no-repeat; }
.a { background-image: url( "q.png" ), URL('r\'s.png'); }
@font-face { font-family: F; src: url(f.woff2) format("woff2"), url("f.woff"); }
@media screen { .b { cursor: url(c.cur), auto; } }
.e { content: "url(not.png)"; } /* url(comment.png) */
.f { background: url(data:image/png;base64,iVBO=); }
.g { background: url(sp\61 ce.png); }"#;
        let got = urls(css);
        let want: Vec<(String, &str, bool)> = vec![
            ("base.css".into(), "\"base.css\"", true),
            ("print.css".into(), "url(print.css)", true),
            ("x.css".into(), "'x.css'", true),
            ("img/bg.png".into(), "url(img/bg.png)", false),
            ("q.png".into(), "url( \"q.png\" )", false),
            ("r's.png".into(), "URL('r\\'s.png')", false),
            ("f.woff2".into(), "url(f.woff2)", false),
            ("f.woff".into(), "url(\"f.woff\")", false),
            ("c.cur".into(), "url(c.cur)", false),
            (
                "data:image/png;base64,iVBO=".into(),
                "url(data:image/png;base64,iVBO=)",
                false,
            ),
            ("space.png".into(), "url(sp\\61 ce.png)", false),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn written_back_quoted_and_escaped() {
        let refs = css_urls("a{b:url(x.png)} @import 'y.css';");
        assert_eq!(refs[0].written("../i/x@2.png"), "url(../i/x@2.png)");
        assert_eq!(refs[0].written("a(1).png"), "url(\"a(1).png\")");
        // Never `</style>` in what is written, and the same URL read back.
        let closing = refs[0].written("</style><b>");
        assert_eq!(closing, "url(\"\\3c /style\\3e \\3c b\\3e \")");
        assert_eq!(urls(&closing)[0].0, "</style><b>");
        assert_eq!(
            refs[0].written("../i/x y\".png"),
            "url(\"../i/x y\\\".png\")"
        );
        assert_eq!(refs[1].written("z.css"), "\"z.css\"");
    }

    /// Broken CSS ends without a panic; what a browser reads is found.
    #[test]
    fn broken_and_hostile_css() {
        // A `url(` cut by the end is an empty URL (which nobody fetches).
        assert!(urls("url(").iter().all(|(url, _, _)| url.is_empty()));
        assert!(urls("a { b: url(x y.png) }").is_empty(), "a bad url");
        assert_eq!(urls("a { b: url(\"x.png").len(), 1, "cut at the end");
        let deep = format!(
            "{}url(deep.png){}",
            "(".repeat(100_000),
            ")".repeat(100_000)
        );
        assert!(urls(&deep).is_empty(), "past MAX_NESTING: skipped");
        let shallow = format!("{}url(ok.png){}", "[".repeat(10), "]".repeat(10));
        assert_eq!(urls(&shallow).len(), 1);
        // A block skipped at the depth limit does not shift what follows.
        let at_limit = format!(
            "{}(x)url(a.png){}",
            "(".repeat(MAX_NESTING),
            ")".repeat(MAX_NESTING)
        );
        let found = urls(&at_limit);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1, "url(a.png)");
        // `image-set`'s strings are URLs, as its `url()`s; elsewhere a
        // string is none.
        let set = urls(
            "b{c:-webkit-image-set(\"a.png\" 1x, url(b.png) 2x, 'c.png' type('image/avif'))} d{content:\"e.png\"}",
        );
        let names: Vec<&str> = set.iter().map(|(url, _, _)| url.as_str()).collect();
        assert_eq!(names, ["a.png", "b.png", "c.png"]);
        assert_eq!(set[0].1, "\"a.png\"");
        // `@namespace` names no resource; the rule after it does.
        let names = urls("@namespace svg url(http://www.w3.org/2000/svg); b{c:url(d.png)}");
        assert_eq!(names.len(), 1);
        assert_eq!(names[0].0, "d.png");
        for junk in ["@import", "@import ;", "\\", "/*", "'", "url(\\", "}}}{{{"] {
            let _ = urls(junk);
        }
    }
}
