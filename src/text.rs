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

/// `text` with the password of every URL in it shown as `***`
/// (`http://ann:***@host/`), as wget and curl show one: a crawl of a site
/// behind basic authentication logs every URL with it, and the console
/// and the `log` table are read over shoulders and pasted into tickets.
/// Whole URLs and texts that quote them (a redirect's target in a reason,
/// an error that names its URL) alike: a URL's user info ends where its
/// authority does, or where a quoting text goes on (a space, a quote, a
/// bracket). The log keeps every URL whole (`log --json` gives it as it
/// is).
pub fn without_password(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("://") {
        return text.into();
    }
    let mut shown = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (before, after) = rest.split_at(at + 3);
        shown.push_str(before);
        let end = after
            .find(|c: char| {
                // Not `'`, `(` or `)`: a URL's user info keeps those raw.
                matches!(c, '/' | '?' | '#' | '"' | '`' | '<' | '>' | '[') || c.is_whitespace()
            })
            .unwrap_or(after.len());
        let authority = &after[..end];
        let password = authority
            .rfind('@')
            .and_then(|at| Some((authority[..at].find(':')?, at)));
        match password {
            Some((colon, at)) => {
                shown.push_str(&authority[..colon]);
                shown.push_str(":***");
                shown.push_str(&authority[at..]);
            }
            None => shown.push_str(authority),
        }
        rest = &after[end..];
    }
    shown.push_str(rest);
    shown.into()
}

/// Quoted text cut to `max` characters, with `…` when cut: a long regex
/// or URL quoted in a message leaves room for what is said about it.
pub fn shortened(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Why the regex crate refused a pattern, in one line: the reason first,
/// and where in the pattern when the pattern is one line ("unclosed group
/// (at character 12)"). The crate's own message quotes the whole pattern
/// over several lines with a caret under the fault; squeezed onto one line
/// the caret points at nothing, and a long pattern pushes the reason out
/// of sight.
pub fn regex_error(error: &regex::Error) -> String {
    let text = error.to_string();
    let lines: Vec<&str> = text.lines().collect();
    let Some(reason) = lines
        .iter()
        .find_map(|line| line.trim().strip_prefix("error:"))
        .map(str::trim)
    else {
        // Not a syntax error (a size limit, say): already one sentence,
        // unless the crate changes its format.
        return lines
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
    };
    // A one-line pattern: the header, the pattern indented by four, then
    // the caret line (a numbered, many-line pattern has more lines).
    let caret = match lines.as_slice() {
        [_, pattern, caret, ..] if pattern.starts_with("    ") => caret
            .trim_start()
            .starts_with('^')
            .then(|| caret.chars().take_while(|&c| c == ' ').count())
            .filter(|&spaces| spaces >= 4),
        _ => None,
    };
    match caret {
        Some(spaces) => format!("{reason} (at character {})", spaces - 3),
        None => reason.to_string(),
    }
}

/// A path as the text says it: control and invisible characters escaped,
/// as everything else quoted from a config or a command line.
pub fn shown_path(path: &std::path::Path) -> String {
    escape_control(&path.to_string_lossy())
}

/// `text` as one word of a shell command the user may paste: as it is
/// when the shell reads it so, else in single quotes (`'my db'`, a `'`
/// within as `'\''`). Control and invisible characters are escaped all the
/// same: the command is then no longer exact, but the terminal is safe.
pub fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_alphanumeric() || "/._-+,:=@%".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        return escape_control(text);
    }
    format!("'{}'", escape_control(&text.replace('\'', r"'\''")))
}

/// [`shell_word`] for a path; one that starts with `-` as `./-…`, which
/// names the same file and is not read as an option.
pub fn shell_path(path: &std::path::Path) -> String {
    let text = path.to_string_lossy();
    if text.starts_with('-') {
        return shell_word(&format!("./{text}"));
    }
    shell_word(&text)
}

#[cfg(test)]
mod tests {
    use super::{counted, regex_error, shell_path, shell_word, shortened, without_password};

    /// Only a password goes; a user name, an `@` in the path and a URL
    /// without user info are left as they are.
    #[test]
    fn a_password_is_not_shown() {
        assert_eq!(
            without_password("http://ann:s3cr%40t@intra.example/a"),
            "http://ann:***@intra.example/a"
        );
        assert_eq!(
            without_password("https://:pw@h:8080/?q=a@b"),
            "https://:***@h:8080/?q=a@b"
        );
        for kept in [
            "http://ann@intra.example/a",
            "http://h/a@b:c",
            "http://h/?a:b@c",
            "mailto:ann:x@h",
            "not a url",
        ] {
            assert_eq!(without_password(kept), kept);
        }
    }

    /// In a text that quotes URLs (a reason, an error), each URL's
    /// password goes, and the text around them stays.
    #[test]
    fn a_password_in_a_quoted_url_is_not_shown() {
        assert_eq!(
            without_password(
                "redirect to http://ann:pw@h/b (301); error sending request for url \
                 (https://bob:x@h2/) and \"http://c:d@h3\" then ftp://e:f@h4"
            ),
            "redirect to http://ann:***@h/b (301); error sending request for url \
             (https://bob:***@h2/) and \"http://c:***@h3\" then ftp://e:***@h4"
        );
        assert_eq!(
            without_password("http://h/ then http://a@b/ and a:b@c"),
            "http://h/ then http://a@b/ and a:b@c"
        );
        // Characters the `url` crate leaves raw in a password.
        assert_eq!(without_password("http://ann:it's@h/"), "http://ann:***@h/");
        assert_eq!(
            without_password("to 'http://ann:p(w)@h' (301)"),
            "to 'http://ann:***@h' (301)"
        );
    }

    /// The regex crate's error for `pattern` (given as a variable, so that
    /// clippy does not flag the broken literals on purpose).
    fn refused(pattern: &str) -> regex::Error {
        regex::Regex::new(pattern).expect_err(pattern)
    }

    #[test]
    fn a_regex_error_says_why_and_where() {
        let e = refused("example.com(");
        assert_eq!(regex_error(&e), "unclosed group (at character 12)");
        let e = refused("ab[c");
        assert_eq!(regex_error(&e), "unclosed character class (at character 3)");
        // A pattern over several lines: the reason alone, on one line.
        for pattern in ["a\n(?x)\n(", "(?x)\n(\n"] {
            let e = refused(pattern);
            assert_eq!(regex_error(&e), "unclosed group", "{pattern:?}");
        }
        // Too big: the crate's one sentence.
        let e = regex::RegexBuilder::new("a{1000}{1000}")
            .size_limit(1000)
            .build()
            .unwrap_err();
        assert!(
            regex_error(&e).contains("size limit"),
            "{}",
            regex_error(&e)
        );
    }

    #[test]
    fn shortened_keeps_short_text_and_marks_a_cut() {
        assert_eq!(shortened("abc", 3), "abc");
        assert_eq!(shortened("abcd", 3), "ab…");
        assert_eq!(shortened("ééééé", 4), "ééé…");
    }

    #[test]
    fn one_and_many() {
        assert_eq!(counted(0, "URL", "URLs"), "0 URLs");
        assert_eq!(counted(1, "retry", "retries"), "1 retry");
        assert_eq!(counted(2, "retry", "retries"), "2 retries");
    }

    #[test]
    fn shell_words_paste_back_and_stay_safe() {
        assert_eq!(shell_word("/tmp/crawl.db"), "/tmp/crawl.db");
        assert_eq!(shell_word("my db"), "'my db'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("$HOME/*"), "'$HOME/*'");
        assert_eq!(shell_word("a\u{1b}]0;x\u{7}"), r"'a\u{1b}]0;x\u{7}'");
        assert_eq!(shell_path(std::path::Path::new("-db")), "./-db");
    }
}
