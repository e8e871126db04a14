//! The URL log view's state and keys: a window of records read a page at a
//! time (by id, through the store's indexes, so it stays smooth at millions
//! of URLs), filters by state, queue and text, following the tail, and the
//! selected record's detail with its referrer chain.

use ratatui::crossterm::event::{KeyCode, KeyEvent};
use regex::Regex;
use tui_input::Input;

use super::{App, Request};
use crate::store::{State, UrlRecord};
use crate::tui::input::text_request;
use crate::tui::log_reader::{LogPage, LogQuery, PageFrom, RecordView};
use crate::tui::view::layout::log_list_rows;

/// The state filter cycles through these (`None`: every state).
const STATES: [Option<State>; 8] = [
    None,
    Some(State::Queued),
    Some(State::InFlight),
    Some(State::Fetched),
    Some(State::Saved),
    Some(State::Filtered),
    Some(State::Error),
    Some(State::Deleted),
];

/// The queue filter cycles through these.
const QUEUES: [Option<&str>; 8] = [
    None,
    Some("user"),
    Some("redirect"),
    Some("index"),
    Some("index_follow"),
    Some("follow"),
    Some("refresh"),
    Some("none"),
];

/// Which row to select once a requested page arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Select {
    First,
    Last,
    Row(usize),
    Id(u64),
}

/// The Log view's state.
#[derive(Debug)]
pub struct LogState {
    pub query: LogQuery,
    /// The window of records shown, oldest first.
    pub rows: Vec<(u64, UrlRecord)>,
    pub selected: usize,
    /// Keep showing the newest records as the crawl logs them.
    pub follow: bool,
    /// The selected record in full, once read.
    pub record: Option<RecordView>,
    /// Records in the log.
    pub total: u64,
    /// Records the filter lists, when known ([`LogPage::matching`]).
    pub matching: Option<u64>,
    /// The text filter being typed (`/`), with its error if not a regex.
    pub filter_input: Option<Input>,
    pub filter_error: Option<String>,
    /// Why the selected record could not be read, if it could not.
    pub record_error: Option<String>,
    /// Lines scrolled in the detail pane.
    pub detail_scroll: u16,
    pub error: Option<String>,
    /// The log's folder, shown so that `crawlspace log --db` can be run
    /// on it from another terminal while the crawl runs.
    pub dir: Option<String>,
    /// The newest page request; older answers are dropped.
    seq: u64,
    /// The request last answered: while it is not `seq`, a move the user
    /// asked for is on its way, and the ticks' refresh waits (its request
    /// would drop that answer).
    answered: u64,
    select: Select,
    /// The selected URL as the list showed it when its record was asked
    /// for (id, state, status): asked again when the list shows it moved
    /// on, as a queued URL does once fetched, and only then.
    record_asked: Option<(u64, State, Option<u16>)>,
    /// The page asked for re-reads the window from its top: when it comes
    /// back shorter than the list, the last page is read instead.
    refill: bool,
}

impl Default for LogState {
    fn default() -> LogState {
        LogState {
            query: LogQuery::default(),
            rows: Vec::new(),
            selected: 0,
            follow: true,
            record: None,
            record_error: None,
            total: 0,
            matching: None,
            filter_input: None,
            filter_error: None,
            detail_scroll: 0,
            error: None,
            dir: None,
            seq: 0,
            answered: 0,
            select: Select::Last,
            record_asked: None,
            refill: false,
        }
    }
}

/// How much of a text filter the list's title quotes; the detail pane
/// shows all of it while it is typed.
const FILTER_SHOWN: usize = 32;

impl LogState {
    pub fn selected_id(&self) -> Option<u64> {
        self.rows.get(self.selected).map(|(id, _)| *id)
    }

    /// Some filter is set: the list is not every URL.
    pub fn is_filtered(&self) -> bool {
        self.query.state.is_some() || self.query.queue.is_some() || self.query.text.is_some()
    }

    /// A one-line description of the filters in force.
    pub fn filter_text(&self) -> String {
        let mut parts = Vec::new();
        if let Some(s) = self.query.state {
            parts.push(format!("state {}", s.name()));
        }
        if let Some(q) = &self.query.queue {
            parts.push(format!("queue {q}"));
        }
        if let Some(t) = &self.query.text {
            // In backquotes: a regex is often a path, and `/…/` around
            // `/tmp/` read as `//tmp//`. Shortened: the title also says
            // how many URLs match and whether the list follows the crawl.
            parts.push(format!(
                "text `{}`",
                crate::text::shortened(t.as_str(), FILTER_SHOWN)
            ));
        }
        if parts.is_empty() {
            "all URLs".into()
        } else {
            parts.join(", ")
        }
    }

    /// Asks for the selected record's detail when it changed.
    pub(super) fn tick(&mut self, requests: &mut Vec<Request>) {
        let shown = self
            .rows
            .get(self.selected)
            .map(|(id, row)| (*id, row.state, row.status));
        if shown != self.record_asked {
            self.record_asked = shown;
            if let Some((id, ..)) = shown {
                requests.push(Request::Record(id));
            }
        }
    }

    pub(super) fn take_record(&mut self, id: u64, read: Result<Box<RecordView>, String>) {
        if Some(id) != self.selected_id() {
            return;
        }
        match read {
            Ok(view) => {
                self.record = Some(*view);
                self.record_error = None;
            }
            Err(why) => {
                self.record = None;
                self.record_error = Some(why);
            }
        }
    }
}

impl App {
    fn page_rows(&self) -> usize {
        log_list_rows(self.size).max(1)
    }

    /// Asks for a page; `select` says which row to select when it comes.
    fn log_request(&mut self, from: PageFrom, select: Select) {
        self.log.seq += 1;
        self.log.refill = false;
        self.log.select = select;
        let request = Request::LogPage {
            query: self.log.query.clone(),
            from,
            limit: self.page_rows(),
            seq: self.log.seq,
        };
        self.request(request);
    }

    /// Re-reads the window: the tail when following, else from its top,
    /// or, when the list has shrunk below the selected row, up to that row
    /// (so that it stays on screen, selected).
    pub(super) fn log_refresh(&mut self) {
        if self.log.follow {
            return self.log_request(PageFrom::End, Select::Last);
        }
        let (Some(&(first, _)), Some(selected)) = (self.log.rows.first(), self.log.selected_id())
        else {
            return self.log_request(PageFrom::Start, Select::First);
        };
        let from = if self.log.selected < self.page_rows() {
            PageFrom::After(first.saturating_sub(1))
        } else {
            PageFrom::Before(selected.saturating_add(1))
        };
        self.log_request(from, Select::Id(selected));
        self.log.refill = true;
    }

    /// Whether a page asked for has not come yet.
    pub(super) fn log_waiting(&self) -> bool {
        self.log.answered != self.log.seq
    }

    pub(super) fn log_page(&mut self, page: LogPage) {
        if page.seq != self.log.seq {
            return; // an answer to an older request
        }
        self.log.answered = page.seq;
        // The window re-read no longer fills the list (the terminal grew,
        // or rows left the filter): the last page of what matches fills it,
        // the selection kept.
        let refresh = std::mem::take(&mut self.log.refill);
        // A refresh keeps the row selected now: `j`/`k` inside the window
        // may have moved it since the request.
        if refresh && let Some(id) = self.log.selected_id() {
            self.log.select = Select::Id(id);
        }
        if refresh
            && matches!(page.from, PageFrom::After(_) | PageFrom::Before(_))
            && page.rows.len() < self.page_rows()
        {
            let select = self.log.selected_id().map_or(Select::Last, Select::Id);
            self.log_request(PageFrom::End, select);
            return;
        }
        // The detail stays scrolled while the same URL stays selected (a
        // page that only refreshes the window, as when following).
        let shown = self.log.selected_id();
        self.log.total = page.total;
        self.log.matching = page.matching;
        self.log.error = page.error;
        // A step or page towards an end that brings fewer rows than the
        // window holds has reached that end: keep the window (a full page
        // from that end when paging) and select its edge.
        // (Not a refresh: its window may have shrunk with the terminal.)
        let short = !refresh
            && page.rows.len() < self.log.rows.len()
            && matches!(page.from, PageFrom::Before(_) | PageFrom::After(_));
        if short {
            // A jump to one URL (`r`) that lies within a page of the end:
            // the last page holds it. Kept as a step would be, the window
            // stayed where it was and its last row was selected instead.
            if let Select::Id(id) = self.log.select {
                return self.log_request(PageFrom::End, Select::Id(id));
            }
            let paging = matches!(self.log.select, Select::Row(_));
            match (page.from, paging) {
                (PageFrom::Before(_), true) => self.log_request(PageFrom::Start, Select::First),
                (PageFrom::Before(_), false) => self.log.selected = 0,
                (_, true) => self.log_request(PageFrom::End, Select::Last),
                (_, false) => self.log.selected = self.log.rows.len().saturating_sub(1),
            }
            return;
        }
        self.log.rows = page.rows;
        let last = self.log.rows.len().saturating_sub(1);
        self.log.selected = match self.log.select {
            Select::First => 0,
            Select::Last => last,
            Select::Row(i) => i.min(last),
            Select::Id(id) => self
                .log
                .rows
                .iter()
                .position(|(r, _)| *r == id)
                .unwrap_or(0),
        };
        if self.log.selected_id() != shown {
            self.log.detail_scroll = 0;
        }
    }

    /// One row up or down; at the window's edge the window moves by one.
    pub(super) fn log_step(&mut self, up: bool) {
        let n = self.log.rows.len();
        if up {
            if self.log.selected > 0 {
                self.log.selected -= 1;
            } else if let Some(&(last, _)) = self.log.rows.last() {
                self.log.follow = false;
                self.log_request(PageFrom::Before(last), Select::First);
            }
        } else if self.log.selected + 1 < n {
            self.log.selected += 1;
        } else if let Some(&(first, _)) = self.log.rows.first()
            && n >= self.page_rows()
        {
            self.log_request(PageFrom::After(first), Select::Last);
        }
        self.log.detail_scroll = 0;
    }

    fn log_page_step(&mut self, up: bool) {
        self.log.follow = false;
        match (up, self.log.rows.first(), self.log.rows.last()) {
            (true, Some(&(first, _)), _) => {
                self.log_request(PageFrom::Before(first), Select::Row(self.log.selected))
            }
            (false, _, Some(&(last, _))) => {
                self.log_request(PageFrom::After(last), Select::Row(self.log.selected))
            }
            _ => {}
        }
    }

    /// Filters changed: back to the start (or the tail when following).
    fn log_filters_changed(&mut self) {
        self.log.rows.clear();
        self.log.record = None;
        if self.log.follow {
            self.log_request(PageFrom::End, Select::Last);
        } else {
            self.log_request(PageFrom::Start, Select::First);
        }
    }

    pub(super) fn log_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => {
                self.log.follow = false;
                self.log_step(true)
            }
            KeyCode::Down | KeyCode::Char('j') => self.log_step(false),
            KeyCode::PageUp => self.log_page_step(true),
            KeyCode::PageDown => self.log_page_step(false),
            KeyCode::Home | KeyCode::Char('g') => {
                self.log.follow = false;
                self.log_request(PageFrom::Start, Select::First);
            }
            KeyCode::End | KeyCode::Char('G') | KeyCode::Char('F') => {
                self.log.follow = true;
                self.log_request(PageFrom::End, Select::Last);
            }
            KeyCode::Char('s') => {
                let at = STATES
                    .iter()
                    .position(|s| *s == self.log.query.state)
                    .unwrap_or(0);
                self.log.query.state = STATES[(at + 1) % STATES.len()];
                self.log_filters_changed();
            }
            KeyCode::Char('Q') => {
                let at = QUEUES
                    .iter()
                    .position(|q| *q == self.log.query.queue.as_deref())
                    .unwrap_or(0);
                self.log.query.queue = QUEUES[(at + 1) % QUEUES.len()].map(str::to_string);
                self.log_filters_changed();
            }
            KeyCode::Char('/') => {
                let current = self.log.query.text.as_ref().map(|r| r.as_str().to_string());
                self.log.filter_input = Some(Input::new(current.unwrap_or_default()));
                self.log.filter_error = None;
            }
            KeyCode::Char('c') => {
                self.log.query = LogQuery::default();
                self.log_filters_changed();
            }
            KeyCode::Char('r') => self.jump_to_referrer(),
            KeyCode::Char('e') => self.explain_selected(),
            KeyCode::Char('J') => {
                let most = crate::tui::view::log_detail_max_scroll(self);
                self.log.detail_scroll = self.log.detail_scroll.saturating_add(3).min(most);
            }
            KeyCode::Char('K') => {
                // From where the pane shows, which a grown terminal may have
                // brought above the scroll asked for.
                let most = crate::tui::view::log_detail_max_scroll(self);
                self.log.detail_scroll = self.log.detail_scroll.min(most).saturating_sub(3);
            }
            _ => {}
        }
    }

    /// `e`: the selected URL in the Explain view, with the content type
    /// and address the log keeps for it, so that the rules as they are
    /// now (edits included) judge it as the crawl could, beside what the
    /// crawl did with it (which Explain shows under the verdict).
    fn explain_selected(&mut self) {
        let Some((_, row)) = self.log.rows.get(self.log.selected) else {
            return;
        };
        let explain = &mut self.explain;
        explain.url = Input::new(row.url.clone());
        explain.content_type = Input::new(row.content_type.clone().unwrap_or_default());
        explain.address = Input::new(row.address.map(|a| a.to_string()).unwrap_or_default());
        explain.focus = super::explain::ExplainFocus::Url;
        self.show(super::View::Explain);
    }

    fn jump_to_referrer(&mut self) {
        // From the row itself: the selected record's detail may not have
        // come yet when `r` follows a move at once.
        let Some((_, row)) = self.log.rows.get(self.log.selected) else {
            return;
        };
        match row.referrer {
            Some(id) => {
                self.log.follow = false;
                // The referrer may not pass the filters: they go, and the
                // message says so (the title alone changed without a word).
                let q = &self.log.query;
                self.message = if q.state.is_some() || q.queue.is_some() || q.text.is_some() {
                    Some(format!(
                        "filters cleared to show the referrer #{id} (s, Q, / set them again)"
                    ))
                } else {
                    // An earlier jump's message would name another row.
                    None
                };
                self.log.query = LogQuery::default();
                let from = id.checked_sub(1).map_or(PageFrom::Start, PageFrom::After);
                self.log_request(from, Select::Id(id));
            }
            None => {
                self.message = Some(
                    "this URL has no referrer (a start URL, or found in a sitemap or robots.txt)"
                        .into(),
                )
            }
        }
    }

    pub(super) fn log_filter_key(&mut self, key: KeyEvent) {
        let Some(input) = &mut self.log.filter_input else {
            return;
        };
        match key.code {
            KeyCode::Esc => {
                self.log.filter_input = None;
                self.log.filter_error = None;
            }
            KeyCode::Enter => {
                let text = input.value().to_string();
                if text.is_empty() {
                    self.log.query.text = None;
                } else {
                    match Regex::new(&text) {
                        Ok(re) => self.log.query.text = Some(re),
                        Err(e) => {
                            self.log.filter_error = Some(crate::text::regex_error(&e));
                            return;
                        }
                    }
                }
                self.log.filter_input = None;
                self.log.filter_error = None;
                self.log_filters_changed();
            }
            _ => {
                if let Some(r) = text_request(key) {
                    input.handle(r);
                }
                // Checked as typed, applied on Enter.
                self.log.filter_error = Regex::new(input.value())
                    .err()
                    .map(|e| crate::text::regex_error(&e));
            }
        }
    }
}
