//! One log of 200,000 URLs, checked for correctness (no timings).

use super::*;

#[test]
fn two_hundred_thousand_urls_page_by_state() {
    const N: u64 = 200_000;
    let (_dir, log) = fresh();
    // Discovered the way the crawler does, a page's links per batch, and
    // each link offered twice (the second time it is known).
    const LINKS: u64 = 250;
    for first in (0..N).step_by(LINKS as usize) {
        let records: Vec<UrlRecord> = (first..first + LINKS)
            .map(|i| UrlRecord {
                discovered_ms: i,
                ..rec(
                    &format!("http://host{}.example/p/{i}", i % 97),
                    State::Queued,
                )
            })
            .collect();
        let changes: Vec<Change<'_>> = records
            .iter()
            .chain(&records)
            .map(|record| Change::Discover {
                record,
                enqueue: None,
            })
            .collect();
        let ids = log.apply(&changes).unwrap();
        let want: Vec<Option<u64>> = (first + 1..=first + LINKS)
            .map(Some)
            .chain((0..LINKS).map(|_| None))
            .collect();
        assert_eq!(ids, want);
    }
    // Every even id becomes fetched, a batch of pages at a time.
    let evens: Vec<u64> = (2..=N).step_by(2).collect();
    for chunk in evens.chunks(LINKS as usize) {
        let records: Vec<(u64, UrlRecord)> = chunk
            .iter()
            .map(|&id| {
                let mut r = log.get(id).unwrap().unwrap();
                r.state = State::Fetched;
                r.status = Some(200);
                (id, r)
            })
            .collect();
        let changes: Vec<Change<'_>> = Change::updates(&records).collect();
        log.apply(&changes).unwrap();
    }
    assert_eq!(log.len(), N);
    assert_eq!(log.counts().fetched, N / 2);
    assert_eq!(log.counts().queued, N / 2);
    for (state, parity) in [(State::Fetched, 0), (State::Queued, 1)] {
        let query = Query {
            state: Some(state),
            text: None,
            ..Query::default()
        };
        let (mut after, mut seen, mut expect) = (None, 0u64, 2 - parity);
        loop {
            let page = log.page(&query, after, 1_000).unwrap();
            let Some((last, _)) = page.last() else { break };
            for (id, r) in &page {
                assert_eq!((*id, r.state), (expect, state));
                assert_eq!(r.discovered_ms, id - 1);
                expect += 2;
            }
            seen += page.len() as u64;
            after = Some(*last);
        }
        assert_eq!(seen, N / 2, "{state}");
        let tail = log.page_back(&query, None, 3).unwrap();
        assert_eq!(ids(&tail), [N - parity, N - parity - 2, N - parity - 4]);
        let middle = log.page(&query, Some(N / 2 + 1), 2).unwrap();
        assert_eq!(ids(&middle), [N / 2 + 2 + parity, N / 2 + 4 + parity]);
    }
    let none = Query {
        state: Some(State::Error),
        text: None,
        ..Query::default()
    };
    assert!(log.page(&none, None, 10).unwrap().is_empty());
}
