//! Whole-screen snapshots of every view through ratatui's `TestBackend`
//! (insta; the numbers are fixed by the test, so nothing volatile is left),
//! at the size users meet most (120x36) and at the 80x24 minimum, and the
//! escaping of what a crawled site controls.

use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::Action;
use super::app::App;
use super::log_reader::{LogPage, PageFrom, RecordView};
use super::save::SaveTarget;
use crate::crawl::detail::{Detail, HostIdle, HostRow, QueueRow};
use crate::crawl::engine::Stats;
use crate::crawl::frontier::QUEUES;
use crate::rules::dialect::native;
use crate::store::{ErrorClass, ErrorInfo, State, TraceLine, UrlRecord};

const RULES: &str = r#"
[[rules]]
name = "stay on the demo host"
match = { field = "host", exact = "127.0.0.1" }
filter = "must-have"
log = true

[[rules]]
name = "everything stops here"
stop = true
enabled = false

[[rules]]
name = "calendar trap"
match = { field = "path", prefix = "/calendar/" }
filter = "may-not-have"
log = true

[[rules]]
name = "pages"
match = { field = "extension", regex = '^(html?)?$' }
action = "download"

[[rules]]
name = "staff area"
match = { field = "path", prefix = "/private/" }
action = "exclude"
stop = true

[[rules]]
name = "staff reports"
match = { field = "path", prefix = "/private/reports/" }
action = "download"

[[rules]]
name = "catalogue"
match = { field = "path", prefix = "/products/" }
  [[rules.rules]]
  name = "items: saved, not followed"
  match = { field = "path", regex = 'item-[0-9]+$' }
  action = "download-no-scan"
  priority = "low"

[[rules]]
name = "host typo"
match = { field = "host", regex = 'example.com' }
action = "exclude"
"#;

fn stats() -> Stats {
    Stats {
        discovered: 412,
        queued: 57,
        in_flight: 2,
        fetched: 31,
        saved: 250,
        filtered: 64,
        errors: 8,
        retries: 4,
        deleted: 0,
        unrefreshed: 0,
        unsaved: 0,
        first_unsaved: None,
        unlogged: 0,
        dropped_by_new_rules: 0,
        queued_by_new_rules: 0,
        paused: false,
        waiting: None,
        elapsed: Duration::from_secs(83),
        paused_for: Duration::ZERO,
        done_before: 0,
        log_error: None,
    }
}

fn detail() -> Detail {
    let lengths = [0, 1, 20, 24, 13, 0];
    let picks = [1, 3, 43, 112, 8, 0];
    Detail {
        queues: QUEUES
            .iter()
            .enumerate()
            .map(|(i, &queue)| QueueRow {
                queue,
                weight: [10000, 2000, 1000, 100, 10, 1][i],
                length: lengths[i],
                picks: picks[i],
            })
            .collect(),
        hosts: vec![
            HostRow {
                origin: "http://127.0.0.1:8080".into(),
                pending: 57,
                in_flight: 2,
                fetched: 281,
                delay: Duration::from_millis(10),
                errors_in_row: 0,
                idle: HostIdle::Politeness(Duration::from_millis(6)),
                robots: "parsed: 2 groups, Crawl-delay none".into(),
            },
            HostRow {
                origin: "http://slow.test:8080".into(),
                pending: 3,
                in_flight: 0,
                fetched: 2,
                delay: Duration::from_secs(2),
                errors_in_row: 2,
                idle: HostIdle::Backoff(Duration::from_millis(3500)),
                robots: "HTTP 503: all disallowed".into(),
            },
        ],
        hosts_total: 2,
        rule_hits: vec![400, 0, 12, 230, 3, 0, 77, 68, 0],
        rules_version: 0,
    }
}

fn record(url: &str, state: State, reason: &str) -> UrlRecord {
    UrlRecord {
        url: url.into(),
        state,
        reason: reason.into(),
        fetch: state != State::Filtered,
        save: state == State::Saved,
        // A URL the rules filter keeps no flags (the verdict's effective
        // ones), as the engine records it.
        follow: state != State::Filtered,
        filtered: state == State::Filtered,
        queue: if state == State::Filtered {
            "none"
        } else {
            "index_follow"
        }
        .into(),
        link_depth: 2,
        referrer: Some(1),
        status: matches!(state, State::Saved | State::Fetched).then_some(200),
        content_type: matches!(state, State::Saved).then(|| "text/html".into()),
        size: matches!(state, State::Saved).then_some(5120),
        discovered_ms: 1_763_719_200_125,
        fetched_ms: matches!(state, State::Saved | State::Fetched | State::Error)
            .then_some(1_763_719_201_480),
        ..UrlRecord::default()
    }
}

fn log_rows() -> Vec<(u64, UrlRecord)> {
    let o = "http://127.0.0.1:8080";
    let mut filtered = record(
        &format!("{o}/calendar/2031/07/"),
        State::Filtered,
        "filtered by rule 3 \"calendar trap\"",
    );
    filtered.trace = vec![
        TraceLine {
            rule: "1".into(),
            name: "stay on the demo host".into(),
            line: 3,
            step: "matched".into(),
            detail: "filter must-have, log".into(),
        },
        TraceLine {
            rule: "3".into(),
            name: "calendar trap".into(),
            line: 14,
            step: "matched".into(),
            detail: "filter may-not-have, log → FILTERED".into(),
        },
    ];
    filtered.robots =
        Some("robots.txt http://127.0.0.1:8080/robots.txt: no rule matches (group *)".into());
    let mut error = record(
        &format!("{o}/error/503"),
        State::Error,
        "HTTP 503, gave up after 3 tries",
    );
    error.error = Some(ErrorInfo {
        class: ErrorClass::Temporary,
        count: 3,
        message: "HTTP 503 Service Unavailable (Retry-After: 1)".into(),
    });
    // A page controls its links: this one tries to clear the screen.
    let mut weird = record(
        &format!("{o}/weird/\u{1b}[2Jgotcha"),
        State::Fetched,
        "fetched",
    );
    // Its title tries to retitle the terminal window.
    weird.title = Some("red \u{1b}]0;pwned\u{7} title".into());
    weird.excerpt = Some("A page whose title and links carry control characters.".into());
    vec![
        (41, record(&format!("{o}/docs/"), State::Saved, "saved")),
        (
            42,
            record(&format!("{o}/docs/install.html"), State::Saved, "saved"),
        ),
        (43, filtered),
        (44, error),
        (
            45,
            record(
                &format!("{o}/products/widgets/item-7"),
                State::Queued,
                "queued in index",
            ),
        ),
        (46, weird),
    ]
}

/// The console on [`RULES`] at `size`, before the crawl says anything.
fn console(size: (u16, u16)) -> App {
    let rules = native::parse(RULES).expect("rules").rules;
    let save = SaveTarget::for_config(std::path::Path::new("demo.toml"), RULES);
    let mut app = App::new(
        "crawlspace/0.1".into(),
        rules,
        save,
        [10000, 2000, 1000, 100, 10, 1],
    );
    app.update(Action::Resize(size.0, size.1));
    app
}

/// The console as a user sees it mid-crawl.
fn app(size: (u16, u16)) -> App {
    let mut app = console(size);
    // The first counters are the baselines (a crawl started afresh: no
    // URL met yet), then the crawl a few seconds in.
    app.update(Action::Stats(Stats {
        discovered: 0,
        ..stats()
    }));
    app.update(Action::Stats(stats()));
    app.update(Action::Detail(Box::new(detail())));
    for rate in [0u64, 40, 66, 70, 65, 68, 12, 55] {
        // Rate samples come from the counters, one a second (10 ticks).
        let mut s = stats();
        s.fetched = app.crawl.stats.fetched + rate;
        app.update(Action::Stats(s));
        for _ in 0..10 {
            app.update(Action::Tick);
        }
    }
    app.update(Action::Stats(stats()));
    app.take_requests();
    app
}

fn key(app: &mut App, c: char) {
    app.update(Action::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::NONE,
    )));
}

/// Opens the log view and answers its page request and record request.
fn log_view(app: &mut App, selected: usize) {
    key(app, '3');
    let rows = log_rows();
    app.update(Action::LogPage(LogPage {
        seq: 1,
        from: PageFrom::End,
        rows: rows.clone(),
        total: 412,
        matching: Some(412),
        error: None,
    }));
    for _ in 0..(rows.len() - 1 - selected) {
        key(app, 'k');
    }
    let (id, record) = rows[selected].clone();
    app.update(Action::Tick);
    app.update(Action::Record(
        id,
        Ok(Box::new(RecordView {
            id,
            record,
            chain: vec![
                (12, "http://127.0.0.1:8080/calendar/2031/06/".into()),
                (1, "http://127.0.0.1:8080/".into()),
            ],
        })),
    ));
}

/// The whole screen `app` draws at its size, as text.
pub(crate) fn screen(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(app.size.0, app.size.1)).expect("terminal");
    terminal.draw(|f| super::view::draw(f, app)).expect("draw");
    format!("{}", terminal.backend())
}

/// A rule with a long name and a lint, selected at 80x24: the box under
/// the list grows so that the name, the condition and the lint's reason
/// all show (a fixed box showed the name alone).
#[test]
fn the_rule_box_grows_for_a_long_name() {
    let long = format!(
        "{} end-of-name",
        "a long rule name that says a lot ".repeat(8)
    );
    let text = format!(
        "[[rules]]\nname = \"{long}\"\nmatch = {{ field = \"host\", regex = 'www.example.com' }}\naction = \"exclude\"\n"
    );
    let rules = native::parse(&text).expect("rules").rules;
    let save = SaveTarget::for_config(std::path::Path::new("c.toml"), &text);
    let mut app = App::new("crawlspace/0.1".into(), rules, save, [1; 6]);
    app.update(Action::Resize(80, 24));
    let shown = screen(&app);
    assert!(shown.contains("end-of-name"), "{shown}");
    assert!(shown.contains("when host regex"), "{shown}");
    assert!(shown.contains("lint: "), "{shown}");
}

/// A trace layer whose id is its name, longer than the id column, reads
/// once and apart from its step.
#[test]
fn a_long_layer_name_reads_once_in_the_trace() {
    let mut app = app((120, 36));
    log_view(&mut app, 2);
    let (id, mut record) = log_rows()[2].clone();
    record.trace.insert(
        0,
        TraceLine {
            rule: "live-rules".into(),
            name: "live-rules".into(),
            line: 0,
            step: "matched".into(),
            detail: "queued when new rules were applied".into(),
        },
    );
    app.update(Action::Record(
        id,
        Ok(Box::new(RecordView {
            id,
            record,
            chain: Vec::new(),
        })),
    ));
    let shown = screen(&app);
    assert!(
        shown.contains("  live-rules matched — queued when new rules were applied"),
        "{shown}"
    );
}

/// `r` right after a move jumps to the referrer of the row now selected,
/// before its detail has come.
#[test]
fn the_referrer_jump_reads_the_selected_row() {
    let mut app = app((120, 36));
    log_view(&mut app, 2);
    app.log.rows[1].1.referrer = Some(7);
    app.take_requests();
    key(&mut app, 'k');
    key(&mut app, 'r');
    let asked = app.take_requests().into_iter().any(|r| {
        matches!(
            r,
            super::app::Request::LogPage {
                from: PageFrom::After(6),
                ..
            }
        )
    });
    assert!(asked, "{:?}", app.message);
}

/// A URL's password is not shown, in the list or the detail pane (the
/// log keeps it: Explain gets the URL whole).
#[test]
fn a_password_in_a_url_is_not_shown() {
    let mut app = app((120, 36));
    log_view(&mut app, 2);
    app.log.rows[1].1.url = "http://ann:hunter2@127.0.0.1:8080/private/".into();
    let view = app.log.record.as_mut().expect("the selected record");
    view.record.url = "http://ann:hunter2@127.0.0.1:8080/selected".into();
    view.chain[0].1 = "http://ann:hunter2@127.0.0.1:8080/up".into();
    // A reason, a redirect's target and a trace's detail that quote a
    // URL say it as the URL column does.
    view.record.reason = "redirect to http://ann:hunter2@127.0.0.1:8080/next (301)".into();
    view.record.redirect_to = Some("http://ann:hunter2@127.0.0.1:8080/next".into());
    view.record.trace = vec![crate::store::TraceLine {
        rule: "sitemap".into(),
        name: "sitemap".into(),
        line: 0,
        step: "met".into(),
        detail: "sitemap entry from http://ann:hunter2@127.0.0.1:8080/sitemap.xml".into(),
    }];
    let shown = screen(&app);
    assert!(
        shown.contains("redirect to http://ann:***@127.0.0.1:8080/next (301)"),
        "{shown}"
    );
    assert!(
        shown.contains("→ http://ann:***@127.0.0.1:8080/next"),
        "{shown}"
    );
    assert!(
        shown.contains("sitemap entry from http://ann:***@127.0.0.1:8080/sitemap.xml"),
        "{shown}"
    );
    assert!(
        shown.contains("url        http://ann:***@127.0.0.1:8080/selected"),
        "{shown}"
    );
    assert!(
        shown.contains("← #12 http://ann:***@127.0.0.1:8080/up"),
        "{shown}"
    );
    assert!(
        shown.contains("http://ann:***@127.0.0.1:8080/private/"),
        "{shown}"
    );
    assert!(!shown.contains("hunter2"), "{shown}");
}

/// `e` opens the selected URL in Explain, with the content type and
/// address its record keeps, judged at once under the rules as edited.
#[test]
fn e_explains_the_selected_url_with_what_its_record_keeps() {
    let mut app = app((120, 36));
    log_view(&mut app, 2);
    let (_, row) = app.log.rows[2].clone();
    app.log.rows[2].1.content_type = Some("text/html".into());
    app.log.rows[2].1.address = Some("127.0.0.1".parse().expect("address"));
    key(&mut app, 'e');
    assert_eq!(app.view, crate::tui::app::View::Explain);
    assert_eq!(app.explain.url.value(), row.url);
    assert_eq!(app.explain.content_type.value(), "text/html");
    assert_eq!(app.explain.address.value(), "127.0.0.1");
    assert_eq!(app.explain.url_now.as_deref(), Some(row.url.as_str()));
    let shown = screen(&app);
    assert!(shown.contains("verdict:"), "{shown}");
}

/// A filtered list says how many URLs the filter lists when the log
/// counts them (a state), and how many there are in all.
#[test]
fn the_log_title_counts_what_its_filter_lists() {
    let mut app = app((120, 36));
    log_view(&mut app, 2);
    app.log.query.state = Some(State::Queued);
    let answer = |matching| {
        Action::LogPage(LogPage {
            seq: 1,
            from: PageFrom::End,
            rows: log_rows(),
            total: 412,
            matching,
            error: None,
        })
    };
    app.update(answer(Some(33)));
    let shown = log_rows().len();
    assert!(
        screen(&app).contains(&format!(
            " {shown} shown of 33 · state queued · 412 URLs in all "
        )),
        "{}",
        screen(&app)
    );
    app.update(answer(None));
    assert!(
        screen(&app).contains(&format!(" {shown} shown · state queued · 412 URLs in all ")),
        "{}",
        screen(&app)
    );
}

#[test]
fn rules_view() {
    insta::assert_snapshot!(screen(&app((120, 36))));
}

#[test]
fn rules_view_small() {
    insta::assert_snapshot!(screen(&app((80, 24))));
}

#[test]
fn queues_view() {
    let mut a = app((120, 36));
    key(&mut a, '2');
    insta::assert_snapshot!(screen(&a));
}

/// A finished crawl's graph says so, rather than a rate of "now".
#[test]
fn a_finished_crawl_s_graph_says_so() {
    let mut a = app((120, 36));
    key(&mut a, '2');
    assert!(screen(&a).contains("URLs done per second: now 55, peak 70"));
    a.update(Action::Finished(stats()));
    let shown = screen(&a);
    assert!(
        shown.contains("URLs done per second: finished, peak 70"),
        "{shown}"
    );
}

/// A crawl stopped by its log failing to write says so in red where a
/// finished one says FINISHED, with the reason and what to do on the
/// message line.
#[test]
fn a_crawl_stopped_by_its_log_says_so() {
    let mut a = app((100, 24));
    a.update(Action::Finished(stats()));
    assert!(screen(&a).contains(" FINISHED "));
    a.update(Action::Finished(Stats {
        log_error: Some("cannot read or write its files: No space left on device".into()),
        ..stats()
    }));
    let shown = screen(&a);
    assert!(
        shown.contains(" STOPPED ") && !shown.contains("FINISHED"),
        "{shown}"
    );
    assert!(
        shown.contains(
            "STOPPED: the URL log could not be written (cannot read or write its files: No space"
        ),
        "{shown}"
    );
}

/// At 80 columns every count of the hosts table stays whole.
#[test]
fn queues_view_small() {
    let mut a = app((80, 30));
    key(&mut a, '2');
    let shown = screen(&a);
    assert!(shown.contains("pending active fetched delay"), "{shown}");
    insta::assert_snapshot!(shown);
}

/// At 70 columns there is no room for the gauge: the figures keep theirs,
/// the pick rate included, and no bar is drawn over them.
#[test]
fn a_narrow_queues_view_draws_no_gauge_over_the_figures() {
    let mut a = app((70, 30));
    key(&mut a, '2');
    let shown = screen(&a);
    let queue_rows: Vec<&str> = shown
        .lines()
        .filter(|l| l.contains("index_follow") || l.contains("10000"))
        .collect();
    assert_eq!(queue_rows.len(), 2, "{shown}");
    assert!(queue_rows.iter().all(|l| !l.contains('█')), "{shown}");
    let header = shown
        .lines()
        .find(|l| l.contains("weight") && l.contains("length"))
        .expect("the header");
    assert!(
        header.trim_end_matches(['"', '│', ' ']).ends_with("/s"),
        "{header:?}"
    );
}

/// On a short terminal the queues table shows as many queues as fit, in
/// order and without a gap, the selected one always among them (the
/// window follows `j`/`k`, and stays put while the selection moves inside
/// it), and its header while there is room.
#[test]
fn a_short_queues_view_keeps_the_selected_queue_in_sight() {
    let names: Vec<&str> = crate::crawl::frontier::QUEUES
        .iter()
        .map(|q| q.name())
        .collect();
    for (width, height) in [(80, 20), (80, 18), (80, 17), (60, 15), (40, 10), (60, 8)] {
        let mut a = app((width, height));
        key(&mut a, '2');
        for selected in 0..names.len() {
            let shown = screen(&a);
            // The first word of each line inside the queues box.
            let rows: Vec<&str> = shown
                .lines()
                .filter_map(|l| l.trim_matches('"').strip_prefix('│'))
                .filter_map(|l| l.split_whitespace().next())
                .take_while(|w| names.contains(w) || *w == "queue")
                .collect();
            let queues: Vec<&str> = rows.iter().copied().filter(|w| *w != "queue").collect();
            let first = names.iter().position(|n| Some(n) == queues.first());
            let at = format!("{width}x{height}, {} selected:\n{shown}", names[selected]);
            let first = first.unwrap_or_else(|| panic!("no queue shown at {at}"));
            assert_eq!(queues, names[first..first + queues.len()], "{at}");
            assert!(queues.contains(&names[selected]), "{at}");
            if height >= 17 {
                assert_eq!(rows.first(), Some(&"queue"), "{at}");
            }
            key(&mut a, 'j');
        }
        // Back up: the window holds still until the selection reaches its
        // top, then follows it one queue at a time.
        let mut window = shown_queues(&screen(&a), &names);
        for selected in (0..names.len() - 1).rev() {
            key(&mut a, 'k');
            let now = shown_queues(&screen(&a), &names);
            let at = format!("{width}x{height}, back up to {}", names[selected]);
            if window.contains(&names[selected]) {
                assert_eq!(now, window, "{at}: a `k` inside the window scrolls nothing");
            } else {
                assert_eq!(now.first(), Some(&names[selected]), "{at}");
            }
            window = now;
        }
    }
}

/// The queue names in the queues box of a screen, top to bottom.
fn shown_queues<'a>(shown: &str, names: &[&'a str]) -> Vec<&'a str> {
    shown
        .lines()
        .filter_map(|l| l.trim_matches('"').strip_prefix('│'))
        .filter_map(|l| l.split_whitespace().next())
        .filter_map(|w| names.iter().find(|n| **n == w).copied())
        .collect()
}

#[test]
fn log_view_with_the_why() {
    let mut a = app((120, 36));
    a.log.dir = Some("/tmp/crawlspace-demo-18620/db".into());
    log_view(&mut a, 2);
    insta::assert_snapshot!(screen(&a));
}

/// The log's folder under the list, escaped: a path is the user's, but
/// it reaches the terminal as any text does.
#[test]
fn the_log_view_names_its_folder_escaped() {
    let mut a = app((100, 30));
    log_view(&mut a, 2);
    assert!(
        !screen(&a).contains("crawlspace log --db"),
        "no folder, no line"
    );
    a.log.dir = Some("/tmp/x\u{1b}[2J/db".into());
    let shown = screen(&a);
    assert!(
        shown.contains("crawlspace log --db /tmp/x\\u{1b}[2J/db"),
        "{shown}"
    );
    // Too narrow for the whole command: left out, not cut.
    let mut a = app((80, 24));
    a.log.dir = Some(format!("/tmp/{}/db", "a-long-folder-name".repeat(4)));
    log_view(&mut a, 2);
    let shown = screen(&a);
    assert!(shown.contains("shown of"), "the list is drawn: {shown}");
    assert!(
        !shown.contains("--db") && !shown.contains("folder-name"),
        "{shown}"
    );
}

#[test]
fn log_view_small() {
    let mut a = app((80, 24));
    log_view(&mut a, 3);
    insta::assert_snapshot!(screen(&a));
}

#[test]
fn explain_view() {
    let mut a = app((120, 36));
    key(&mut a, '4');
    for c in "http://127.0.0.1:8080/private/reports/q3.html".chars() {
        key(&mut a, c);
    }
    insta::assert_snapshot!(screen(&a));
}

/// The text cursor is drawn where typing goes: after Home and Right, in
/// the Explain URL, the rule form's pattern and the log's text filter.
#[test]
fn the_text_cursor_stands_where_typing_goes() {
    let special =
        |a: &mut App, code: KeyCode| a.update(Action::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    let mut a = app((120, 36));
    key(&mut a, '4');
    for c in "http://a.example/b".chars() {
        key(&mut a, c);
    }
    special(&mut a, KeyCode::Home);
    key(&mut a, 'X');
    special(&mut a, KeyCode::Right);
    let shown = screen(&a);
    assert!(
        shown.contains("URL            Xh▏ttp://a.example/b"),
        "{shown}"
    );

    let mut a = app((100, 30));
    key(&mut a, 'G');
    special(&mut a, KeyCode::Enter);
    for c in " ab".chars() {
        key(&mut a, c);
    }
    special(&mut a, KeyCode::Left);
    let shown = screen(&a);
    assert!(shown.contains("pattern  example.com a▏b "), "{shown}");

    let mut a = app((120, 36));
    log_view(&mut a, 0);
    key(&mut a, '/');
    for c in "ab".chars() {
        key(&mut a, c);
    }
    special(&mut a, KeyCode::Home);
    let shown = screen(&a);
    assert!(shown.contains("text filter (regex): ▏ab"), "{shown}");
}

/// A long name scrolls sideways in the rule form, around its cursor: the
/// form stays one row a field and its validation line stays in sight.
#[test]
fn a_long_name_keeps_the_forms_validation_in_sight() {
    let mut a = app((80, 24));
    key(&mut a, 'G');
    a.update(Action::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    a.update(Action::Key(KeyEvent::new(
        KeyCode::BackTab,
        KeyModifiers::NONE,
    )));
    a.update(Action::Key(KeyEvent::new(
        KeyCode::BackTab,
        KeyModifiers::NONE,
    )));
    a.update(Action::Key(KeyEvent::new(
        KeyCode::BackTab,
        KeyModifiers::NONE,
    )));
    a.update(Action::Paste(format!("{}END", "long name ".repeat(33))));
    let shown = screen(&a);
    assert!(shown.contains("✓ valid"), "{shown}");
    assert!(
        shown.contains("END▏"),
        "the end, where typing goes: {shown}"
    );
    // Wide characters scroll by the columns they take.
    a.update(Action::Paste("中".repeat(100)));
    let shown = screen(&a);
    assert!(shown.contains("中中中中▏"), "{shown}");
    assert!(shown.contains("✓ valid"), "{shown}");
    a.update(Action::Key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE)));
    let shown = screen(&a);
    assert!(
        shown.contains("name     host typolong name long name"),
        "{shown}"
    );
    assert!(shown.contains("…"), "cut when not typed in: {shown}");
    assert!(shown.contains("✓ valid"), "{shown}");
}

/// At 80 columns the trace's long lines wrap: the verdict at their end
/// stays on screen.
#[test]
fn explain_view_small() {
    let mut a = app((80, 30));
    key(&mut a, '4');
    for c in "http://127.0.0.1:8080/private/reports/q3.html".chars() {
        key(&mut a, c);
    }
    let shown = screen(&a);
    // The ends of the two lines longer than the pane.
    assert!(shown.contains("must-have, log"), "{shown}");
    assert!(shown.contains("(`enabled = false`)"), "{shown}");
    insta::assert_snapshot!(shown);
}

/// On an 80x24 terminal the Rules view's help is taller than the screen:
/// it says it scrolls, and End brings its last line, the global keys',
/// into sight; wider and taller, all of it shows without a hint.
#[test]
fn help_overlay_scrolls_on_a_short_terminal() {
    let mut a = app((80, 24));
    key(&mut a, '?');
    let top = screen(&a);
    assert!(top.contains("↑↓ PgUp PgDn scroll"), "{top}");
    assert!(!top.contains("mouse wheel"), "{top}");
    a.update(Action::Key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE)));
    let end = screen(&a);
    assert!(end.contains("mouse wheel"), "{end}");
    assert!(end.contains("Everywhere"), "{end}");
    // Scrolling stops at the end: one more step down changes nothing.
    a.update(Action::Key(KeyEvent::new(
        KeyCode::Down,
        KeyModifiers::NONE,
    )));
    assert_eq!(screen(&a), end);
    a.update(Action::Key(KeyEvent::new(
        KeyCode::Home,
        KeyModifiers::NONE,
    )));
    assert_eq!(screen(&a), top);
    let mut tall = app((120, 50));
    key(&mut tall, '?');
    let all = screen(&tall);
    assert!(
        all.contains("mouse wheel") && all.contains("Rules view"),
        "{all}"
    );
    assert!(!all.contains("PgDn scroll"), "{all}");
    // Scrolled to the end, then the terminal grows until everything fits:
    // the overlay shows it all from the top, not from the old offset.
    a.update(Action::Key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE)));
    a.update(Action::Resize(120, 50));
    let grown = screen(&a);
    assert!(
        grown.contains("mouse wheel") && grown.contains("Rules view"),
        "{grown}"
    );
}

#[test]
fn help_overlay() {
    let mut a = app((120, 36));
    key(&mut a, '?');
    insta::assert_snapshot!(screen(&a));
}

#[test]
fn form_overlay_with_a_bad_regex() {
    let mut a = app((100, 30));
    key(&mut a, 'G');
    a.update(Action::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    key(&mut a, '(');
    insta::assert_snapshot!(screen(&a));
}

/// The form's live preview: asked for as the rule is typed, shown with
/// its count and samples (escaped, each on one line).
#[test]
fn form_overlay_with_a_preview() {
    let mut a = app((100, 30));
    key(&mut a, 'n');
    for c in "/docs/".chars() {
        key(&mut a, c);
    }
    let seq = a
        .take_requests()
        .into_iter()
        .filter_map(|r| match r {
            crate::tui::app::Request::Preview { seq, .. } => Some(seq),
            _ => None,
        })
        .last()
        .expect("a preview asked for");
    a.update(Action::Preview(
        seq,
        Box::new(crate::tui::preview::Preview {
            scanned: 483,
            total: 483,
            matched: 52,
            undecided: 0,
            samples: vec![
                "http://h/docs/".into(),
                "http://h/docs/\u{1b}]0;pwned\u{7}".into(),
            ],
            done: true,
        }),
    ));
    let text = screen(&a);
    assert!(
        text.contains("holds for 52 of the 483 URLs in the log"),
        "{text}"
    );
    assert!(
        text.contains("http://h/docs/\\u{1b}]0;pwned\\u{7}"),
        "{text}"
    );
    assert!(!text.contains('\u{1b}'), "{text}");
}

#[test]
fn crawled_text_cannot_reach_the_terminal_raw() {
    let mut a = app((120, 36));
    log_view(&mut a, 5);
    let text = screen(&a);
    assert!(!text.contains('\u{1b}'), "a raw escape reached the screen");
    assert!(text.contains("\\u{1b}[2Jgotcha"), "{text}");
    assert!(text.contains("red \\u{1b}]0;pwned\\u{7} title"), "{text}");
}

#[test]
fn every_view_draws_at_tiny_sizes_without_panicking() {
    for (w, h) in [(1, 1), (10, 5), (40, 12), (80, 24), (300, 100)] {
        for view in ['1', '2', '3', '4', '?'] {
            let mut a = app((w, h));
            if view == '3' {
                log_view(&mut a, 1);
            } else {
                key(&mut a, view);
            }
            screen(&a);
            if view == '?' {
                // The help scrolled to its end, at every size.
                a.update(Action::Key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE)));
                screen(&a);
            }
        }
    }
}

#[test]
fn the_readme_lists_every_key_of_the_help() {
    let readme = include_str!("../../README.md");
    let views = super::app::View::ALL.map(super::view::keys_for);
    for (key, what) in views
        .iter()
        .flat_map(|keys| keys.iter())
        .chain(super::view::GLOBAL_KEYS)
    {
        let row = format!("| `{}` | {what} |", key.trim());
        assert!(readme.contains(&row), "README.md lacks the key row {row}");
    }
}

#[test]
fn random_keys_and_news_never_panic() {
    use super::app::Request;
    use crate::rules::synth::Rng;
    use crate::tui::whatif::Report;
    let codes = [
        KeyCode::Up,
        KeyCode::Down,
        KeyCode::Left,
        KeyCode::Right,
        KeyCode::Enter,
        KeyCode::Esc,
        KeyCode::Tab,
        KeyCode::BackTab,
        KeyCode::Backspace,
        KeyCode::Delete,
        KeyCode::PageUp,
        KeyCode::PageDown,
        KeyCode::Home,
        KeyCode::End,
    ];
    let chars: Vec<char> = "1234?pqjkJKsaxdneuUclfwt+-<>/ Q(\\[*.$^gGFr"
        .chars()
        .collect();
    let rows = log_rows();
    for seed in 1..=6 {
        let mut rng = Rng::new(seed);
        let mut a = app((100, 30));
        a.update(Action::Traps(crate::tui::traps::hints(
            (0..30)
                .map(|i| format!("http://h/cal/{}/01/", 2070 + i))
                .collect::<Vec<_>>()
                .iter()
                .map(String::as_str),
        )));
        for step in 0..1500 {
            let action = match rng.below(20) {
                0 => Action::Resize(1 + rng.below(220) as u16, 1 + rng.below(70) as u16),
                1 => Action::Tick,
                2 => Action::Detail(Box::new(detail())),
                3 => Action::ScrollDown,
                4 => Action::ScrollUp,
                5 => Action::Refused("busy".into()),
                6..=10 => Action::Key(KeyEvent::new(*rng.pick(&codes), KeyModifiers::NONE)),
                11 => Action::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL)),
                12 => {
                    let tail = ["\n", "\t", "\u{1b}[31m", "é"][rng.below(4)];
                    let mut text: String = (0..rng.below(12)).map(|_| *rng.pick(&chars)).collect();
                    text.push_str(tail);
                    Action::Paste(text)
                }
                _ => Action::Key(KeyEvent::new(
                    KeyCode::Char(*rng.pick(&chars)),
                    KeyModifiers::NONE,
                )),
            };
            a.update(action);
            // Answer what the app asked for, as the run loop would (with
            // a random part of the sample log, sometimes nothing).
            for request in a.take_requests() {
                let answer = match request {
                    Request::LogPage { seq, from, .. } => {
                        let n = rng.below(rows.len() + 1);
                        let start = rng.below(rows.len() - n + 1);
                        Action::LogPage(LogPage {
                            seq,
                            from,
                            rows: rows[start..start + n].to_vec(),
                            total: 412,
                            matching: Some(412),
                            error: None,
                        })
                    }
                    Request::Record(id) => match rows.iter().find(|(r, _)| *r == id) {
                        Some((_, record)) if rng.chance(80) => Action::Record(
                            id,
                            Ok(Box::new(RecordView {
                                id,
                                record: record.clone(),
                                chain: vec![(1, "http://127.0.0.1:8080/".into())],
                            })),
                        ),
                        _ => Action::Record(id, Err("damaged".into())),
                    },
                    Request::WhatIf { seq, .. } => Action::WhatIf(
                        seq,
                        Box::new(Report {
                            scanned: rng.below(100) as u64,
                            done: rng.chance(50),
                            ..Report::default()
                        }),
                    ),
                    Request::Save { .. } => Action::Saved(Ok("saved".into())),
                    _ => continue,
                };
                a.update(answer);
            }
            if a.should_quit() {
                a = app((100, 30)); // q quits: start again
            }
            if step % 25 == 0 {
                screen(&a);
            }
        }
    }
}

/// `J` scrolls the detail pane to its end and no further, and the scroll
/// stays while the log refreshes the same selection (following, as the
/// crawl runs): a refresh used to put it back at the top at once.
#[test]
fn the_detail_pane_scrolls_to_its_end_and_stays_while_following() {
    use super::app::Request;
    let mut app = app((100, 20));
    // The last row: selected without `k`, so the view keeps following.
    log_view(&mut app, log_rows().len() - 1);
    assert!(app.log.follow);
    // A long excerpt, one long word broken over many rows of the narrow
    // pane: its row count depends on the pane's inner width.
    if let Some(view) = &mut app.log.record {
        view.record.excerpt = Some("x".repeat(1000));
    }
    let most = super::view::log_detail_max_scroll(&app);
    assert!(most > 3, "the record overflows the pane ({most})");
    for _ in 0..50 {
        key(&mut app, 'J');
    }
    assert_eq!(app.log.detail_scroll, most, "stopped at the end");
    // The pane's last rows hold the record's last line, reached and not
    // passed: wrapped lines are counted at the pane's inner width.
    let shown = screen(&app);
    assert!(shown.contains("the disposition decided)"), "{shown}");
    // The view refreshes the window (same rows): the scroll stays.
    let mut refreshed = false;
    for _ in 0..100 {
        app.update(Action::Tick);
        let request = app
            .take_requests()
            .into_iter()
            .find(|r| matches!(r, Request::LogPage { .. }));
        if let Some(Request::LogPage { seq, from, .. }) = request {
            app.update(Action::LogPage(LogPage {
                seq,
                from,
                rows: log_rows(),
                total: 412,
                matching: Some(412),
                error: None,
            }));
            refreshed = true;
            break;
        }
    }
    assert!(refreshed, "the view asked for a refresh");
    assert_eq!(app.log.detail_scroll, most, "kept across the refresh");
    key(&mut app, 'K');
    assert_eq!(app.log.detail_scroll, most - 3);
}

/// While the crawl is paused, a host that could fetch says it waits.
#[test]
fn hosts_ready_to_fetch_say_paused_while_the_crawl_is() {
    let mut app = app((120, 36));
    key(&mut app, '2');
    app.crawl.detail.hosts[0].idle = HostIdle::Ready;
    let ready_rows = |app: &App| {
        screen(app)
            .lines()
            .filter(|l| l.contains("fetching / ready"))
            .count()
    };
    let ready = ready_rows(&app);
    assert!(ready > 0, "{}", screen(&app));
    let mut paused = stats();
    paused.paused = true;
    app.update(Action::Stats(paused));
    let shown = screen(&app);
    assert_eq!(ready_rows(&app), 0, "{shown}");
    assert_eq!(
        shown.lines().filter(|l| l.contains(" paused ")).count(),
        ready,
        "{shown}"
    );
}

/// Under 80x24 the hint line says the views are cut short; at 80x24 the
/// hints are back.
#[test]
fn a_small_terminal_is_told_so() {
    let small = screen(&app((60, 20)));
    assert!(
        small.contains("60x20 cuts the views short: 80x24 or more"),
        "{small}"
    );
    let enough = screen(&app((80, 24)));
    assert!(!enough.contains("cuts the views short"), "{enough}");
}

/// The rules nested in a switched-off block are off with it, not broken.
#[test]
fn rules_in_a_switched_off_block_are_not_marked_broken() {
    let text = "[[rules]]\nname = \"block\"\nenabled = false\nfirst_match = true\n\n  [[rules.rules]]\n  name = \"inner\"\n  action = \"exclude\"\n\n[[rules]]\nname = \"bad\"\nmatch = { field = \"path\", regex = \"(\" }\naction = \"exclude\"\n";
    let rules = native::parse(text).expect("rules").rules;
    let save = SaveTarget::for_config(std::path::Path::new("r.toml"), text);
    let mut app = App::new("crawlspace/0.1".into(), rules, save, [1; 6]);
    app.update(Action::Resize(120, 30));
    let shown = screen(&app);
    let line = |name: &str| {
        shown
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_default()
            .to_string()
    };
    assert!(line("inner").contains("off with its block"), "{shown}");
    assert!(!line("inner").contains("broken"), "{shown}");
    assert!(line("bad").contains("✗broken"), "{shown}");
}

/// The what-if counts in words that agree with the count: "1 URL",
/// "2 URLs".
#[test]
fn the_what_if_says_url_or_urls() {
    use super::app::Request;
    use super::whatif::{Report, Tally};
    for (seen, words) in [(1, "1 URL would change"), (2, "2 URLs would change")] {
        let mut a = app((100, 30));
        key(&mut a, 'x'); // an edit to count
        key(&mut a, 'c');
        let seq = a
            .take_requests()
            .into_iter()
            .find_map(|r| match r {
                Request::WhatIf { seq, .. } => Some(seq),
                _ => None,
            })
            .expect("the what-if is asked for");
        let mut report = Report {
            scanned: 10,
            total: 10,
            done: true,
            ..Report::default()
        };
        report.tallies[0] = Tally {
            seen,
            ..Tally::default()
        };
        a.update(Action::WhatIf(seq, Box::new(report)));
        let shown = screen(&a);
        assert!(shown.contains(words), "{shown}");
    }
}

/// During a refresh the status bar counts the pages found gone and those
/// not fetched again (their copies kept) apart from the errors, as the
/// headless progress line does; otherwise it says nothing of them.
#[test]
fn the_status_bar_counts_a_refresh_s_deleted_and_unrefreshed_pages() {
    let mut app = app((160, 40));
    assert!(!screen(&app).contains("not refreshed"));
    app.update(Action::Stats(Stats {
        deleted: 3,
        unrefreshed: 2,
        ..stats()
    }));
    let shown = screen(&app);
    assert!(
        shown.contains("errors 8  deleted 3  not refreshed 2  queued 57"),
        "{shown}"
    );
}

/// Pages the mirror could not write show beside `saved`, which the bar
/// keeps even at 80 columns.
#[test]
fn the_status_bar_shows_pages_the_mirror_could_not_write() {
    let mut app = app((80, 24));
    assert!(!screen(&app).contains("NOT SAVED"));
    app.update(Action::Stats(Stats {
        unsaved: 7,
        first_unsaved: Some("/out/h/a: No space left on device".into()),
        fetched: 12_345,
        queued: 5_678,
        ..stats()
    }));
    let shown = screen(&app);
    assert!(shown.contains("saved 250 (7 NOT SAVED)"), "{shown}");
}

/// At 80 columns, with large counts and a refresh's two more, the elapsed
/// time stays in sight: the rate goes first, then the refresh's counts.
#[test]
fn the_status_bar_keeps_the_time_at_80_columns() {
    let mut app = app((80, 24));
    app.update(Action::Stats(Stats {
        fetched: 12_345,
        saved: 56_789,
        filtered: 1_234,
        errors: 8,
        deleted: 3,
        unrefreshed: 2,
        queued: 5_678,
        ..stats()
    }));
    let shown = screen(&app);
    let bar = shown
        .lines()
        .find(|l| l.contains("fetched 12345"))
        .unwrap_or_else(|| panic!("no status bar in {shown}"));
    assert!(bar.contains("00:01:23"), "{bar}");
    assert!(bar.contains("queued 5678"), "{bar}");
}

/// On a reopened log the first counters are the log's: a rule with no hits
/// is said to match nothing (in the list and in its box) only once this
/// run has met a URL.
#[test]
fn a_reopened_log_says_no_hits_yet_only_after_new_urls() {
    let mut app = console((120, 40));
    app.update(Action::Stats(stats()));
    let mut detail = detail();
    detail.rule_hits = vec![0; detail.rule_hits.len()];
    app.update(Action::Detail(Box::new(detail)));
    let shown = screen(&app);
    assert!(!shown.contains("no hits yet"), "{shown}");
    assert!(!shown.contains("has matched none"), "{shown}");
    app.update(Action::Stats(Stats {
        discovered: stats().discovered + 1,
        ..stats()
    }));
    let shown = screen(&app);
    assert!(shown.contains("no hits yet"), "{shown}");
    assert!(
        shown.contains("has matched none of the URLs met since it took effect"),
        "{shown}"
    );
}

/// While the log's text filter is typed, the hint line names the keys of
/// the input, not the view's (which would be typed into it).
#[test]
fn the_hint_line_follows_the_text_input() {
    let mut app = app((100, 30));
    log_view(&mut app, 0);
    assert!(screen(&app).contains("s state · Q queue · / text"));
    key(&mut app, '/');
    let shown = screen(&app);
    assert!(
        shown.contains("typing a text filter (regex): Enter applies · Esc cancels"),
        "{shown}"
    );
}
