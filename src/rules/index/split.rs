//! Gated regexes split into a literal *head* and the *tail* after it, so
//! that a pattern whose gate was seen runs only its tail, anchored just
//! after the head, and patterns that differ only in their head share one
//! tail.
//!
//! Why: at 10,000 rules each gated pattern runs once in thousands of URLs,
//! and every lazy DFA state that only it uses is a cache miss per byte.
//! Rule sets repeat shapes (`^/products123/[0-9]+/reviews` for many
//! numbers): their tails (`[0-9]+/reviews`) are few and their states stay
//! warm, and the head, known to be at the gate's place, is a byte compare.
//!
//! The head is the leading run of one-byte items of the pattern (after an
//! optional `^`): ASCII literal bytes, and classes whose ASCII members are
//! one letter in both cases (what case-insensitive parsing makes of a
//! letter). On ASCII text, which is what the fast path splits on (as the
//! gates themselves assume), the pattern matches at `s` exactly when the
//! head matches the bytes at `s` and the tail matches from `s + head.len()`;
//! look-behind in the tail still sees the text before it.

use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// A head byte that compares against the lower-cased text: the case pair
/// of an ASCII letter (head bytes are ASCII, so the top bit is free).
const FOLDED: u8 = 0x80;

/// A pattern cut after its head.
#[derive(Debug)]
pub(super) struct Split {
    /// Head bytes; those with [`FOLDED`] set are lower-case letters that
    /// match either case.
    pub head: Vec<u8>,
    /// The pattern starts with `^`: it matches only at the start.
    pub at_start: bool,
    pub tail: Hir,
}

/// Splits `hir` (a pattern as the rule runs it) after its head, if it has
/// a non-empty one.
pub(super) fn split(hir: &Hir) -> Option<Split> {
    let items = match hir.kind() {
        HirKind::Concat(items) => items.as_slice(),
        _ => std::slice::from_ref(hir),
    };
    let at_start = matches!(
        items.first().map(Hir::kind),
        Some(HirKind::Look(Look::Start))
    );
    let mut head = Vec::new();
    let mut taken = usize::from(at_start);
    for item in &items[taken..] {
        match head_bytes(item) {
            Some(bytes) => head.extend(bytes),
            None => break,
        }
        taken += 1;
    }
    if head.is_empty() {
        return None;
    }
    Some(Split {
        head,
        at_start,
        tail: Hir::concat(items[taken..].to_vec()),
    })
}

/// The head bytes of one item: each byte of an ASCII literal, or one
/// folded letter for a class whose ASCII members are a letter's two cases
/// (its other members, such as the Kelvin sign for `k`, cannot occur in
/// ASCII text).
fn head_bytes(item: &Hir) -> Option<Vec<u8>> {
    match item.kind() {
        HirKind::Literal(lit) if lit.0.is_ascii() => Some(lit.0.to_vec()),
        HirKind::Class(class) => {
            let ascii = ascii_members(class)?;
            match ascii.as_slice() {
                [one] => Some(vec![*one]),
                [upper, lower]
                    if upper.is_ascii_uppercase() && *lower == upper.to_ascii_lowercase() =>
                {
                    Some(vec![*lower | FOLDED])
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The ASCII members of a class, ascending, if there are at most two.
fn ascii_members(class: &Class) -> Option<Vec<u8>> {
    let ranges: Vec<(u32, u32)> = match class {
        Class::Unicode(c) => c
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
        Class::Bytes(c) => c
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
    };
    let mut out = Vec::new();
    for (start, end) in ranges {
        if start > 0x7f {
            break; // ranges ascend: no more ASCII members
        }
        let end = end.min(0x7f);
        if out.len() + (end - start) as usize + 1 > 2 {
            return None;
        }
        out.extend((start..=end).map(|c| c as u8));
    }
    Some(out)
}

/// Whether `head` matches `text` at `at`; `lower` is `text` ASCII-lower-cased
/// (the same length).
pub(super) fn head_matches(head: &[u8], text: &[u8], lower: &[u8], at: usize) -> bool {
    let end = at.saturating_add(head.len());
    let (Some(text), Some(lower)) = (text.get(at..end), lower.get(at..end)) else {
        return false;
    };
    head.iter()
        .zip(text.iter().zip(lower))
        .all(|(&h, (&t, &l))| {
            if h & FOLDED != 0 {
                l == h & !FOLDED
            } else {
                t == h
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(pattern: &str, insensitive: bool) -> Hir {
        regex_syntax::ParserBuilder::new()
            .case_insensitive(insensitive)
            .build()
            .parse(pattern)
            .unwrap()
    }

    #[test]
    fn heads_are_the_leading_literal_bytes() {
        // Pattern, case-insensitive, and the head, `^` and tail expected.
        type Expected = Option<(&'static [u8], bool, &'static str)>;
        let cases: [(&str, bool, Expected); 8] = [
            (
                r"^/products12/[0-9]+/reviews",
                false,
                Some((b"/products12/", true, r"[0-9]+/reviews")),
            ),
            (r"[?&]page5=[0-9]{3,}", false, None),
            (
                r"/thumbs7/[a-z]+",
                false,
                Some((b"/thumbs7/", false, r"[a-z]+")),
            ),
            (r"abc", false, Some((b"abc", false, ""))),
            (r"^/Ab[cd]", false, Some((b"/Ab", true, r"[cd]"))),
            (r"\bx1", false, None),
            (r"^/K\d", true, Some((&[b'/', b'k' | FOLDED], true, r"\d"))),
            // A leading literal with a non-ASCII byte gives no head at all,
            // not even its ASCII bytes: such rules are rare in URL rules and
            // run whole.
            (r"caf\u{e9}/x", false, None),
        ];
        for (pattern, insensitive, want) in cases {
            let got = split(&parsed(pattern, insensitive));
            let want = want.map(|(head, at_start, tail)| (head.to_vec(), at_start, tail));
            let got_view = got.as_ref().map(|s| (s.head.clone(), s.at_start));
            assert_eq!(
                got_view,
                want.as_ref().map(|(h, a, _)| (h.clone(), *a)),
                "{pattern}"
            );
            if let (Some(got), Some((_, _, tail))) = (got, want) {
                assert_eq!(got.tail, parsed(tail, insensitive), "{pattern}");
            }
        }
    }

    #[test]
    fn folded_head_bytes_match_either_case() {
        let head = [b'/', b'k' | FOLDED, b'K'];
        let text = b"x/kK";
        let lower = b"x/kk";
        assert!(head_matches(&head, text, lower, 1));
        assert!(!head_matches(&head, b"x/Kk", b"x/kk", 1));
        assert!(!head_matches(&head, text, lower, 2));
        assert!(!head_matches(&head, text, lower, usize::MAX));
    }
}
