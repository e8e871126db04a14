use super::*;
use std::sync::Arc;

/// A real engine (config, rules, sled log in a temp folder) for
/// `http://site.test/`, never started: the tests call `met` directly.
fn engine(dir: &std::path::Path) -> (Engine, Arc<crate::store::UrlLog>) {
    engine_with(dir, "")
}

/// [`engine`] with more `[crawl]` settings.
fn engine_with(dir: &std::path::Path, settings: &str) -> (Engine, Arc<crate::store::UrlLog>) {
    let text = format!("[crawl]\nstart = [\"http://site.test/\"]\n{settings}");
    let config = crate::config::Config::from_toml("t.toml", &text).expect("config");
    let rules = crate::rules::CompiledRules::new(&Default::default());
    let start = super::super::check_start(&rules, &config.crawl.start).expect("start");
    let log = Arc::new(crate::store::UrlLog::open(&dir.join("db"), 16 << 20).expect("log"));
    let plan = super::super::Plan {
        weights: config.queues.in_order(),
        settings: config.crawl,
        start,
        out: dir.join("mirror"),
    };
    let engine = Engine::new(plan, log.clone(), Arc::new(rules)).expect("engine");
    (engine, log)
}

fn state_of(log: &crate::store::UrlLog, url: &str) -> Option<State> {
    let id = log.id_of(url).expect("log")?;
    Some(log.get(id).expect("log").expect("record").state)
}

/// Two pages of one burst link to the same URL before anything is
/// written: a plain link wins over a rel=nofollow one, in either order,
/// as it does once the nofollowed URL is in the log.
#[test]
fn a_plain_link_beats_a_nofollow_link_met_in_the_same_burst() {
    let dir = tempfile::tempdir().expect("temp");
    let (mut engine, log) = engine(dir.path());
    let url = |p: &str| Url::parse(&format!("http://site.test/{p}")).expect("url");
    let nofollow = || Origin::Nofollow("http://site.test/a".into());
    engine.met(url("x"), None, 1, nofollow());
    engine.met(url("x"), None, 1, Origin::Link);
    engine.met(url("y"), None, 1, Origin::Link);
    engine.met(url("y"), None, 1, nofollow());
    engine.met(url("z"), None, 1, nofollow());
    engine.met(url("z"), None, 1, nofollow());
    engine.write(&[]);
    assert_eq!(state_of(&log, "http://site.test/x"), Some(State::Queued));
    assert_eq!(state_of(&log, "http://site.test/y"), Some(State::Queued));
    assert_eq!(state_of(&log, "http://site.test/z"), Some(State::Filtered));
    assert_eq!(engine.nofollowed.len(), 1, "only z is logged as nofollowed");
    assert!(engine.pending.is_empty() && engine.pending_at.is_empty());
}

/// An in-flight mark held back is what the engine reads for its URL,
/// and the next write, whatever it is, commits it first: the ids of
/// the URLs discovered with it are theirs, not the mark's.
#[test]
fn held_in_flight_marks_lead_the_next_write() {
    let dir = tempfile::tempdir().expect("temp");
    let (mut engine, log) = engine(dir.path());
    let url = |p: &str| Url::parse(&format!("http://site.test/{p}")).expect("url");
    engine.met(url("a"), None, 1, Origin::Link);
    engine.write(&[]);
    let a = log.id_of("http://site.test/a").expect("log").expect("a");
    let mut marked = log.get(a).expect("log").expect("record");
    marked.state = State::InFlight;
    engine.marks.push((a, marked));
    assert_eq!(state_of(&log, "http://site.test/a"), Some(State::Queued));
    let current = engine.current_record(a).expect("log").expect("record");
    assert_eq!(current.state, State::InFlight);

    engine.met(url("b"), None, 1, Origin::Link);
    engine.write(&[]);
    assert!(engine.marks.is_empty());
    assert_eq!(state_of(&log, "http://site.test/a"), Some(State::InFlight));
    let b = log.id_of("http://site.test/b").expect("log").expect("b");
    let mut queued = Vec::new();
    engine.frontier.retain(|item| {
        queued.push((item.url.to_string(), item.id));
        true
    });
    assert!(
        queued.contains(&("http://site.test/b".to_string(), b)),
        "{queued:?}"
    );
    // Nothing else to write: the marks alone.
    let mut marked = log.get(b).expect("log").expect("record");
    marked.state = State::InFlight;
    engine.marks.push((b, marked));
    engine.commit(&[]);
    assert_eq!(state_of(&log, "http://site.test/b"), Some(State::InFlight));
}

/// With every slot taken, or the crawl paused, a host ready to fetch
/// is no reason to wake the loop: it would find nothing to dispatch and
/// spin until a fetch finished. It waits for an outcome, a timer or the
/// next tick instead.
#[test]
fn a_ready_host_wakes_the_loop_only_when_a_url_can_go() {
    let dir = tempfile::tempdir().expect("temp");
    let (mut engine, _log) = engine(dir.path());
    let url = Url::parse("http://site.test/a").expect("url");
    engine.met(url, None, 1, Origin::Link);
    engine.write(&[]);
    let now = Instant::now();
    assert_eq!(engine.next_wake(now, true), Some(now), "a slot is free");
    assert_eq!(engine.next_wake(now, false), None, "no slot, or paused");
}

/// Reviving a URL logged as nofollowed is a write like any other: the
/// in-flight marks held back lead it.
#[test]
fn a_revived_url_is_written_after_the_held_marks() {
    let dir = tempfile::tempdir().expect("temp");
    let (mut engine, log) = engine(dir.path());
    let url = |p: &str| Url::parse(&format!("http://site.test/{p}")).expect("url");
    engine.met(url("a"), None, 1, Origin::Link);
    engine.met(
        url("z"),
        None,
        1,
        Origin::Nofollow("http://site.test/".into()),
    );
    engine.write(&[]);
    assert_eq!(state_of(&log, "http://site.test/z"), Some(State::Filtered));
    let a = log.id_of("http://site.test/a").expect("log").expect("a");
    let mut marked = log.get(a).expect("log").expect("record");
    marked.state = State::InFlight;
    engine.marks.push((a, marked));
    engine.met(url("z"), None, 1, Origin::Link);
    assert_eq!(state_of(&log, "http://site.test/z"), Some(State::Queued));
    assert_eq!(state_of(&log, "http://site.test/a"), Some(State::InFlight));
    assert!(engine.marks.is_empty());
}

/// A revived URL whose write fails is not queued: the log still has it
/// as not followed, and so does the engine, so the next followed link
/// to it revives it again.
#[test]
fn a_revived_url_is_queued_only_once_written() {
    let dir = tempfile::tempdir().expect("temp");
    let (mut engine, log) = engine(dir.path());
    let z = Url::parse("http://site.test/z").expect("url");
    engine.met(
        z.clone(),
        None,
        1,
        Origin::Nofollow("http://site.test/".into()),
    );
    engine.write(&[]);
    let id = log.id_of(z.as_str()).expect("log").expect("z");
    let filtered = engine.stats.filtered;
    // In a group, its own change refused by the log (no frontier
    // queue 9), even when written alone.
    engine.deferred = Some(Deferred::opened(Instant::now()));
    engine.met(z.clone(), None, 1, Origin::Link);
    assert_eq!(engine.revived.len(), 1, "held with the group");
    engine.revived[0].1.enqueue = Some((9, 0));
    engine.commit_deferred();
    assert_eq!(state_of(&log, z.as_str()), Some(State::Filtered));
    assert!(engine.revived.is_empty());
    assert!(engine.nofollowed.contains(&id), "still revivable");
    assert_eq!(engine.stats.filtered, filtered, "not counted as queued");
    assert_eq!(engine.frontier.len(), 0, "not queued");
    engine.met(z.clone(), None, 1, Origin::Link);
    assert_eq!(state_of(&log, z.as_str()), Some(State::Queued));
    assert!(!engine.nofollowed.contains(&id));
    assert_eq!(engine.stats.filtered, filtered - 1);
    assert_eq!(engine.frontier.len(), 1, "queued once written");
}

/// A batch the log refuses is written again change by change: the
/// in-flight mark and the discovery with it are written, the bad change
/// alone is dropped (before, one bad change lost the whole batch).
#[test]
fn a_refused_batch_loses_only_its_bad_change() {
    let dir = tempfile::tempdir().expect("temp");
    let (mut engine, log) = engine(dir.path());
    let url = |p: &str| Url::parse(&format!("http://site.test/{p}")).expect("url");
    engine.met(url("a"), None, 1, Origin::Link);
    engine.write(&[]);
    let a = log.id_of("http://site.test/a").expect("log").expect("a");
    let mut marked = log.get(a).expect("log").expect("record");
    marked.state = State::InFlight;
    engine.marks.push((a, marked));
    engine.marks_since = Some(Instant::now());
    engine.met(url("b"), None, 1, Origin::Link);
    // No frontier queue 9: refused before the transaction.
    let bad = Change::Enqueue {
        id: a,
        level: 9,
        queue: 0,
    };
    let discovered = engine.stats.discovered;
    engine.write(&[bad]);
    assert_eq!(state_of(&log, "http://site.test/a"), Some(State::InFlight));
    assert_eq!(state_of(&log, "http://site.test/b"), Some(State::Queued));
    assert_eq!(engine.stats.discovered, discovered + 1);
    assert!(engine.marks.is_empty() && engine.marks_since.is_none());
    let mut queued = Vec::new();
    engine.frontier.retain(|item| {
        queued.push(item.url.to_string());
        true
    });
    assert!(
        queued.contains(&"http://site.test/b".to_string()),
        "{queued:?}"
    );
}

/// A group is due `commit_ms` after it opened (at once with 0), the
/// marks held outside a group a tick after the first: whichever first.
#[test]
fn an_open_group_is_due_commit_ms_after_it_opened() {
    let dir = tempfile::tempdir().expect("temp");
    let (mut engine, _log) = engine(dir.path());
    let tick = std::time::Duration::from_secs(1);
    assert_eq!(engine.write_due(tick), None, "nothing held");
    let opened = Instant::now();
    engine.deferred = Some(Deferred::opened(opened));
    let ms = std::time::Duration::from_millis;
    assert_eq!(engine.plan.settings.commit_ms, 100, "the default");
    assert_eq!(engine.write_due(tick), Some(opened + ms(100)));
    engine.plan.settings.commit_ms = 0;
    assert_eq!(engine.write_due(tick), Some(opened));
    engine.plan.settings.commit_ms = 5_000;
    engine.marks_since = Some(opened);
    assert_eq!(engine.write_due(tick), Some(opened + tick));
}

/// An open group is written early only when its discoveries could be
/// fetched now: nothing else is queued, or a slot is free; with URLs
/// queued and every slot busy it stays open until due.
#[test]
fn a_group_is_written_early_only_when_its_discoveries_could_go_now() {
    let dir = tempfile::tempdir().expect("temp");
    let (mut engine, log) = engine(dir.path());
    let url = |p: &str| Url::parse(&format!("http://site.test/{p}")).expect("url");
    assert!(!engine.group_stalls(true, Instant::now()), "no group open");
    engine.deferred = Some(Deferred::opened(Instant::now()));
    assert!(
        engine.group_stalls(false, Instant::now()),
        "nothing queued at all"
    );
    engine.met(url("a"), None, 1, Origin::Link);
    assert_eq!(state_of(&log, "http://site.test/a"), None, "held");
    assert!(
        engine.group_stalls(false, Instant::now()),
        "a is all there is, and not queued yet"
    );
    engine.commit_deferred();
    assert_eq!(state_of(&log, "http://site.test/a"), Some(State::Queued));
    assert_eq!(engine.frontier.len(), 1);
    engine.deferred = Some(Deferred::opened(Instant::now()));
    assert!(
        !engine.group_stalls(true, Instant::now()),
        "a free slot, but no discovery"
    );
    engine.met(url("deep"), None, 1000, Origin::Link);
    assert_eq!(engine.pending.len(), 1, "logged as beyond max_link_depth");
    assert!(
        !engine.group_stalls(true, Instant::now()),
        "a link only logged, not queued, is no reason to write early"
    );
    engine.met(url("b"), None, 1, Origin::Link);
    assert!(
        !engine.group_stalls(false, Instant::now()),
        "a is queued, no slot: the group can wait"
    );
    assert!(
        engine.group_stalls(true, Instant::now()),
        "a slot is free that b might take"
    );
    let host = engine.hosts.find(&url("b")).expect("b's host is known");
    for _ in 0..engine.plan.settings.per_host {
        engine.hosts.started(host, Instant::now());
    }
    assert!(
        !engine.group_stalls(true, Instant::now()),
        "b's host is at per_host: the free slot cannot take b"
    );
}

/// A URL dispatched while a group is open is marked from the group's
/// latest record of it (a retry's error count, say), and the mark goes
/// into the group after that change: written, the URL is in flight with
/// its error count.
#[test]
fn a_mark_made_in_an_open_group_follows_its_changes() {
    let dir = tempfile::tempdir().expect("temp");
    let (mut engine, log) = engine(dir.path());
    engine.met(
        Url::parse("http://site.test/a").expect("url"),
        None,
        1,
        Origin::Link,
    );
    engine.write(&[]);
    let a = log.id_of("http://site.test/a").expect("log").expect("a");
    engine.deferred = Some(Deferred::opened(Instant::now()));
    engine.update_and(a, None, |r| {
        r.error = Some(crate::store::ErrorInfo {
            class: crate::store::ErrorClass::Temporary,
            count: 1,
            message: "timed out".into(),
        });
    });
    let allowed = crate::crawl::robots_cache::Check {
        allowed: true,
        line: None,
        text: "robots.txt not fetched".into(),
        unreachable: false,
    };
    engine.mark_in_flight(&[(a, Queue::Follow, allowed)], Instant::now());
    assert!(engine.marks.is_empty(), "into the group, not beside it");
    let held = engine.current_record(a).expect("log").expect("record");
    assert_eq!(held.state, State::InFlight);
    assert_eq!(held.error.as_ref().map(|e| e.count), Some(1));
    assert_eq!(state_of(&log, "http://site.test/a"), Some(State::Queued));
    engine.commit_deferred();
    let written = log.get(a).expect("log").expect("record");
    assert_eq!(written.state, State::InFlight);
    assert_eq!(written.error.map(|e| e.count), Some(1));
}

/// New rules see the open group's discoveries: the group is written
/// and queued first, then the queued URLs the rules filter are dropped.
#[test]
fn new_rules_write_the_open_group_first_and_filter_its_urls() {
    let dir = tempfile::tempdir().expect("temp");
    let (mut engine, log) = engine(dir.path());
    let url = |p: &str| Url::parse(&format!("http://site.test/{p}")).expect("url");
    engine.deferred = Some(Deferred::opened(Instant::now()));
    engine.met(url("keep"), None, 1, Origin::Link);
    engine.met(url("drop"), None, 1, Origin::Link);
    let text = "[[rules]]\nname = \"no drop\"\nmatch = { field = \"path\", prefix = \"/drop\" }\naction = \"exclude\"\n";
    let rules = crate::rules::dialect::parse_text(
        "new.toml",
        text,
        crate::rules::dialect::DialectChoice::Given(crate::rules::dialect::Dialect::Native),
    )
    .expect("rules");
    let set = &rules.parsed.rules;
    let compiled = Arc::new(crate::rules::CompiledRules::new(set));
    let new = super::super::NewRules::new(set, compiled);
    assert!(!engine.command(super::super::Control::Rules(new)));
    assert!(engine.deferred.is_none(), "the group was written");
    assert_eq!(state_of(&log, "http://site.test/keep"), Some(State::Queued));
    assert_eq!(
        state_of(&log, "http://site.test/drop"),
        Some(State::Filtered)
    );
    assert_eq!(engine.frontier.len(), 1, "only keep is queued");
}

/// A page's outcome after its in-flight mark in one group is one
/// change: the update replaces the earlier one (keeping its enqueue).
/// Anything else about the record in between, or an update that
/// enqueues, keeps them apart, so the log ends the same either way.
#[test]
fn an_update_right_after_an_update_of_its_record_replaces_it() {
    let (mark, done, other) = (
        record("http://a/", "mark"),
        record("http://a/", "done"),
        record("http://b/", "other"),
    );
    let update = |id, record, enqueue| {
        Held::from(&Change::Update {
            id,
            record,
            enqueue,
        })
    };
    let shown = |group: &Deferred| -> Vec<String> {
        group
            .changes
            .iter()
            .map(|h| format!("{:?}", h.change()))
            .collect()
    };
    let mut group = Deferred::opened(Instant::now());
    group.hold(update(1, &mark, Some((2, 3))));
    group.hold(update(2, &other, None));
    group.hold(update(1, &done, None));
    let want = [
        Change::Update {
            id: 1,
            record: &done,
            enqueue: Some((2, 3)),
        },
        Change::Update {
            id: 2,
            record: &other,
            enqueue: None,
        },
    ];
    assert_eq!(
        shown(&group),
        want.iter().map(|c| format!("{c:?}")).collect::<Vec<_>>()
    );
    group.hold(Held::from(&Change::Dequeue {
        id: 1,
        level: 2,
        queue: 3,
    }));
    group.hold(update(1, &mark, None));
    assert_eq!(group.changes.len(), 4, "a dequeue in between");
    assert_eq!(group.record(1).map(|r| r.reason), Some("mark".into()));
    group.hold(update(1, &done, Some((1, 1))));
    assert_eq!(group.changes.len(), 5, "an update that enqueues");
    assert_eq!(group.record(1).map(|r| r.reason), Some("done".into()));
    group.hold(update(1, &mark, None));
    assert_eq!(
        group.changes.len(),
        5,
        "replaces the one before, enqueue kept"
    );
    assert!(format!("{:?}", group.changes[4].change()).contains("enqueue: Some((1, 1))"));
    assert_eq!(group.record(1).map(|r| r.reason), Some("mark".into()));
}

fn record(url: &str, reason: &str) -> UrlRecord {
    UrlRecord {
        url: url.into(),
        reason: reason.into(),
        ..UrlRecord::default()
    }
}

#[test]
fn held_changes_round_trip_and_read_back_the_latest_record() {
    let (first, second, other) = (
        record("http://a/", "first"),
        record("http://a/", "second"),
        record("http://b/", "other"),
    );
    let changes = [
        Change::Update {
            id: 1,
            record: &first,
            enqueue: None,
        },
        Change::Dequeue {
            id: 1,
            level: 2,
            queue: 3,
        },
        Change::Update {
            id: 2,
            record: &other,
            enqueue: Some((2, 3)),
        },
        Change::Update {
            id: 1,
            record: &second,
            enqueue: None,
        },
    ];
    let mut deferred = Deferred::opened(Instant::now());
    for change in &changes {
        deferred.hold(Held::from(change));
    }
    let back: Vec<String> = deferred
        .changes
        .iter()
        .map(|h| format!("{:?}", h.change()))
        .collect();
    let want: Vec<String> = changes.iter().map(|c| format!("{c:?}")).collect();
    assert_eq!(back, want);
    assert_eq!(deferred.record(1).map(|r| r.reason), Some("second".into()));
    assert_eq!(deferred.record(2).map(|r| r.reason), Some("other".into()));
    assert_eq!(deferred.record(3), None);
    // Taken for a write, the group stays open and empty.
    let since = deferred.since;
    assert_eq!(deferred.take().len(), 4);
    assert_eq!(deferred.record(1), None);
    assert_eq!(deferred.since, since);
}

/// Changing a held update in place, which the engine does when
/// [`Deferred::latest_update_mut`] offers it, ends as reading the
/// record back, changing a copy and holding the copy would: over
/// every sequence of a few kinds of change to three records.
#[test]
fn changing_a_held_update_in_place_ends_as_holding_a_changed_copy() {
    let mut seed = 0x9e37_79b9_u32;
    let mut draw = |n: u32| {
        // xorshift: a fixed pseudo-random sequence, the same each run.
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed % n
    };
    let mut in_place_seen = 0;
    for _ in 0..200 {
        let (mut in_place, mut copied) = (
            Deferred::opened(Instant::now()),
            Deferred::opened(Instant::now()),
        );
        for step in 0..12 {
            let id = u64::from(draw(3));
            let reason = format!("change {step}");
            match draw(5) {
                0 => {
                    let change = |r: &mut UrlRecord| r.reason.clone_from(&reason);
                    if let Some(record) = in_place.latest_update_mut(id) {
                        in_place_seen += 1;
                        change(record);
                    } else {
                        let mut record = in_place.record(id).unwrap_or_default();
                        change(&mut record);
                        in_place.hold(Held::Update {
                            id,
                            record,
                            enqueue: None,
                        });
                    }
                    let mut record = copied.record(id).unwrap_or_default();
                    change(&mut record);
                    copied.hold(Held::Update {
                        id,
                        record,
                        enqueue: None,
                    });
                }
                kind => {
                    let held = || match kind {
                        1 => Held::Update {
                            id,
                            record: record("http://a/", &reason),
                            enqueue: Some((1, 2)),
                        },
                        2 => Held::Dequeue {
                            id,
                            level: 1,
                            queue: 2,
                        },
                        3 => Held::Enqueue {
                            id,
                            level: 1,
                            queue: 2,
                        },
                        _ => Held::Discover {
                            record: record("http://b/", &reason),
                            enqueue: None,
                        },
                    };
                    in_place.hold(held());
                    copied.hold(held());
                }
            }
            let shown = |group: &Deferred| format!("{:?}", group.changes);
            assert_eq!(shown(&in_place), shown(&copied));
        }
    }
    assert!(
        in_place_seen > 50,
        "the in-place path ran {in_place_seen} times"
    );
}

/// Only an update that is its record's latest change is offered for
/// changing in place: after a dequeue or enqueue of the record it is
/// not, and the update written later must be a new one.
#[test]
fn only_the_latest_change_of_a_record_is_changed_in_place() {
    let mut group = Deferred::opened(Instant::now());
    assert!(group.latest_update_mut(1).is_none(), "nothing held");
    group.hold(Held::Update {
        id: 1,
        record: record("http://a/", "mark"),
        enqueue: None,
    });
    group.hold(Held::Update {
        id: 2,
        record: record("http://b/", "other"),
        enqueue: None,
    });
    let held = group.latest_update_mut(1).expect("the latest change");
    assert_eq!(held.reason, "mark");
    held.reason = "done".into();
    assert_eq!(group.record(1).map(|r| r.reason), Some("done".into()));
    group.hold(Held::Dequeue {
        id: 1,
        level: 0,
        queue: 0,
    });
    assert!(group.latest_update_mut(1).is_none(), "a dequeue came after");
    assert!(
        group.latest_update_mut(2).is_some(),
        "others are not affected"
    );
    group.hold(Held::Enqueue {
        id: 2,
        level: 0,
        queue: 0,
    });
    assert!(
        group.latest_update_mut(2).is_none(),
        "an enqueue came after"
    );
}

/// The records the engine keeps from its last reads and writes
/// (`Engine::recent`) are always the log's: a discovery is kept as
/// written, a later update of it replaces it in the log and drops the
/// copy, and a mark written is kept as written; each is taken once.
#[test]
fn records_kept_from_the_last_writes_are_the_logs() {
    let dir = tempfile::tempdir().expect("temp");
    let (mut engine, log) = engine(dir.path());
    let url = |p: &str| Url::parse(&format!("http://site.test/{p}")).expect("url");
    engine.met(url("a"), None, 1, Origin::Link);
    engine.met(url("b"), None, 1, Origin::Link);
    engine.write(&[]);
    let a = log.id_of("http://site.test/a").expect("log").expect("a");
    let b = log.id_of("http://site.test/b").expect("log").expect("b");
    let stored = |id| log.get(id).expect("log").expect("record");
    assert_eq!(
        engine.recent.get(&a),
        Some(&stored(a)),
        "kept as discovered"
    );
    // Changed behind the copy's back, as new rules would: dropped.
    let mut filtered = stored(a);
    filtered.state = State::Filtered;
    filtered.reason = "filtered by new rules".into();
    engine.write(&[Change::Update {
        id: a,
        record: &filtered,
        enqueue: None,
    }]);
    assert_eq!(engine.recent.get(&a), None);
    let taken = engine.take_current_record(a).expect("log").expect("a");
    assert_eq!(taken.state, State::Filtered);
    // A mark written: kept as written, then taken by the outcome.
    let mut marked = engine.take_current_record(b).expect("log").expect("b");
    assert_eq!(engine.recent.get(&b), None, "taken");
    marked.state = State::InFlight;
    engine.marks.push((b, marked));
    engine.write(&[]);
    assert_eq!(stored(b).state, State::InFlight);
    assert_eq!(engine.recent.get(&b), Some(&stored(b)));
    assert_eq!(engine.take_current_record(b).expect("log"), Some(stored(b)));
    assert_eq!(engine.recent.get(&b), None);
    // A mark the same batch changes again is not kept.
    let mut again = stored(b);
    again.state = State::InFlight;
    engine.marks.push((b, again.clone()));
    again.state = State::Fetched;
    engine.write(&[Change::Update {
        id: b,
        record: &again,
        enqueue: None,
    }]);
    assert_eq!(stored(b).state, State::Fetched);
    assert_eq!(engine.recent.get(&b), None);
}

/// A discovery queued in memory keeps its record for its in-flight
/// mark; one its slot leaves on disk (the window is full) does not:
/// it is read back with its record when the window reaches it.
#[test]
fn only_discoveries_queued_in_memory_keep_their_record() {
    use super::super::window::WINDOW;
    let dir = tempfile::tempdir().expect("temp");
    let (mut engine, log) = engine(dir.path());
    let urls = WINDOW + 10;
    for n in 0..urls {
        let url = Url::parse(&format!("http://site.test/p/{n}")).expect("url");
        engine.met(url, None, 1, Origin::Link);
    }
    engine.write(&[]);
    let id = |n: usize| {
        log.id_of(&format!("http://site.test/p/{n}"))
            .expect("log")
            .expect("written")
    };
    let kept = (0..urls).filter(|&n| engine.recent.get(&id(n)).is_some());
    assert_eq!(kept.count(), WINDOW, "the window's URLs");
    assert_eq!(engine.frontier.len(), WINDOW);
    assert!(engine.recent.get(&id(0)).is_some());
    assert!(engine.recent.get(&id(urls - 1)).is_none(), "left on disk");
    assert!(engine.window.more_on_disk());
}

/// The next URLs of a host are dealt to its running page tasks in turn,
/// so that, fetching side by side, they go about in their queue's order
/// (handed out a task's fill at a time, the second task's first URL was a
/// whole runway behind the first's).
#[test]
fn a_hosts_next_urls_are_dealt_to_its_tasks_in_turn() {
    use super::super::relay::Relay;
    let dir = tempfile::tempdir().expect("temp");
    let (mut engine, _log) = engine_with(dir.path(), "obey_robots = false\n");
    let url = |p: &str| Url::parse(&format!("http://site.test/{p}")).expect("url");
    for i in 0..7 {
        engine.met(url(&format!("p{i}")), None, 1, Origin::Link);
    }
    engine.write(&[]);
    let now = std::time::Instant::now();
    let host = engine.hosts.find(&url("")).expect("the host");
    let mut tasks = Vec::new();
    for _ in 0..2 {
        let (item, _) = engine.next_job_for(host, now).expect("a queued URL");
        let relay = Relay::new(item, engine.host_gate(host));
        engine.relays.push((host, relay.clone()));
        tasks.push(relay);
    }
    engine.offer_next(now);
    let offered = |relay: &Relay| {
        let mut paths = Vec::new();
        relay.each_offered(|item| paths.push(item.url.path().to_string()));
        paths
    };
    let current = |relay: &Relay| relay.current().expect("current").url.path().to_string();
    assert_eq!(
        (current(&tasks[0]), current(&tasks[1])),
        ("/p0".into(), "/p1".into())
    );
    assert_eq!(offered(&tasks[0]), ["/p2", "/p4", "/p6"]);
    assert_eq!(offered(&tasks[1]), ["/p3", "/p5"]);
}
