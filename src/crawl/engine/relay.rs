//! Fetch slots that go straight on: a page task is handed its next URLs
//! while it fetches, and the coordinator is woken for a few outcomes at a
//! time rather than for each.
//!
//! A fetch task used to end with its page: the coordinator then woke,
//! handled the outcome and spawned a task for the next URL before the
//! slot's connection had a request again, and every outcome woke its
//! thread. On the benchmark machine each of those wake-ups cost the waking
//! thread several microseconds and the woken one more (handing pages to
//! another thread in the fetch-and-scan pass alone made its fetch tasks a
//! quarter slower: docs/performance-log.md, the crawler's steps 17 and 18).
//! So the coordinator offers each running page task a few next URLs of
//! the same host ([`Relay::offer`], [`STEADY`]; a [`RUNWAY`] while a large
//! group of writes waits, so that fetching goes on while it is written);
//! the task, once its page is
//! done, goes straight on with the first ([`Relay::next`]) and reports the
//! page; and it rings the coordinator's [`Bell`] only every
//! [`RING_EVERY`] outcomes, or at once when its slot ends or has nothing
//! more to go on with.
//!
//! Politeness is kept: URLs are only offered to a task fetching from the
//! same host, and only for hosts whose requests need no pause between them
//! (no `delay_ms`, no `Crawl-delay`, no backoff), so the host's requests
//! in flight never go up; a task only goes on after an outcome that asks
//! the host for no pause (not a failed fetch, a 429 or a 5xx), and
//! otherwise ends, handing its offered URLs back. A URL offered stays
//! queued in the URL log until the task starts it: the coordinator marks
//! it in flight when the task's report says so, and puts offered URLs back
//! in their queues when the crawl pauses or the rules change.
//!
//! Here too: the page task ([`fetch_pages`]) and the loop's side of the
//! hand-over (`Engine::offer_next`, `Engine::take_report` and their
//! helpers).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::Notify;

use std::time::Instant;

use tokio::sync::mpsc;

use super::rule_change::RulesChange;
use super::{Engine, Item};
use crate::crawl::fetch::{Fetcher, Validators};
use crate::crawl::robots_cache::Check;
use crate::crawl::task::{Outcome, SaveTo, fetch_one};
use crate::rules::CompiledRules;

/// How far ahead the coordinator hands a page task URLs: it holds at
/// most `depth` beyond the one it fetches, and fetches at most `chain`
/// pages in all; then its slot goes back to the coordinator's dispatch,
/// where other hosts take their turn and the queues their weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reach {
    pub(crate) depth: usize,
    pub(crate) chain: usize,
}

/// Usually: enough for the coordinator to be woken once for a few
/// outcomes, few enough that URLs do not wait long in a slot (and are put
/// back at once when they must), and a slot back at dispatch every 16
/// pages.
pub(crate) const STEADY: Reach = Reach {
    depth: 3,
    chain: 16,
};

/// While the open group of writes is large ([`RUNWAY_AT`] changes or
/// more): the coordinator writes it soon, and dispatches nothing for the
/// milliseconds that takes, so the slots get enough to go on with
/// meanwhile, and longer chains to hold it. With [`STEADY`] they ran dry a
/// fraction of a millisecond into the write; with 12 URLs in chains of 16,
/// a few milliseconds into the 10-16 ms writes of a crawl's first hundreds
/// of milliseconds, when each page brings ten new URLs
/// (docs/performance-log.md, the crawler's step 22).
pub(crate) const RUNWAY: Reach = Reach {
    depth: 48,
    chain: 64,
};

// A runway reaches further than the steady offer, in both ways.
const _: () = assert!(RUNWAY.depth > STEADY.depth && RUNWAY.chain > STEADY.chain);

/// Changes in the open group from which the tasks are offered a
/// [`RUNWAY`].
pub(crate) const RUNWAY_AT: usize = 512;

/// Outcomes that ring the coordinator's bell when nothing is urgent.
pub(crate) const RING_EVERY: usize = 4;

/// A URL for a page task, with the rules in force when it was handed over
/// (as a URL dispatched then would have had) and robots.txt's answer that
/// let it go, for its in-flight mark.
#[derive(Debug)]
pub(crate) struct Next {
    pub(crate) item: Item,
    pub(crate) rules: Arc<CompiledRules>,
    pub(crate) robots: Check,
    /// The commands changing what may be fetched that the coordinator had
    /// taken in when it handed the URL over (`engine::ControlSender`).
    pub(crate) changes: u64,
}

/// What a page task does after a page.
#[derive(Debug)]
pub(crate) enum Step {
    /// Fetch this next.
    Continue(Next),
    /// The slot is free; the URLs offered come back.
    End(Vec<Next>),
}

/// What became of a page task's slot, reported with each outcome.
#[derive(Debug)]
pub(crate) enum Handoff {
    /// The task went on with the URL of `started` (its id, queue and
    /// robots.txt answer, for its in-flight mark): its slot and its host's
    /// request in flight stay taken.
    Continues {
        started: (u64, crate::rules::Queue, Check),
    },
    /// The task ended; the URLs offered to it come back.
    Ended(Vec<Next>),
}

/// One page task's hand-over point, shared by the task and the coordinator;
/// its mutex is held only to look at or move the fields.
#[derive(Debug)]
pub(crate) struct Relay {
    state: Mutex<State>,
    /// Shared by every task of the host: whether they may go on.
    pub(crate) gate: Arc<HostGate>,
}

/// Whether a host's page tasks may go on without the coordinator, shared
/// by them and the coordinator. A task whose outcome asks the host for a
/// pause counts it in `asked`, and the host's tasks then stop going on at
/// once, not when the coordinator has taken that outcome in. They go on
/// while `open` equals `asked`: the coordinator opens the gate only once it
/// has taken in every pause asked and the host may take requests at once,
/// and closes it while the host must wait (a backoff from any outcome, a
/// delay).
#[derive(Debug, Default)]
pub(crate) struct HostGate {
    asked: AtomicU64,
    open: AtomicU64,
}

impl HostGate {
    fn ask_pause(&self) {
        self.asked.fetch_add(1, Ordering::SeqCst);
    }

    fn is_open(&self) -> bool {
        self.open.load(Ordering::SeqCst) == self.asked.load(Ordering::SeqCst)
    }

    /// The host must wait: its tasks stop going on.
    pub(crate) fn close(&self) {
        self.open.store(u64::MAX, Ordering::SeqCst);
    }

    /// Opens the gate when the coordinator has taken in `taken` pauses, as
    /// many as were asked; `false` while one asked is not taken in yet.
    pub(crate) fn open(&self, taken: u64) -> bool {
        if self.asked.load(Ordering::SeqCst) != taken {
            return false;
        }
        self.open.store(taken, Ordering::SeqCst);
        true
    }
}

#[derive(Debug)]
struct State {
    /// The URL being fetched: what a panic of the task leaves in flight.
    current: Item,
    offered: VecDeque<Next>,
    /// The task has ended: nothing more is taken.
    ended: bool,
    /// URLs handed over so far, started or not: at most a [`Reach`]'s
    /// `chain` - 1.
    handed: usize,
}

impl State {
    /// Not ended, and holding and handed fewer URLs than `reach` allows.
    fn has_room(&self, reach: Reach) -> bool {
        !self.ended && self.offered.len() < reach.depth && self.handed + 1 < reach.chain
    }
}

impl Relay {
    pub(crate) fn new(current: Item, gate: Arc<HostGate>) -> Arc<Relay> {
        Arc::new(Relay {
            state: Mutex::new(State {
                current,
                offered: VecDeque::new(),
                ended: false,
                handed: 0,
            }),
            gate,
        })
    }

    /// The state, also after a panic elsewhere while it was held (its
    /// fields are each left whole).
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the task still runs and could take another URL within
    /// `reach`.
    pub(crate) fn wants(&self, reach: Reach) -> bool {
        self.state().has_room(reach)
    }

    /// Whether the task has ended.
    pub(crate) fn ended(&self) -> bool {
        self.state().ended
    }

    /// The coordinator hands the task a next URL, after those it holds; it
    /// comes back (`Some`) when the task has ended or has reached `reach`
    /// already.
    pub(crate) fn offer(&self, next: Next, reach: Reach) -> Option<Next> {
        let mut state = self.state();
        if !state.has_room(reach) {
            return Some(next);
        }
        state.handed += 1;
        state.offered.push_back(next);
        None
    }

    /// The task, once its page's outcome is made: the first URL offered,
    /// when `go_on` (the outcome asks the host for no pause, nor did any
    /// other task's since) and there is one handed over with every command
    /// sent so far taken in (`changes`, the count of such commands sent),
    /// which becomes the current one, and whether more are left; otherwise
    /// the task ends and every URL offered comes back.
    pub(crate) fn next(&self, go_on: bool, changes: u64) -> (Step, bool) {
        if !go_on {
            self.gate.ask_pause();
        }
        let go_on = go_on && self.gate.is_open();
        let mut state = self.state();
        let current = state.offered.front().is_some_and(|n| n.changes == changes);
        if go_on
            && current
            && let Some(next) = state.offered.pop_front()
        {
            state.current = next.item.clone();
            let more = !state.offered.is_empty();
            return (Step::Continue(next), more);
        }
        state.ended = true;
        (Step::End(state.offered.drain(..).collect()), false)
    }

    /// The URLs offered and not started, taken back (the crawl pauses, or
    /// the rules change); the task goes on with its page and ends after it
    /// unless offered more.
    pub(crate) fn recall(&self) -> Vec<Next> {
        let mut state = self.state();
        let back: Vec<Next> = state.offered.drain(..).collect();
        state.handed -= back.len();
        back
    }

    /// Calls `f` with each URL offered and not started (they are still
    /// queued, for the console's queue lengths).
    pub(crate) fn each_offered(&self, mut f: impl FnMut(&Item)) {
        self.state().offered.iter().for_each(|next| f(&next.item));
    }

    /// The URL being fetched.
    pub(crate) fn current(&self) -> Option<Item> {
        Some(self.state().current.clone())
    }
}

/// Wakes the coordinator for outcomes: every [`RING_EVERY`] of them, or at
/// once for one that frees a slot or leaves a task with nothing more to go
/// on with. Outcomes it does not ring for wait at most a millisecond when
/// the coordinator saw them before it went to sleep ([`Bell::waiting`]),
/// ten when they came while it slept (`Engine::run`).
#[derive(Debug, Default)]
pub(crate) struct Bell {
    pub(crate) notify: Notify,
    /// Outcomes sent since the bell last rang.
    waiting: AtomicUsize,
}

impl Bell {
    /// Whether outcomes were sent that the bell has not rung for.
    pub(crate) fn waiting(&self) -> bool {
        self.waiting.load(Ordering::Acquire) > 0
    }

    /// The coordinator has taken every outcome sent so far (those sent
    /// while it looked may be counted again: at worst they wait for the
    /// next ring or its loop's own timer).
    pub(crate) fn taken(&self) {
        self.waiting.store(0, Ordering::Release);
    }

    /// One outcome sent.
    pub(crate) fn outcome(&self, urgent: bool) {
        let waiting = self.waiting.fetch_add(1, Ordering::AcqRel) + 1;
        if urgent || waiting >= RING_EVERY {
            self.waiting.store(0, Ordering::Release);
            // Stores a permit when the coordinator is not waiting: it then
            // looks at once when it next waits.
            self.notify.notify_one();
        }
    }
}

impl Engine {
    /// An outcome and what became of its slot: a page task that went on
    /// with its next URL keeps its slot and its host's request in flight,
    /// and that URL is now in flight; any other task ended, and the URLs
    /// offered to it go back to their queues.
    pub(super) fn take_report(
        &mut self,
        outcome: Outcome,
        handoff: Handoff,
        in_flight: &mut usize,
    ) {
        match handoff {
            // The relay stays in `relays` while its task runs.
            Handoff::Continues { started } => {
                self.hosts.relayed(outcome.host());
                self.settle(outcome);
                self.mark_in_flight(&[started], Instant::now());
            }
            Handoff::Ended(back) => {
                *in_flight -= 1;
                let host = outcome.host();
                // The task asked its host for a pause (`Relay::next`).
                if outcome.asks_host_to_pause() {
                    self.pause_taken(host);
                }
                self.handle(outcome);
                self.give_back(host, back);
            }
        }
    }

    /// URLs offered to a page task and not started: first in their
    /// host's line again, in the order they were offered (their records
    /// still say queued). One handed over under rules since replaced meets
    /// the new rules as the queued URLs did.
    pub(super) fn give_back(&mut self, host: u32, offered: Vec<Next>) {
        for next in offered.into_iter().rev() {
            let item = next.item;
            if !Arc::ptr_eq(&next.rules, &self.rules) {
                let verdict = item.verdict_now(&self.rules, &mut self.scratch);
                if !verdict.fetch {
                    self.drop_for_new_rules(item, verdict, RulesChange::DuringTheCrawl);
                    continue;
                }
            }
            self.frontier.unpop(item.level, item.queue, host, item);
        }
    }

    /// The gate the page tasks of `host` share (`relay::HostGate`).
    pub(super) fn host_gate(&mut self, host: u32) -> Arc<HostGate> {
        self.host_gates.entry(host).or_default().0.clone()
    }

    /// A page task of `host` asked for a pause (its outcome did, or it
    /// panicked) and this loop has taken that in.
    pub(super) fn pause_taken(&mut self, host: u32) {
        self.host_gates.entry(host).or_default().1 += 1;
    }

    /// Every URL offered to the running page tasks and not started, back
    /// in its queue: the crawl pauses, or new rules must see it.
    pub(super) fn recall_offered(&mut self) {
        for (host, relay) in std::mem::take(&mut self.relays) {
            let back = relay.recall();
            self.give_back(host, back);
            if !relay.ended() {
                self.relays.push((host, relay));
            }
        }
    }

    /// Offers each running page task whose host may take its next request
    /// at once the next URLs of that host, within `relay::STEADY`, or a
    /// `relay::RUNWAY` while a large group waits to be written (module
    /// `relay`). They are marked in flight when a task starts them.
    ///
    /// The URLs of a host are dealt to its tasks one at a time, in turn,
    /// so that its tasks, fetching side by side, take them about in their
    /// queue's order: handed out a runway at a time, the second task's
    /// first URL was 48 places behind the first task's, and a queue with
    /// several tasks on its host was far from first in, first out.
    pub(super) fn offer_next(&mut self, now: Instant) {
        let reach = if self.group_size() >= RUNWAY_AT {
            RUNWAY
        } else {
            STEADY
        };
        let mut kept = Vec::with_capacity(self.relays.len());
        // The tasks that may be offered more, by host, hosts in the order
        // their first task comes.
        let mut open: Vec<(u32, Vec<Arc<Relay>>)> = Vec::new();
        for (host, relay) in std::mem::take(&mut self.relays) {
            if relay.ended() {
                continue;
            }
            let (gate, taken) = self.host_gates.entry(host).or_default().clone();
            if !self.hosts.relays(host, now) {
                // The host must wait (a backoff, a delay): its tasks stop
                // going on, and what they were handed goes back.
                gate.close();
                let back = relay.recall();
                self.give_back(host, back);
                kept.push((host, relay));
                continue;
            }
            // Unless a pause asked by one of its tasks is not taken in yet.
            if gate.open(taken) {
                match open.iter_mut().find(|(h, _)| *h == host) {
                    Some((_, tasks)) => tasks.push(relay.clone()),
                    None => open.push((host, vec![relay.clone()])),
                }
            }
            kept.push((host, relay));
        }
        for (host, mut tasks) in open {
            'deal: while !tasks.is_empty() {
                // One round: a URL to each task that wants one.
                tasks.retain(|relay| relay.wants(reach));
                for relay in &tasks {
                    let Some((item, robots)) = self.next_job_for(host, now) else {
                        break 'deal;
                    };
                    let next = Next {
                        item,
                        rules: self.rules.clone(),
                        robots,
                        changes: self.changes_taken,
                    };
                    if let Some(next) = relay.offer(next, reach) {
                        // The task ended meanwhile (it wants no more).
                        self.give_back(host, vec![next]);
                    }
                }
            }
        }
        self.relays = kept;
    }
}

/// A page task: fetches its URL, reports the outcome, and goes on with the
/// next URL its relay was offered meanwhile when the outcome lets the host
/// go on (module `relay`); ends otherwise, or when it has none. `with` is
/// what every fetch of the slot shares (the client, the host, the mirror
/// folder, the user agent); `report` where outcomes go, and the bell that
/// wakes the coordinator for them.
pub(super) async fn fetch_pages(
    (first, validators): (Next, Option<Validators>),
    (relay, changes): (Arc<Relay>, Arc<AtomicU64>),
    with: (Fetcher, u32, SaveTo, String),
    (done, bell): (mpsc::Sender<(Outcome, Handoff)>, Arc<Bell>),
) {
    let (fetcher, host, save_to, agent) = with;
    let (mut next, mut validators) = (first, validators);
    loop {
        let outcome = fetch_one(
            fetcher.clone(),
            next.rules,
            next.item,
            host,
            save_to.clone(),
            agent.clone(),
            validators.take(),
        )
        .await;
        // A URL handed over before new rules, a pause or a stop was sent
        // is not started: it goes back, to meet the command as queued.
        let (step, more) = relay.next(
            !outcome.asks_host_to_pause(),
            changes.load(Ordering::SeqCst),
        );
        let (handoff, then) = match step {
            Step::Continue(then) => {
                let started = (then.item.id, then.item.queue, then.robots.clone());
                let handoff = Handoff::Continues { started };
                (handoff, Some(then))
            }
            Step::End(back) => (Handoff::Ended(back), None),
        };
        // A slot that ends, or has nothing more to go on with, needs the
        // coordinator now; other outcomes can wait for a few more.
        let urgent = then.is_none() || !more;
        if done.send((outcome, handoff)).await.is_err() {
            return; // the crawl is over
        }
        bell.outcome(urgent);
        match then {
            Some(then) => next = then,
            None => return,
        }
    }
}

#[cfg(test)]
mod tests;
