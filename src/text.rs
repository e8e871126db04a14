//! Wording shared by every layer that writes for people: the crawl's
//! reports, the console and the command line.

/// `n` and the noun for that many: "1 error", "2 errors".
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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
