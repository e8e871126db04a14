//! Paging by state in both directions, and the text filter.

use super::*;

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
                let want: Vec<u64> = listed
                    .iter()
                    .copied()
                    .filter(|id| bound.is_none_or(|a| *id > a))
                    .take(limit)
                    .collect();
                assert_eq!(
                    ids(&forward),
                    want,
                    "{state:?} after {bound:?} limit {limit}"
                );
                assert!(forward.iter().all(|(_, r)| query.matches(r)));

                let back = log.page_back(&query, bound, limit).unwrap();
                let want: Vec<u64> = listed
                    .iter()
                    .rev()
                    .copied()
                    .filter(|id| bound.is_none_or(|b| *id < b))
                    .take(limit)
                    .collect();
                assert_eq!(ids(&back), want, "{state:?} before {bound:?} limit {limit}");
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
