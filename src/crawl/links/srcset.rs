//! Where the URLs of a `srcset` attribute are (`<img srcset>`, `<source
//! srcset>` in `<picture>`): the responsive images a browser picks from
//! instead of `src`, which a mirror must hold, and whose links
//! `convert-links` rewrites, for the page to show its images offline.
//!
//! The splitting follows WHATWG HTML's "parse a srcset attribute": skip
//! whitespace and commas; a URL is the run of non-whitespace that follows,
//! less its trailing commas (then it has no descriptors); otherwise its
//! descriptors run to the next comma outside parentheses. So a comma inside
//! a URL (`data:image/png;base64,…`, `a,b.jpg`) stays in it, and `a.jpg
//! (1x, 2x), b.jpg` has two candidates.
//!
//! Descriptors are not validated: a candidate a browser would drop for a
//! bad descriptor (`a.jpg 2q`) is still listed, and so fetched for the
//! mirror and converted; nothing else depends on them. What is handed back
//! is byte ranges into the value, so that a caller can replace each URL and
//! keep the descriptors and separators as written. The crates that parse
//! `srcset` (`parse-srcset`, `srcset-parse`) return each URL as a new
//! `String`, without where it was.

use std::ops::Range;

/// HTML's ASCII whitespace: tab, line feed, form feed, carriage return,
/// space.
fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// The byte range of each candidate's URL in `value`, in order. Every
/// range starts and ends beside ASCII bytes or the ends of `value`, so it
/// slices a `str` at character boundaries.
pub(crate) fn url_ranges(value: &str) -> UrlRanges<'_> {
    UrlRanges {
        value: value.as_bytes(),
        pos: 0,
    }
}

/// The iterator of [`url_ranges`].
#[derive(Debug)]
pub(crate) struct UrlRanges<'a> {
    value: &'a [u8],
    pos: usize,
}

impl Iterator for UrlRanges<'_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        let value = self.value;
        let mut pos = self.pos;
        // Between candidates: whitespace and commas.
        while value.get(pos).is_some_and(|&b| is_space(b) || b == b',') {
            pos += 1;
        }
        if pos >= value.len() {
            self.pos = pos;
            return None;
        }
        let start = pos;
        while value.get(pos).is_some_and(|&b| !is_space(b)) {
            pos += 1;
        }
        let mut end = pos;
        if value.get(end - 1) == Some(&b',') {
            // `a.jpg,` : the commas end the candidate, with no
            // descriptors. The first byte is not a comma (skipped above),
            // so something is left.
            while end > start + 1 && value.get(end - 1) == Some(&b',') {
                end -= 1;
            }
        } else {
            // Descriptors, up to a comma outside parentheses.
            let mut in_parens = false;
            while let Some(&b) = value.get(pos) {
                pos += 1;
                match b {
                    b')' if in_parens => in_parens = false,
                    b'(' if !in_parens => in_parens = true,
                    b',' if !in_parens => break,
                    _ => {}
                }
            }
        }
        self.pos = pos;
        Some(start..end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(value: &str) -> Vec<&str> {
        url_ranges(value).map(|r| &value[r]).collect()
    }

    #[test]
    fn candidates_split_as_whatwg_says() {
        assert_eq!(urls("a.jpg"), ["a.jpg"]);
        assert_eq!(urls("a.jpg 1x, b.jpg 2x"), ["a.jpg", "b.jpg"]);
        assert_eq!(urls("a.jpg 100w,b.jpg 200w"), ["a.jpg", "b.jpg"]);
        assert_eq!(urls("  a.jpg  ,  b.jpg 2x  , "), ["a.jpg", "b.jpg"]);
        // Trailing commas end a URL without descriptors.
        assert_eq!(urls("a.jpg,, b.jpg"), ["a.jpg", "b.jpg"]);
        assert_eq!(urls(",,,a.jpg,,,"), ["a.jpg"]);
        // A comma inside a URL is part of it.
        assert_eq!(urls("a,b.jpg 2x"), ["a,b.jpg"]);
        assert_eq!(
            urls("data:image/png;base64,iVBO= 1x, c.jpg 2x"),
            ["data:image/png;base64,iVBO=", "c.jpg"]
        );
        // A comma inside parentheses does not end the descriptors.
        assert_eq!(urls("a.jpg (1x, 2x), b.jpg"), ["a.jpg", "b.jpg"]);
        // Unclosed parentheses run to the end.
        assert_eq!(urls("a.jpg (1x, b.jpg 2x"), ["a.jpg"]);
        // Other whitespace separates too.
        assert_eq!(urls("a.jpg\t1x,\nb.jpg\r\n2x"), ["a.jpg", "b.jpg"]);
        assert!(urls("").is_empty());
        assert!(urls(" , ,\t").is_empty());
        // Non-ASCII text slices at character boundaries.
        assert_eq!(
            urls("caf\u{e9}.jpg 1x,\u{e9}.jpg"),
            ["caf\u{e9}.jpg", "\u{e9}.jpg"]
        );
    }

    /// Any input ends, and every range slices it.
    #[test]
    fn any_input_gives_ranges_inside_it() {
        let alphabet = ["a", ",", " ", "(", ")", "\u{e9}", "\t", "x"];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..2000 {
            let mut value = String::new();
            for _ in 0..(seed % 24) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                value.push_str(alphabet[(seed % alphabet.len() as u64) as usize]);
            }
            for range in url_ranges(&value) {
                let url = value.get(range.clone()).expect("a char boundary");
                assert!(!url.is_empty() && !url.starts_with(',') && !url.contains(' '));
            }
        }
    }
}
