//! Wording shared by every layer that writes for people: the crawl's
//! reports, the console and the command line, and the escaping of what
//! they quote.

/// `n` and the noun for that many: "1 error", "2 errors".
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Replaces control characters with visible escapes so that text from a
/// URL, a rules file or a crawled site cannot drive the terminal;
/// invisible characters that reorder or hide text
/// ([`crate::rules::is_invisible`]) are escaped too, so that what is shown
/// is what the text holds.
pub fn escape_control(text: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() || crate::rules::is_invisible(c) {
            let _ = write!(out, "{}", c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn one_and_many() {
        assert_eq!(counted(0, "URL", "URLs"), "0 URLs");
        assert_eq!(counted(1, "retry", "retries"), "1 retry");
        assert_eq!(counted(2, "retry", "retries"), "2 retries");
    }
}
