//! The run loop: terminal set-up and restore (on every exit path, panics
//! included), the input thread, and carrying out the app's requests off the
//! UI task.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::crossterm::event::{
    self, DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    Event as TermEvent, KeyEventKind, MouseEventKind,
};
use ratatui::crossterm::execute;
use tokio::sync::mpsc;

use super::action::Action;
use super::app::{App, Request};
use super::log_reader::{latest_urls, read_page, read_record};
use super::preview::{self, Preview};
use super::traps;
use super::whatif::{Report as WhatIfReport, count_log};
use crate::crawl::engine::{Control, Event};
use crate::store::UrlLog;

/// How often the screen is redrawn at least (and the app ticks).
const TICK: Duration = Duration::from_millis(100);

/// Threads for a what-if count (the machine this was measured on has 2
/// cores; the crawl keeps running beside it).
const WHATIF_WORKERS: usize = 2;

/// Latest discoveries looked at for trap hints.
const TRAP_WINDOW: usize = 5_000;

/// What the console needs from its caller.
#[derive(Debug)]
pub struct Console {
    pub app: App,
    pub log: Arc<UrlLog>,
    /// Commands to the crawl. Bounded; a full channel drops the command and
    /// says so rather than wait.
    pub control: crate::crawl::engine::ControlSender,
    /// News from the crawl (bounded by the engine; it never waits on us).
    pub events: mpsc::Receiver<Event>,
    /// What the crawl has to say beside its counts (the engine's
    /// [`crate::crawl::notices::Notices`]): each shown on the message line
    /// as it comes; the caller prints them all once the terminal is
    /// restored.
    pub notices: Arc<crate::crawl::notices::Notices>,
}

/// Rules-file writes, one at a time and in the order asked, on a thread
/// of their own (a slow disk never holds up the console): so the file
/// ends with the newest rules, and each save knows what the one before it
/// left on disk. Dropped, it finishes the saves asked for first.
#[derive(Debug)]
struct Saves {
    jobs: Option<std::sync::mpsc::Sender<SaveJob>>,
    writer: Option<std::thread::JoinHandle<()>>,
}

/// One save, as `Request::Save` asks it, and where to answer.
#[derive(Debug)]
struct SaveJob {
    path: std::path::PathBuf,
    text: String,
    message: String,
    expect: Option<String>,
    overwrite: bool,
    results: mpsc::Sender<Action>,
}

impl Saves {
    fn new() -> Saves {
        let (jobs, queue) = std::sync::mpsc::channel::<SaveJob>();
        let writer = std::thread::spawn(move || {
            // What each file holds as this console last read or wrote it.
            let mut on_disk: std::collections::HashMap<std::path::PathBuf, String> =
                std::collections::HashMap::new();
            for job in queue {
                // Decoded as the config was when the console read it (a
                // byte-order mark dropped, UTF-16 read): compared with that
                // text, an untouched file is not taken for a changed one.
                let now = std::fs::read(&job.path).ok().and_then(|bytes| {
                    crate::rules::dialect::decode(&job.path.to_string_lossy(), &bytes).ok()
                });
                let known = on_disk.get(&job.path).cloned().or(job.expect);
                // Edited elsewhere meanwhile (by hand, another program):
                // left as it is rather than that change lost unasked.
                if !job.overwrite
                    && let (Some(known), Some(now)) = (&known, &now)
                    && now != known
                {
                    // The key first: a narrow terminal cuts the end.
                    let why = format!(
                        "not saved, changed on disk: w again puts the console's rules in it, \
                         the rest of it as it is now ({})",
                        job.path.display()
                    );
                    let _ = job
                        .results
                        .blocking_send(Action::SaveConflict(why, Some(now.clone())));
                    continue;
                }
                // Written beside, then renamed: a crash never leaves half a file.
                let tmp = job.path.with_extension("toml.tmp");
                let written =
                    std::fs::write(&tmp, &job.text).and_then(|()| std::fs::rename(&tmp, &job.path));
                let outcome = match written {
                    Ok(()) => {
                        on_disk.insert(job.path, job.text);
                        Ok(job.message)
                    }
                    Err(e) => {
                        // Still what it was: the next save goes by that.
                        if let Some(now) = now {
                            on_disk.insert(job.path.clone(), now);
                        }
                        Err(format!("{}: {e}", job.path.display()))
                    }
                };
                let _ = job.results.blocking_send(Action::Saved(outcome));
            }
        });
        Saves {
            jobs: Some(jobs),
            writer: Some(writer),
        }
    }
}

impl Drop for Saves {
    fn drop(&mut self) {
        self.jobs.take();
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

/// The numbers of the counts that run over the whole log: a newer count
/// (or a cancel) bumps one, and the worker of the older one stops at its
/// next check.
#[derive(Debug, Default)]
struct Generations {
    whatif: Arc<AtomicU64>,
    preview: Arc<AtomicU64>,
}

impl Drop for Generations {
    /// However the loop ends (also dropped mid-way, on a signal), a count
    /// still running stops at its next check rather than hold up the
    /// runtime's shutdown.
    fn drop(&mut self) {
        self.whatif.fetch_add(1, Ordering::Relaxed);
        self.preview.fetch_add(1, Ordering::Relaxed);
    }
}

/// Restores the terminal when dropped, whatever the exit path.
struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        let _ = execute!(io::stdout(), DisableMouseCapture, DisableBracketedPaste);
        ratatui::restore();
    }
}

/// Runs the console until the user quits. The crawl keeps running when the
/// console returns; the caller stops it.
pub async fn run(console: Console) -> io::Result<()> {
    // ratatui::init installs a panic hook that restores the terminal first.
    let mut terminal = ratatui::init();
    let _guard = TerminalGuard;
    // Bracketed paste: pasted text arrives as one event, not as keys
    // that would each run a command.
    let _ = execute!(io::stdout(), EnableMouseCapture, EnableBracketedPaste);
    // Input: a thread blocking on the terminal, handing events over a
    // bounded channel; it ends when `stop` is set or the channel closes.
    let (input_tx, input_rx) = mpsc::channel::<TermEvent>(256);
    let stop = Arc::new(AtomicBool::new(false));
    let input_stop = stop.clone();
    std::thread::spawn(move || {
        while !input_stop.load(Ordering::Relaxed) {
            match event::poll(Duration::from_millis(50)) {
                Ok(true) => match event::read() {
                    Ok(ev) => {
                        if input_tx.blocking_send(ev).is_err() {
                            return;
                        }
                    }
                    Err(_) => return,
                },
                Ok(false) => {}
                Err(_) => return,
            }
        }
    });
    // A signal to stop (SIGTERM; Ctrl-C typed is a key) ends the
    // console at once, without the questions `q` asks: the caller then
    // stops the crawl, which writes its log.
    let result = tokio::select! {
        result = drive(&mut terminal, console, input_rx) => result.map(|_| ()),
        _ = crate::app::termination() => Ok(()),
    };
    stop.store(true, Ordering::Relaxed);
    result
}

/// The loop itself, on any ratatui backend (a real terminal, or a test
/// buffer in the load benchmark): wait for something, drain everything
/// ready, update, carry out the requests, draw once. Returns the frames
/// drawn.
pub async fn drive<B: Backend>(
    terminal: &mut Terminal<B>,
    console: Console,
    mut input: mpsc::Receiver<TermEvent>,
) -> io::Result<u64>
where
    B::Error: Send + Sync + 'static,
{
    let Console {
        mut app,
        log,
        control,
        mut events,
        notices,
    } = console;
    let mut notices_seen = 0;
    let size = terminal.size().map_err(io::Error::other)?;
    app.update(Action::Resize(size.width, size.height));
    // Results of off-task work. Bounded: a burst waits in its worker, never
    // in the UI.
    let (results_tx, mut results_rx) = mpsc::channel::<Action>(64);
    // The counts running over the log (what-if, the form's preview).
    let generations = Generations::default();
    let saves = Arc::new(Saves::new());
    let mut ticker = tokio::time::interval(TICK);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut frames = 0;
    loop {
        let mut actions = Vec::new();
        tokio::select! {
            Some(ev) = input.recv() => actions.extend(term_action(ev)),
            Some(ev) = events.recv() => actions.push(engine_action(ev)),
            Some(a) = results_rx.recv() => actions.push(a),
            _ = ticker.tick() => actions.push(Action::Tick),
        }
        // Drain whatever else is ready, then draw once.
        while let Ok(ev) = input.try_recv() {
            actions.extend(term_action(ev));
        }
        while let Ok(ev) = events.try_recv() {
            actions.push(engine_action(ev));
        }
        while let Ok(a) = results_rx.try_recv() {
            actions.push(a);
        }
        // Before the crawl's events taken with them: a notice is pushed
        // before any event sent after it (its last, `Finished`, whose
        // message must not be covered by one said before it).
        let new_notices = notices.take_new(&mut notices_seen);
        actions.splice(0..0, new_notices.into_iter().map(Action::Notice));
        for action in actions {
            app.update(action);
        }
        for request in app.take_requests() {
            carry_out(request, &log, &control, &results_tx, &generations, &saves);
        }
        if app.should_quit() {
            break;
        }
        terminal
            .draw(|frame| super::view::draw(frame, &app))
            .map_err(io::Error::other)?;
        frames += 1;
    }
    Ok(frames)
}

fn term_action(ev: TermEvent) -> Option<Action> {
    match ev {
        TermEvent::Key(key) if key.kind != KeyEventKind::Release => Some(Action::Key(key)),
        TermEvent::Mouse(m) => match m.kind {
            MouseEventKind::ScrollUp => Some(Action::ScrollUp),
            MouseEventKind::ScrollDown => Some(Action::ScrollDown),
            _ => None,
        },
        TermEvent::Resize(w, h) => Some(Action::Resize(w, h)),
        TermEvent::Paste(text) => Some(Action::Paste(text)),
        _ => None,
    }
}

fn engine_action(ev: Event) -> Action {
    match ev {
        Event::Stats(s) => Action::Stats(s),
        Event::Detail(d) => Action::Detail(d),
        Event::Finished(s) => Action::Finished(s),
    }
}

/// Runs a count over the whole log (what-if, the form's preview) on a
/// blocking task, as the next generation of `counter`: a newer count (or
/// a cancel) bumps it, and this one stops at its next check. Progress goes
/// out when the channel has room (worth showing, never worth waiting
/// for); the result unless a newer count replaced this one.
fn spawn_count<R: Send + 'static>(
    counter: &Arc<AtomicU64>,
    log: &Arc<UrlLog>,
    results: &mpsc::Sender<Action>,
    wrap: impl Fn(R) -> Action + Send + Sync + 'static,
    count: impl FnOnce(&UrlLog, &(dyn Fn(R) + Sync), &(dyn Fn() -> bool + Sync)) -> R + Send + 'static,
) {
    let generation = counter.fetch_add(1, Ordering::Relaxed) + 1;
    let (log, results, current) = (log.clone(), results.clone(), counter.clone());
    tokio::task::spawn_blocking(move || {
        let stale = || current.load(Ordering::Relaxed) != generation;
        let progress = |partial: R| {
            let _ = results.try_send(wrap(partial));
        };
        let done = count(&log, &progress, &stale);
        if !stale() {
            let _ = results.blocking_send(wrap(done));
        }
    });
}

/// Starts the work a request asks for, without waiting for it.
fn carry_out(
    request: Request,
    log: &Arc<UrlLog>,
    control: &crate::crawl::engine::ControlSender,
    results: &mpsc::Sender<Action>,
    generations: &Generations,
    saves: &Arc<Saves>,
) {
    match request {
        Request::Control(command) => {
            let what = match &command {
                Control::Pause => Some("the pause"),
                Control::Resume => Some("the resume"),
                Control::Rules(_) => Some("the new rules"),
                Control::Weights(_) => Some("the new weights"),
                Control::Detail | Control::Stop => None,
            };
            if control.try_send(command).is_err() {
                let why = match what {
                    Some(what) => {
                        format!("the crawl did not take {what}: it has ended or is busy; try again")
                    }
                    None => String::new(),
                };
                // Through the results channel: state changes only in `update`.
                let _ = results.try_send(Action::Refused(why));
            }
        }
        Request::LogPage {
            query,
            from,
            limit,
            seq,
        } => {
            let (log, results) = (log.clone(), results.clone());
            tokio::task::spawn_blocking(move || {
                let page = read_page(&log, &query, from, limit, seq);
                let _ = results.blocking_send(Action::LogPage(page));
            });
        }
        Request::Record(id) => {
            let (log, results) = (log.clone(), results.clone());
            tokio::task::spawn_blocking(move || {
                let read = match read_record(&log, id) {
                    Ok(Some(view)) => Ok(Box::new(view)),
                    Ok(None) => Err("not in the log".to_string()),
                    Err(e) => Err(e.to_string()),
                };
                let _ = results.blocking_send(Action::Record(id, read));
            });
        }
        Request::Logged(url) => {
            let (log, results) = (log.clone(), results.clone());
            tokio::task::spawn_blocking(move || {
                let found = log.id_of(&url).and_then(|id| match id {
                    Some(id) => Ok(log.get(id)?.map(|record| (id, record))),
                    None => Ok(None),
                });
                let logged = found.map_err(|e| e.to_string());
                let _ = results.blocking_send(Action::Logged(url, Box::new(logged)));
            });
        }
        Request::WhatIf {
            old,
            new,
            probe,
            seq,
        } => spawn_count(
            &generations.whatif,
            log,
            results,
            move |report| Action::WhatIf(seq, Box::new(report)),
            move |log, progress, stale| {
                count_log(
                    log,
                    &old,
                    &new,
                    probe.as_ref(),
                    WHATIF_WORKERS,
                    &|report: WhatIfReport| progress(report),
                    stale,
                )
            },
        ),
        Request::CancelWhatIf => {
            generations.whatif.fetch_add(1, Ordering::Relaxed);
        }
        Request::Preview {
            condition,
            negate,
            context,
            seq,
        } => spawn_count(
            &generations.preview,
            log,
            results,
            move |preview| Action::Preview(seq, Box::new(preview)),
            move |log, progress, stale| {
                let rules = preview::draft(condition, negate, context);
                preview::count(log, &rules, &|p: &Preview| progress(p.clone()), stale)
            },
        ),
        Request::CancelPreview => {
            generations.preview.fetch_add(1, Ordering::Relaxed);
        }
        Request::Traps => {
            let (log, results) = (log.clone(), results.clone());
            tokio::task::spawn_blocking(move || {
                let urls = latest_urls(&log, TRAP_WINDOW);
                let hints = traps::hints(urls.iter().map(String::as_str));
                let _ = results.blocking_send(Action::Traps(hints));
            });
        }
        Request::Save {
            path,
            text,
            message,
            expect,
            overwrite,
        } => {
            let job = SaveJob {
                path,
                text,
                message,
                expect,
                overwrite,
                results: results.clone(),
            };
            if let Some(jobs) = &saves.jobs
                && jobs.send(job).is_err()
            {
                let failed = Err("the rules file's writer has stopped (a crawlspace bug)".into());
                let _ = results.try_send(Action::Saved(failed));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Asks `saves` for one save of `text` to `path` and returns what it
    /// answered.
    async fn save(
        saves: &Arc<Saves>,
        path: &std::path::Path,
        text: &str,
        expect: Option<&str>,
        overwrite: bool,
    ) -> Action {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = Arc::new(UrlLog::open(&dir.path().join("db"), 1 << 20).expect("log"));
        let (control, _control_rx) = crate::crawl::engine::control_channel(1);
        let (results, mut answers) = mpsc::channel(1);
        let request = Request::Save {
            path: path.to_path_buf(),
            text: text.into(),
            message: "saved".into(),
            expect: expect.map(str::to_string),
            overwrite,
        };
        carry_out(
            request,
            &log,
            &control,
            &results,
            &Generations::default(),
            saves,
        );
        answers.recv().await.expect("an answer")
    }

    /// A rules file changed on disk since the console read or last wrote
    /// it is left as it is, and the answer says so; asked to overwrite, it
    /// is. Saves in a row each go by what the one before wrote.
    #[tokio::test]
    async fn a_file_changed_on_disk_is_not_overwritten_unasked() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("crawl.toml");
        let read = |p: &std::path::Path| std::fs::read_to_string(p).expect("read");
        std::fs::write(&path, "read\n").expect("write");
        let saves = Arc::new(Saves::new());
        for text in ["new\n", "newer\n"] {
            let answer = save(&saves, &path, text, Some("read\n"), false).await;
            assert!(matches!(answer, Action::Saved(Ok(_))), "{answer:?}");
            assert_eq!(read(&path), text);
        }

        std::fs::write(&path, "edited by hand\n").expect("write");
        let answer = save(&saves, &path, "newest\n", Some("read\n"), false).await;
        match answer {
            Action::SaveConflict(why, now) => {
                assert!(why.contains("changed on disk"), "{why}");
                assert!(
                    why.contains("w again puts the console's rules in it"),
                    "{why}"
                );
                assert_eq!(now.as_deref(), Some("edited by hand\n"));
            }
            other => panic!("a conflict: {other:?}"),
        }
        assert_eq!(read(&path), "edited by hand\n");

        let answer = save(&saves, &path, "newest\n", None, true).await;
        assert!(matches!(answer, Action::Saved(Ok(_))), "{answer:?}");
        assert_eq!(read(&path), "newest\n");
        // A first save of a file the console never read (a rules file
        // beside the config): nothing to compare with.
        let beside = dir.path().join("crawl.rules.toml");
        std::fs::write(&beside, "older session\n").expect("write");
        let answer = save(&saves, &beside, "rules\n", None, false).await;
        assert!(matches!(answer, Action::Saved(Ok(_))), "{answer:?}");
        // A file with a byte-order mark, read without it: unchanged, so
        // saved at once; one in UTF-16 alike.
        let marked = dir.path().join("marked.toml");
        std::fs::write(&marked, "\u{feff}read\n").expect("write");
        let answer = save(&saves, &marked, "new\n", Some("read\n"), false).await;
        assert!(matches!(answer, Action::Saved(Ok(_))), "{answer:?}");
        let wide = dir.path().join("wide.toml");
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend("read\n".encode_utf16().flat_map(u16::to_le_bytes));
        std::fs::write(&wide, bytes).expect("write");
        let answer = save(&saves, &wide, "new\n", Some("elsewise\n"), false).await;
        assert!(matches!(answer, Action::SaveConflict(..)), "{answer:?}");
        let answer = save(&saves, &wide, "new\n", Some("read\n"), false).await;
        assert!(matches!(answer, Action::Saved(Ok(_))), "{answer:?}");
        assert_eq!(read(&wide), "new\n");
    }
}
