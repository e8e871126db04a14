//! Gates: literals at least one of which every match of a regex must
//! contain (its prefixes, or else its suffixes, as `regex-syntax` extracts
//! them), so that the regex only runs where a gate was found. Literals are
//! extracted from the pattern as it matches ASCII text lower-cased
//! ([`ascii_folded`]): gates are looked for in lower-cased URL fields, and
//! a case-insensitive pattern's letter classes would otherwise cut its
//! literals short after a few letters.

use regex_syntax::hir::Hir;
use regex_syntax::hir::literal::{ExtractKind, Extractor};

use super::*;

/// Literals at least one of which every match of a regex contains.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Gate {
    pub(super) literals: Vec<String>,
    /// The regex only matches at the start, so its literals must be prefixes.
    pub(super) anchored: bool,
    /// Every match starts with one of the literals (prefix literals; suffix
    /// literals only end matches).
    pub(super) leads: bool,
}

/// [`gate_of_hir`] for a pattern's text, as the tests write them.
#[cfg(test)]
pub(super) fn gate_of(pattern: &str, insensitive: bool) -> Option<Gate> {
    gate_of_hir(&parsed(pattern, insensitive)?)
}

/// A regex as the rule runs it: parsed with the same defaults as
/// `regex::RegexBuilder` and the rule's case mode.
pub(super) fn parsed(pattern: &str, insensitive: bool) -> Option<Hir> {
    regex_syntax::ParserBuilder::new()
        .case_insensitive(insensitive)
        .build()
        .parse(pattern)
        .ok()
}

/// Whether every match of `hir` starts at the start of the text.
pub(super) fn is_anchored(hir: &Hir) -> bool {
    hir.properties()
        .look_set_prefix()
        .contains(regex_syntax::hir::Look::Start)
}

/// The gate of a parsed regex (see [`parsed`]), if it has a usable one: its
/// exact or inexact prefix literals, else its suffix literals, when there
/// are few of them and none is shorter than [`MIN_GATE_LEN`]. The pattern
/// is parsed in the rule's case mode: Unicode case folding maps `ſ` to `s`
/// and the Kelvin sign to `k`, so a pattern written with them matches ASCII
/// text, and its gate must say so.
pub(super) fn gate_of_hir(hir: &Hir) -> Option<Gate> {
    let anchored = is_anchored(hir);
    let hir = ascii_folded(hir);
    for prefix in [true, false] {
        let kind = if prefix {
            ExtractKind::Prefix
        } else {
            ExtractKind::Suffix
        };
        let mut extractor = Extractor::new();
        extractor
            .kind(kind)
            .limit_class(8)
            .limit_repeat(4)
            .limit_literal_len(64)
            .limit_total(32);
        let mut seq = extractor.extract(&hir);
        if prefix {
            seq.optimize_for_prefix_by_preference();
        } else {
            seq.optimize_for_suffix_by_preference();
        }
        let Some(literals) = seq.literals() else {
            continue;
        };
        if literals.is_empty() || literals.iter().any(|l| l.as_bytes().len() < MIN_GATE_LEN) {
            continue;
        }
        // The literals are of the folded pattern: ASCII and lower-cased
        // already. Were one not, the pattern goes ungated: dropping that
        // literal would leave matches that show none of the gate's.
        let texts: Option<Vec<String>> = literals
            .iter()
            .map(|l| {
                let bytes = l.as_bytes();
                bytes
                    .is_ascii()
                    .then(|| String::from_utf8(bytes.to_ascii_lowercase()).ok())
                    .flatten()
            })
            .collect();
        if let Some(mut texts) = texts.filter(|t| !t.is_empty()) {
            texts.sort_unstable();
            texts.dedup();
            // A suffix literal says nothing about where a match starts.
            return Some(Gate {
                literals: texts,
                anchored: anchored && prefix,
                leads: prefix,
            });
        }
    }
    None
}

/// The image of a pattern under ASCII lower-casing, on ASCII text: every
/// class keeps only its ASCII members, lower-cased, and a literal with other
/// bytes cannot match. Gates are found in lower-cased text, and the fields
/// regexes run on are ASCII (URL text as serialized), so a match of `hir`
/// lower-cased is a match of the result, and literals every match of the
/// result contains are gates of `hir`.
///
/// Why not extract from `hir` itself: parsed case-insensitively, each
/// letter is a class of two or three characters (`s`, `S` and `ſ`), the
/// extractor's variants multiply per letter and hit its limits after three
/// or four letters, so `^/products123/` got the gate `/pro`, shared by
/// every such pattern: at 10,000 rules a URL under `/products` ran every
/// chunk. Folded, the class is `[s]` and the gate `/products123/`.
pub(super) fn ascii_folded(hir: &Hir) -> Hir {
    use regex_syntax::hir::{
        Capture, Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, HirKind,
        Repetition,
    };
    // The ASCII members of a class, lower-cased; ranges are clamped to
    // ASCII first, so at most 128 characters are visited.
    fn ascii_lower(ranges: impl Iterator<Item = (u32, u32)>) -> Vec<u8> {
        let mut out = Vec::new();
        for (start, end) in ranges {
            for c in start..=end.min(0x7f) {
                out.push((c as u8).to_ascii_lowercase());
            }
        }
        out
    }
    let class_of = |bytes: Vec<u8>| {
        let ranges = bytes
            .into_iter()
            .map(|b| ClassUnicodeRange::new(char::from(b), char::from(b)));
        Hir::class(Class::Unicode(ClassUnicode::new(ranges)))
    };
    match hir.kind() {
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(lit) if lit.0.is_ascii() => Hir::literal(lit.0.to_ascii_lowercase()),
        HirKind::Literal(_) => Hir::fail(),
        HirKind::Class(Class::Unicode(class)) => class_of(ascii_lower(
            class
                .iter()
                .map(|r| (u32::from(r.start()), u32::from(r.end()))),
        )),
        HirKind::Class(Class::Bytes(class)) => {
            let bytes = ascii_lower(
                class
                    .iter()
                    .map(|r| (u32::from(r.start()), u32::from(r.end()))),
            );
            let ranges = bytes.into_iter().map(|b| ClassBytesRange::new(b, b));
            Hir::class(Class::Bytes(ClassBytes::new(ranges)))
        }
        HirKind::Look(look) => Hir::look(*look),
        // Fields spelled out: `..rep.clone()` would copy the whole subtree
        // only to drop it.
        HirKind::Repetition(rep) => Hir::repetition(Repetition {
            min: rep.min,
            max: rep.max,
            greedy: rep.greedy,
            sub: Box::new(ascii_folded(&rep.sub)),
        }),
        HirKind::Capture(cap) => Hir::capture(Capture {
            index: cap.index,
            name: cap.name.clone(),
            sub: Box::new(ascii_folded(&cap.sub)),
        }),
        HirKind::Concat(subs) => Hir::concat(subs.iter().map(ascii_folded).collect()),
        HirKind::Alternation(subs) => Hir::alternation(subs.iter().map(ascii_folded).collect()),
    }
}
