//! What the loop reports about itself: the counts of [`Stats`] (the
//! status line, the headless display and the final summary) and, when the
//! console asks, the [`Detail`] of the queues, the busiest hosts and the
//! rules' hits.

use std::time::{Duration, Instant};

use super::*;

impl Engine {
    pub(super) fn snapshot(&mut self) -> Stats {
        // Every queued URL is in the log's frontier index, in memory or
        // not, until it is done (so in-flight ones are in it too, but for
        // robots.txt, which is no URL of the frontier).
        let urls_in_flight = self.stats.in_flight.saturating_sub(self.robots_in_flight);
        self.stats.queued = self.log.frontier_len().saturating_sub(urls_in_flight);
        self.stats.paused = self.paused;
        let idle = self.stats.in_flight == 0 && self.stats.queued > 0 && !self.paused;
        let now = Instant::now();
        self.stats.waiting = idle
            .then(|| self.next_wake(now, true))
            .flatten()
            .map(|at| at.saturating_duration_since(now));
        self.stats.elapsed = self.started.elapsed();
        self.stats.paused_for =
            self.paused_before + self.paused_since.map_or(Duration::ZERO, |t| t.elapsed());
        self.stats.clone()
    }

    /// A resumed crawl counts on from what its log holds, so that the
    /// status line and the summary agree with the log; `done_before` keeps
    /// the pages of earlier runs out of the rate. A refresh counts its own
    /// pass from 0 (it fetches again what the log counts as done).
    pub(super) fn count_from_the_log(&mut self) {
        if !matches!(self.refresh, Refresh::Off) {
            return;
        }
        let counts = self.log.counts();
        self.stats.discovered = self.log.len();
        self.stats.fetched = counts.fetched;
        self.stats.saved = counts.saved;
        self.stats.filtered = counts.filtered;
        self.stats.errors = counts.error;
        self.stats.done_before = counts.fetched + counts.saved;
    }

    /// The queues, the busiest hosts and the rule hits, for the console.
    pub(super) fn detail(&self, now: Instant) -> Detail {
        let weights = self.frontier.weights();
        let lengths = self.frontier.lengths();
        let on_disk = self.window.spilled_per_queue();
        // Offered to running tasks, not started: queued still.
        let mut offered = [0usize; QUEUES.len()];
        let mut offered_by_host: FxHashMap<u32, usize> = FxHashMap::default();
        for (host, relay) in &self.relays {
            relay.each_offered(|item| {
                if let Some(q) = crate::crawl::frontier::slot(item.queue) {
                    offered[q] += 1;
                }
                *offered_by_host.entry(*host).or_default() += 1;
            });
        }
        let picks = self.frontier.picks();
        let queues = QUEUES
            .iter()
            .enumerate()
            .map(|(i, &queue)| QueueRow {
                queue,
                weight: weights[i],
                length: lengths[i] + on_disk[i] as usize + offered[i],
                picks: picks[i],
            })
            .collect();
        let all = self.hosts.all();
        let mut hosts: Vec<HostRow> = all
            .iter()
            .enumerate()
            .map(|(id, h)| {
                let pending = self.frontier.waiting_for(id as u32)
                    + offered_by_host.get(&(id as u32)).copied().unwrap_or(0);
                // Waiting for robots.txt: "ready" while it is being
                // fetched, a backoff until an unreachable one is retried.
                let idle = match (pending, self.robots.gate(id as u32, now)) {
                    (0, _) => HostIdle::Empty,
                    (_, Gate::Wait(None)) => HostIdle::Ready,
                    (_, Gate::Wait(Some(t))) => HostIdle::Backoff(t.saturating_duration_since(now)),
                    (_, Gate::Open | Gate::Fetch) => match self.hosts.idle(id as u32, now) {
                        Idle::Ready => HostIdle::Ready,
                        Idle::Busy => HostIdle::Busy,
                        Idle::Politeness(d) => HostIdle::Politeness(d),
                        Idle::Backoff(d) => HostIdle::Backoff(d),
                        Idle::GivenUp(d) => HostIdle::GivenUp(d),
                    },
                };
                HostRow {
                    origin: h.origin.clone(),
                    pending,
                    in_flight: h.in_flight,
                    fetched: h.fetched,
                    delay: h.delay,
                    errors_in_row: h.errors_in_row,
                    idle,
                    robots: self.robots.describe(id as u32, now),
                }
            })
            .collect();
        hosts.sort_by(|a, b| {
            (b.pending + b.in_flight)
                .cmp(&(a.pending + a.in_flight))
                .then(b.fetched.cmp(&a.fetched))
        });
        hosts.truncate(MAX_HOST_ROWS);
        Detail {
            queues,
            hosts,
            hosts_total: all.len(),
            rule_hits: self.rule_hits.clone(),
            rules_version: self.rules_version,
        }
    }

    /// Counts the rules that matched in a verdict (rule health): once per
    /// URL, from its final verdict, reached under the rules in force.
    pub(super) fn count_hits(&mut self, verdict: &Verdict) {
        for entry in &verdict.trace {
            if entry.step == crate::rules::Step::Matched
                && let Some(hits) = self.rule_hits.get_mut(entry.rule as usize)
            {
                *hits += 1;
            }
        }
    }

    /// [`Engine::count_hits`] for a verdict a fetch task reached under
    /// `rules`: not counted when live rules replaced them meanwhile, since
    /// its rule numbers are another list's.
    pub(super) fn count_hits_under(&mut self, rules: &Arc<CompiledRules>, verdict: &Verdict) {
        if Arc::ptr_eq(rules, &self.rules) {
            self.count_hits(verdict);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Stats;
    use std::time::Duration;

    /// The rate counts this run's pages over the time it was not paused.
    #[test]
    fn the_rate_leaves_out_paused_time_and_earlier_runs() {
        let stats = Stats {
            fetched: 10,
            saved: 10,
            done_before: 4,
            elapsed: Duration::from_secs(10),
            paused_for: Duration::from_secs(8),
            ..Stats::default()
        };
        assert_eq!(stats.rate(), 8.0);
        let all_paused = Stats {
            paused_for: Duration::from_secs(10),
            ..stats
        };
        assert_eq!(all_paused.rate(), 0.0);
    }
}
