//! Paging by state in both directions, and the text filter.

use super::*;

/// The pages of `listed` (ids in ascending order) that `page` and
/// `page_back` should give from `bound` with `limit`: the first `limit`
/// ids above it, and the last `limit` below it, nearest first.
fn expected_pages(listed: &[u64], bound: Option<u64>, limit: usize) -> (Vec<u64>, Vec<u64>) {
    let after = listed
        .iter()
        .copied()
        .filter(|id| bound.is_none_or(|b| *id > b))
        .take(limit)
        .collect();
    let before = listed
        .iter()
        .rev()
        .copied()
        .filter(|id| bound.is_none_or(|b| *id < b))
        .take(limit)
        .collect();
    (after, before)
}

#[test]
fn paging_by_state_respects_after_before_and_limit() {
    let (_dir, log, model) = mixed_log();
    let states = State::ALL.into_iter().map(Some).chain([None]);
    for state in states {
        let query = Query {
            state,
            ..Query::default()
        };
        let listed: Vec<u64> = model
            .iter()
            .filter(|(_, s)| state.is_none_or(|w| w == *s))
            .map(|(id, _)| *id)
            .collect();
        for bound in [
            None,
            Some(0),
            Some(1),
            Some(17),
            Some(30),
            Some(59),
            Some(60),
            Some(u64::MAX),
        ] {
            for limit in [0, 1, 3, 100] {
                let forward = log.page(&query, bound, limit).unwrap();
                let (after, before) = expected_pages(&listed, bound, limit);
                assert_eq!(
                    ids(&forward),
                    after,
                    "{state:?} after {bound:?} limit {limit}"
                );
                assert!(forward.iter().all(|(_, r)| query.matches(r)));

                let back = log.page_back(&query, bound, limit).unwrap();
                assert_eq!(
                    ids(&back),
                    before,
                    "{state:?} before {bound:?} limit {limit}"
                );
                assert!(back.iter().all(|(_, r)| query.matches(r)));
            }
        }
    }
}

#[test]
fn paging_walks_a_whole_state_page_by_page() {
    let (_dir, log, model) = mixed_log();
    let query = Query {
        state: Some(State::Queued),
        text: None,
        ..Query::default()
    };
    let want: Vec<u64> = model
        .iter()
        .filter(|(_, s)| *s == State::Queued)
        .map(|(id, _)| *id)
        .collect();
    let (mut seen, mut after) = (Vec::new(), None);
    loop {
        let page = log.page(&query, after, 2).unwrap();
        let Some((last, _)) = page.last() else { break };
        after = Some(*last);
        seen.extend(ids(&page));
    }
    assert_eq!(seen, want);
    let (mut seen, mut before) = (Vec::new(), None);
    loop {
        let page = log.page_back(&query, before, 2).unwrap();
        let Some((last, _)) = page.last() else { break };
        before = Some(*last);
        seen.extend(ids(&page));
    }
    seen.reverse();
    assert_eq!(seen, want);
}

#[test]
fn text_filter_searches_url_and_reason() {
    let (_dir, log) = fresh();
    let rows = [
        ("http://x/docs/a", State::Fetched, "fetched: HTTP 200"),
        (
            "http://x/img/b.png",
            State::Filtered,
            "rule 2 \"no images\" excludes it",
        ),
        (
            "http://x/docs/c",
            State::Filtered,
            "robots.txt disallows /docs/c",
        ),
        ("http://x/d", State::Error, "HTTP 404"),
        ("http://x/docs/e", State::Queued, "link from 1"),
    ];
    for (url, state, reason) in rows {
        let mut r = rec(url, state);
        r.reason = reason.into();
        log.discover(&r).unwrap();
    }
    let cases: [(Option<State>, &str, &[u64]); 7] = [
        (None, "docs", &[1, 3, 5]),
        (None, "robots", &[3]),
        (None, "(?i)NO IMAGES", &[2]),
        (Some(State::Filtered), "docs", &[3]),
        (Some(State::Filtered), "x/", &[2, 3]),
        (Some(State::Fetched), "404", &[]),
        (None, "404$", &[4]),
    ];
    for (state, re, want) in cases {
        let query = Query {
            state,
            text: Some(Regex::new(re).unwrap()),
            ..Query::default()
        };
        assert_eq!(
            ids(&log.page(&query, None, 10).unwrap()),
            want,
            "{state:?} {re}"
        );
        let mut back = ids(&log.page_back(&query, None, 10).unwrap());
        back.reverse();
        assert_eq!(back, want, "back {state:?} {re}");
        // The filter applies before the limit: one match per page.
        if let Some(first) = want.first() {
            assert_eq!(ids(&log.page(&query, None, 1).unwrap()), [*first]);
        }
    }
}

/// Ids on and around block boundaries (4096 ids a block), with a block
/// of the state empty between two that are not: paging forward and back
/// and the frontier, with bounds exactly on those ids and around them,
/// by pages of 1 and more, match the model.
#[test]
fn pages_and_queues_across_block_boundaries() {
    let (_dir, log) = fresh();
    let chosen = [4095, 4096, 4097, 8191, 8192, 16384, 16385];
    let records: Vec<UrlRecord> = (1..=16_385u64)
        .map(|id| {
            let state = if chosen.contains(&id) {
                State::Queued
            } else {
                State::Fetched
            };
            rec(&format!("http://k/{id}"), state)
        })
        .collect();
    for (n, chunk) in records.chunks(2000).enumerate() {
        let changes: Vec<Change<'_>> = chunk
            .iter()
            .enumerate()
            .map(|(i, record)| {
                let id = (n * 2000 + i + 1) as u64;
                Change::Discover {
                    record,
                    enqueue: chosen.contains(&id).then_some((1, 3)),
                }
            })
            .collect();
        log.apply(&changes).unwrap();
    }
    let queued = Query {
        state: Some(State::Queued),
        ..Query::default()
    };
    let bounds = [
        0,
        1,
        4094,
        4095,
        4096,
        4097,
        4098,
        8190,
        8191,
        8192,
        8193,
        12287,
        12288,
        16383,
        16384,
        16385,
        16386,
        u64::MAX,
    ];
    for bound in bounds.into_iter().map(Some).chain([None]) {
        for limit in [1, 2, 100] {
            let (after, before) = expected_pages(&chosen, bound, limit);
            let what = format!("bound {bound:?} limit {limit}");
            assert_eq!(
                ids(&log.page(&queued, bound, limit).unwrap()),
                after,
                "{what}"
            );
            assert_eq!(
                ids(&log.page_back(&queued, bound, limit).unwrap()),
                before,
                "{what} back"
            );
            assert_eq!(
                log.frontier(1, 3, bound, limit).unwrap(),
                after,
                "{what} queue"
            );
        }
    }
    // Walked a page of one at a time, both ways.
    let (mut forward, mut back) = (Vec::new(), Vec::new());
    while let [(id, _)] = log.page(&queued, forward.last().copied(), 1).unwrap()[..] {
        forward.push(id);
    }
    while let [(id, _)] = log.page_back(&queued, back.last().copied(), 1).unwrap()[..] {
        back.push(id);
    }
    assert_eq!(forward, chosen);
    assert!(back.iter().rev().eq(chosen.iter()));
    check_consistent(&log);
}
