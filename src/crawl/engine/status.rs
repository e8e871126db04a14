//! What the loop reports about itself: the counts of [`Stats`] (the
//! status line, the headless display and the final summary) and, when the
//! console asks, the [`Detail`] of the queues, the busiest hosts and the
//! rules' hits.

use std::time::Instant;

use super::*;

impl Engine {
    pub(super) fn snapshot(&mut self) -> Stats {
        // Every queued URL is in the log's frontier index, in memory or
        // not, until it is done (so in-flight ones are in it too).
        self.stats.queued = self.log.frontier_len().saturating_sub(self.stats.in_flight);
        self.stats.paused = self.paused;
        self.stats.elapsed = self.started.elapsed();
        self.stats.clone()
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
