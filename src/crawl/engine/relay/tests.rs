use super::*;
use crate::crawl::engine::ItemKind;
use crate::rules::Queue;

fn item(id: u64) -> Item {
    Item {
        id,
        url: url::Url::parse(&format!("http://example.com/{id}")).expect("url"),
        link_depth: 1,
        hops: 0,
        level: 2,
        queue: Queue::IndexFollow,
        attempts: 0,
        kind: ItemKind::Page,
    }
}

fn next(id: u64) -> Next {
    Next {
        item: item(id),
        rules: Arc::new(CompiledRules::new(&crate::rules::model::RuleSet::default())),
        robots: Check {
            allowed: true,
            line: None,
            text: "robots.txt: test".into(),
            unreachable: false,
        },
        changes: 0,
    }
}

fn ids(nexts: &[Next]) -> Vec<u64> {
    nexts.iter().map(|n| n.item.id).collect()
}

#[test]
fn urls_offered_are_fetched_in_order_up_to_the_depth() {
    let relay = Relay::new(item(1), Arc::default());
    for id in 2..2 + STEADY.depth as u64 {
        assert!(relay.wants(STEADY));
        assert!(relay.offer(next(id), STEADY).is_none());
    }
    assert!(!relay.wants(STEADY), "full at {}", STEADY.depth);
    assert!(relay.offer(next(99), STEADY).is_some());
    let (step, more) = relay.next(true, 0);
    match step {
        Step::Continue(n) => assert_eq!(n.item.id, 2),
        other => panic!("expected to go on, got {other:?}"),
    }
    assert_eq!(more, STEADY.depth > 1);
    assert_eq!(relay.current().map(|i| i.id), Some(2));
    assert!(relay.wants(STEADY), "room again for one more");
}

/// Before a large write, the runway: a task full at [`STEADY`] takes
/// more, up to [`RUNWAY`]'s depth, and goes on with them in order.
#[test]
fn a_task_takes_a_runway_before_a_large_write() {
    let relay = Relay::new(item(1), Arc::default());
    let last = 1 + RUNWAY.depth as u64;
    for id in 2..=last {
        assert_eq!(relay.wants(STEADY), id < 2 + STEADY.depth as u64);
        assert!(relay.offer(next(id), RUNWAY).is_none());
    }
    assert!(!relay.wants(RUNWAY), "full at {}", RUNWAY.depth);
    assert!(relay.offer(next(99), RUNWAY).is_some());
    for id in 2..=last {
        match relay.next(true, 0).0 {
            Step::Continue(n) => assert_eq!(n.item.id, id),
            other => panic!("expected to go on with {id}, got {other:?}"),
        }
    }
}

#[test]
fn a_task_that_may_not_go_on_ends_and_gives_its_urls_back() {
    let relay = Relay::new(item(1), Arc::default());
    assert!(relay.offer(next(2), STEADY).is_none());
    assert!(relay.offer(next(3), STEADY).is_none());
    match relay.next(false, 0) {
        (Step::End(back), false) => assert_eq!(ids(&back), [2, 3]),
        other => panic!("expected the URLs back, got {other:?}"),
    }
    assert!(relay.ended() && !relay.wants(STEADY));
    let refused = relay.offer(next(4), STEADY).map(|n| n.item.id);
    assert_eq!(refused, Some(4), "an ended task takes nothing");
}

#[test]
fn a_task_with_nothing_offered_ends() {
    let relay = Relay::new(item(1), Arc::default());
    assert!(matches!(relay.next(true, 0), (Step::End(back), false) if back.is_empty()));
    assert!(relay.offer(next(2), STEADY).is_some());
    assert_eq!(relay.current().map(|i| i.id), Some(1));
}

#[test]
fn a_url_handed_over_before_a_command_was_sent_is_not_started() {
    let relay = Relay::new(item(1), Arc::default());
    assert!(relay.offer(next(2), STEADY).is_none());
    match relay.next(true, 1) {
        (Step::End(back), false) => assert_eq!(ids(&back), [2]),
        other => panic!("expected the URL back, got {other:?}"),
    }
}

#[test]
fn a_pause_asked_of_one_task_stops_the_hosts_other_tasks() {
    let gate = Arc::new(HostGate::default());
    let (one, other) = (
        Relay::new(item(1), gate.clone()),
        Relay::new(item(2), gate.clone()),
    );
    assert!(one.offer(next(3), STEADY).is_none());
    assert!(other.offer(next(4), STEADY).is_none());
    // One task's page was answered 503: it ends, and so does the other
    // after its page, however well that went.
    assert!(matches!(one.next(false, 0), (Step::End(back), _) if ids(&back) == [3]));
    assert!(matches!(other.next(true, 0), (Step::End(back), _) if ids(&back) == [4]));
    // The coordinator opens the gate only once it has taken the pause
    // in; then tasks go on again. Closed (the host must wait), none do.
    assert!(!gate.open(0), "one pause asked, none taken in");
    assert!(gate.open(1));
    let third = Relay::new(item(5), gate.clone());
    assert!(third.offer(next(6), STEADY).is_none());
    assert!(matches!(third.next(true, 0), (Step::Continue(n), _) if n.item.id == 6));
    gate.close();
    assert!(third.offer(next(7), STEADY).is_none());
    assert!(matches!(third.next(true, 0), (Step::End(back), _) if ids(&back) == [7]));
}

/// A task fetches a chain of pages at most, a longer one while it is
/// offered runways; a task past the steady chain takes no more once
/// the runways end.
#[test]
fn a_task_fetches_at_most_a_chain_of_pages() {
    for reach in [STEADY, RUNWAY] {
        let relay = Relay::new(item(0), Arc::default());
        let mut fetched = 1;
        for id in 1..200 {
            if relay.offer(next(id), reach).is_some() {
                break;
            }
            match relay.next(true, 0) {
                (Step::Continue(_), _) => fetched += 1,
                other => panic!("expected to go on, got {other:?}"),
            }
        }
        assert_eq!(fetched, reach.chain);
        assert!(!relay.wants(reach) && !relay.wants(STEADY));
        assert!(matches!(relay.next(true, 0), (Step::End(back), _) if back.is_empty()));
    }
}

#[test]
fn recalled_urls_come_back_and_the_task_stays_open() {
    let relay = Relay::new(item(1), Arc::default());
    assert!(relay.offer(next(2), STEADY).is_none());
    assert!(relay.offer(next(3), STEADY).is_none());
    assert_eq!(ids(&relay.recall()), [2, 3]);
    assert!(relay.wants(STEADY) && !relay.ended());
    assert!(matches!(relay.next(true, 0), (Step::End(back), false) if back.is_empty()));
}

#[test]
fn the_bell_rings_every_few_outcomes_or_at_once_when_urgent() {
    use futures_util::FutureExt;
    let bell = Bell::default();
    for _ in 0..RING_EVERY - 1 {
        bell.outcome(false);
    }
    let rung = || bell.notify.notified().now_or_never().is_some();
    assert!(!rung(), "not before {RING_EVERY} outcomes");
    bell.outcome(false);
    assert!(rung(), "at the {RING_EVERY}th");
    assert!(!rung(), "once");
    bell.outcome(true);
    assert!(rung(), "urgent: at once");
}
