//! Seeded noise for the never-panic tests of the importers and the lint.
//!
//! One xorshift64 stream: no dependency and no clock, so every run tries
//! the same inputs and a failure reproduces from the seed alone. Test-only.

/// xorshift64 (13, 7, 17): a fixed, dependency-free source of test noise.
/// The seed must not be zero, or the stream stays at zero.
#[derive(Debug, Clone)]
pub(crate) struct XorShift(pub(crate) u64);

impl XorShift {
    /// The next value of the stream.
    pub(crate) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A value in `0..n` (0 when `n` is 0), taken from one draw.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// `rounds` texts from `seed`, each of `0..max_len` parts: even rounds use
/// raw bytes, odd rounds whole `pieces` of the syntax, so that the deeper
/// paths of a parser are reached too. Invalid UTF-8 is replaced, as a file
/// read lossily would be.
pub(crate) fn inputs<'a>(
    seed: u64,
    rounds: usize,
    max_len: usize,
    pieces: &'a [&'a [u8]],
) -> impl Iterator<Item = String> + 'a {
    let mut rng = XorShift(seed);
    (0..rounds).map(move |round| {
        let len = rng.below(max_len);
        let mut bytes = Vec::with_capacity(len * 4);
        for _ in 0..len {
            let r = rng.next();
            if round % 2 == 0 {
                bytes.push(r as u8);
            } else {
                bytes.extend_from_slice(pieces[(r % pieces.len() as u64) as usize]);
            }
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}
