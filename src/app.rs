//! Wiring: turns a command into a running crawl (settings, rules, URL log,
//! engine, progress display, Ctrl-C, rules-file watching) and the `log`
//! command into a listing. The only module that knows every other one.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::mpsc;

mod listing;
#[cfg(unix)]
mod log_socket;

pub use listing::{ListingRequest, Source, WRITE_FAILED, write_listing};
#[cfg(unix)]
pub use log_socket::{LogServer, SOCKET_FILE};

use crate::cli::disabled_warnings;
use crate::config::Config;
use crate::crawl::engine::{
    Control, Engine, Event, NewRules, Plan, StartError, Stats, check_start, check_start_addresses,
};
use crate::crawl::notices::Notices;
use crate::rules::CompiledRules;
use crate::rules::compile::Disabled;
use crate::rules::dialect::{Dialect, DialectChoice, parse_text};
use crate::rules::model::RuleSet;
use crate::store::{ErrorClass, Migration, Query, State, UrlLog, UrlRecord};
use crate::text::{shell_path, shown_path};
use crate::tui::save::SaveTarget;

/// The URL log's page cache (sled's own default is about 1 GiB).
const LOG_CACHE_BYTES: u64 = 64 << 20;

/// What the user asked a crawl to do.
#[derive(Debug, Clone)]
pub struct CrawlRequest {
    pub config_file: String,
    pub config_text: String,
    pub db: Option<PathBuf>,
    pub out: Option<PathBuf>,
    pub headless: bool,
    /// Re-read the config file's rules when it changes on disk.
    pub watch: bool,
    /// Re-fetch the URLs already in the log (`--refresh`, SPEC §2.4).
    pub refresh: bool,
    /// Running the same command again resumes a stopped crawl (not the
    /// demo's: its site ends with the process).
    pub resumable: bool,
}

/// A failure before or during the crawl, with the exit status it means.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    Input(String),
    #[error("{0}")]
    Runtime(String),
}

impl AppError {
    pub fn status(&self) -> u8 {
        match self {
            AppError::Input(_) => 2,
            AppError::Runtime(_) => 1,
        }
    }
}

/// Loads settings and rules from one native config file.
fn load(file: &str, text: &str) -> Result<(Config, RuleSet, CompiledRules), AppError> {
    let config = Config::from_toml(file, text).map_err(|e| AppError::Input(e.to_string()))?;
    let loaded = parse_text(file, text, DialectChoice::Given(Dialect::Native))
        .map_err(|e| AppError::Input(e.to_string()))?;
    let rules = CompiledRules::new(&loaded.parsed.rules);
    for warning in disabled_warnings(file, &rules) {
        eprintln!("{warning}");
    }
    Ok((config, loaded.parsed.rules, rules))
}

/// One line on stderr as an older URL log is rebuilt in the current
/// layout on open: it rewrites the log for good (older builds refuse it
/// afterwards), even for a command that only reads, and can take seconds.
fn report_migration(db: &Path, step: Migration) {
    match step {
        Migration::Started { from, to } => eprintln!(
            "crawlspace: {}: migrating the URL log from key layout {from} to {to} \
             (one way: older builds will not open it)...",
            shown_path(db)
        ),
        Migration::Finished { to, .. } => {
            eprintln!(
                "crawlspace: {}: URL log migrated to key layout {to}",
                shown_path(db)
            )
        }
    }
}

/// Runs a crawl to the end (or Ctrl-C) and prints its summary.
pub fn crawl(request: CrawlRequest) -> Result<Stats, AppError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| AppError::Runtime(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(crawl_async(request))
}

/// `:N`, the line of the config `text` that holds the start URL `url` as
/// written (quoted), else the line of its `start` key; empty when neither
/// is found (a start list spread oddly).
pub(crate) fn start_line(text: &str, url: &str) -> String {
    let quoted = |line: &str| {
        !url.is_empty()
            && (line.contains(&format!("\"{url}\"")) || line.contains(&format!("'{url}'")))
    };
    let found = text.lines().position(quoted).map(|i| i + 1);
    let found = found.or_else(|| crate::rules::dialect::native::line_of_key(text, "start"));
    found.map(|line| format!(":{line}")).unwrap_or_default()
}

/// Folders a crawl cannot use are refused before it starts (exit status
/// 2), rather than found page by page: a log path that is a file, and a
/// mirror folder that cannot be made or written, which would otherwise
/// let a crawl "finish" with every page unsaved. The mirror's folder is
/// made now, saving or not.
/// Where `path` leads: absolute, `.` and `..` applied, and the part that
/// exists with its symbolic links followed (the rest may not exist yet).
fn resolved(path: &Path) -> PathBuf {
    use std::path::Component;
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut lexical = PathBuf::new();
    for part in absolute.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                lexical.pop();
            }
            other => lexical.push(other),
        }
    }
    // The longest part that exists, canonical, and the rest after it.
    let mut rest = Vec::new();
    let mut existing = lexical.as_path();
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return lexical,
        }
    }
}

fn check_folders(db: &Path, out: &Path) -> Result<(), AppError> {
    // One inside the other would mix the mirror's host folders with the
    // log's own files (a host named `db` or `conf` would write over them).
    let (db_at, out_at) = (resolved(db), resolved(out));
    if out_at.starts_with(&db_at) || db_at.starts_with(&out_at) {
        return Err(AppError::Input(format!(
            "the URL log's folder {} and the mirror's folder {} must be apart, neither inside the other \
             (--db or [crawl] db, --out or [crawl] out)",
            db.display(),
            out.display()
        )));
    }
    if db.exists() && !db.is_dir() {
        return Err(AppError::Input(format!(
            "{}: not a folder (the URL log is a folder: --db or [crawl] db)",
            db.display()
        )));
    }
    // sled writes its `conf`, `db` and `blobs` into the folder it is
    // given: in a folder of other files it would overwrite a file of those
    // names and leave its own among the user's.
    // What a file manager leaves in a folder it showed (macOS's
    // `.DS_Store`, Windows' `Thumbs.db`, `desktop.ini`) does not make it
    // another program's: sled writes no file of those names.
    let left_by_a_file_manager = |name: &std::ffi::OsStr| {
        matches!(
            name.to_str(),
            Some(".DS_Store" | "Thumbs.db" | "desktop.ini")
        )
    };
    let holds_other_files = std::fs::read_dir(db).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|entry| !left_by_a_file_manager(&entry.file_name()))
    });
    if holds_other_files && !UrlLog::exists_in(db) {
        return Err(AppError::Input(format!(
            "{}: this folder holds other files and no URL log; the log needs a folder of its own \
             (a new or an empty one: --db or [crawl] db)",
            db.display()
        )));
    }
    let unusable = |e: std::io::Error| {
        AppError::Input(format!(
            "{}: the mirror's folder (--out or [crawl] out) cannot be written: {e}",
            out.display()
        ))
    };
    std::fs::create_dir_all(out).map_err(unusable)?;
    let probe = out.join(format!(".crawlspace-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(unusable)?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// The console was asked for without a terminal; `headless` is the
/// command that does the same without it (the default command has no
/// `--headless` of its own).
fn no_terminal(headless: &str) -> AppError {
    AppError::Input(format!(
        "the console needs a terminal: `{headless}` crawls without it"
    ))
}

async fn crawl_async(request: CrawlRequest) -> Result<Stats, AppError> {
    outlive_file_size_limits();
    let (config, rule_set, rules) = load(&request.config_file, &request.config_text)?;
    // The console needs a terminal; checked before anything is opened.
    if !request.headless && !std::io::stdout().is_terminal() {
        // The same crawl: its options as given, quoted for the shell.
        let mut command = format!(
            "crawlspace crawl --config {} --headless",
            crate::text::shell_word(&request.config_file)
        );
        for (option, path) in [("--db", &request.db), ("--out", &request.out)] {
            if let Some(path) = path {
                command.push_str(&format!(" {option} {}", shell_path(path)));
            }
        }
        if request.refresh {
            command.push_str(" --refresh");
        }
        return Err(no_terminal(&command));
    }
    // Every start URL is checked, so that one run names all those refused:
    // each but the last on stderr, the last as the error (exit status 2).
    let mut refusals: Vec<String> = Vec::new();
    let mut start = Vec::new();
    for text in &config.crawl.start {
        let at = start_line(&request.config_text, text);
        let refused = |e: StartError| format!("{}{at}: {e}", request.config_file);
        match check_start(&rules, std::slice::from_ref(text)) {
            // Address rules wait for DNS: the start hosts are resolved for them.
            Ok(url) => match check_start_addresses(&rules, &url, &config.crawl).await {
                Ok(()) => start.extend(url),
                Err(StartError::Fetch(e)) => {
                    for refusal in &refusals {
                        eprintln!("crawlspace: {}", crate::cli::escape_control(refusal));
                    }
                    return Err(AppError::Runtime(e.to_string()));
                }
                Err(e) => refusals.push(refused(e)),
            },
            Err(e) => refusals.push(refused(e)),
        }
    }
    if let Some(last) = refusals.pop() {
        for refusal in refusals {
            eprintln!("crawlspace: {}", crate::cli::escape_control(&refusal));
        }
        return Err(AppError::Input(last));
    }
    if start.is_empty() {
        return Err(AppError::Input(format!(
            "{}{}: [crawl] start lists no URL to begin with",
            request.config_file,
            start_line(&request.config_text, "")
        )));
    }
    let db = request
        .db
        .clone()
        .unwrap_or_else(|| config.crawl.db.clone());
    let out = request
        .out
        .clone()
        .unwrap_or_else(|| config.crawl.out.clone());
    // A refresh re-fetches what a log holds: without one it would quietly
    // be a first crawl (a mistyped --db, say).
    if request.refresh && !UrlLog::exists_in(&db) {
        return Err(AppError::Input(format!(
            "{}: no URL log here to refresh (--refresh re-fetches what an earlier crawl \
             logged: crawl first, or name that crawl's --db)",
            db.display()
        )));
    }
    check_folders(&db, &out)?;
    let log = UrlLog::open_reporting(&db, LOG_CACHE_BYTES, &mut |m| report_migration(&db, m))
        .map_err(|e| AppError::Runtime(format!("{}: {e}", db.display())))?;
    let log = Arc::new(log);
    // A refresh pass already begun in this log (stopped, now resumed): its
    // counts are this run's, its deletions the whole pass's.
    let resumed_refresh = request.refresh && log.refresh_since().ok().flatten().is_some();
    // `crawlspace log` in another terminal reads the log through this.
    #[cfg(unix)]
    let (_readers, no_readers) = match LogServer::start(&db, &log) {
        Ok(server) => (Some(server), None),
        Err(e) => (
            None,
            Some(format!(
                "`crawlspace log` cannot read {} while this crawl runs: {e}",
                db.display()
            )),
        ),
    };
    #[cfg(not(unix))]
    let no_readers: Option<String> = None;
    // Headless, said at once; the console says it on its message line.
    if let (Some(warning), true) = (&no_readers, request.headless) {
        let _ = writeln!(std::io::stderr(), "crawlspace: {warning}");
    }
    let q = config.queues;
    let plan = Plan {
        settings: config.crawl.clone(),
        weights: q.in_order(),
        start,
        out: out.clone(),
    };
    let weights = plan.weights;
    let user_agent = plan.settings.user_agent.clone();
    // Held for the progress line or the console, which print them where
    // they do not garble the display.
    let notices = Arc::new(Notices::held());
    let engine = Engine::new(plan, log.clone(), Arc::new(rules))
        .map_err(|e| AppError::Runtime(e.to_string()))?
        .with_notices(notices.clone())
        .with_refresh(request.refresh)
        .with_rules_text(crate::crawl::engine::native_text(&rule_set));
    // Progress events: a few a second; the engine drops one rather than wait.
    let (event_tx, event_rx) = mpsc::channel(16);
    // Commands to the engine: Ctrl-C, a changed rules file, the console.
    let (control_tx, control_rx) = crate::crawl::engine::control_channel(16);
    let stats = if request.headless {
        let stopper = control_tx.clone();
        let said = notices.clone();
        tokio::spawn(async move {
            let signal = termination().await;
            // Said before the stop, so that it comes before the crawl's end,
            // which ends the progress line's printing.
            said.push(&format!("{signal}: stopping the crawl and writing its log"));
            let _ = stopper.send(Control::Stop).await;
        });
        if request.watch {
            tokio::spawn(watch_rules(
                request.config_file.clone(),
                rule_set.clone(),
                control_tx.clone(),
                notices.clone(),
            ));
        }
        let printer = tokio::spawn(show_progress(event_rx, notices.clone()));
        let ran = engine
            .run(event_tx, control_rx, Duration::from_millis(250))
            .await;
        // The printer ends with the crawl's events; what it had not
        // printed by then (a crawl that could not go on, a rules file saved
        // as it ended) goes out here, before any error or summary.
        let seen = printer.await.unwrap_or(0);
        print_notices(&notices, seen);
        ran.map_err(|e| AppError::Runtime(e.to_string()))?
    } else {
        let crawl = tokio::spawn(engine.run(event_tx, control_rx, Duration::from_millis(100)));
        let save = SaveTarget::for_config(Path::new(&request.config_file), &request.config_text);
        let mut app = crate::tui::app::App::new(user_agent, rule_set, save, weights);
        // Shown as a command to paste: quoted as the shell needs.
        app.log.dir = Some(shell_path(&db));
        app.start_urls = config.crawl.start.clone();
        app.explain.limits = Some(crate::cli::DepthLimits {
            link: config.crawl.max_link_depth,
            path: config.crawl.max_path_depth,
        });
        app.message = no_readers;
        let console = crate::tui::Console {
            app,
            log: log.clone(),
            control: control_tx.clone(),
            events: event_rx,
            notices: notices.clone(),
        };
        let shown = crate::tui::run(console).await;
        // Quitting the console stops the crawl; it flushes the log on its way out.
        let _ = control_tx.send(Control::Stop).await;
        let ran = crawl.await;
        // The console showed each on its message line; here they stay,
        // also when the crawl could not go on.
        print_notices(&notices, 0);
        let stats = ran
            .map_err(|e| AppError::Runtime(format!("the crawl task failed: {e}")))?
            .map_err(|e| AppError::Runtime(e.to_string()))?;
        shown.map_err(|e| AppError::Runtime(format!("the console: {e}")))?;
        stats
    };
    // A log that failed during the crawl is said in the summary below,
    // which must not be lost to its flush failing again.
    if stats.log_error.is_none() {
        log.flush()
            .map_err(|e| AppError::Runtime(format!("{}: {e}", db.display())))?;
    }
    // Written, not printed: stdout may be gone (a closed terminal, a
    // closed pipe), and the crawl's log is what matters by now.
    let mut stdout = std::io::stdout();
    let _ = writeln!(
        stdout,
        "{}",
        summary(
            &stats,
            &db,
            &out,
            Closing {
                resumable: request.resumable,
                refresh: request.refresh,
                temporary_errors: stats.errors > 0 && any_temporary_error(&log),
            }
        )
    );
    if request.refresh {
        let pass = if resumed_refresh {
            " (a resumed pass: the counts above are this run's)"
        } else {
            ""
        };
        let _ = writeln!(
            stdout,
            "refresh: {} deleted in the log{pass}   (crawlspace log --db {} --state deleted)",
            crate::text::counted(log.counts().deleted, "URL", "URLs"),
            shell_path(&db)
        );
        if stats.unrefreshed > 0 {
            let _ = writeln!(
                stdout,
                "         {} not refreshed, {} kept   (crawlspace log --db {} --grep 'refresh failed')",
                crate::text::counted(stats.unrefreshed, "URL", "URLs"),
                if stats.unrefreshed == 1 {
                    "its copy"
                } else {
                    "their copies"
                },
                shell_path(&db)
            );
        }
    }
    // The summary said it; the exit status says it to a script.
    if let Some(error) = &stats.log_error {
        return Err(AppError::Runtime(format!(
            "{}: the URL log could not be written: {error}",
            shown_path(&db)
        )));
    }
    Ok(stats)
}

/// A write past a file size limit (`ulimit -f`) raises SIGXFSZ, whose
/// default kills the process: no summary, the log's socket left behind.
/// Listened for (tokio's handler stays for the life of the process, and
/// does nothing with it), the write fails with EFBIG instead, which the
/// crawl reports and stops on as on a full disk (README: *When the log
/// cannot be written*). Within the runtime.
fn outlive_file_size_limits() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        // The handler is installed by `signal` and stays when the stream
        // is dropped: nothing need listen.
        let _ = signal(SignalKind::from_raw(libc::SIGXFSZ));
    }
}

/// Waits for a request to stop: Ctrl-C (SIGINT), and on Unix SIGTERM (a
/// plain `kill`, a service manager), so that either stops the crawl as
/// Ctrl-C does, its log written and its socket removed. Returns what
/// arrived. SIGHUP is left alone: `nohup` sets it ignored, and listening
/// would undo that (a hang-up kills the crawl, which resumes from its log
/// as after `kill -9`). A signal that cannot be listened for is left at
/// its default.
pub async fn termination() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let term = async {
            match signal(SignalKind::terminate()) {
                Ok(mut term) => {
                    term.recv().await;
                }
                Err(_) => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => "interrupted",
            _ = term => "terminated (SIGTERM)",
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        "interrupted"
    }
}

/// Re-reads the rules when the config file changes on disk and hands them
/// to the running crawl; a file that does not parse, or that holds a rule
/// a regex which does not compile would switch off, is reported and the
/// rules in force stay. A file saved with the rules in force (an editor's
/// save with no change, a fix that restores them after a broken version,
/// a changed setting) is said to leave them as they are, and not applied
/// again: that would re-judge the whole queue for nothing.
///
/// A change is read once the file has kept the same time for a whole tick,
/// so that a file caught while it is being written is not taken for the
/// new rules; an empty file (a save that truncates first, caught in
/// between) is never taken for "no rules": the rules in force stay.
fn watch_rules(
    file: String,
    mut in_force: RuleSet,
    control: crate::crawl::engine::ControlSender,
    notices: Arc<Notices>,
) -> impl std::future::Future<Output = ()> {
    let modified = |f: &str| std::fs::metadata(f).and_then(|m| m.modified()).ok();
    // The file's time when called, not when the task first runs: a change
    // saved once the crawl has started is never taken for the start.
    let mut last: Option<SystemTime> = modified(&file);
    // Rules a regex that does not compile switches off (SPEC §1.3). One
    // the running crawl had already is left to it; a save that would
    // switch off one more is not applied: a typo in a filter saved mid-edit
    // would otherwise let the crawl through it until the next save.
    // Each broken rule by its name, condition and effects: a new rule with
    // the condition of one already broken, or a broken rule made a filter,
    // is a new one.
    let broken =
        |compiled: &CompiledRules| -> std::collections::BTreeSet<(String, String, String)> {
            compiled
                .disabled()
                .filter(|info| matches!(info.disabled, Some(Disabled::Broken(_))))
                .map(|info| {
                    (
                        info.name.clone(),
                        info.condition.clone(),
                        info.effects.clone(),
                    )
                })
                .collect()
        };
    let mut broken_in_force = broken(&CompiledRules::new(&in_force));
    async move {
        let mut ticker = tokio::time::interval(Duration::from_secs(1));
        let mut settling = false;
        loop {
            ticker.tick().await;
            let now = modified(&file);
            if now != last {
                (last, settling) = (now, true);
                continue;
            }
            if !std::mem::take(&mut settling) {
                continue;
            }
            let Ok(bytes) = std::fs::read(&file) else {
                continue;
            };
            let text = match crate::rules::dialect::decode(&file, &bytes) {
                Ok(text) => text,
                Err(e) => {
                    notices.push(&format!(
                        "{} (the rules in force stay)",
                        crate::cli::escape_control(&e.to_string())
                    ));
                    continue;
                }
            };
            if text.trim().is_empty() {
                notices.push(&format!(
                    "{file} changed: it is empty (the rules in force stay)"
                ));
                continue;
            }
            match parse_text(&file, &text, DialectChoice::Given(Dialect::Native)) {
                Ok(loaded) if loaded.parsed.rules == in_force => {
                    notices.push(&format!(
                        "{file} changed: its rules are those in force, nothing to apply"
                    ));
                }
                Ok(loaded) => {
                    let set = &loaded.parsed.rules;
                    let compiled = CompiledRules::new(set);
                    let now_broken = broken(&compiled);
                    if !now_broken.is_subset(&broken_in_force) {
                        notices.push(&format!(
                            "{file} changed: not applied, the rules in force stay: \
                             a rule in it does not compile (below); fix it, or switch it off \
                             with `enabled = false`, and save again"
                        ));
                        for warning in disabled_warnings(&file, &compiled) {
                            notices.push_line(warning);
                        }
                        continue;
                    }
                    notices.push(&format!(
                        "{file} changed: new rules applied to the running crawl"
                    ));
                    // As at the start: a rule switched off by a regex that
                    // does not compile must not pass unnoticed.
                    for warning in disabled_warnings(&file, &compiled) {
                        notices.push_line(warning);
                    }
                    let rules = NewRules::new(set, Arc::new(compiled));
                    if control.send(Control::Rules(rules)).await.is_err() {
                        return;
                    }
                    in_force = loaded.parsed.rules;
                    broken_in_force = now_broken;
                }
                Err(e) => notices.push(&format!(
                    "{} (the rules in force stay)",
                    crate::cli::escape_control(&e.to_string())
                )),
            }
        }
    }
}

/// A live line on a terminal; a plain line every few seconds otherwise.
/// Returns how many notices it printed.
async fn show_progress(mut events: mpsc::Receiver<Event>, notices: Arc<Notices>) -> usize {
    let terminal = std::io::stderr().is_terminal();
    let bar = terminal.then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    });
    // Each notice above the live line, which a plain `eprintln!` would
    // have run into.
    let mut seen = 0;
    let say = |lines: Vec<String>| {
        for line in lines {
            match &bar {
                Some(bar) => bar.println(line),
                None => {
                    let _ = writeln!(std::io::stderr(), "{line}");
                }
            }
        }
    };
    let mut last_line = Instant::now();
    while let Some(event) = events.recv().await {
        say(notices.take_new(&mut seen));
        match event {
            Event::Stats(stats) => {
                let line = progress_line(&stats);
                match &bar {
                    Some(bar) => bar.set_message(line),
                    None if last_line.elapsed() >= Duration::from_secs(2) => {
                        last_line = Instant::now();
                        let _ = writeln!(std::io::stderr(), "{line}");
                    }
                    None => {}
                }
            }
            Event::Detail(_) => {}
            Event::Finished(_) => break,
        }
    }
    say(notices.take_new(&mut seen));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    seen
}

/// Prints on stderr the notices after the first `seen`, and how many
/// more were not kept.
fn print_notices(notices: &Notices, mut seen: usize) {
    let mut stderr = std::io::stderr();
    for line in notices
        .take_new(&mut seen)
        .into_iter()
        .chain(notices.more_line())
    {
        let _ = writeln!(stderr, "{line}");
    }
}

/// A refresh's pages found gone and those it could not fetch, each as
/// `one(count, what)` when there are any: not errors, as the log has them
/// (it says deleted, or keeps the page and its copy as they were).
fn refresh_counts(s: &Stats, one: impl Fn(u64, &str) -> String) -> String {
    let mut text = String::new();
    if s.deleted > 0 {
        text += &one(s.deleted, "deleted");
    }
    if s.unrefreshed > 0 {
        text += &one(s.unrefreshed, "not refreshed");
    }
    text
}

fn progress_line(s: &Stats) -> String {
    format!(
        "fetched {}  saved {}{}  queued {}  in flight {}  filtered {}{}  errors {}{}  {:.1} pages/s  {}s{}{}",
        s.fetched,
        s.saved,
        match s.unsaved {
            0 => String::new(),
            n => format!("  NOT SAVED {n}"),
        },
        s.queued,
        s.in_flight,
        s.filtered,
        s.unlogged_note(),
        s.errors,
        refresh_counts(s, |count, what| format!("  {what} {count}")),
        s.rate(),
        s.elapsed.as_secs(),
        if s.paused { "  (paused)" } else { "" },
        match s.waiting {
            // Rounded up: "in 0 s" for a wait still under way would read
            // as stuck.
            Some(wait) if wait >= Duration::from_secs(1) => format!(
                "  (next request in {} s: a backoff after errors, a retry or a delay)",
                wait.as_secs() + 1
            ),
            _ => String::new(),
        }
    )
}

/// What the closing lines of a crawl may point at.
#[derive(Debug, Clone, Copy)]
struct Closing {
    /// The same command resumes the crawl (not `demo`, which serves its
    /// site on a new port each time).
    resumable: bool,
    /// A refresh pass: the URLs it met are new ones.
    refresh: bool,
    /// Some URL of the log ended on a temporary error, which `--refresh`
    /// asks again ([`any_temporary_error`]).
    temporary_errors: bool,
}

/// Whether some URL of `log` ended on a temporary error. Reads the error
/// records up to the first temporary one (all of them when there is none);
/// a log that cannot be read says no.
fn any_temporary_error(log: &UrlLog) -> bool {
    let query = Query {
        state: Some(State::Error),
        ..Query::default()
    };
    let mut after = None;
    while let Ok(page) = log.page(&query, after, 500) {
        let Some((last, _)) = page.last() else {
            return false;
        };
        after = Some(*last);
        let temporary = |(_, record): &(u64, UrlRecord)| {
            record
                .error
                .as_ref()
                .is_some_and(|e| e.class == ErrorClass::Temporary)
        };
        if page.iter().any(temporary) {
            return true;
        }
    }
    false
}

/// The closing lines of a crawl. One stopped before its queue ran dry says
/// how much is left, and how to go on with it.
fn summary(s: &Stats, db: &Path, out: &Path, closing: Closing) -> String {
    let Closing {
        resumable,
        refresh,
        temporary_errors,
    } = closing;
    let left = s.queued + s.in_flight;
    let (ended, resume) = if let Some(error) = &s.log_error {
        // The counts are the engine's. sled writes to disk in the
        // background, so the failure may show after transactions that
        // never reached the disk: the log that opens next can hold less,
        // and a resume goes on from what it holds.
        let again = if resumable {
            "\nresume:  once the log can be written (free space, a lifted limit), run the same \
             command again: it goes on from what the log kept on disk (the counts above may \
             run ahead of it), fetching again what the log lost"
        } else {
            "\n         the counts above may run ahead of what the log kept on disk"
        };
        (
            "STOPPED: the URL log could not be written, after".to_string(),
            format!("\nURL log: {}{again}", crate::cli::escape_control(error)),
        )
    } else if left == 0 {
        ("finished in".to_string(), String::new())
    } else if resumable {
        (
            format!(
                "stopped with {} still queued, after",
                crate::text::counted(left, "URL", "URLs")
            ),
            "\nresume:  run the same command again: the URL log keeps the queue".to_string(),
        )
    } else {
        (
            format!(
                "stopped with {} still queued, after",
                crate::text::counted(left, "URL", "URLs")
            ),
            String::new(),
        )
    };
    // What the rate leaves out, when there is any.
    let mut notes = Vec::new();
    if s.paused_for.as_secs_f64() >= 0.1 {
        notes.push(format!("{:.1}s of it paused", s.paused_for.as_secs_f64()));
    }
    if s.done_before > 0 {
        let pages = crate::text::counted(s.done_before, "page", "pages");
        notes.push(format!("{pages} fetched before this run"));
    }
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join("; "))
    };
    // What changed rules did, during the crawl or since the last run on
    // this log: otherwise a URL fetched or filtered "out of turn" is a
    // surprise found only in its trace.
    let rules = if s.queued_by_new_rules + s.dropped_by_new_rules > 0 {
        format!(
            "\nrules:   changed: {} filtered {} queued again, {} queued {} filtered \
             (their traces say which rules)",
            s.queued_by_new_rules,
            if s.queued_by_new_rules == 1 {
                "URL"
            } else {
                "URLs"
            },
            s.dropped_by_new_rules,
            if s.dropped_by_new_rules == 1 {
                "URL"
            } else {
                "URLs"
            },
        )
    } else {
        String::new()
    };
    // A refresh re-fetches known URLs: the URLs it met are new ones.
    let (one, many) = if refresh {
        ("new URL", "new URLs")
    } else {
        ("URL", "URLs")
    };
    let deleted = refresh_counts(s, |count, what| match what {
        "not refreshed" => {
            format!(", {count} {what} (temporary errors: the log keeps their copies)")
        }
        _ => format!(", {count} {what}"),
    });
    // Pages the mirror could not write are not errors of the crawl (the
    // log has them as fetched), but nothing a summary may leave out.
    let unsaved = match (&s.first_unsaved, s.unsaved) {
        (Some(first), n) if n > 0 => format!(
            "\nNOT SAVED: {} the rules save, which the mirror could not write \
             (the first: {}); their records say so. Once it can write, `--refresh` \
             with the same command fetches and saves them",
            crate::text::counted(n, "page", "pages"),
            crate::cli::escape_control(first)
        ),
        _ => String::new(),
    };
    // Saved pages keep their server's links until converted.
    let browse = if s.saved > 0 {
        format!(
            "   (to browse it offline: crawlspace convert-links --db {})",
            shell_path(db)
        )
    } else {
        String::new()
    };
    // Where the errors are, and that running the same command again does
    // not ask for them again: a refresh does, for the temporary ones.
    let errors = match (s.errors, resumable && temporary_errors) {
        (0, _) => String::new(),
        (_, true) => format!(
            "\nerrors:  crawlspace log --db {} --state error; those given up after temporary \
             errors (a server or its robots.txt down) are asked again by `--refresh`",
            shell_path(db)
        ),
        // `demo` (no command of its own runs again), or only permanent
        // errors, which a refresh would not ask again.
        (_, false) => format!(
            "\nerrors:  crawlspace log --db {} --state error",
            shell_path(db)
        ),
    };
    format!(
        "crawl {ended} {:.1}s{notes}: {} met, {} fetched, {} saved, {} filtered{}, {} ({}){deleted}, {:.1} pages/s{rules}\n\
         URL log: {}   (crawlspace log --db {})\nmirror:  {}{browse}{unsaved}{errors}{resume}",
        s.elapsed.as_secs_f64(),
        crate::text::counted(s.discovered, one, many),
        s.fetched,
        s.saved,
        s.filtered,
        s.unlogged_note(),
        crate::text::counted(s.errors, "error", "errors"),
        crate::text::counted(s.retries, "retry", "retries"),
        s.rate(),
        shown_path(db),
        shell_path(db),
        shown_path(out)
    )
}

/// `crawlspace demo`: serve the built-in site on 127.0.0.1 and crawl it
/// with `config/demo.toml`, in a fresh folder under the system temp dir.
pub fn demo(headless: bool) -> Result<Stats, AppError> {
    // Before the site is served and its folder made: nothing to undo.
    if !headless && !std::io::stdout().is_terminal() {
        return Err(no_terminal("crawlspace demo --headless"));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| AppError::Runtime(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(async move {
        let (site, server, stop) = crate::demo::start()
            .await
            .map_err(|e| AppError::Runtime(format!("demo site: {e}")))?;
        let origin = format!("http://{}/", site.addr);
        let folder = std::env::temp_dir().join(format!("crawlspace-demo-{}", std::process::id()));
        let text = demo_config(&origin, &folder);
        // The config goes into the demo's folder, so that the console has a
        // real file to save edited rules to.
        std::fs::create_dir_all(&folder)
            .map_err(|e| AppError::Runtime(format!("{}: {e}", folder.display())))?;
        let config_file = folder.join("demo.toml");
        std::fs::write(&config_file, &text)
            .map_err(|e| AppError::Runtime(format!("{}: {e}", config_file.display())))?;
        eprintln!(
            "crawlspace: demo site on {origin}; config and mirror in {}; `crawlspace log --db {}` lists the URL log, during the crawl too",
            shown_path(&folder),
            shell_path(&folder.join("db"))
        );
        let request = CrawlRequest {
            config_file: config_file.to_string_lossy().into_owned(),
            config_text: text,
            db: Some(folder.join("db")),
            out: Some(folder.join("mirror")),
            headless,
            watch: false,
            refresh: false,
            resumable: false,
        };
        let result = crawl_async(request).await;
        let _ = stop.send(());
        let _ = server.await;
        result
    })
}

/// The demo's crawl config, embedded so `demo` runs from any folder.
pub const DEMO_CONFIG: &str = include_str!("../config/demo.toml");

/// [`DEMO_CONFIG`] as the demo writes it into its `folder`: with the
/// site's start URL, and the log and mirror the run uses, so that
/// `crawlspace --config FOLDER/demo.toml` later opens that log from any
/// directory (rather than a new `demo.db` in the current one).
fn demo_config(origin: &str, folder: &Path) -> String {
    let toml_string = |path: PathBuf| toml::Value::String(path.to_string_lossy().into_owned());
    DEMO_CONFIG
        .replacen("start = []", &format!("start = [{origin:?}]"), 1)
        .replacen(
            "db = \"demo.db\"",
            &format!("db = {}", toml_string(folder.join("db"))),
            1,
        )
        .replacen(
            "out = \"demo-mirror\"",
            &format!("out = {}", toml_string(folder.join("mirror"))),
            1,
        )
}

/// A command that reads a log refuses a folder without one: opening would
/// create a log in any folder, and a read must not.
fn require_log(db: &Path) -> Result<(), AppError> {
    if UrlLog::exists_in(db) {
        return Ok(());
    }
    // The demo's folder holds its log in `db`.
    let inside = db.join("db");
    let hint = if UrlLog::exists_in(&inside) {
        format!("; there is one in {}", inside.display())
    } else {
        String::new()
    };
    Err(AppError::Input(format!(
        "{}: no URL log here (the folder a crawl's --db, or its config's db, names){hint}",
        db.display()
    )))
}

/// `crawlspace convert-links`: the saved pages' links pointed at the
/// mirror's copies (`crate::crawl::mirror::convert_links`), and a line
/// saying what changed.
pub fn convert_links(db: &Path) -> Result<(), AppError> {
    require_log(db)?;
    let log = UrlLog::open_reporting(db, LOG_CACHE_BYTES, &mut |m| report_migration(db, m))
        .map_err(|e| AppError::Runtime(format!("{}: {e}", db.display())))?;
    let done = crate::crawl::mirror::convert_links(&log)
        .map_err(|e| AppError::Runtime(format!("{}: {e}", db.display())))?;
    for failure in &done.failed {
        eprintln!(
            "crawlspace: not converted: {}",
            crate::cli::escape_control(failure)
        );
    }
    // The log names each copy by the path it was saved at: from another
    // folder none is found, which is said once, not page by page.
    let read = done.pages + done.sheets + done.unchanged + done.failed.len() as u64;
    if let (0, Some(first)) = (read, done.missing.first()) {
        return Err(AppError::Input(format!(
            "none of the {} saved pages and stylesheets is where the log says ({} for one): run \
             convert-links in the folder the crawl ran in",
            done.missing.len(),
            crate::cli::escape_control(first)
        )));
    }
    let missing = match done.missing.len() {
        0 => String::new(),
        n => format!("; {n} not found where the log says (removed since?)"),
    };
    let sheets = match done.sheets {
        0 => String::new(),
        n => format!(
            " and {}",
            crate::text::counted(n, "stylesheet", "stylesheets")
        ),
    };
    // Files first (what this run wrote), then links as the mirror now
    // has them, counted in every file read, so that a run with nothing to
    // do still says what the mirror holds.
    println!(
        "{}{sheets} converted, {} already right; links: {} to saved copies, {} made absolute (no copy){missing}{}",
        crate::text::counted(done.pages, "page", "pages"),
        crate::text::counted(done.unchanged, "file", "files"),
        done.local,
        done.absolute,
        match done.failed.len() {
            0 => String::new(),
            n => format!("; {n} not converted (above)"),
        },
    );
    Ok(())
}

/// `crawlspace log`: the URL log as a table or JSON lines. A log that a
/// running crawl holds is listed by that crawl (`log_socket.rs`).
pub fn log(db: &Path, request: ListingRequest) -> Result<(), AppError> {
    require_log(db)?;
    // Options are checked here, before any crawl is asked.
    request.query()?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = (|| {
        #[cfg(unix)]
        if log_socket::ask(db, &request, &mut out)? == log_socket::Asked::Listed {
            return Ok(());
        }
        let log = UrlLog::open_reporting(db, LOG_CACHE_BYTES, &mut |m| report_migration(db, m))
            .map_err(|e| AppError::Runtime(format!("{}: {e}", db.display())))?;
        let log = Arc::new(log);
        let source = Source {
            log: Arc::downgrade(&log),
            dir: db,
        };
        write_listing(&source, &request, &mut out, &mut |note| {
            eprintln!("crawlspace: {note}");
        })
    })();
    match result {
        // The reader of our output went (`log ... | head`): done.
        Err(AppError::Runtime(m)) if m.starts_with(WRITE_FAILED) && m.contains("Broken pipe") => {
            Ok(())
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How a `crawl` ends, with temporary errors in its log.
    fn ending(refresh: bool) -> Closing {
        Closing {
            resumable: true,
            refresh,
            temporary_errors: true,
        }
    }

    /// The config the demo leaves in its folder names the log and mirror
    /// that run used, whatever the folder's name holds, and its start URL.
    #[test]
    fn the_demos_config_names_the_log_and_mirror_it_used() {
        for folder in ["/tmp/crawlspace-demo-7", "/tmp/a \"quoted\" \\ dir"] {
            let folder = Path::new(folder);
            let text = demo_config("http://127.0.0.1:9/", folder);
            let config = Config::from_toml("demo.toml", &text).expect("it reads back");
            assert_eq!(config.crawl.db, folder.join("db"));
            assert_eq!(config.crawl.out, folder.join("mirror"));
            assert_eq!(config.crawl.start, ["http://127.0.0.1:9/"]);
            // Only those three lines differ.
            let changed = text
                .lines()
                .zip(DEMO_CONFIG.lines())
                .filter(|(a, b)| a != b)
                .count();
            assert_eq!(
                (changed, text.lines().count()),
                (3, DEMO_CONFIG.lines().count())
            );
        }
    }

    /// A refresh's summary counts the pages it found gone apart from the
    /// errors (the log says deleted), and the URLs it met as new ones.
    #[test]
    fn a_refresh_summary_counts_deleted_pages_apart() {
        let (db, out) = (Path::new("db"), Path::new("out"));
        let stats = Stats {
            saved: 2900,
            deleted: 100,
            unrefreshed: 3,
            ..Stats::default()
        };
        let said = summary(&stats, db, out, ending(true));
        assert!(
            said.contains(
                "\nmirror:  out   (to browse it offline: crawlspace convert-links --db db)"
            ),
            "{said}"
        );
        assert!(
            said.starts_with(
                "crawl finished in 0.0s: 0 new URLs met, 0 fetched, 2900 saved, 0 filtered, \
                 0 errors (0 retries), 100 deleted, \
                 3 not refreshed (temporary errors: the log keeps their copies), "
            ),
            "{said}"
        );
        assert!(
            progress_line(&stats).contains("errors 0  deleted 100  not refreshed 3  "),
            "{}",
            progress_line(&stats)
        );
        let dropped = Stats {
            filtered: 14,
            unlogged: 80,
            ..Stats::default()
        };
        let said = summary(&dropped, db, out, ending(false));
        assert!(said.contains(", 14 filtered (+80 not logged), "), "{said}");
        assert!(progress_line(&dropped).contains("filtered 14 (+80 not logged)  errors"));
        let plain = summary(&Stats::default(), db, out, ending(false));
        assert!(
            plain.contains(": 0 URLs met, ") && !plain.contains("deleted"),
            "{plain}"
        );
    }

    /// Folders compared where they lead: `..` applied, symbolic links
    /// followed.
    #[test]
    fn folders_resolve_dots_and_links() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        std::fs::create_dir(root.join("state")).expect("mkdir");
        assert_eq!(
            resolved(&root.join("state/db/../mirror")),
            root.join("state/mirror")
        );
        assert_eq!(resolved(&root.join("x/./y")), root.join("x/y"));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("state"), root.join("link")).expect("link");
            assert_eq!(resolved(&root.join("link/db")), root.join("state/db"));
        }
    }

    /// Folders named by a config reach the terminal escaped, and the
    /// commands that name them paste back into a shell.
    #[test]
    fn the_summary_quotes_its_folders() {
        let (db, out) = (Path::new("my \u{1b}]0;x\u{7}db"), Path::new("o'ut"));
        let stats = Stats {
            errors: 1,
            saved: 1,
            ..Stats::default()
        };
        let said = summary(&stats, db, out, ending(false));
        assert!(
            !said.contains('\u{1b}') && !said.contains('\u{7}'),
            "{said}"
        );
        assert!(
            said.contains(
                "URL log: my \\u{1b}]0;x\\u{7}db   (crawlspace log --db 'my \\u{1b}]0;x\\u{7}db')"
            ),
            "{said}"
        );
        assert!(said.contains("mirror:  o'ut"), "{said}");
        assert!(
            said.contains("convert-links --db 'my \\u{1b}]0;x\\u{7}db'"),
            "{said}"
        );
        assert!(
            said.contains("--db 'my \\u{1b}]0;x\\u{7}db' --state error"),
            "{said}"
        );
    }

    /// A crawl the log's failure stopped says so first, then the failure
    /// (escaped), and that the log may hold less than its counts; how to
    /// resume only where the same command can.
    #[test]
    fn the_summary_of_a_crawl_its_log_stopped_says_why() {
        let (db, out) = (Path::new("db"), Path::new("out"));
        let stats = Stats {
            queued: 5,
            log_error: Some("cannot read or write its files: full\u{1b}[2J".into()),
            ..Stats::default()
        };
        let said = summary(&stats, db, out, ending(false));
        assert!(
            said.starts_with("crawl STOPPED: the URL log could not be written, after 0.0s: "),
            "{said}"
        );
        assert!(
            said.contains("\nURL log: cannot read or write its files: full\\u{1b}[2J\nresume:  "),
            "{said}"
        );
        let demo = Closing {
            resumable: false,
            ..ending(false)
        };
        let said = summary(&stats, db, out, demo);
        assert!(!said.contains("resume:"), "{said}");
        assert!(
            said.ends_with("may run ahead of what the log kept on disk"),
            "{said}"
        );
    }

    /// With errors, the summary says how to list them and how to ask
    /// again; with pages the mirror could not write, the first failure.
    #[test]
    fn the_summary_says_where_errors_and_unsaved_pages_are() {
        let (db, out) = (Path::new("db"), Path::new("out"));
        let quiet = summary(&Stats::default(), db, out, ending(false));
        assert!(
            !quiet.contains("errors:") && !quiet.contains("NOT SAVED"),
            "{quiet}"
        );
        let stats = Stats {
            errors: 3,
            unsaved: 2,
            first_unsaved: Some("out/h/a.html: No space left on device".into()),
            ..Stats::default()
        };
        let said = summary(&stats, db, out, ending(false));
        assert!(
            said.contains(
                "\nerrors:  crawlspace log --db db --state error; those given up after \
                 temporary errors (a server or its robots.txt down) are asked again by `--refresh`"
            ),
            "{said}"
        );
        assert!(
            said.contains(
                "\nNOT SAVED: 2 pages the rules save, which the mirror could not write \
                 (the first: out/h/a.html: No space left on device)"
            ),
            "{said}"
        );
        assert!(progress_line(&stats).contains("saved 0  NOT SAVED 2  queued"));
        // Nothing saved: no word of converting the mirror's links.
        assert!(!said.contains("convert-links"), "{said}");
        // `demo` (no command of its own to run again): the listing only.
        let errors_only = Stats {
            errors: 3,
            ..Stats::default()
        };
        let demo = summary(
            &errors_only,
            db,
            out,
            Closing {
                resumable: false,
                ..ending(false)
            },
        );
        assert!(
            demo.ends_with("\nerrors:  crawlspace log --db db --state error")
                && !demo.contains("--refresh"),
            "{demo}"
        );
        // Only permanent errors: a refresh would not ask them again.
        let permanent = Closing {
            temporary_errors: false,
            ..ending(false)
        };
        let said = summary(&errors_only, db, out, permanent);
        assert!(
            said.ends_with("\nerrors:  crawlspace log --db db --state error"),
            "{said}"
        );
        // Nothing in flight, waiting out a backoff: said, with the time.
        let waiting = Stats {
            queued: 141,
            waiting: Some(Duration::from_millis(42_300)),
            ..Stats::default()
        };
        assert!(
            progress_line(&waiting)
                .ends_with("  (next request in 43 s: a backoff after errors, a retry or a delay)"),
            "{}",
            progress_line(&waiting)
        );
    }

    /// Whether the log holds a temporary error is read from its error
    /// records: none, only permanent ones (more than a page of them), then
    /// one temporary among them.
    #[test]
    fn temporary_errors_are_found_among_the_error_records() {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = UrlLog::open(&dir.path().join("db"), 1 << 20).expect("log");
        let error = |i: usize, class| UrlRecord {
            url: format!("http://h/{i}"),
            state: State::Error,
            error: Some(crate::store::ErrorInfo {
                class,
                count: 1,
                message: "x".into(),
            }),
            ..UrlRecord::default()
        };
        let fetched = UrlRecord {
            url: "http://h/ok".into(),
            state: State::Fetched,
            ..UrlRecord::default()
        };
        log.discover(&fetched).expect("write");
        assert!(!any_temporary_error(&log));
        for i in 0..600 {
            log.discover(&error(i, ErrorClass::Permanent))
                .expect("write");
        }
        assert!(!any_temporary_error(&log));
        log.discover(&error(600, ErrorClass::Temporary))
            .expect("write");
        assert!(any_temporary_error(&log));
    }

    /// The summary says what changed rules did, and only when they did.
    #[test]
    fn the_summary_says_what_changed_rules_did() {
        let (db, out) = (Path::new("db"), Path::new("out"));
        let quiet = summary(&Stats::default(), db, out, ending(false));
        assert!(!quiet.contains("rules:"), "{quiet}");
        let stats = Stats {
            queued_by_new_rules: 5,
            dropped_by_new_rules: 2,
            ..Stats::default()
        };
        let said = summary(&stats, db, out, ending(false));
        let line = said.lines().nth(1).expect("a second line");
        assert_eq!(
            line,
            "rules:   changed: 5 filtered URLs queued again, 2 queued URLs filtered \
             (their traces say which rules)"
        );
    }
}
