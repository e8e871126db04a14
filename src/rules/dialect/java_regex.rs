//! Regexes written for Java (Nutch, Funnelback) made to mean the same in
//! Rust's regex syntax where the two differ quietly: `\d`, `\w` and `\s`.
//!
//! In Java they are ASCII classes (`[0-9]`, `[a-zA-Z_0-9]`, `[ \t\n\x0B\f\r]`)
//! unless a pattern asks for Unicode; in Rust they are Unicode classes. On
//! a URL (ASCII once normalized) the two match alike, but the Unicode forms
//! are far larger to compile: the compound pattern seed 004 recommends
//! (`regexp:/s0/\w+\.html|/s1/\w+\.html|…`) passed the regex size limit at
//! about 300 alternatives and was disabled, so its rule stopped applying.
//! Rewritten as the ASCII classes Rust also has (`[[:word:]]`), the pattern
//! means what it meant in Java and compiles small.
//!
//! A pattern without such a class, or one that does not parse, is returned
//! as written: the compiler reports a broken one in the user's own text.

use regex_syntax::ast::{
    self, Ast, ClassAscii, ClassAsciiKind, ClassBracketed, ClassPerl, ClassPerlKind, ClassSet,
    ClassSetItem,
};

/// `pattern` with its Perl classes (`\d`, `\w`, `\s` and their negations)
/// as Java reads them: ASCII.
pub(crate) fn ascii_perl_classes(pattern: &str) -> String {
    let Ok(mut parsed) = ast::parse::Parser::new().parse(pattern) else {
        return pattern.to_string();
    };
    if !rewrite(&mut parsed) {
        return pattern.to_string();
    }
    let mut out = String::with_capacity(pattern.len() + 16);
    match ast::print::Printer::new().print(&parsed, &mut out) {
        Ok(()) => out,
        Err(_) => pattern.to_string(),
    }
}

/// The ASCII class a Perl class stands for in Java.
fn ascii(perl: &ClassPerl) -> ClassAscii {
    ClassAscii {
        span: perl.span,
        kind: match perl.kind {
            ClassPerlKind::Digit => ClassAsciiKind::Digit,
            ClassPerlKind::Space => ClassAsciiKind::Space,
            ClassPerlKind::Word => ClassAsciiKind::Word,
        },
        negated: perl.negated,
    }
}

/// Rewrites the Perl classes in `node`; whether there were any. The
/// parser's nesting limit bounds the recursion.
fn rewrite(node: &mut Ast) -> bool {
    match node {
        Ast::ClassPerl(perl) => {
            let span = perl.span;
            *node = Ast::class_bracketed(ClassBracketed {
                span,
                negated: false,
                kind: ClassSet::Item(ClassSetItem::Ascii(ascii(perl))),
            });
            true
        }
        Ast::ClassBracketed(class) => rewrite_set(&mut class.kind),
        Ast::Repetition(repetition) => rewrite(&mut repetition.ast),
        Ast::Group(group) => rewrite(&mut group.ast),
        Ast::Alternation(alternation) => alternation
            .asts
            .iter_mut()
            .fold(false, |any, ast| rewrite(ast) | any),
        Ast::Concat(concat) => concat
            .asts
            .iter_mut()
            .fold(false, |any, ast| rewrite(ast) | any),
        _ => false,
    }
}

fn rewrite_set(set: &mut ClassSet) -> bool {
    match set {
        ClassSet::Item(item) => rewrite_item(item),
        ClassSet::BinaryOp(op) => rewrite_set(&mut op.lhs) | rewrite_set(&mut op.rhs),
    }
}

fn rewrite_item(item: &mut ClassSetItem) -> bool {
    match item {
        ClassSetItem::Perl(perl) => {
            *item = ClassSetItem::Ascii(ascii(perl));
            true
        }
        ClassSetItem::Bracketed(class) => rewrite_set(&mut class.kind),
        ClassSetItem::Union(union) => union
            .items
            .iter_mut()
            .fold(false, |any, item| rewrite_item(item) | any),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perl_classes_become_java_s_ascii_ones() {
        let cases = [
            (r"/s\d+/\w+\.html", r"/s[[:digit:]]+/[[:word:]]+\.html"),
            (
                r"\s\S\W\D",
                r"[[:space:]][[:^space:]][[:^word:]][[:^digit:]]",
            ),
            (r"[\w.-]+|[^\d]", r"[[:word:].-]+|[^[:digit:]]"),
            (r"(a(\d{2,3}))?", r"(a([[:digit:]]{2,3}))?"),
            // Nothing to rewrite, or not a regex: as written.
            (r"^https?://[a-z]+/", r"^https?://[a-z]+/"),
            (r"(unclosed\d", r"(unclosed\d"),
        ];
        for (java, rust) in cases {
            assert_eq!(ascii_perl_classes(java), rust, "{java}");
        }
    }

    /// The compound pattern seed 004 recommends compiles with 2,000
    /// alternatives, and means on URLs what it meant.
    #[test]
    fn a_long_compound_pattern_compiles() {
        let java: Vec<String> = (0..2000).map(|i| format!(r"/s{i}/\w+\.html")).collect();
        let java = java.join("|");
        assert!(regex::Regex::new(&java).is_err(), "too big as Unicode");
        let rust = regex::Regex::new(&ascii_perl_classes(&java)).expect("compiles");
        assert!(rust.is_match("http://a.com/s1999/page_2.html"));
        assert!(!rust.is_match("http://a.com/s2000/page.html"));
    }
}
