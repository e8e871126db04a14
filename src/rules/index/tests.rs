use super::*;

/// Literal needles of every kind and case mode, with many `/` prefixes
/// (the lookup map) and `.` suffixes, found by one scan exactly as the
/// plain string comparisons find them, on mixed-case texts.
#[test]
fn literal_scan_agrees_with_plain_comparisons() {
    let index = literal_scan_check(3, 0);
    assert!(
        index
            .prefixes
            .iter()
            .flatten()
            .all(|n| matches!(n.automaton, AnchoredAutomaton::Dfa(_)))
    );
}

/// The same with more anchored needles than a full DFA is built for:
/// the contiguous NFA walks them.
#[test]
fn literal_scan_agrees_with_plain_comparisons_past_the_dfa_size() {
    let index = literal_scan_check(4, 12_000);
    for needles in [&index.prefixes, &index.suffixes] {
        assert!(
            needles
                .iter()
                .flatten()
                .all(|n| matches!(n.automaton, AnchoredAutomaton::Nfa(_)))
        );
    }
}

/// Builds 400 random needles plus `long` long prefix and suffix ones,
/// scans 3,000 random texts, and checks every scan; returns the index.
fn literal_scan_check(seed: u64, long: usize) -> FieldIndex {
    let mut rng = crate::rules::synth::Rng::new(seed);
    let pieces = ["/", ".", "a", "B", "ab", "Ab", "x/", ".c", "/d", "q="];
    let word = |rng: &mut crate::rules::synth::Rng, n: usize| -> String {
        (0..1 + rng.below(n)).map(|_| *rng.pick(&pieces)).collect()
    };
    let ops = [
        LiteralOp::Exact,
        LiteralOp::Prefix,
        LiteralOp::Suffix,
        LiteralOp::Contains,
    ];
    let mut needles: Vec<(LiteralOp, String, bool)> = Vec::new();
    for i in 0..400 {
        let op = ops[i % 4];
        let mut needle = word(&mut rng, 5);
        if op == LiteralOp::Prefix && i % 3 == 0 {
            needle.push('/');
        }
        if op == LiteralOp::Suffix && i % 3 == 0 {
            needle.insert(0, '.');
        }
        let insensitive = rng.chance(50);
        if insensitive {
            needle = needle.to_ascii_lowercase();
        }
        needles.push((op, needle, insensitive));
    }
    for i in 0..long {
        // Long needles, in both case modes, past the DFA's size.
        let op = [LiteralOp::Prefix, LiteralOp::Suffix][i % 2];
        let mut needle = word(&mut rng, 12) + &word(&mut rng, 40);
        let insensitive = i % 4 < 2;
        if insensitive {
            needle = needle.to_ascii_lowercase();
        }
        needles.push((op, needle, insensitive));
    }
    // Exact needles of 40 to 100 bytes, in both case modes: a whole
    // text that long is one of the table's long keys.
    let first_exact_long = needles.len();
    let mut exact_long = Vec::new();
    for i in 0..6 {
        let len = 40 + rng.below(61);
        let mut needle = String::new();
        while needle.len() < len {
            let piece = *rng.pick(&pieces);
            needle.push_str(piece);
        }
        needle.truncate(len);
        let insensitive = i % 2 == 0;
        if insensitive {
            needle = needle.to_ascii_lowercase();
        }
        needles.push((LiteralOp::Exact, needle.clone(), insensitive));
        exact_long.push(needle);
    }
    let entries: Vec<Entry<'_>> = needles
        .iter()
        .enumerate()
        .map(|(i, (op, needle, insensitive))| Entry::Literal {
            atom: i as u32,
            op: *op,
            needle,
            insensitive: *insensitive,
        })
        .collect();
    let (index, direct) = FieldIndex::build(Field::Path, &entries);
    assert!(direct.is_empty());
    let mut scratch = index.scratch();
    let mut exact_long_hits = 0;
    for _ in 0..3_000 {
        let text = if rng.chance(10) {
            // A long exact needle, as it is, upper-cased, or a byte off.
            let mut text = rng.pick(&exact_long).clone();
            match rng.below(4) {
                0 => text = text.to_ascii_uppercase(),
                1 => {
                    text.pop();
                }
                2 => text.push('a'),
                _ => {}
            }
            text
        } else {
            word(&mut rng, 12)
        };
        let lower = lower_cased(&text);
        let mut got = Vec::new();
        index.scan(&text, &lower, &mut scratch, &mut |a| got.push(a));
        got.sort_unstable();
        got.dedup();
        let want: Vec<u32> = needles
            .iter()
            .enumerate()
            .filter(|(_, (op, needle, insensitive))| {
                let t = if *insensitive { lower.as_ref() } else { &text };
                match op {
                    LiteralOp::Exact => t == needle,
                    LiteralOp::Prefix => t.starts_with(needle.as_str()),
                    LiteralOp::Suffix => t.ends_with(needle.as_str()),
                    LiteralOp::Contains => t.contains(needle.as_str()),
                    LiteralOp::Domain => unreachable!(),
                }
            })
            .map(|(i, _)| i as u32)
            .collect();
        exact_long_hits += want
            .iter()
            .filter(|&&a| a as usize >= first_exact_long && a as usize - first_exact_long < 6)
            .count();
        assert_eq!(got, want, "{text}");
    }
    assert!(exact_long_hits > 10, "{exact_long_hits} long exact hits");
    index
}

#[test]
fn gates_are_literals_every_match_contains() {
    type Expected = Option<(&'static [&'static str], bool)>;
    let cases: [(&str, bool, Expected); 14] = [
        (
            r"^/products/[0-9]+/reviews",
            false,
            Some((&["/products/"], true)),
        ),
        (r"\.(png|gif)$", false, Some((&[".gif", ".png"], false))),
        (
            r"[?&]page=[0-9]{3,}",
            false,
            Some((&["&page=", "?page="], false)),
        ),
        (r".*\.pdf$", false, Some((&[".pdf"], false))),
        (r"(?i)admin", false, Some((&["admin"], false))),
        // Case-insensitive letters fold to one lower-case needle, so
        // long gates stay long (they used to stop at `/pro`).
        (
            r"^/products123/[0-9]+/reviews",
            true,
            Some((&["/products123/"], true)),
        ),
        (
            r"[?&]page55=[0-9]{3,}",
            true,
            Some((&["&page55=", "?page55="], false)),
        ),
        // `ſ` and the Kelvin sign fold to ASCII letters.
        ("\u{17F}tore", true, Some((&["store"], false))),
        ("\u{212A}ey", true, Some((&["key"], false))),
        // Case-sensitive, they cannot occur in ASCII text.
        ("\u{17F}tore", false, None),
        ("caf[e\u{E9}]/x", false, Some((&["cafe/x"], false))),
        (r"[a-z]+", false, None),
        (r"a|bc", false, None),
        (r"(", false, None),
    ];
    for (pattern, insensitive, expect) in cases {
        let gate = gate_of(pattern, insensitive).map(|g| {
            let mut lits = g.literals;
            lits.sort();
            (lits, g.anchored)
        });
        let expect = expect.map(|(l, a)| (l.iter().map(|s| s.to_string()).collect::<Vec<_>>(), a));
        assert_eq!(gate, expect, "{pattern} insensitive: {insensitive}");
    }
}

/// Random patterns, either case mode, mixing letters that fold to
/// others: on random ASCII texts, whenever the regex matches, one of its
/// gate literals is in the lower-cased text (at its start when the gate
/// is anchored).
#[test]
fn gates_hold_on_random_patterns() {
    let mut rng = crate::rules::synth::Rng::new(11);
    let pieces = [
        "/pro",
        "ducts",
        "[0-9]+",
        "(a|B)",
        "\u{17F}",
        "K",
        "\u{212A}",
        "[s-u]",
        ".",
        "x?",
        "(?i:Ab)",
        "(?-i:Sk)",
        "[^a]",
        "s",
        "S",
        "\\.",
        "(?:ks|KS)+",
        "\\b",
        "[k\u{E9}]",
        "[\u{17F}a]",
        "[\u{212A}b]t",
    ];
    let letters = [
        "s", "S", "k", "K", "/", "pro", "ducts", "0", "ab", "AB", "x", "u", ".", "sk", "KS",
    ];
    let mut gated = 0;
    for _ in 0..3_000 {
        let mut pattern: String = (0..1 + rng.below(5)).map(|_| *rng.pick(&pieces)).collect();
        if rng.chance(30) {
            pattern.insert(0, '^');
        }
        let insensitive = rng.chance(50);
        let Ok(regex) = build(&pattern, insensitive) else {
            continue;
        };
        let Some(gate) = gate_of(&pattern, insensitive) else {
            continue;
        };
        gated += 1;
        for _ in 0..40 {
            let text: String = (0..rng.below(10)).map(|_| *rng.pick(&letters)).collect();
            if !regex.is_match(&text) {
                continue;
            }
            let lower = text.to_ascii_lowercase();
            let found = gate.literals.iter().any(|l| {
                if gate.anchored {
                    lower.starts_with(l.as_str())
                } else {
                    lower.contains(l.as_str())
                }
            });
            assert!(
                found,
                "{pattern} (insensitive: {insensitive}) on {text}: {gate:?}"
            );
        }
    }
    assert!(gated > 1_000, "only {gated} patterns had a gate");
}

/// When the literal automata fail to build, nothing is lost: literal
/// atoms are handed back to be tested one by one, and gated regexes run
/// on every text (they used to be dropped and never match).
#[test]
fn failed_automata_lose_no_atom() {
    let patterns = [
        r"^/products12[0-9]+/reviews", // anchored gate: the prefix walk
        r"[?&]page7=[0-9]{3,}",        // unanchored gate: the substring scan
        r"/thumbs3/[a-z]+\.png$",
    ];
    let regexes = compile_all(&patterns, true);
    let mut entries = regex_entries(&regexes, true);
    for (atom, op, needle) in [
        (10, LiteralOp::Prefix, "/pro"),
        (11, LiteralOp::Suffix, "views"),
        (12, LiteralOp::Contains, "page7"),
    ] {
        entries.push(Entry::Literal {
            atom,
            op,
            needle,
            insensitive: true,
        });
    }
    FAIL_AUTOMATA.with(|f| f.set(true));
    let (index, direct) = FieldIndex::build(Field::Path, &entries);
    FAIL_AUTOMATA.with(|f| f.set(false));
    assert_eq!(direct, [10, 11, 12]);
    assert!(
        index
            .prefixes
            .iter()
            .chain(&index.suffixes)
            .all(Option::is_none)
    );
    assert!(index.contains.is_none());
    let mut scratch = index.scratch();
    for text in [
        "/products123/reviews",
        "/PRODUCTS129/reviews?page7=1234",
        "/x?a=1&page7=999",
        "/x?page7=99",
        "/thumbs3/abc.png",
        "/thumbs3/abc.gif",
        "/other",
    ] {
        assert_scan_is_regex_by_regex(&index, &mut scratch, &regexes, text);
    }
}

/// Gated patterns that split into a head and a shared tail (see
/// [`split`]), in both case modes, anchored or not, with a third (24 of
/// 72, those starting with a class or `\b`) that do not split: on random texts (mixed case, repeated gates, now and then
/// a non-ASCII byte, which runs them whole), the scan finds exactly the
/// regexes that match on their own.
#[test]
fn split_patterns_agree_with_regex_by_regex() {
    let mut rng = crate::rules::synth::Rng::new(17);
    let heads = [
        "^/products{}/",
        "/thumbs{}/",
        "[?&]page{}=",
        "Ab{}",
        "^/K{}x",
        "\\bq{}",
    ];
    const TAILS: [&str; 6] = [
        "[0-9]+/reviews",
        "[a-z]+\\.(png|gif)$",
        "[0-9]{2,}",
        "",
        "x?\\b",
        "(?-i:Z)",
    ];
    let pieces = [
        "/products1/",
        "/PRODUCTS2/",
        "/thumbs1/",
        "/Thumbs2/",
        "?page1=",
        "&Page2=",
        "12",
        "345",
        "/reviews",
        "abc",
        ".png",
        ".GIF",
        "/",
        "ab1",
        "AB2",
        "/k1x",
        "/K2X",
        "q1",
        "Z",
        "z",
        "\u{e9}",
    ];
    for insensitive in [false, true] {
        let mut patterns = Vec::new();
        for n in 1..3 {
            for head in heads {
                for tail in TAILS {
                    patterns.push(head.replace("{}", &n.to_string()) + tail);
                }
            }
        }
        let regexes = compile_all(&patterns, insensitive);
        let (index, direct) = FieldIndex::build(Field::Path, &regex_entries(&regexes, insensitive));
        assert!(direct.is_empty());
        let split = index
            .gate_targets
            .iter()
            .filter(|t| t.split.is_some())
            .count();
        assert!(split >= patterns.len() / 2, "{split} split");
        let tails: usize = index.tails.iter().map(|c| c.atoms.len()).sum();
        assert!(tails <= TAILS.len(), "{tails} tails");
        let mut scratch = index.scratch();
        for _ in 0..3_000 {
            let text: String = (0..rng.below(8)).map(|_| *rng.pick(&pieces)).collect();
            assert_scan_is_regex_by_regex(&index, &mut scratch, &regexes, &text);
        }
    }
}

/// Regexes and an index of them (atom `i` being `regexes[i]`), patterns
/// that the index would test one by one left out.
fn indexed(mut patterns: Vec<String>, insensitive: bool) -> (Vec<Regex>, FieldIndex) {
    loop {
        patterns.retain(|p| build(p, insensitive).is_ok());
        let regexes = compile_all(&patterns, insensitive);
        let (index, direct) = FieldIndex::build(Field::Path, &regex_entries(&regexes, insensitive));
        if direct.is_empty() {
            return (regexes, index);
        }
        let mut i = 0;
        patterns.retain(|_| {
            i += 1;
            !direct.contains(&(i as u32 - 1))
        });
    }
}

/// A pattern whose head is found at every other byte of a long text
/// runs its tail a few times, then its whole chunk once: a tail search
/// per head read to the end of the text each, quadratic in its length
/// (50,000 heads in a 100 kB URL took about 2.5e9 DFA steps).
#[test]
fn tail_searches_per_text_are_capped() {
    for (pattern, insensitive) in [("(?i)ab.*zz", false), ("ab.*zz", true)] {
        let (regexes, index) = indexed(vec![pattern.to_string()], insensitive);
        assert!(index.gate_targets[0].split.is_some(), "{pattern} splits");
        let mut scratch = index.scratch();
        let heads = "ab".repeat(5_000);
        for text in [
            format!("/?{heads}"),
            format!("/?{heads}zz"),
            format!("/?{heads}Z"),
            format!("/?{}", heads.to_uppercase()),
        ] {
            TAIL_SEARCHES.with(|n| n.set(0));
            assert_scan_is_regex_by_regex(&index, &mut scratch, &regexes, &text);
            let searches = TAIL_SEARCHES.with(std::cell::Cell::get);
            // A handful, not one per head found (5,000 without a cap).
            assert!(searches <= 8, "{pattern}: {searches} tail searches");
        }
    }
}

/// A head longer than the gate literal found (the gate extractor stops
/// at 64 bytes) on non-ASCII text: the Kelvin sign matches `k` when the
/// case is ignored, which the head's byte compare cannot see, so such
/// texts run the patterns whole.
#[test]
fn heads_past_the_gate_hold_on_non_ascii_text() {
    let pattern = "a".repeat(64) + "k";
    for (pattern, insensitive) in [(pattern.clone(), true), (format!("(?i){pattern}"), false)] {
        let (regexes, index) = indexed(vec![pattern.clone()], insensitive);
        let run = index.gate_targets[0].split.expect("the pattern splits");
        assert_eq!(run.head_len, 65, "{pattern}");
        let mut scratch = index.scratch();
        for text in [
            "a".repeat(64) + "\u{212A}",
            "a".repeat(64) + "K",
            "A".repeat(64) + "\u{212A}x",
            "a".repeat(64) + "\u{17F}",
        ] {
            assert_scan_is_regex_by_regex(&index, &mut scratch, &regexes, &text);
        }
    }
}

/// Random patterns (the pieces of [`gates_hold_on_random_patterns`] and
/// more: flags, anchors, lazy repeats, alternations, optional groups),
/// many sharing one index with enough `/`-ending anchored prefixes for
/// the `/` lookups to find their gates: on random texts (overlapping
/// repeats, `\u{17F}`, the Kelvin sign, line breaks, upper case) the scan
/// finds exactly the regexes that match on their own.
#[test]
fn random_patterns_agree_with_regex_by_regex() {
    let mut rng = crate::rules::synth::Rng::new(23);
    let pieces = [
        "/pro",
        "ducts",
        "[0-9]+",
        "[0-9]+?",
        "(a|B)",
        "\u{17F}",
        "K",
        "\u{212A}",
        "[s-u]",
        ".",
        "x?",
        "x??",
        "a*?",
        "(?i:Ab)",
        "(?-i:Sk)",
        "[^a]",
        "s",
        "S",
        "\\.",
        "(?:ks|KS)+",
        "\\b",
        "[k\u{E9}]",
        "[\u{17F}a]",
        "[\u{212A}b]t",
        "aaa",
        "aa",
        "(abc)?def",
        "|",
        "(?m)",
        "(?m)^",
        "$",
        "\\A",
        "\\z",
        "(?x) a b # c\n",
        "\n",
    ];
    let letters = [
        "s", "S", "k", "K", "/", "pro", "ducts", "0", "12", "ab", "AB", "x", "u", ".", "sk", "KS",
        "a", "aa", "aaa", "AAA", "abc", "def", "DEF", "\u{17F}", "\u{212A}", "\n", "/d3/", "/D41/",
        "/d70/",
    ];
    for round in 0..8 {
        let insensitive = round % 2 == 1;
        let mut patterns: Vec<String> = (0..120)
            .map(|_| {
                let mut pattern: String =
                    (0..1 + rng.below(5)).map(|_| *rng.pick(&pieces)).collect();
                if rng.chance(30) {
                    pattern.insert(0, '^');
                }
                pattern
            })
            .collect();
        // Anchored gates ending in `/`: at least `SLASH_MAP_MIN` of them
        // are found by lookups at each `/`, not by the prefix walk.
        patterns.extend((0..70).map(|n| format!("^/d{n}/{}", rng.pick(&pieces))));
        let (regexes, index) = indexed(patterns, insensitive);
        assert!(regexes.len() > 150, "{} patterns", regexes.len());
        assert!(
            !index.slash_prefixes[1].is_empty(),
            "the / lookups hold gates"
        );
        let split = index
            .gate_targets
            .iter()
            .filter(|t| t.split.is_some())
            .count();
        assert!(split >= 70, "{split} split");
        let mut scratch = index.scratch();
        for _ in 0..2_000 {
            let text: String = (0..rng.below(10)).map(|_| *rng.pick(&letters)).collect();
            assert_scan_is_regex_by_regex(&index, &mut scratch, &regexes, &text);
        }
    }
}

/// A gate is an ASCII literal, so on text that is not ASCII a
/// case-insensitive pattern can match without it: `(?i)aaaS|\u{17F}s`
/// has the gate `ss` and matches `\u{17F}s`, and `(?i)\bkey=` (gate
/// `key=`) matches `\u{212A}ey=`. Such text runs every gated chunk.
#[test]
fn gated_patterns_match_non_ascii_text_without_their_gate() {
    let patterns = vec![
        "aaaS|\u{17F}s".to_string(),
        "\\bkey=".to_string(),
        "^/ss/[0-9]+x".to_string(),
        "other".to_string(),
    ];
    let (regexes, index) = indexed(patterns, true);
    assert_eq!(regexes.len(), 4);
    for (i, r) in regexes.iter().enumerate() {
        assert!(gate_of(r.as_str(), true).is_some(), "{i}: gated");
    }
    let mut scratch = index.scratch();
    for text in [
        "/a/\u{17F}s",
        "/a/\u{17F}S/\u{212A}ey=1",
        "/\u{17F}s/12x",
        "/ss/12x\u{E9}",
        "/ss/12x",
        "/aaas",
        "\u{E9}",
    ] {
        assert_scan_is_regex_by_regex(&index, &mut scratch, &regexes, text);
    }
}

/// `pattern` compiled in one case mode.
fn build(pattern: &str, insensitive: bool) -> Result<Regex, regex::Error> {
    regex::RegexBuilder::new(pattern)
        .case_insensitive(insensitive)
        .build()
}

/// `patterns` compiled in one case mode; every one must compile.
fn compile_all<S: AsRef<str>>(patterns: &[S], insensitive: bool) -> Vec<Regex> {
    patterns
        .iter()
        .map(|p| build(p.as_ref(), insensitive).expect("test pattern compiles"))
        .collect()
}

/// An index entry per regex, atom `i` being `regexes[i]`.
fn regex_entries(regexes: &[Regex], insensitive: bool) -> Vec<Entry<'_>> {
    regexes
        .iter()
        .enumerate()
        .map(|(i, regex)| Entry::Regex {
            atom: i as u32,
            regex,
            insensitive,
        })
        .collect()
}

/// The atoms `index` finds in `text` are those of the regexes (atom `i`
/// being `regexes[i]`) that match it on their own.
fn assert_scan_is_regex_by_regex(
    index: &FieldIndex,
    scratch: &mut FieldScratch,
    regexes: &[Regex],
    text: &str,
) {
    let lower = lower_cased(text);
    let mut got = Vec::new();
    index.scan(text, &lower, scratch, &mut |a| got.push(a));
    // A pattern whose gate was seen twice may be reported twice.
    got.sort_unstable();
    got.dedup();
    let want: Vec<u32> = (0..regexes.len() as u32)
        .filter(|&i| regexes[i as usize].is_match(text))
        .collect();
    let differ: Vec<&str> = (0..regexes.len() as u32)
        .filter(|i| got.contains(i) != want.contains(i))
        .map(|i| regexes[i as usize].as_str())
        .collect();
    assert_eq!(got, want, "{text:?}: {differ:?}");
}

/// Verbose regexes (`(?x)`, with a comment to the end of the pattern)
/// join the multi-pattern sets, gated or not, and match as they do
/// alone; they used to fall back to one-by-one tests.
#[test]
fn verbose_regexes_join_the_sets() {
    let patterns = [
        "(?x) ^/products [0-9]+ /reviews  # product reviews",
        "(?x) [a-z]+ \\.pdf $ # any PDF",
        "(?x)\n  /blog/ (19|20)[0-9]{2}  # by year\n  /\n",
    ];
    for insensitive in [false, true] {
        let regexes = compile_all(&patterns, insensitive);
        let (index, direct) = FieldIndex::build(Field::Path, &regex_entries(&regexes, insensitive));
        assert!(direct.is_empty(), "{direct:?} tested one by one");
        let in_sets: usize = index
            .gated
            .iter()
            .chain(&index.regexes)
            .map(|c| c.atoms.len())
            .sum();
        assert_eq!(in_sets, 3);
        let mut scratch = index.scratch();
        for text in [
            "/products12/reviews",
            "/Products12/reviews",
            "/docs/a.pdf",
            "/docs/a.PDF",
            "/blog/2019/",
            "/BLOG/1999/x",
            "/blog/2019",
        ] {
            assert_scan_is_regex_by_regex(&index, &mut scratch, &regexes, text);
        }
    }
}
