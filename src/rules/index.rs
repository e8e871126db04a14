//! The per-field matchers: every atom on one text field of the URL, found
//! in a few passes over that field, whatever the number of rules.
//!
//! - exact values: one hash lookup;
//! - domains and suffixes that start at a `.` (`*.example.org`, `.pdf`): one
//!   hash lookup per dot in the text;
//! - prefixes ending with `/` (`http://host/docs/`, `/archive/`), when there
//!   are many: one hash lookup per `/` in the text;
//! - other prefixes: one walk of an anchored Aho-Corasick DFA from the start,
//!   stopping as soon as no needle can match; other suffixes: the same walk
//!   backwards over reversed needles;
//! - substrings: one unanchored Aho-Corasick scan;
//! - regexes: most have literals that every match must contain (the prefixes
//!   or suffixes `regex-syntax` extracts). Those literals join the prefix or
//!   substring automaton as *gates*; such regexes share multi-pattern
//!   regexes too, and a set runs only when one of its gates was seen. A
//!   gated regex whose gates are prefixes (every match starts with one) and
//!   that starts with literal bytes (a letter's case pair, as a
//!   case-insensitive rule has it, counts as one byte) runs, on ASCII text,
//!   as those bytes compared where the gate was found and the rest of it
//!   run from there, the rests shared between regexes ([`split`]); on other
//!   text, or when its head is found more than [`MAX_TAIL_SEARCHES`] times,
//!   it runs in its whole set.
//!   Regexes without a gate share multi-pattern regexes that run on every
//!   text. Sets hold at most [`MAX_REGEXES_PER_SET`] patterns, because one
//!   set of thousands of regexes collapses (CRATES.md).
//!
//! Insensitive needles are stored lower-cased and matched against the
//! field's lower-cased text (cut from the URL lower-cased once); sensitive
//! substrings join them and are checked against the original text where
//! found. Gates are always insensitive (a gate only has to be necessary, and
//! URL fields are ASCII after normalization).

use aho_corasick::automaton::Automaton;
use aho_corasick::{Anchored, MatchKind, StartKind};
use regex::Regex;
use regex_automata::meta;
use regex_syntax::hir::Hir;
use rustc_hash::FxHashMap;

use super::model::Field;

mod cuts;
mod gates;
mod split;
mod table;

use cuts::{Cuts, Few};
#[cfg(test)]
use gates::gate_of;
use gates::{Gate, gate_of_hir, is_anchored, parsed};
use table::Table;

/// Patterns per multi-pattern regex: large enough that a few sets cover the
/// regexes that have no usable literal, small enough that the lazy DFA cache
/// does not thrash.
pub const MAX_REGEXES_PER_SET: usize = 256;

/// Room for each multi-pattern regex (the default limits suit one pattern).
const SET_SIZE_LIMIT: usize = 64 << 20;

/// Prefixes ending in `/` move from the DFA walk to hash lookups at each `/`
/// only when there are at least this many: a walk over a few needles dies
/// after a few bytes, while a large DFA costs a cache miss per byte.
const SLASH_MAP_MIN: usize = 64;

/// Substring needles are scanned with a full DFA up to this many bytes of
/// needles in total (beyond, Aho-Corasick picks a smaller automaton).
const DFA_NEEDLE_BYTES: usize = 64 << 10;

/// Tail searches per split pattern per text (see [`FieldIndex::run_split`])
/// before the pattern runs whole instead. Each search may read to the end
/// of the text, so a head found at every other byte (`ab` × 50,000 for
/// `(?i)ab.*zz`) would cost time quadratic in the text, where its chunk's
/// one search is linear; a URL rarely holds a pattern's head more than
/// once or twice.
const MAX_TAIL_SEARCHES: u32 = 4;

/// The shortest literal worth gating a regex on: one byte would let the
/// regex run for nearly every URL.
const MIN_GATE_LEN: usize = 2;

/// How an atom compares a literal needle with its field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LiteralOp {
    Exact,
    Prefix,
    Suffix,
    Contains,
    Domain,
}

/// One atom to be indexed, as the compiler hands it over.
#[derive(Debug)]
pub(crate) enum Entry<'a> {
    /// A literal test (needle already lower-cased when insensitive).
    Literal {
        atom: u32,
        op: LiteralOp,
        needle: &'a str,
        insensitive: bool,
    },
    /// A regex test (case mode already compiled into `regex`).
    Regex {
        atom: u32,
        regex: &'a Regex,
        insensitive: bool,
    },
}

/// What finding a needle means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Use {
    /// The atom matches (position rules already applied by the automaton).
    Atom(u32),
    /// A gate literal of one gated pattern (an index into
    /// [`FieldIndex::gate_targets`]): only patterns whose gate was seen can
    /// match, and a leading gate also says where the match could start.
    Gate(u32),
    /// A case-sensitive substring, searched lower-cased with the insensitive
    /// ones: the atom matches if the original text there is exactly
    /// [`FieldIndex::verify`]`[needle]`.
    Verify { atom: u32, needle: u32 },
}

/// A set of needles found by one automaton, with what each means. Most
/// needles mean one thing, kept in the array itself (see [`Few`]): a hit
/// reads one cache line of it, not a `Vec` header and then its list.
#[derive(Debug)]
struct Needles {
    automaton: AnchoredAutomaton,
    uses: Vec<Few<Use>>,
}

/// The automaton of anchored needles: a full DFA, the fastest walk, while
/// the needles stay under [`DFA_NEEDLE_BYTES`]; beyond, a contiguous NFA,
/// whose memory grows with the needles rather than with states × byte
/// classes (20,000 long URL prefixes took 269 MB as a DFA).
#[derive(Debug)]
enum AnchoredAutomaton {
    Dfa(aho_corasick::dfa::DFA),
    Nfa(aho_corasick::nfa::contiguous::NFA),
}

#[derive(Debug)]
struct Scan {
    automaton: aho_corasick::AhoCorasick,
    uses: Vec<Few<Use>>,
}

#[derive(Debug)]
pub(crate) struct RegexChunk {
    pub regex: meta::Regex,
    /// Pattern index → atom.
    pub atoms: Vec<u32>,
}

/// All matchers of one field.
#[derive(Debug)]
pub(crate) struct FieldIndex {
    pub field: Field,
    exact_sensitive: Table<u32>,
    exact_insensitive: Table<u32>,
    /// Suffixes starting with `.`, keyed with the dot, per case mode. A
    /// domain `x.y` is here as `.x.y` (and in `exact_insensitive` as `x.y`),
    /// so each dot of the text costs one lookup.
    dot_suffixes: [Cuts<u32>; 2],
    /// Prefixes (and prefix gates) ending with `/`, per case mode: looked up
    /// at each `/` of the text, which beats walking a large automaton.
    slash_prefixes: [Cuts<Use>; 2],
    /// Anchored prefix needles, per case mode (0 sensitive, 1 insensitive).
    prefixes: [Option<Needles>; 2],
    /// Anchored suffix needles, reversed, per case mode.
    suffixes: [Option<Needles>; 2],
    /// Substring needles, all lower-cased (sensitive ones verified).
    contains: Option<Scan>,
    /// Multi-pattern regexes run only when one of their patterns' gate
    /// literals was seen. Grouping them (rather than one regex each) keeps
    /// each group's lazy DFA warm: at 10,000 rules a single regex runs once
    /// in thousands of URLs and paid for cold caches and state building
    /// every time.
    gated: Vec<RegexChunk>,
    /// Per gated pattern: where it is, and how it runs when its gate was
    /// seen.
    gate_targets: Vec<GateTarget>,
    /// The tails of split gated patterns (see [`split`]), each distinct
    /// tail once.
    tails: Vec<RegexChunk>,
    /// The heads of split gated patterns, one after another.
    heads: Vec<u8>,
    /// Gated patterns whose gate literals are in no automaton (it failed to
    /// build): taken as gated on every text. Empty in practice.
    open_gates: Vec<u32>,
    /// Case-sensitive substrings, which share the insensitive automaton
    /// (one scan of the field instead of two).
    verify: Vec<Box<str>>,
    /// Multi-pattern regexes run on every text (no usable literal).
    pub regexes: Vec<RegexChunk>,
}

/// Where a gated pattern is, and how it runs when its gate was seen.
#[derive(Debug, Clone, Copy)]
struct GateTarget {
    chunk: u32,
    /// Its pattern number in the chunk.
    pattern: u32,
    /// Set when every match starts with one of its gate literals and the
    /// pattern splits into a head and a tail: it runs as its head compared
    /// where a gate literal was found and its tail run from there, instead
    /// of its whole chunk over the whole text.
    split: Option<SplitRun>,
}

/// A split gated pattern (see [`split`]).
#[derive(Debug, Clone, Copy)]
struct SplitRun {
    /// Its head: `heads[head..head + head_len]`.
    head: u32,
    head_len: u32,
    /// Its tail: pattern `tail_pattern` of `tails[tail_chunk]`.
    tail_chunk: u32,
    tail_pattern: u32,
    /// The pattern matches only at the start of the text.
    at_start: bool,
}

/// Working memory of one field's scan.
#[derive(Debug, Default)]
pub(crate) struct FieldScratch {
    /// Gated chunks that must run whole (the gate of a pattern that is not
    /// split was seen), deduplicated by stamp.
    gates: Vec<u32>,
    gate_stamp: Vec<u32>,
    /// Gated patterns read from their chunk's search: their gate was seen
    /// and they are not split, or they are split but run whole on this
    /// text (not ASCII, too many heads found, a start past 4 GiB). Repeats
    /// are harmless.
    seen: Vec<u32>,
    /// Split gated patterns whose gate was seen, with where it starts.
    starts: Vec<(u32, u32)>,
    generation: u32,
    caches: Vec<meta::Cache>,
    sets: Vec<regex_automata::PatternSet>,
    gated_caches: Vec<meta::Cache>,
    gated_sets: Vec<regex_automata::PatternSet>,
    tail_caches: Vec<meta::Cache>,
}

impl FieldIndex {
    /// Builds the matchers for `entries`, all on `field`. Atoms it cannot
    /// index (an automaton too big, a set that will not build) are returned
    /// to be tested one by one.
    pub fn build(field: Field, entries: &[Entry<'_>]) -> (FieldIndex, Vec<u32>) {
        let mut direct = Vec::new();
        let mut index = FieldIndex {
            field,
            exact_sensitive: Table::default(),
            exact_insensitive: Table::default(),
            dot_suffixes: Default::default(),
            slash_prefixes: Default::default(),
            prefixes: [None, None],
            suffixes: [None, None],
            contains: None,
            gated: Vec::new(),
            gate_targets: Vec::new(),
            tails: Vec::new(),
            heads: Vec::new(),
            open_gates: Vec::new(),
            verify: Vec::new(),
            regexes: Vec::new(),
        };
        // Needle lists per (kind, case): prefix, suffix (reversed), contains.
        let mut lists: [[NeedleList; 2]; 3] = Default::default();
        let mut ungated: Vec<(Hir, u32)> = Vec::new();
        let mut gated: Vec<(Hir, u32, Gate)> = Vec::new();
        // Prefixes ending in `/`, per case, before choosing how to find them.
        let mut slash: [Vec<(String, Use)>; 2] = Default::default();
        // Suffixes starting with `.`, per case.
        let mut dots: [Vec<(String, u32)>; 2] = Default::default();
        for entry in entries {
            match *entry {
                Entry::Literal {
                    atom,
                    op,
                    needle,
                    insensitive,
                } => {
                    let case = usize::from(insensitive);
                    match op {
                        LiteralOp::Exact if insensitive => {
                            push_map(&mut index.exact_insensitive, needle, atom)
                        }
                        LiteralOp::Exact => push_map(&mut index.exact_sensitive, needle, atom),
                        LiteralOp::Domain => {
                            push_map(&mut index.exact_insensitive, needle, atom);
                            dots[1].push((format!(".{needle}"), atom));
                        }
                        LiteralOp::Suffix if needle.starts_with('.') => {
                            dots[case].push((needle.to_string(), atom));
                        }
                        LiteralOp::Prefix if needle.ends_with('/') => {
                            slash[case].push((needle.to_string(), Use::Atom(atom)));
                        }
                        LiteralOp::Prefix => lists[0][case].add(needle, Use::Atom(atom)),
                        LiteralOp::Suffix => lists[1][case].add(&reversed(needle), Use::Atom(atom)),
                        LiteralOp::Contains if insensitive => {
                            lists[2][1].add(needle, Use::Atom(atom))
                        }
                        LiteralOp::Contains => {
                            let u = Use::Verify {
                                atom,
                                needle: index.verify.len() as u32,
                            };
                            index.verify.push(needle.into());
                            lists[2][1].add(&needle.to_ascii_lowercase(), u);
                        }
                    }
                }
                Entry::Regex {
                    atom,
                    regex,
                    insensitive,
                } => {
                    // Sets are built from the parsed patterns: wrapping the
                    // text in a group to set its case would let a `(?x)`
                    // comment swallow the group's closing parenthesis.
                    let Some(hir) = parsed(regex.as_str(), insensitive) else {
                        direct.push(atom);
                        continue;
                    };
                    match gate_of_hir(&hir) {
                        Some(gate) => gated.push((hir, atom, gate)),
                        None => ungated.push((hir, atom)),
                    }
                }
            }
        }
        let gated = gated_chunks(gated, &mut lists, &mut slash, &mut direct);
        index.gated = gated.chunks;
        index.gate_targets = gated.targets;
        index.tails = gated.tails;
        index.heads = gated.heads;
        for (case, needles) in slash.into_iter().enumerate() {
            let distinct: std::collections::HashSet<&str> =
                needles.iter().map(|(n, _)| n.as_str()).collect();
            if distinct.len() >= SLASH_MAP_MIN {
                index.slash_prefixes[case] = Cuts::new(needles, b'/', true);
            } else {
                for (needle, u) in needles {
                    lists[0][case].add(&needle, u);
                }
            }
        }
        for (case, needles) in dots.into_iter().enumerate() {
            index.dot_suffixes[case] = Cuts::new(needles, b'.', false);
        }
        let [prefix_lists, suffix_lists, contains_lists] = lists;
        let mut lost = Lost::default();
        for (case, list) in prefix_lists.into_iter().enumerate() {
            index.prefixes[case] = list.anchored(&mut lost);
        }
        for (case, list) in suffix_lists.into_iter().enumerate() {
            index.suffixes[case] = list.anchored(&mut lost);
        }
        let [no_sensitive, contains_list] = contains_lists;
        debug_assert!(no_sensitive.needles.is_empty());
        index.contains = contains_list.unanchored(&mut lost);
        direct.extend(lost.atoms);
        lost.gates.sort_unstable();
        lost.gates.dedup();
        index.open_gates = lost.gates;
        index.regexes = regex_sets(ungated, &mut direct);
        (index, direct)
    }

    /// Working memory for [`FieldIndex::scan`].
    pub fn scratch(&self) -> FieldScratch {
        let caches =
            |chunks: &[RegexChunk]| chunks.iter().map(|c| c.regex.create_cache()).collect();
        let sets = |chunks: &[RegexChunk]| {
            chunks
                .iter()
                .map(|c| regex_automata::PatternSet::new(c.atoms.len()))
                .collect()
        };
        FieldScratch {
            gates: Vec::new(),
            gate_stamp: vec![0; self.gated.len()],
            seen: Vec::new(),
            starts: Vec::new(),
            generation: 0,
            caches: caches(&self.regexes),
            sets: sets(&self.regexes),
            gated_caches: caches(&self.gated),
            gated_sets: sets(&self.gated),
            tail_caches: caches(&self.tails),
        }
    }

    /// Calls `hit` for every atom of this field that matches `text`.
    /// `lower` is `text` ASCII-lower-cased: insensitive needles are stored
    /// lower-cased and matched case-sensitively against it, which lets the
    /// automata skip case folding (and their prefilters see fewer distinct
    /// first bytes).
    #[cfg(test)]
    pub fn scan(
        &self,
        text: &str,
        lower: &str,
        scratch: &mut FieldScratch,
        hit: &mut impl FnMut(u32),
    ) {
        self.scan_known(text, lower, text.is_ascii(), scratch, hit);
    }

    /// `scan` (the tests' entry) where the caller knows whether `text` is ASCII
    /// (`ascii`; see [`lower_cased_ascii`]): gates hold on ASCII text only.
    pub fn scan_known(
        &self,
        text: &str,
        lower: &str,
        ascii: bool,
        scratch: &mut FieldScratch,
        hit: &mut impl FnMut(u32),
    ) {
        let [dot_sensitive, dot_insensitive] = &self.dot_suffixes;
        let [slash_sensitive, slash_insensitive] = &self.slash_prefixes;
        // Most fields have no exact keys: that test stays here, out of the
        // call.
        if !self.exact_sensitive.is_empty() {
            exact(&self.exact_sensitive, text, hit);
        }
        if !self.exact_insensitive.is_empty() {
            exact(&self.exact_insensitive, lower, hit);
        }
        dot_sensitive.suffixes(text, &mut |&a| hit(a));
        dot_insensitive.suffixes(lower, &mut |&a| hit(a));

        scratch.generation = scratch.generation.wrapping_add(1);
        if scratch.generation == 0 {
            scratch.gate_stamp.fill(0);
            scratch.generation = 1;
        }
        scratch.gates.clear();
        scratch.seen.clear();
        scratch.starts.clear();
        for &g in &self.open_gates {
            self.whole_chunk(g, scratch);
        }
        // `at`: where the needle was found (for a sensitive substring's
        // check, and where a leading gate's pattern would start); anchored
        // prefix needles are found at `0..0`.
        let mut on_use = |u: Use, at: std::ops::Range<usize>| match u {
            Use::Atom(a) => hit(a),
            Use::Verify { atom, needle } => {
                let needle = self.verify[needle as usize].as_bytes();
                if text.as_bytes().get(at) == Some(needle) {
                    hit(atom);
                }
            }
            Use::Gate(g) if self.gate_targets[g as usize].split.is_some() => {
                match u32::try_from(at.start) {
                    Ok(start) => scratch.starts.push((g, start)),
                    // Starts are kept as `u32` (the list is per gate hit);
                    // past 4 GiB the pattern runs whole instead.
                    Err(_) => self.whole_chunk(g, scratch),
                }
            }
            Use::Gate(g) => self.whole_chunk(g, scratch),
        };
        slash_sensitive.prefixes(text, &mut |&u| on_use(u, 0..0));
        slash_insensitive.prefixes(lower, &mut |&u| on_use(u, 0..0));
        let [prefix_sensitive, prefix_insensitive] = &self.prefixes;
        if let Some(needles) = prefix_sensitive {
            needles.walk(text.bytes(), &mut on_use);
        }
        if let Some(needles) = prefix_insensitive {
            needles.walk(lower.bytes(), &mut on_use);
        }
        let [suffix_sensitive, suffix_insensitive] = &self.suffixes;
        if let Some(needles) = suffix_sensitive {
            needles.walk(text.bytes().rev(), &mut on_use);
        }
        if let Some(needles) = suffix_insensitive {
            needles.walk(lower.bytes().rev(), &mut on_use);
        }
        // Substrings, sensitive ones included, in one scan of the
        // lower-cased text. Most fields contain no needle: the plain search
        // (with its prefilter and tight loop) says so faster than the
        // overlapping one, which runs only after a first hit.
        if let Some(scan) = &self.contains
            && scan.automaton.is_match(lower)
        {
            for m in scan.automaton.find_overlapping_iter(lower) {
                for &u in scan.uses[m.pattern().as_usize()].as_slice() {
                    on_use(u, m.range());
                }
            }
        }
        self.run_gated(text, lower, ascii, scratch, hit);
        for (ci, chunk) in self.regexes.iter().enumerate() {
            chunk.run(text, &mut scratch.caches[ci], &mut scratch.sets[ci], hit);
        }
    }

    /// Notes that gated pattern `g` must be read from a search of its whole
    /// chunk over the whole text.
    fn whole_chunk(&self, g: u32, scratch: &mut FieldScratch) {
        scratch.seen.push(g);
        let chunk = self.gate_targets[g as usize].chunk;
        let stamp = &mut scratch.gate_stamp[chunk as usize];
        if *stamp != scratch.generation {
            *stamp = scratch.generation;
            scratch.gates.push(chunk);
        }
    }

    /// Calls `hit` for the gated patterns that match `text`, of those whose
    /// gate the scan saw.
    fn run_gated(
        &self,
        text: &str,
        lower: &str,
        ascii: bool,
        scratch: &mut FieldScratch,
        hit: &mut impl FnMut(u32),
    ) {
        if self.gated.is_empty() {
            return;
        }
        // Gates and heads are ASCII and hold for ASCII text only: on other
        // text a gated pattern can match without its gate (`(?i)ss` matches
        // `\u{17F}s`), so every gated chunk runs whole and every pattern
        // it matches counts.
        if !ascii {
            for (c, chunk) in self.gated.iter().enumerate() {
                chunk.run(
                    text,
                    &mut scratch.gated_caches[c],
                    &mut scratch.gated_sets[c],
                    hit,
                );
            }
            return;
        }
        if !scratch.starts.is_empty() {
            self.run_split(text, lower, scratch, hit);
        }
        // A pattern can match only if its gate was seen (a gate is a literal
        // every match contains), so only those patterns are read from their
        // chunk's set, rather than every slot of it.
        for &c in &scratch.gates {
            let c = c as usize;
            self.gated[c].search(
                text,
                &mut scratch.gated_caches[c],
                &mut scratch.gated_sets[c],
            );
        }
        for &g in &scratch.seen {
            let t = self.gate_targets[g as usize];
            let set = &scratch.gated_sets[t.chunk as usize];
            if set.contains(regex_automata::PatternID::must(t.pattern as usize)) {
                hit(self.gated[t.chunk as usize].atoms[t.pattern as usize]);
            }
        }
    }

    /// Runs each split pattern whose gate was seen at each place a gate
    /// literal starts (every match starts at one), until it matches: its
    /// head compared there, its tail run anchored after it. A pattern whose
    /// head matched at more than [`MAX_TAIL_SEARCHES`] places runs whole
    /// instead.
    fn run_split(
        &self,
        text: &str,
        lower: &str,
        scratch: &mut FieldScratch,
        hit: &mut impl FnMut(u32),
    ) {
        scratch.starts.sort_unstable();
        scratch.starts.dedup();
        // The pattern being tried (starts are sorted by pattern), how many
        // tail searches it had, and whether it is settled (matched, or left
        // to its whole chunk).
        let mut current = u32::MAX;
        let mut searches = 0;
        let mut settled = false;
        for i in 0..scratch.starts.len() {
            let (g, at) = scratch.starts[i];
            if g != current {
                (current, searches, settled) = (g, 0, false);
            }
            let t = self.gate_targets[g as usize];
            let Some(run) = t.split else { continue };
            if settled || (run.at_start && at != 0) {
                continue;
            }
            let head = (run.head as usize)..(run.head as usize + run.head_len as usize);
            let Some(head) = self.heads.get(head) else {
                continue;
            };
            let at = at as usize;
            if !split::head_matches(head, text.as_bytes(), lower.as_bytes(), at) {
                continue;
            }
            if searches == MAX_TAIL_SEARCHES {
                self.whole_chunk(g, scratch);
                settled = true;
                continue;
            }
            searches += 1;
            #[cfg(test)]
            TAIL_SEARCHES.with(|n| n.set(n.get() + 1));
            let tail = &self.tails[run.tail_chunk as usize];
            let cache = &mut scratch.tail_caches[run.tail_chunk as usize];
            if tail.matches_at(text, at + head.len(), run.tail_pattern, cache) {
                settled = true;
                hit(self.gated[t.chunk as usize].atoms[t.pattern as usize]);
            }
        }
    }
}

impl RegexChunk {
    /// Whether pattern `pattern` of the chunk has a match starting at `at`
    /// (look-behind still sees the text before `at`).
    fn matches_at(&self, text: &str, at: usize, pattern: u32, cache: &mut meta::Cache) -> bool {
        let Some(pid) = regex_automata::PatternID::new(pattern as usize).ok() else {
            return false;
        };
        if at > text.len() {
            return false;
        }
        let input = regex_automata::Input::new(text)
            .range(at..)
            .anchored(regex_automata::Anchored::Pattern(pid))
            .earliest(true);
        self.regex.search_half_with(cache, &input).is_some()
    }

    /// Leaves in `set` the patterns of the chunk that match `text`.
    fn search(&self, text: &str, cache: &mut meta::Cache, set: &mut regex_automata::PatternSet) {
        set.clear();
        self.regex
            .which_overlapping_matches_with(cache, &regex_automata::Input::new(text), set);
    }

    /// Calls `hit` for every pattern of the chunk that matches `text`.
    fn run(
        &self,
        text: &str,
        cache: &mut meta::Cache,
        set: &mut regex_automata::PatternSet,
        hit: &mut impl FnMut(u32),
    ) {
        set.clear();
        self.regex
            .which_overlapping_matches_with(cache, &regex_automata::Input::new(text), set);
        // The iterator looks at every pattern slot, matched or not.
        if set.is_empty() {
            return;
        }
        for pattern in set.iter() {
            hit(self.atoms[pattern.as_usize()]);
        }
    }
}

/// The gated regexes as built (see [`FieldIndex`]'s fields of the same
/// names).
struct GatedChunks {
    chunks: Vec<RegexChunk>,
    targets: Vec<GateTarget>,
    tails: Vec<RegexChunk>,
    heads: Vec<u8>,
}

/// Builds the gated regexes into chunks (anchored apart from unanchored, as
/// for the ungated ones), registers each pattern's gate literals with the
/// chunk it landed in, and splits the patterns whose gates lead (see
/// [`split`]).
fn gated_chunks(
    gated: Vec<(Hir, u32, Gate)>,
    lists: &mut [[NeedleList; 2]; 3],
    slash: &mut [Vec<(String, Use)>; 2],
    direct: &mut Vec<u32>,
) -> GatedChunks {
    let mut gates: FxHashMap<u32, Gate> = FxHashMap::default();
    let mut patterns = Vec::with_capacity(gated.len());
    let mut splits = Splits::default();
    for (pattern, atom, gate) in gated {
        if gate.leads {
            splits.add(atom, &pattern);
        }
        patterns.push((pattern, atom));
        gates.insert(atom, gate);
    }
    let chunks = regex_sets(patterns, direct);
    let tails = splits.build();
    let mut targets = Vec::new();
    let mut heads = Vec::new();
    for (slot, chunk) in chunks.iter().enumerate() {
        for (pattern, atom) in chunk.atoms.iter().enumerate() {
            let u = Use::Gate(targets.len() as u32);
            let gate = &gates[atom];
            targets.push(GateTarget {
                chunk: slot as u32,
                pattern: pattern as u32,
                split: splits.run_of(*atom, &tails, &mut heads),
            });
            for literal in &gate.literals {
                match gate.anchored {
                    // Up to its last `/`, a prefix gate is still a prefix
                    // every match has.
                    true => match literal.rfind('/') {
                        Some(end) if end > 0 => slash[1].push((literal[..=end].to_string(), u)),
                        _ => lists[0][1].add(literal, u),
                    },
                    false => lists[2][1].add(literal, u),
                }
            }
        }
    }
    GatedChunks {
        chunks,
        targets,
        tails: tails.chunks,
        heads,
    }
}

/// The split gated patterns while building: each pattern's head and tail,
/// and the distinct tails.
#[derive(Default)]
struct Splits {
    /// Per atom: its head, whether it starts with `^`, and its tail's id.
    of_atom: FxHashMap<u32, (Vec<u8>, bool, u32)>,
    /// Tail ids by a hash of the tail's printed form (see [`printed_hash`]);
    /// tails of one hash are told apart by comparing them.
    ids: FxHashMap<u64, Few<u32>>,
    tails: Vec<(Hir, u32)>,
}

/// A hash of how `hir` prints, computed as it prints: a Unicode class such
/// as `\w` prints to kilobytes, and keeping each tail's printed form as its
/// key held megabytes while building thousands of rules.
fn printed_hash(hir: &Hir) -> u64 {
    use std::fmt::Write as _;
    use std::hash::Hasher as _;
    struct Hashing(rustc_hash::FxHasher);
    impl std::fmt::Write for Hashing {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.write(s.as_bytes());
            Ok(())
        }
    }
    let mut hashing = Hashing(rustc_hash::FxHasher::default());
    // Writing into a hasher cannot fail.
    let _ = write!(hashing, "{hir}");
    hashing.0.finish()
}

/// The built tails: their chunks, and where each tail id landed.
struct Tails {
    chunks: Vec<RegexChunk>,
    /// Tail id → (chunk, pattern); tails that failed to build are absent.
    at: FxHashMap<u32, (u32, u32)>,
}

impl Splits {
    fn add(&mut self, atom: u32, pattern: &Hir) {
        let Some(split) = split::split(pattern) else {
            return;
        };
        // Equal tails print alike, so they hash alike.
        let ids = self.ids.entry(printed_hash(&split.tail)).or_default();
        let known = ids.as_slice().iter().copied().find(|&id| {
            self.tails
                .get(id as usize)
                .is_some_and(|(tail, _)| *tail == split.tail)
        });
        let id = match known {
            Some(id) => id,
            None => {
                let id = self.tails.len() as u32;
                ids.push(id);
                self.tails.push((split.tail, id));
                id
            }
        };
        self.of_atom.insert(atom, (split.head, split.at_start, id));
    }

    fn build(&mut self) -> Tails {
        // A tail that fails to build leaves its patterns unsplit.
        let mut failed = Vec::new();
        let chunks = regex_sets(std::mem::take(&mut self.tails), &mut failed);
        let mut at = FxHashMap::default();
        for (c, chunk) in chunks.iter().enumerate() {
            for (p, &id) in chunk.atoms.iter().enumerate() {
                at.insert(id, (c as u32, p as u32));
            }
        }
        Tails { chunks, at }
    }

    /// How `atom`'s pattern runs split, its head appended to `heads`.
    fn run_of(&self, atom: u32, tails: &Tails, heads: &mut Vec<u8>) -> Option<SplitRun> {
        let (head, at_start, id) = self.of_atom.get(&atom)?;
        let &(tail_chunk, tail_pattern) = tails.at.get(id)?;
        let run = SplitRun {
            head: u32::try_from(heads.len()).ok()?,
            head_len: u32::try_from(head.len()).ok()?,
            tail_chunk,
            tail_pattern,
            at_start: *at_start,
        };
        heads.extend_from_slice(head);
        Some(run)
    }
}

impl Needles {
    /// Feeds bytes from one end of the text until no needle can match.
    fn walk(
        &self,
        bytes: impl Iterator<Item = u8>,
        on_use: &mut impl FnMut(Use, std::ops::Range<usize>),
    ) {
        match &self.automaton {
            AnchoredAutomaton::Dfa(dfa) => self.walk_with(dfa, bytes, on_use),
            AnchoredAutomaton::Nfa(nfa) => self.walk_with(nfa, bytes, on_use),
        }
    }

    fn walk_with(
        &self,
        dfa: &impl Automaton,
        bytes: impl Iterator<Item = u8>,
        on_use: &mut impl FnMut(Use, std::ops::Range<usize>),
    ) {
        let Ok(mut sid) = dfa.start_state(Anchored::Yes) else {
            return;
        };
        for (read, b) in bytes.enumerate() {
            sid = dfa.next_state(Anchored::Yes, sid, b);
            if dfa.is_special(sid) {
                if dfa.is_dead(sid) {
                    return;
                }
                if dfa.is_match(sid) {
                    for i in 0..dfa.match_len(sid) {
                        let pattern = dfa.match_pattern(sid, i);
                        // A match state also lists the needles that end
                        // here but start later (its suffixes, inherited for
                        // unanchored searches): only a needle as long as
                        // the bytes read starts at the anchored end.
                        if dfa.pattern_len(pattern) != read + 1 {
                            continue;
                        }
                        self.uses[pattern.as_usize()]
                            .as_slice()
                            .iter()
                            .for_each(|&u| on_use(u, 0..0));
                    }
                }
            }
        }
    }
}

/// Distinct needles and what each one means.
#[derive(Debug, Default)]
struct NeedleList {
    needles: Vec<String>,
    uses: Vec<Few<Use>>,
    slots: FxHashMap<String, usize>,
}

impl NeedleList {
    fn add(&mut self, needle: &str, u: Use) {
        let slot = match self.slots.get(needle) {
            Some(&slot) => slot,
            None => {
                self.needles.push(needle.to_string());
                self.uses.push(Few::default());
                self.slots
                    .insert(needle.to_string(), self.needles.len() - 1);
                self.needles.len() - 1
            }
        };
        self.uses[slot].push(u);
    }

    /// Needles of the insensitive lists are lower-cased and matched against
    /// lower-cased text, so every automaton compares bytes as they are.
    /// On failure the needles' uses go to `lost` (see [`Lost`]).
    fn anchored(self, lost: &mut Lost) -> Option<Needles> {
        if self.needles.is_empty() {
            return None;
        }
        if failing_for_test() {
            lost.take(&self.uses);
            return None;
        }
        let total: usize = self.needles.iter().map(String::len).sum();
        let built = if total <= DFA_NEEDLE_BYTES {
            aho_corasick::dfa::DFA::builder()
                .start_kind(StartKind::Anchored)
                .match_kind(MatchKind::Standard)
                .build(&self.needles)
                .map(AnchoredAutomaton::Dfa)
        } else {
            aho_corasick::nfa::contiguous::NFA::builder()
                .match_kind(MatchKind::Standard)
                .build(&self.needles)
                .map(AnchoredAutomaton::Nfa)
        };
        match built {
            Ok(automaton) => Some(Needles {
                automaton,
                uses: self.uses,
            }),
            Err(_) => {
                lost.take(&self.uses);
                None
            }
        }
    }

    fn unanchored(self, lost: &mut Lost) -> Option<Scan> {
        if self.needles.is_empty() {
            return None;
        }
        if failing_for_test() {
            lost.take(&self.uses);
            return None;
        }
        // A full DFA costs memory (states × byte classes) but is the fastest
        // scan; thousands of short needles stay within a few megabytes.
        let total: usize = self.needles.iter().map(String::len).sum();
        let kind = (total <= DFA_NEEDLE_BYTES).then_some(aho_corasick::AhoCorasickKind::DFA);
        let built = aho_corasick::AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .kind(kind)
            .build(&self.needles);
        match built {
            Ok(automaton) => Some(Scan {
                automaton,
                uses: self.uses,
            }),
            Err(_) => {
                lost.take(&self.uses);
                None
            }
        }
    }
}

/// What the needles of an automaton that failed to build stood for, so
/// that nothing is lost with them: their atoms are tested one by one, and
/// the gated patterns they were gates of count as gated on every text
/// (their chunk runs on every text and they are read from it).
#[derive(Debug, Default)]
struct Lost {
    atoms: Vec<u32>,
    gates: Vec<u32>,
}

impl Lost {
    fn take(&mut self, uses: &[Few<Use>]) {
        for &u in uses.iter().flat_map(Few::as_slice) {
            match u {
                Use::Atom(a) | Use::Verify { atom: a, .. } => self.atoms.push(a),
                Use::Gate(g) => self.gates.push(g),
            }
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Makes every literal automaton fail to build, on this thread.
    static FAIL_AUTOMATA: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Tail searches run on this thread (see [`MAX_TAIL_SEARCHES`]).
    static TAIL_SEARCHES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Whether a test asked automata to fail (never outside tests).
fn failing_for_test() -> bool {
    #[cfg(test)]
    {
        FAIL_AUTOMATA.with(std::cell::Cell::get)
    }
    #[cfg(not(test))]
    {
        false
    }
}

/// Calls `hit` for the atoms `table` names for `text`. Inlined: a call
/// costs more than the probe itself at 10 rules.
#[inline(always)]
fn exact(table: &Table<u32>, text: &str, hit: &mut impl FnMut(u32)) {
    if let Some(ids) = table.get(exact_hash(text.as_bytes()), text.as_bytes()) {
        ids.iter().for_each(|&a| hit(a));
    }
}

fn push_map(map: &mut Table<u32>, key: &str, atom: u32) {
    map.insert(key.as_bytes(), atom, exact_hash);
}

/// The hash of an exact-value key (and of a field's text looked up in them).
fn exact_hash(bytes: &[u8]) -> u64 {
    use std::hash::Hasher as _;
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(bytes);
    hasher.finish()
}

fn reversed(s: &str) -> String {
    s.chars().rev().collect()
}

/// `text` lower-cased, borrowing when it already is.
pub(crate) fn lower_cased(text: &str) -> std::borrow::Cow<'_, str> {
    lower_cased_ascii(text).0
}

/// [`lower_cased`], and whether `text` is ASCII, from one pass over it.
pub(crate) fn lower_cased_ascii(text: &str) -> (std::borrow::Cow<'_, str>, bool) {
    // No early exit: the whole-slice fold vectorizes, and URLs are short.
    let (upper, bits) = text.bytes().fold((false, 0u8), |(seen, bits), b| {
        (seen | b.is_ascii_uppercase(), bits | b)
    });
    let lower = if upper {
        std::borrow::Cow::Owned(text.to_ascii_lowercase())
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    (lower, bits < 0x80)
}

/// Builds `patterns` into multi-pattern regexes of at most
/// [`MAX_REGEXES_PER_SET`], anchored ones apart from unanchored ones: mixing
/// them in one set slows the set's DFA down markedly.
fn regex_sets(patterns: Vec<(Hir, u32)>, direct: &mut Vec<u32>) -> Vec<RegexChunk> {
    let (anchored, free): (Vec<_>, Vec<_>) =
        patterns.into_iter().partition(|(p, _)| is_anchored(p));
    let mut sets = Vec::new();
    for group in [anchored, free] {
        for chunk in group.chunks(MAX_REGEXES_PER_SET) {
            build_chunks(chunk, &mut sets, direct);
        }
    }
    sets
}

/// Builds one multi-pattern regex for `chunk`, halving it when the
/// combination is too big; single patterns that still fail are tested alone.
fn build_chunks(chunk: &[(Hir, u32)], out: &mut Vec<RegexChunk>, direct: &mut Vec<u32>) {
    let config = meta::Regex::config()
        .match_kind(regex_automata::MatchKind::All)
        .nfa_size_limit(Some(SET_SIZE_LIMIT))
        .dfa_size_limit(Some(SET_SIZE_LIMIT))
        .hybrid_cache_capacity(SET_SIZE_LIMIT / 4);
    let patterns: Vec<&Hir> = chunk.iter().map(|(p, _)| p).collect();
    match meta::Regex::builder()
        .configure(config)
        .build_many_from_hir(&patterns)
    {
        Ok(regex) => out.push(RegexChunk {
            regex,
            atoms: chunk.iter().map(|(_, id)| *id).collect(),
        }),
        Err(_) if chunk.len() > 1 => {
            let (a, b) = chunk.split_at(chunk.len() / 2);
            build_chunks(a, out, direct);
            build_chunks(b, out, direct);
        }
        Err(_) => direct.push(chunk[0].1),
    }
}

#[cfg(test)]
mod tests;
