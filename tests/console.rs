//! The console end to end: the real binary in a real terminal (tmux), keys
//! sent with `send-keys`, the screen read with `capture-pane`. A rule edit
//! made in the console must change the running crawl: a URL the new rule
//! excludes shows in the log view as excluded by that rule.
//!
//! Needs tmux. Without it the test says so and passes, unless
//! `CRAWLSPACE_REQUIRE_TMUX` is set (`.ci/run` sets it after installing
//! tmux), so that CI cannot skip it silently.

use std::process::Command;
use std::time::{Duration, Instant};

/// One console test at a time: two demos crawling at once on two cores
/// would slow each other's (the rule test needs its pause to land before
/// the crawl reaches the calendar).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A tmux session running one command, killed on drop.
struct Tmux {
    name: String,
}

impl Tmux {
    /// `test` tells apart the sessions of tests run at once.
    fn start(test: &str, command: &str) -> Tmux {
        let name = format!("crawlspace-{test}-{}", std::process::id());
        let ok = Command::new("tmux")
            .args([
                "new-session",
                "-d",
                "-s",
                &name,
                "-x",
                "120",
                "-y",
                "40",
                command,
            ])
            .status()
            .expect("tmux runs")
            .success();
        assert!(ok, "tmux new-session failed");
        Tmux { name }
    }

    fn keys(&self, keys: &[&str]) {
        for k in keys {
            let ok = Command::new("tmux")
                .args(["send-keys", "-t", &self.name, k])
                .status()
                .expect("tmux send-keys")
                .success();
            assert!(ok, "send-keys {k}");
        }
    }

    /// Typed literally (no key names).
    fn type_text(&self, text: &str) {
        let ok = Command::new("tmux")
            .args(["send-keys", "-l", "-t", &self.name, text])
            .status()
            .expect("tmux send-keys")
            .success();
        assert!(ok, "send-keys -l {text}");
    }

    fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["capture-pane", "-p", "-t", &self.name])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until the screen shows what `ready` looks for (polling the
    /// terminal, the only way to observe it), or fails with the screen.
    fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let screen = self.screen();
            if ready(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.name])
            .status();
    }
}

fn tmux_available() -> bool {
    let found = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CRAWLSPACE_REQUIRE_TMUX").is_none(),
            "CRAWLSPACE_REQUIRE_TMUX is set but tmux is not installed"
        );
        eprintln!("tmux is not installed: the console end-to-end test did not run");
    }
    found
}

#[test]
fn a_rule_added_in_the_console_changes_the_running_crawl() {
    if !tmux_available() {
        return;
    }
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("temp dir");
    let bin = env!("CARGO_BIN_EXE_crawlspace");
    // TMPDIR keeps the demo's folder inside the test's own.
    let command = format!(
        "TMPDIR={} {bin} demo; echo EXITED $?; sleep 30",
        dir.path().display()
    );
    let tmux = Tmux::start("rule", &command);
    tmux.wait_for("the console", |s| {
        s.contains("1 Rules") && s.contains("CRAWLING")
    });
    // Pause first, so that the edit lands while most of the site is queued.
    tmux.keys(&["p"]);
    tmux.wait_for("the pause", |s| s.contains("PAUSED"));

    // A new rule: name it, then exclude the 2025 calendar pages.
    tmux.keys(&["G", "n"]);
    tmux.wait_for("the rule form", |s| s.contains("Enter keep"));
    tmux.keys(&["BTab", "BTab", "BTab", "C-u"]);
    tmux.type_text("no 2025 calendar");
    tmux.keys(&["Tab", "Tab", "Tab"]);
    tmux.type_text("/calendar/2025/");
    tmux.wait_for("a valid rule", |s| s.contains("✓ valid"));
    tmux.keys(&["Enter"]);
    tmux.wait_for("the edited list", |s| {
        s.contains("no 2025 calendar") && s.contains("EDITED")
    });
    // What-if, then apply; the rules file is saved.
    tmux.keys(&["c"]);
    tmux.wait_for("the what-if", |s| s.contains("logged URLs compared"));
    tmux.keys(&["y"]);
    // The message, or the file itself: the message stays 8 seconds, which
    // a machine loaded enough can let pass between two looks at the screen.
    let demo_config = || {
        std::fs::read_dir(dir.path())
            .ok()?
            .flatten()
            .map(|e| e.path().join("demo.toml"))
            .find(|p| p.exists())
    };
    let saved_with_the_rule = || {
        demo_config()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .is_some_and(|text| text.contains("no 2025 calendar"))
    };
    tmux.wait_for("the save", |s| {
        s.contains("rules saved in") || saved_with_the_rule()
    });
    tmux.keys(&["p"]);

    // The log view, filtered to the 2025 calendar: excluded by the new rule.
    tmux.keys(&["3", "/"]);
    tmux.type_text("calendar/2025/");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("a 2025 calendar page excluded by the new rule", |s| {
        s.lines()
            .any(|l| l.contains("/calendar/2025/") && l.contains("filtered"))
            && s.contains("no 2025 calendar")
    });
    assert!(screen.contains("excluded by rule"), "{screen}");

    // The saved rules file has the rule.
    let saved = std::fs::read_dir(dir.path())
        .expect("temp dir")
        .flatten()
        .map(|e| e.path().join("demo.toml"))
        .find(|p| p.exists())
        .expect("the demo's config");
    let text = std::fs::read_to_string(saved).expect("read");
    assert!(
        text.contains("name = \"no 2025 calendar\"")
            && text.contains("prefix = \"/calendar/2025/\""),
        "{text}"
    );
    // The config's section comments above its rules are still there.
    assert!(
        text.contains("# ---- What to do with what is left: the last setting wins."),
        "{text}"
    );

    // q quits cleanly: the terminal is given back and the summary printed.
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("the exit", |s| s.contains("EXITED"));
    assert!(screen.contains("EXITED 0"), "{screen}");
}

/// A plain `kill` (SIGTERM) of the console ends it at once, without the
/// question unsaved edits make `q` ask: the terminal is given back, the
/// crawl stops and writes its log, and the summary is printed.
#[test]
fn sigterm_ends_the_console_and_stops_the_crawl_cleanly() {
    if !tmux_available() {
        return;
    }
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("temp dir");
    let bin = env!("CARGO_BIN_EXE_crawlspace");
    let pid_file = dir.path().join("pid");
    let command = format!(
        "sh -c 'echo $$ > {}; TMPDIR={} exec {bin} demo'; echo EXITED $?; sleep 30",
        pid_file.display(),
        dir.path().display()
    );
    let tmux = Tmux::start("term", &command);
    tmux.wait_for("the console", |s| {
        s.contains("1 Rules") && s.contains("CRAWLING")
    });
    // An edit not applied: `q` would ask about it.
    tmux.keys(&["x"]);
    tmux.wait_for("the edit", |s| s.contains("EDITED"));
    let pid = std::fs::read_to_string(&pid_file).expect("pid");
    let killed = Command::new("kill")
        .args(["-TERM", pid.trim()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let screen = tmux.wait_for("the exit", |s| s.contains("EXITED"));
    assert!(screen.contains("EXITED 0"), "{screen}");
    assert!(screen.contains("crawl stopped with"), "{screen}");
    assert!(!screen.contains("1 Rules"), "the console is gone: {screen}");
}

/// What the crawl has to say beside its counts (here: the log's record of
/// its last run's rules does not read) is shown on the console's message
/// line, not written over its views, and printed once the terminal is
/// given back, so that it outlives the console.
#[test]
fn a_crawl_notice_shows_on_the_message_line_and_is_printed_after() {
    if !tmux_available() {
        return;
    }
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("db");
    {
        let log = crawlspace::store::UrlLog::open(&db, 16 << 20).expect("log");
        log.set_rules_seen("[[rules]\nname = ").expect("write");
        log.flush().expect("flush");
    }
    // A server that takes connections and never answers: the crawl
    // stays under way (its end would put its own message on the line).
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = silent.local_addr().expect("address").port();
    let config = dir.path().join("crawl.toml");
    std::fs::write(
        &config,
        format!("[crawl]\nstart = [\"http://127.0.0.1:{port}/\"]\n"),
    )
    .expect("config");
    let bin = env!("CARGO_BIN_EXE_crawlspace");
    let command = format!(
        "{bin} crawl --config {} --db {} --out {}; echo EXITED $?; sleep 30",
        config.display(),
        db.display(),
        dir.path().join("out").display()
    );
    let tmux = Tmux::start("notice", &command);
    let screen = tmux.wait_for("the notice", |s| {
        s.contains("notice 1 (printed again on exit): ")
    });
    assert!(
        screen.contains("the rules of the log's last run do not read"),
        "{screen}"
    );
    assert!(
        !screen.contains("crawlspace: the rules"),
        "not printed over the console: {screen}"
    );
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("the exit", |s| s.contains("EXITED"));
    assert!(
        screen.contains("crawlspace: the rules of the log's last run do not read"),
        "{screen}"
    );
    assert!(!screen.contains("1 Rules"), "the console is gone: {screen}");
}
