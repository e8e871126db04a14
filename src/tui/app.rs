//! The console's state and its one `update` function (STYLE habit 8): keys,
//! crawl news and off-task results come in as [`Action`]s; what must happen
//! outside (a command to the crawl, a log page to read, a file to write)
//! goes out as [`Request`]s that the run loop carries out without waiting.
//! Drawing only reads this state. Each view keeps its own state and key
//! handling in a submodule.

mod explain;
mod form;
mod log;
mod queues;
mod rules;

use std::collections::VecDeque;
use std::sync::Arc;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use regex::Regex;

pub use explain::{ExplainFocus, ExplainState, Logged};
pub use form::{Form, FormFocus, MATCHER_KEYS};
pub use log::LogState;
pub use queues::QueuesState;
pub use rules::RulesState;

use super::action::Action;
use super::input::insert_text;
use super::log_reader::{LogQuery, PageFrom};
use super::save::SaveTarget;
use super::traps::TrapHint;
use super::whatif::Report;
use crate::crawl::detail::Detail;
use crate::crawl::engine::{Control, Stats};
use crate::rules::CompiledRules;
use crate::rules::model::{Condition, RuleSet};

/// Rate samples kept for the throughput sparkline (one per second).
pub const RATE_SAMPLES: usize = 120;

/// Ticks (0.1 s) between rate samples.
const TICKS_PER_SAMPLE: u64 = 10;

/// What `q` (or Ctrl-C) asks before quitting with rule edits neither
/// applied nor saved. Each question fits 80 columns, the keys first: the
/// message line cuts what does not fit.
const EDITS_NOT_APPLIED: &str =
    "the same key again quits without the rule edits; c applies and saves, w saves";
/// ... with rule edits saved but not applied to the running crawl.
const EDITS_SAVED_NOT_APPLIED: &str =
    "the same key again quits; the rule edits are saved, not applied (c applies)";
/// ... when the rules file differs from the list (nothing to apply).
const FILE_DIFFERS: &str =
    "the same key again quits; the rules file differs from this list (w saves)";
/// ... (Ctrl-C only: `q` is typed into it) when a rule form is open.
const FORM_OPEN: &str =
    "Ctrl-C again quits without the rule in the form; Esc closes it, Enter keeps it";
/// The questions above: a second `q` or Ctrl-C while one is up quits.
const QUIT_QUESTIONS: [&str; 4] = [
    EDITS_NOT_APPLIED,
    EDITS_SAVED_NOT_APPLIED,
    FILE_DIFFERS,
    FORM_OPEN,
];

/// Ticks a message stays on the status line (8 seconds), unless replaced;
/// then the hints come back.
const MESSAGE_TICKS: u64 = 80;

/// The most characters one paste types: inputs hold a URL or a pattern,
/// and each character typed re-checks what the input holds (Explain
/// judges the URL again), so a mistaken paste of a whole page stops here.
const MAX_PASTE: usize = 4096;

/// The four views of SPEC §4, in key order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    Rules,
    Queues,
    Log,
    Explain,
}

impl View {
    pub const ALL: [View; 4] = [View::Rules, View::Queues, View::Log, View::Explain];

    pub fn title(self) -> &'static str {
        match self {
            View::Rules => "Rules",
            View::Queues => "Queues",
            View::Log => "URL log",
            View::Explain => "Explain",
        }
    }

    fn index(self) -> usize {
        View::ALL.iter().position(|v| *v == self).unwrap_or(0)
    }
}

/// What is drawn over the current view.
#[derive(Debug)]
pub enum Overlay {
    None,
    /// Every key of the current view, scrolled down this many lines (a
    /// terminal too short for all of them).
    Help {
        scroll: u16,
    },
    /// Editing one rule.
    Form(Box<Form>),
    /// What-if before applying the edited rules.
    WhatIf(Box<Report>),
    /// Trap hints, one selected.
    Traps {
        selected: usize,
    },
}

/// Work for the run loop: nothing here blocks the UI.
#[derive(Debug)]
pub enum Request {
    /// A command for the running crawl.
    Control(Control),
    /// Read a page of the URL log.
    LogPage {
        query: LogQuery,
        from: PageFrom,
        limit: usize,
        seq: u64,
    },
    /// Read one record and its referrer chain.
    Record(u64),
    /// Look a URL (normalized) up in the log, for Explain.
    Logged(String),
    /// Count verdict changes over the whole log; a newer one replaces it.
    WhatIf {
        old: Arc<CompiledRules>,
        new: Arc<CompiledRules>,
        /// The URLs the edit can change (`None`: all of them).
        probe: Option<Arc<super::whatif::Probe>>,
        /// Numbers the count, so that reports of an older one are dropped.
        seq: u64,
    },
    /// Stop the what-if count in progress.
    CancelWhatIf,
    /// Count the logged URLs the rule form's rule holds for; a newer one
    /// replaces it.
    Preview {
        /// The rule's condition, whether the rule negates it, and the
        /// conditions of the blocks holding it (compiled by the worker).
        condition: Condition,
        negate: bool,
        context: Vec<Condition>,
        /// Numbers the count, so that reports of an older one are dropped.
        seq: u64,
    },
    /// Stop the preview in progress (the form closed).
    CancelPreview,
    /// Look for trap hints among the latest discoveries.
    Traps,
    /// Write the rules file, unless it changed on disk since the console
    /// read it (`expect`, for its first save) or last wrote it (then
    /// [`Action::SaveConflict`]); with `overwrite`, whatever it holds.
    Save {
        path: std::path::PathBuf,
        text: String,
        message: String,
        expect: Option<String>,
        overwrite: bool,
    },
}

/// What the crawl has told the console.
#[derive(Debug, Default)]
pub struct CrawlView {
    pub stats: Stats,
    pub detail: Detail,
    pub finished: bool,
    /// URLs done per second, one sample a second, oldest first.
    pub rates: VecDeque<u64>,
    /// Picks per queue in the last second (SPEC §2.2 order).
    pub pick_rates: [u64; 6],
    /// `fetched + saved + errors` at the last sample; none before the
    /// first (a resumed crawl's counts start from its log, not from 0).
    last_done: Option<u64>,
    /// Picks per queue at the last sample.
    last_picks: [u64; 6],
}

/// Everything the console shows.
#[derive(Debug)]
pub struct App {
    pub view: View,
    pub overlay: Overlay,
    /// Terminal size (columns, rows).
    pub size: (u16, u16),
    pub crawl: CrawlView,
    pub rules: RulesState,
    pub queues: QueuesState,
    pub log: LogState,
    pub explain: ExplainState,
    pub traps: Vec<TrapHint>,
    /// The last thing worth telling the user (saved, applied, an error).
    pub message: Option<String>,
    /// The message as last seen by a tick, and the ticks it has been shown.
    message_seen: Option<String>,
    message_age: u64,
    /// The crawl's notices shown so far ([`Action::Notice`]).
    pub notices: u64,
    /// The product token of the crawl's user agent (for the title).
    pub title: String,
    requests: Vec<Request>,
    ticks: u64,
    quit: bool,
    /// `q` was pressed once with rule edits not applied: a second quits.
    quit_asked: bool,
    /// A `Control::Detail` is out and not answered yet: one at a time, so
    /// a busy crawl's command channel never fills with them.
    detail_asked: bool,
    /// The what-if count whose reports the overlay shows.
    whatif_seq: u64,
    /// Numbers the rule form's previews.
    preview_seq: u64,
    /// A preview was asked for and not cancelled since.
    previewing: bool,
    /// How far the what-if overlay is scrolled (a short terminal).
    pub whatif_scroll: u16,
    /// The config's start URLs: an edit that refuses one would keep the
    /// config from starting its next run, which the what-if says.
    pub start_urls: Vec<String>,
    /// The start URLs the edited rules refuse, each with why, for the
    /// what-if open now.
    pub whatif_start_refused: Vec<String>,
}

impl App {
    /// A console over a crawl that runs `rules` with queue `weights`.
    pub fn new(title: String, rules: RuleSet, save: SaveTarget, weights: [u32; 6]) -> App {
        let mut app = App {
            view: View::Rules,
            overlay: Overlay::None,
            size: (80, 24),
            crawl: CrawlView::default(),
            rules: RulesState::new(rules, save),
            queues: QueuesState::new(weights),
            log: LogState::default(),
            explain: ExplainState::default(),
            traps: Vec::new(),
            message: None,
            message_seen: None,
            message_age: 0,
            notices: 0,
            title,
            requests: Vec::new(),
            ticks: 0,
            quit: false,
            quit_asked: false,
            detail_asked: false,
            whatif_seq: 0,
            preview_seq: 0,
            previewing: false,
            whatif_scroll: 0,
            start_urls: Vec::new(),
            whatif_start_refused: Vec::new(),
        };
        app.explain.evaluate(&app.rules.compiled);
        app
    }

    /// Takes the requests made since the last call, oldest first.
    pub fn take_requests(&mut self) -> Vec<Request> {
        std::mem::take(&mut self.requests)
    }

    pub(crate) fn request(&mut self, request: Request) {
        self.requests.push(request);
    }

    /// The user asked to leave.
    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// Acts on one input.
    pub fn update(&mut self, action: Action) {
        let typed = matches!(action, Action::Key(_) | Action::Paste(_));
        self.act(action);
        // The rule form as it now reads, previewed over the log.
        if typed {
            self.follow_form();
        }
    }

    fn act(&mut self, action: Action) {
        match action {
            Action::Key(key) => self.key(key),
            Action::Paste(text) => self.paste(&text),
            Action::ScrollUp => self.scroll(true),
            Action::ScrollDown => self.scroll(false),
            Action::Resize(w, h) => {
                self.size = (w, h);
                if self.view == View::Log {
                    self.log_refresh();
                }
            }
            Action::Tick => self.tick(),
            Action::Stats(stats) => self.take_stats(stats),
            Action::Detail(detail) => {
                self.detail_asked = false;
                self.rules.take_hits(&detail);
                self.crawl.detail = *detail;
            }
            Action::Finished(stats) => {
                self.message = Some(match &stats.log_error {
                    Some(e) => format!(
                        "STOPPED: the URL log could not be written ({e}); q quits, and the \
                         summary says how to go on"
                    ),
                    None if self.notices > 0 => format!(
                        "the crawl has finished: browse the log, or q to quit ({} printed \
                         again on exit)",
                        crate::text::counted(self.notices, "notice", "notices")
                    ),
                    None => "the crawl has finished: browse the log, or q to quit".into(),
                });
                self.crawl.stats = stats;
                self.crawl.finished = true;
                // Nothing is picked any more: no rate is "now".
                self.crawl.pick_rates = [0; 6];
                // The list as the crawl left it: the ticks refresh it no
                // more. (A page the user asked for, still on its way,
                // brings it too.)
                if self.view == View::Log && !self.log_waiting() {
                    self.log_refresh();
                }
            }
            Action::Notice(line) => {
                self.notices += 1;
                let text = line.strip_prefix("crawlspace: ").unwrap_or(&line);
                // Numbered first: a long notice is cut at the line's end.
                self.message = Some(format!(
                    "notice {} (printed again on exit): {text}",
                    self.notices
                ));
            }
            Action::LogPage(page) => self.log_page(page),
            Action::Record(id, read) => self.log.take_record(id, read),
            Action::Logged(url, logged) => self.take_logged(url, *logged),
            Action::Preview(seq, preview) => {
                if let Overlay::Form(form) = &mut self.overlay
                    && seq == self.preview_seq
                {
                    form.preview = Some(*preview);
                }
            }
            Action::WhatIf(seq, report) => {
                if let Overlay::WhatIf(current) = &mut self.overlay
                    && seq == self.whatif_seq
                {
                    *current = report;
                }
            }
            Action::Traps(hints) => {
                // Not while the list is open: Enter must add what is shown.
                if !matches!(self.overlay, Overlay::Traps { .. }) {
                    self.traps = hints;
                }
            }
            Action::Refused(why) => {
                self.detail_asked = false;
                // A refused detail request (the crawl busy) says nothing:
                // it must not wipe the message on screen ("rules saved
                // in …" went that way while new rules were being applied).
                if !why.is_empty() {
                    self.message = Some(why);
                }
            }
            Action::SaveConflict(why, now) => {
                self.rules.forget_saved();
                self.rules.overwrite_armed = true;
                self.rules.found_on_disk = now;
                self.message = Some(why);
            }
            Action::Saved(result) => {
                if result.is_err() {
                    // What the file holds is not known now: `q` asks.
                    self.rules.forget_saved();
                }
                self.message = Some(match result {
                    Ok(m) => m,
                    Err(e) => format!("not saved: {e}"),
                })
            }
        }
    }

    /// The crawl's counters. The first are the baselines: a resumed crawl
    /// counts from its log, so neither its rate graph nor the rules' "no
    /// hits yet" may take them for this run's work.
    /// Rules changed since the log's last run show in them too: said once.
    fn take_stats(&mut self, stats: Stats) {
        if self.crawl.last_done.is_none() {
            self.crawl.last_done = Some(stats.fetched + stats.saved + stats.errors);
            self.rules.discovered_at_apply = self.rules.discovered_at_apply.max(stats.discovered);
            let (queued, dropped) = (stats.queued_by_new_rules, stats.dropped_by_new_rules);
            if queued + dropped > 0 {
                self.message = Some(format!(
                    "the rules changed since this log's last run: {queued} filtered URLs \
                     queued again, {dropped} queued URLs filtered (their traces say which rules)"
                ));
            }
        }
        self.crawl.stats = stats;
    }

    fn tick(&mut self) {
        self.ticks += 1;
        self.age_message();
        if !self.crawl.finished {
            // Queues and rule hits: asked for, answered when the crawl can.
            if self.ticks.is_multiple_of(3) && !self.detail_asked {
                self.detail_asked = true;
                self.request(Request::Control(Control::Detail));
            }
            // The list, its counts and the selected record as the crawl
            // writes them: the tail when following, else the same window
            // (its selection kept).
            if self.view == View::Log && self.ticks.is_multiple_of(5) && !self.log_waiting() {
                self.log_refresh();
            }
        }
        // A finished crawl's graph stays as it ended: zeros scrolling in
        // would push its history, and its peak, out of the window.
        if self.ticks.is_multiple_of(TICKS_PER_SAMPLE) && !self.crawl.finished {
            let s = &self.crawl.stats;
            let done = s.fetched + s.saved + s.errors;
            let c = &mut self.crawl;
            // No sample before the first counters (`take_stats`).
            if let Some(last) = c.last_done {
                c.rates.push_back(done.saturating_sub(last));
                c.last_done = Some(done);
            }
            for (i, q) in c.detail.queues.iter().enumerate().take(6) {
                c.pick_rates[i] = q.picks.saturating_sub(c.last_picks[i]);
                c.last_picks[i] = q.picks;
            }
            while c.rates.len() > RATE_SAMPLES {
                c.rates.pop_front();
            }
        }
        if self.ticks % 50 == 1 && !self.crawl.finished {
            self.request(Request::Traps);
        }
        self.log.tick(&mut self.requests);
    }

    /// Clears a message once it has been shown [`MESSAGE_TICKS`]; another
    /// message starts over.
    fn age_message(&mut self) {
        if self.message != self.message_seen {
            self.message_seen.clone_from(&self.message);
            self.message_age = 1;
        } else if self.message.is_some() {
            self.message_age += 1;
            if self.message_age >= MESSAGE_TICKS {
                self.message = None;
                self.message_seen = None;
                // A second `q` counts only while its question is shown.
                self.quit_asked = false;
            }
        }
    }

    /// What a new edit of the rules can lead to: applied to the running
    /// crawl (`c`), or, once the crawl has ended, saved for the next run.
    pub(crate) fn after_an_edit(&self) -> &'static str {
        if self.crawl.finished {
            "c shows what it would have changed, w saves it for the next run (the crawl has ended)"
        } else {
            "c shows what it changes and applies it"
        }
    }

    /// Quits, unless something would be lost without a word and this is
    /// not the second ask: edits not applied, or a rules file that differs
    /// from the list (the next run would take the file's rules).
    fn ask_or_quit(&mut self, asked: bool) {
        // A finished crawl takes no edits: only an unsaved file is worth
        // asking about then.
        let applicable = self.rules.dirty() && !self.crawl.finished;
        let question = if asked {
            None
        } else if applicable && self.rules.unsaved() {
            Some(EDITS_NOT_APPLIED)
        } else if applicable {
            Some(EDITS_SAVED_NOT_APPLIED)
        } else if self.rules.unsaved() {
            Some(FILE_DIFFERS)
        } else if matches!(self.overlay, Overlay::Form(_)) {
            // What is typed in it is an edit not made yet.
            Some(FORM_OPEN)
        } else {
            None
        };
        match question {
            Some(question) => {
                self.quit_asked = true;
                // Shown its whole time, even when the same text is up.
                self.message_seen = None;
                self.message = Some(question.into());
            }
            None => self.quit = true,
        }
    }

    fn key(&mut self, key: KeyEvent) {
        // Any key but a second `q` answers the question `q` asked, and a
        // `q` counts as the second only while the question is on screen
        // (the crawl's end, say, can have replaced it).
        let quit_asked = std::mem::take(&mut self.quit_asked)
            && self
                .message
                .as_deref()
                .is_some_and(|m| QUIT_QUESTIONS.contains(&m));
        // Ctrl-C quits from anywhere, but asks first as `q` does.
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            self.ask_or_quit(quit_asked);
            return;
        }
        // A key held with Ctrl or Alt is not the plain key (a stray Ctrl-W
        // must not save, nor Ctrl-X delete): only the text inputs' editing
        // keys and Ctrl-R (redo, in Rules) are bound.
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let modified = ctrl || key.modifiers.contains(KeyModifiers::ALT);
        let redo = ctrl && key.code == KeyCode::Char('r') && self.view == View::Rules;
        if modified && !self.typing() && !redo {
            return;
        }
        // Overlays and text inputs take keys first.
        match &self.overlay {
            Overlay::Help { .. } => return self.help_key(key),
            Overlay::Form(_) => return self.form_key(key),
            Overlay::WhatIf(_) => return self.whatif_key(key),
            Overlay::Traps { .. } => return self.traps_key(key),
            Overlay::None => {}
        }
        if self.view == View::Explain && self.explain.editing {
            return self.explain_key(key);
        }
        if self.view == View::Log && self.log.filter_input.is_some() {
            return self.log_filter_key(key);
        }
        match key.code {
            KeyCode::Char('q') => self.ask_or_quit(quit_asked),
            KeyCode::Char('?') => self.overlay = Overlay::Help { scroll: 0 },
            KeyCode::Char('p') => self.toggle_pause(),
            KeyCode::Char(c @ '1'..='4') => self.show(View::ALL[c as usize - '1' as usize]),
            KeyCode::Tab => self.show(View::ALL[(self.view.index() + 1) % 4]),
            KeyCode::BackTab => self.show(View::ALL[(self.view.index() + 3) % 4]),
            _ => match self.view {
                View::Rules => self.rules_key(key),
                View::Queues => self.queues_key(key),
                View::Log => self.log_key(key),
                View::Explain => self.explain_key(key),
            },
        }
    }

    /// Whether a text input has the keys.
    fn typing(&self) -> bool {
        match &self.overlay {
            Overlay::Form(form) => matches!(form.focus, FormFocus::Name | FormFocus::Pattern),
            Overlay::None => {
                (self.view == View::Explain && self.explain.editing)
                    || (self.view == View::Log && self.log.filter_input.is_some())
            }
            _ => false,
        }
    }

    /// Pasted text goes into the text input being typed in, as if typed,
    /// on one line (inputs hold one: line breaks and tabs become spaces)
    /// and at most [`MAX_PASTE`] characters. Elsewhere it is not read as
    /// keys, which would run a command for each character.
    fn paste(&mut self, text: &str) {
        if !self.typing() {
            self.message = Some(
                "nothing to paste into: paste in Explain, a rule's name or pattern (Enter), or the URL log's / filter"
                    .into(),
            );
            return;
        }
        let one_line: Vec<&str> = text
            .split(char::is_control)
            .filter(|part| !part.is_empty())
            .collect();
        let one_line = one_line.join(" ");
        let pasted: String = one_line.chars().take(MAX_PASTE).collect();
        // Typed in one edit, then checked once, as the last key of typing
        // it would have.
        match &mut self.overlay {
            Overlay::Form(form) => {
                if form.focus == FormFocus::Name {
                    insert_text(&mut form.name, &pasted);
                } else {
                    insert_text(&mut form.pattern, &pasted);
                }
                form.validate();
            }
            _ if self.view == View::Explain => {
                insert_text(self.explain.input(), &pasted);
                self.explain_now();
            }
            _ => {
                if let Some(input) = &mut self.log.filter_input {
                    insert_text(input, &pasted);
                    self.log.filter_error = Regex::new(input.value())
                        .err()
                        .map(|e| crate::text::regex_error(&e));
                }
            }
        }
        if pasted.len() < one_line.len() {
            self.message = Some(format!("pasted text cut at {MAX_PASTE} characters"));
        }
    }

    fn show(&mut self, view: View) {
        self.view = view;
        match view {
            View::Log => self.log_refresh(),
            View::Explain => {
                self.explain.editing = true;
                self.explain.ask_again();
                self.explain_now();
            }
            _ => {}
        }
    }

    fn toggle_pause(&mut self) {
        if self.crawl.finished {
            self.message = Some("the crawl has finished: nothing to pause".into());
            return;
        }
        let paused = !self.crawl.stats.paused;
        // Shown at once; the next counters from the crawl confirm it.
        self.crawl.stats.paused = paused;
        self.request(Request::Control(if paused {
            Control::Pause
        } else {
            Control::Resume
        }));
        self.message = Some(if paused { "paused" } else { "resumed" }.into());
    }

    /// The help overlay: Esc, `?` or `q` close it; the arrows, `j` `k`,
    /// PgUp PgDn, Home and End scroll it when it is taller than the
    /// terminal.
    fn help_key(&mut self, key: KeyEvent) {
        let Overlay::Help { scroll } = &mut self.overlay else {
            return;
        };
        let most = crate::tui::view::help_max_scroll(self.view, self.size);
        let page = self.size.1 / 2;
        *scroll = match key.code {
            KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q') => {
                self.overlay = Overlay::None;
                return;
            }
            KeyCode::Down | KeyCode::Char('j') => scroll.saturating_add(1),
            KeyCode::Up | KeyCode::Char('k') => scroll.saturating_sub(1),
            KeyCode::PageDown => scroll.saturating_add(page),
            KeyCode::PageUp => scroll.saturating_sub(page),
            KeyCode::Home => 0,
            KeyCode::End => most,
            _ => *scroll,
        }
        .min(most);
    }

    fn scroll(&mut self, up: bool) {
        if let Overlay::Help { .. } = self.overlay {
            let code = if up { KeyCode::Up } else { KeyCode::Down };
            return self.help_key(KeyEvent::new(code, KeyModifiers::NONE));
        }
        if !matches!(self.overlay, Overlay::None) {
            return;
        }
        match self.view {
            View::Rules => self.rules.select_step(up),
            View::Queues => self.queues.select_step(up),
            View::Log => self.log_step(up),
            View::Explain => {
                let (most, _) = crate::tui::view::explain_scroll_limits(self);
                self.explain.scroll_by(up, 1, most);
            }
        }
    }

    /// The trap hints offered: those whose rule the list does not hold
    /// already (added from a hint, or written the same), which would be
    /// added twice, the second shadowed by the first. Worked out from the
    /// list as it is, so that an undo offers a hint again.
    pub fn trap_hints(&self) -> Vec<&TrapHint> {
        let rules = &self.rules.edited.rules;
        self.traps
            .iter()
            .filter(|hint| {
                !rules
                    .iter()
                    .any(|r| r.condition == hint.rule.condition && r.filter == hint.rule.filter)
            })
            .collect()
    }

    fn traps_key(&mut self, key: KeyEvent) {
        let Overlay::Traps { selected } = &mut self.overlay else {
            return;
        };
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => *selected = selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => {
                let offered = self.trap_hints().len();
                if let Overlay::Traps { selected } = &mut self.overlay {
                    *selected = (*selected + 1).min(offered.saturating_sub(1));
                }
            }
            KeyCode::Enter | KeyCode::Char('a') => {
                let chosen = *selected;
                let hint = self.trap_hints().get(chosen).map(|h| (*h).clone());
                self.overlay = Overlay::None;
                if let Some(hint) = hint {
                    self.rules.add_rule(hint.rule);
                    self.message = Some(format!(
                        "added the trap rule; {} ({})",
                        self.after_an_edit(),
                        hint.summary
                    ));
                }
            }
            KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('t') => self.overlay = Overlay::None,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
