//! The fetch queues of SPEC §2.2 and the scheduling rule, as pure data.
//!
//! Five priority levels, each with the six queues (`user`, `redirect`,
//! `index`, `index_follow`, `follow`, `refresh`). A pick takes the most
//! urgent level that has any URL *ready* (its host may be fetched now), then
//! shares picks among that level's ready queues in proportion to their
//! weights, by smooth weighted round robin (nginx's): deterministic, and over
//! any run of picks the shares match the weights within one pick.
//!
//! Inside a queue URLs wait per host, and hosts take turns; a host that may
//! not be fetched now (politeness, backoff) is passed over, so a stalled
//! host never holds up the others. The caller says which hosts are ready.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use crate::rules::Queue;

/// The six queues, in SPEC order.
pub const QUEUES: [Queue; 6] = [
    Queue::User,
    Queue::Redirect,
    Queue::Index,
    Queue::IndexFollow,
    Queue::Follow,
    Queue::Refresh,
];

/// Priority levels: 0 is `highest` (shift −2), 4 is `lowest` (shift +2).
pub const LEVELS: usize = 5;

/// The level of an Exalead priority shift (−2…2).
pub fn level_of(priority: i8) -> usize {
    (i64::from(priority) + 2).clamp(0, LEVELS as i64 - 1) as usize
}

/// The index of a queue in [`QUEUES`].
pub(crate) fn slot(queue: Queue) -> Option<usize> {
    QUEUES.iter().position(|q| *q == queue)
}

/// One queue: URLs waiting per host, hosts taking turns.
#[derive(Debug)]
struct HostQueue<T> {
    by_host: FxHashMap<u32, VecDeque<T>>,
    /// Hosts with waiting URLs, in turn order.
    turns: VecDeque<u32>,
    len: usize,
}

impl<T> Default for HostQueue<T> {
    fn default() -> Self {
        HostQueue {
            by_host: FxHashMap::default(),
            turns: VecDeque::new(),
            len: 0,
        }
    }
}

impl<T> HostQueue<T> {
    fn push(&mut self, host: u32, item: T) {
        let waiting = self.by_host.entry(host).or_default();
        if waiting.is_empty() {
            self.turns.push_back(host);
        }
        waiting.push_back(item);
        self.len += 1;
    }

    /// Puts an item back at the head of its host's line (see
    /// [`Frontier::unpop`]).
    fn push_front(&mut self, host: u32, item: T) {
        let waiting = self.by_host.entry(host).or_default();
        if waiting.is_empty() {
            self.turns.push_front(host);
        }
        waiting.push_front(item);
        self.len += 1;
    }

    /// Whether any waiting host is ready.
    fn has_ready(&self, ready: &impl Fn(u32) -> bool) -> bool {
        self.turns.iter().any(|&h| ready(h))
    }

    /// Takes the next URL of the first ready host in turn order; that host
    /// goes to the back of the line.
    fn pop(&mut self, ready: &impl Fn(u32) -> bool) -> Option<(u32, T)> {
        let turn = self.turns.iter().position(|&h| ready(h))?;
        let host = self.turns.remove(turn)?;
        let waiting = self.by_host.get_mut(&host)?;
        let item = waiting.pop_front()?;
        if waiting.is_empty() {
            self.by_host.remove(&host);
        } else {
            self.turns.push_back(host);
        }
        self.len -= 1;
        Some((host, item))
    }

    /// Takes the next URL of `host`, leaving the other hosts' turns as they
    /// are (its own turn goes only when its line empties).
    fn pop_host(&mut self, host: u32) -> Option<T> {
        let waiting = self.by_host.get_mut(&host)?;
        let item = waiting.pop_front()?;
        if waiting.is_empty() {
            self.by_host.remove(&host);
            self.turns.retain(|&h| h != host);
        }
        self.len -= 1;
        Some(item)
    }

    fn retain(&mut self, keep: &mut impl FnMut(&T) -> bool) -> usize {
        let before = self.len;
        for waiting in self.by_host.values_mut() {
            waiting.retain(|item| keep(item));
        }
        self.by_host.retain(|_, w| !w.is_empty());
        self.turns.retain(|h| self.by_host.contains_key(h));
        self.len = self.by_host.values().map(VecDeque::len).sum();
        before - self.len
    }
}

/// The frontier: 5 levels × 6 queues of items of type `T`, keyed by host id.
#[derive(Debug)]
pub struct Frontier<T> {
    queues: Vec<[HostQueue<T>; 6]>,
    weights: [u32; 6],
    /// Smooth weighted round robin state, per level and queue.
    current: [[i64; 6]; LEVELS],
    /// Picks made from each queue, for the observed shares.
    picks: [u64; 6],
}

impl<T> Frontier<T> {
    /// A frontier with these queue weights (SPEC order; a zero weight is
    /// treated as 1 so that no queue starves forever).
    pub fn new(weights: [u32; 6]) -> Frontier<T> {
        Frontier {
            queues: (0..LEVELS)
                .map(|_| std::array::from_fn(|_| HostQueue::default()))
                .collect(),
            weights: weights.map(|w| w.max(1)),
            current: [[0; 6]; LEVELS],
            picks: [0; 6],
        }
    }

    pub fn set_weights(&mut self, weights: [u32; 6]) {
        self.weights = weights.map(|w| w.max(1));
    }

    pub fn weights(&self) -> [u32; 6] {
        self.weights
    }

    /// Queues `item` for `host`. `Queue::None` is not a fetch queue: such
    /// items are refused (returned).
    pub fn push(&mut self, level: usize, queue: Queue, host: u32, item: T) -> Result<(), T> {
        match slot(queue) {
            Some(q) => {
                self.queues[level.min(LEVELS - 1)][q].push(host, item);
                Ok(())
            }
            None => Err(item),
        }
    }

    /// The next item to fetch among hosts for which `ready` holds, with its
    /// level, queue and host.
    pub fn pop(&mut self, ready: impl Fn(u32) -> bool) -> Option<(usize, Queue, u32, T)> {
        for level in 0..LEVELS {
            let Some(best) = self.pick(level, |queue| queue.has_ready(&ready)) else {
                continue;
            };
            let (host, item) = self.queues[level][best].pop(&ready)?;
            self.picks[best] += 1;
            return Some((level, QUEUES[best], host, item));
        }
        None
    }

    /// The next item of one host, the queues of the most urgent level that
    /// has any of its URLs shared by weight as in [`Frontier::pop`]: for a
    /// fetch slot already busy with that host (`engine::relay`). A hash
    /// look-up per queue, however many hosts wait.
    pub fn pop_for(&mut self, host: u32) -> Option<(usize, Queue, T)> {
        for level in 0..LEVELS {
            let Some(best) = self.pick(level, |queue| queue.by_host.contains_key(&host)) else {
                continue;
            };
            let item = self.queues[level][best].pop_host(host)?;
            self.picks[best] += 1;
            return Some((level, QUEUES[best], item));
        }
        None
    }

    /// The queue of `level` to take from among those `eligible` says, in
    /// proportion to the weights (smooth weighted round-robin); `None` when
    /// none is.
    fn pick(&mut self, level: usize, eligible: impl Fn(&HostQueue<T>) -> bool) -> Option<usize> {
        let eligible: Vec<usize> = (0..6)
            .filter(|&q| eligible(&self.queues[level][q]))
            .collect();
        let total: i64 = eligible.iter().map(|&q| i64::from(self.weights[q])).sum();
        let current = &mut self.current[level];
        let mut best = *eligible.first()?;
        for &q in &eligible {
            current[q] += i64::from(self.weights[q]);
            if current[q] > current[best] {
                best = q;
            }
        }
        current[best] -= total;
        Some(best)
    }

    /// Puts back an item [`Frontier::pop`] just returned, first in its
    /// host's line, and takes the pick back: the caller found it could not
    /// go yet (its host's robots.txt must be fetched first).
    pub fn unpop(&mut self, level: usize, queue: Queue, host: u32, item: T) {
        if let Some(q) = slot(queue) {
            self.queues[level.min(LEVELS - 1)][q].push_front(host, item);
            self.picks[q] = self.picks[q].saturating_sub(1);
        }
    }

    /// Items waiting in one queue of one level.
    pub fn slot_len(&self, level: usize, queue: usize) -> usize {
        self.queues
            .get(level)
            .and_then(|l| l.get(queue))
            .map_or(0, |q| q.len)
    }

    /// Items waiting, per queue (all levels).
    pub fn lengths(&self) -> [usize; 6] {
        std::array::from_fn(|q| self.queues.iter().map(|level| level[q].len).sum())
    }

    pub fn len(&self) -> usize {
        self.lengths().iter().sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Picks made from each queue since the start.
    pub fn picks(&self) -> [u64; 6] {
        self.picks
    }

    /// Drops the items `keep` refuses (a new rule set filtering queued
    /// URLs); returns how many were dropped.
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) -> usize {
        self.queues
            .iter_mut()
            .flat_map(|level| level.iter_mut())
            .map(|q| q.retain(&mut keep))
            .sum()
    }

    /// Waiting items for `host`, across all queues.
    pub fn waiting_for(&self, host: u32) -> usize {
        self.queues
            .iter()
            .flat_map(|level| level.iter())
            .map(|q| q.by_host.get(&host).map_or(0, VecDeque::len))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pop_for_takes_only_that_hosts_urls_most_urgent_first() {
        let mut f: Frontier<&str> = Frontier::new([10000, 2000, 1000, 100, 10, 1]);
        let _ = f.push(2, Queue::Follow, 1, "a1");
        let _ = f.push(2, Queue::Follow, 2, "b1");
        let _ = f.push(0, Queue::Follow, 2, "b0");
        let _ = f.push(2, Queue::IndexFollow, 2, "b2");
        assert_eq!(f.pop_for(3), None);
        assert_eq!(f.pop_for(2).map(|(l, _, i)| (l, i)), Some((0, "b0")));
        let mut rest: Vec<&str> = std::iter::from_fn(|| f.pop_for(2).map(|(_, _, i)| i)).collect();
        rest.sort_unstable();
        assert_eq!(rest, ["b1", "b2"]);
        assert_eq!(f.len(), 1);
        // The other host is still in turn, and its URL comes out as usual.
        assert_eq!(f.pop(|_| true).map(|(_, _, h, i)| (h, i)), Some((1, "a1")));
        assert!(f.is_empty());
    }

    const DEFAULT_WEIGHTS: [u32; 6] = [10000, 2000, 1000, 100, 10, 1];

    /// With every queue full, the observed shares match the weights.
    #[test]
    fn shares_follow_the_weights() {
        for weights in [DEFAULT_WEIGHTS, [1, 1, 1, 1, 1, 1], [5, 0, 3, 2, 7, 1]] {
            let mut f = Frontier::new(weights);
            let picks = 100_000usize;
            for q in QUEUES {
                for i in 0..picks {
                    f.push(2, q, (i % 7) as u32, i).unwrap();
                }
            }
            let mut seen = [0usize; 6];
            for _ in 0..picks {
                let (_, queue, _, _) = f.pop(|_| true).unwrap();
                seen[slot(queue).unwrap()] += 1;
            }
            let total: u32 = weights.iter().map(|w| (*w).max(1)).sum();
            for q in 0..6 {
                let expected = picks as f64 * f64::from(weights[q].max(1)) / f64::from(total);
                let got = seen[q] as f64;
                assert!(
                    (got - expected).abs() <= 1.0 + expected * 0.01,
                    "weights {weights:?}: queue {q} got {got}, expected {expected}"
                );
            }
            assert_eq!(f.picks().iter().sum::<u64>(), picks as u64);
        }
    }

    /// `highest` goes before everything; `lowest` only when nothing else is
    /// ready, whatever the queue weights say.
    #[test]
    fn levels_come_before_weights() {
        let mut f = Frontier::new(DEFAULT_WEIGHTS);
        f.push(level_of(2), Queue::User, 1, "lowest user").unwrap();
        f.push(level_of(0), Queue::Follow, 1, "normal follow")
            .unwrap();
        f.push(level_of(-2), Queue::Refresh, 1, "highest refresh")
            .unwrap();
        f.push(level_of(0), Queue::User, 1, "normal user").unwrap();
        let order: Vec<&str> =
            std::iter::from_fn(|| f.pop(|_| true).map(|(_, _, _, item)| item)).collect();
        assert_eq!(
            order,
            [
                "highest refresh",
                "normal user",
                "normal follow",
                "lowest user"
            ]
        );
    }

    /// A level whose hosts are all busy yields to the next level.
    #[test]
    fn busy_hosts_are_passed_over() {
        let mut f = Frontier::new(DEFAULT_WEIGHTS);
        for i in 0..100 {
            f.push(level_of(-2), Queue::User, 1, i).unwrap(); // host 1: stalled
        }
        f.push(level_of(0), Queue::Follow, 2, 1000).unwrap();
        f.push(level_of(0), Queue::Follow, 3, 2000).unwrap();
        let ready = |h: u32| h != 1;
        assert_eq!(f.pop(ready).map(|p| p.3), Some(1000));
        assert_eq!(f.pop(ready).map(|p| p.3), Some(2000));
        assert_eq!(f.pop(ready).map(|p| p.3), None);
        assert_eq!(
            f.pop(|_| true).map(|p| p.3),
            Some(0),
            "host 1 again once ready"
        );
        assert_eq!(f.waiting_for(1), 99);
    }

    /// Hosts take turns inside a queue.
    #[test]
    fn hosts_take_turns() {
        let mut f = Frontier::new(DEFAULT_WEIGHTS);
        for i in 0..3 {
            f.push(2, Queue::Follow, 1, (1, i)).unwrap();
            f.push(2, Queue::Follow, 2, (2, i)).unwrap();
        }
        let hosts: Vec<u32> = std::iter::from_fn(|| f.pop(|_| true).map(|p| p.2)).collect();
        assert_eq!(hosts, [1, 2, 1, 2, 1, 2]);
    }

    #[test]
    fn retain_drops_and_counts() {
        let mut f = Frontier::new(DEFAULT_WEIGHTS);
        for i in 0..10 {
            f.push(i % LEVELS, QUEUES[i % 6], (i % 3) as u32, i)
                .unwrap();
        }
        assert_eq!(f.retain(|i| i % 2 == 0), 5);
        assert_eq!(f.len(), 5);
        let mut left: Vec<usize> = std::iter::from_fn(|| f.pop(|_| true).map(|p| p.3)).collect();
        left.sort_unstable();
        assert_eq!(left, [0, 2, 4, 6, 8]);
        assert!(f.push(0, Queue::None, 0, 1).is_err());
    }
}
