//! Lookups of keys that end (prefixes) or start (suffixes) at a separator
//! byte, such as `/docs/` or `.example.org`, at each separator of a text.
//!
//! A text is cut at each separator from its anchored end inward, and the
//! walk stops at the first piece that no key equals or continues past. To
//! know that without a table probe (most pieces name nothing, and a probe
//! of a large table is a cache miss), every key and every inner piece of a
//! key sets one bit of a small bitset, keyed by a hash of the piece that is
//! built segment by segment as the walk goes. A clear bit stops the walk; a
//! set bit may be a collision. Only pieces whose bit is set and whose
//! length a key has are looked up exactly (in a [`Table`] hashed with the
//! same hash, so the piece is not hashed again), and only the exact lookup
//! of whole keys reports uses, so a collision costs one lookup more and
//! never a wrong match.
//!
//! Inner pieces are kept only as bits: a key of `n` separators costs `n`
//! bits, not `n` copies of its prefixes (a 10 KB key of `/a` repeated took
//! 25 MB when every piece was a stored string).

use super::table::Table;

/// Bits per distinct piece (rounded up to a power of two): about one
/// lookup in nine to one in seventeen of a piece that names nothing passes
/// the filter, more once the filter is at its largest.
const BITS_PER_PIECE: usize = 8;

/// The largest filter, in bits (512 KB): past it, collisions grow but
/// lookups stay right.
const MAX_FILTER_BITS: usize = 1 << 22;

/// The multiplier of `rustc-hash`'s FxHasher.
const K: u64 = 0xf135_7aea_2e62_a9c5;

/// What one key of a lookup map means: most keys name one atom (or use),
/// kept in the map's own slot rather than behind a pointer, which spares a
/// cache miss on every hit.
#[derive(Debug, Clone)]
pub(super) enum Few<T> {
    One(T),
    Many(Vec<T>),
}

impl<T> Default for Few<T> {
    fn default() -> Few<T> {
        Few::Many(Vec::new())
    }
}

impl<T: Copy> Few<T> {
    pub(super) fn as_slice(&self) -> &[T] {
        match self {
            Few::One(t) => std::slice::from_ref(t),
            Few::Many(v) => v,
        }
    }

    pub(super) fn push(&mut self, t: T) {
        match self {
            Few::One(first) => *self = Few::Many(vec![*first, t]),
            Few::Many(v) if v.is_empty() => *self = Few::One(t),
            Few::Many(v) => v.push(t),
        }
    }
}

/// The hash of a piece extended by `segment` (the bytes between two
/// separators, the separator included), from the hash `h` of the piece
/// before it. Pieces hash the same whichever text they are cut from, since
/// their segments are the same.
#[inline]
fn extend(mut h: u64, segment: &[u8]) -> u64 {
    let mut chunks = segment.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        h = (h ^ u64::from_le_bytes(word))
            .wrapping_mul(K)
            .rotate_left(26);
    }
    let rest = chunks.remainder();
    let mut word = [0u8; 8];
    word[..rest.len()].copy_from_slice(rest);
    // The length keeps `a` and `a\0` apart.
    let tail = u64::from_le_bytes(word) ^ ((segment.len() as u64) << 56);
    (h ^ tail).wrapping_mul(K).rotate_left(26)
}

/// The hash a walk gives `key` as its last piece, which is the whole key
/// when it ends (prefixes) or starts (suffixes) with the separator, as
/// every key does; a key that did not could never equal a piece anyway.
fn key_hash(key: &[u8], sep: u8, prefix: bool) -> u64 {
    Walk::new(key, sep, prefix).last().map_or(0, |(_, h)| h)
}

/// Keys cut at a separator byte, with a bitset of every key and inner piece.
#[derive(Debug)]
pub(super) struct Cuts<T> {
    /// Whole keys, hashed as their walk hashes them (so a piece's lookup
    /// reuses the hash the walk built).
    keys: Table<T>,
    /// One bit per piece hash (see the module doc); empty when there are no
    /// keys.
    filter: Box<[u64]>,
    /// `64 - log2(bits)`: the filter is indexed by the top bits of a hash.
    shift: u32,
    /// Shortest and longest key (inner pieces aside).
    min_len: usize,
    max_len: usize,
    sep: u8,
}

impl<T> Default for Cuts<T> {
    fn default() -> Cuts<T> {
        Cuts {
            keys: Table::default(),
            filter: Box::default(),
            shift: 63,
            min_len: usize::MAX,
            max_len: 0,
            sep: b'/',
        }
    }
}

impl<T: Copy> Cuts<T> {
    /// Whether there are no keys.
    #[cfg(test)]
    pub(super) fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// `prefix`: keys end with `sep` (else they start with it).
    pub(super) fn new(keys: Vec<(String, T)>, sep: u8, prefix: bool) -> Cuts<T> {
        let mut cuts = Cuts {
            sep,
            ..Cuts::default()
        };
        let mut hashes = Vec::new();
        for (key, value) in keys {
            cuts.min_len = cuts.min_len.min(key.len());
            cuts.max_len = cuts.max_len.max(key.len());
            hashes.extend(Walk::new(key.as_bytes(), sep, prefix).map(|(_, h)| h));
            cuts.keys
                .insert(key.as_bytes(), value, |k| key_hash(k, sep, prefix));
        }
        if cuts.keys.is_empty() {
            return cuts;
        }
        hashes.sort_unstable();
        hashes.dedup();
        let bits = (hashes.len() * BITS_PER_PIECE)
            .next_power_of_two()
            .clamp(64, MAX_FILTER_BITS);
        cuts.shift = 64 - bits.trailing_zeros();
        cuts.filter = vec![0u64; bits / 64].into_boxed_slice();
        for h in hashes {
            let bit = cuts.bit(h);
            cuts.filter[bit / 64] |= 1 << (bit % 64);
        }
        cuts
    }

    fn bit(&self, h: u64) -> usize {
        (h.wrapping_mul(K) >> self.shift) as usize
    }

    /// Whether some key may equal or continue past the piece hashed `h`.
    fn may_continue(&self, h: u64) -> bool {
        let bit = self.bit(h);
        self.filter[bit / 64] & (1 << (bit % 64)) != 0
    }

    /// Calls `f` for the uses of every key that `text` starts with.
    pub(super) fn prefixes(&self, text: &str, f: &mut impl FnMut(&T)) {
        self.lookups(text, true, f);
    }

    /// Calls `f` for the uses of every key that `text` ends with.
    pub(super) fn suffixes(&self, text: &str, f: &mut impl FnMut(&T)) {
        self.lookups(text, false, f);
    }

    // Inlined into the scan (four calls), where `prefix` is a constant: left
    // out of line when the scan grew, it cost about 350 instructions more
    // per URL under cachegrind at 10 rules.
    #[inline(always)]
    fn lookups(&self, text: &str, prefix: bool, f: &mut impl FnMut(&T)) {
        if self.keys.is_empty() || text.len() < self.min_len {
            return;
        }
        for (piece, h) in Walk::new(text.as_bytes(), self.sep, prefix) {
            if piece.len() > self.max_len || !self.may_continue(h) {
                break;
            }
            if piece.len() < self.min_len {
                continue;
            }
            if let Some(uses) = self.keys.get(h, piece) {
                uses.iter().for_each(&mut *f);
            }
        }
    }

    /// The bytes this map holds: its keys and its filter (test-only, to
    /// check that inner pieces cost no copies).
    #[cfg(test)]
    pub(super) fn stored_bytes(&self) -> usize {
        self.keys.key_bytes() + self.filter.len() * 8
    }
}

/// The pieces of a text cut at each separator, from its anchored end
/// inward, with their hashes: for prefixes each piece ends just after a
/// separator, for suffixes each starts at one.
struct Walk<'a> {
    text: &'a [u8],
    /// The separators, taken from the front (prefixes) or the back.
    seps: memchr::Memchr<'a>,
    prefix: bool,
    /// Where the last piece ended (prefixes) or started (suffixes).
    edge: usize,
    hash: u64,
}

impl<'a> Walk<'a> {
    fn new(text: &'a [u8], sep: u8, prefix: bool) -> Walk<'a> {
        Walk {
            text,
            seps: memchr::memchr_iter(sep, text),
            prefix,
            edge: if prefix { 0 } else { text.len() },
            hash: 0,
        }
    }
}

impl<'a> Iterator for Walk<'a> {
    /// A piece and its hash.
    type Item = (&'a [u8], u64);

    #[inline]
    fn next(&mut self) -> Option<(&'a [u8], u64)> {
        if self.prefix {
            let end = self.seps.next()? + 1;
            self.hash = extend(self.hash, self.text.get(self.edge..end)?);
            self.edge = end;
            self.text.get(..end).map(|piece| (piece, self.hash))
        } else {
            let start = self.seps.next_back()?;
            self.hash = extend(self.hash, self.text.get(start..self.edge)?);
            self.edge = start;
            self.text.get(start..).map(|piece| (piece, self.hash))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random keys with many separators against plain string comparisons,
    /// both ways round.
    #[test]
    fn lookups_agree_with_plain_comparisons() {
        let mut rng = crate::rules::synth::Rng::new(5);
        let pieces = [
            "/",
            ".",
            "a",
            "b",
            "ab",
            "/a",
            ".b",
            "//",
            "..",
            "abcdefghij",
        ];
        let word = |rng: &mut crate::rules::synth::Rng, n: usize| -> String {
            (0..1 + rng.below(n)).map(|_| *rng.pick(&pieces)).collect()
        };
        for prefix in [true, false] {
            let sep = if prefix { b'/' } else { b'.' };
            let mut keys = Vec::new();
            for i in 0..300u32 {
                let mut key = word(&mut rng, 8);
                if prefix {
                    key.push('/');
                } else {
                    key.insert(0, '.');
                }
                keys.push((key, i));
            }
            let cuts = Cuts::new(keys.clone(), sep, prefix);
            for _ in 0..5_000 {
                let text = word(&mut rng, 14);
                let mut got = Vec::new();
                if prefix {
                    cuts.prefixes(&text, &mut |&i| got.push(i));
                } else {
                    cuts.suffixes(&text, &mut |&i| got.push(i));
                }
                got.sort_unstable();
                let want: Vec<u32> = keys
                    .iter()
                    .filter(|(k, _)| {
                        if prefix {
                            text.starts_with(k.as_str())
                        } else {
                            text.ends_with(k.as_str())
                        }
                    })
                    .map(|&(_, i)| i)
                    .collect();
                assert_eq!(got, want, "{text} (prefix: {prefix})");
            }
        }
    }

    /// Keys of thousands of separators: stored in bytes proportional to
    /// the keys (not to their square), and still found exactly.
    #[test]
    fn long_keys_build_in_bounded_memory() {
        let body = "/a".repeat(5_000);
        let keys: Vec<(String, u32)> = (0..20u32).map(|i| (format!("{body}/{i}/"), i)).collect();
        let key_bytes: usize = keys.iter().map(|(k, _)| k.len()).sum();
        let cuts = Cuts::new(keys, b'/', true);
        // The keys themselves plus a filter of a few bits per separator.
        assert!(
            cuts.stored_bytes() < key_bytes + 16 * 1024,
            "{} bytes for {key_bytes} bytes of keys",
            cuts.stored_bytes()
        );
        let mut got = Vec::new();
        cuts.prefixes(&format!("{body}/7/x/"), &mut |&i| got.push(i));
        assert_eq!(got, [7]);
        got.clear();
        cuts.prefixes(&format!("{body}/x/7/"), &mut |&i| got.push(i));
        assert!(got.is_empty());
        got.clear();
        cuts.prefixes(&body, &mut |&i| got.push(i));
        assert!(got.is_empty());
    }
}
