//! The Explain view: a URL (and, optionally, a content type and an address,
//! as `explain --content-type/--address` take them) evaluated under the
//! edited rules on every key, with the full trace.

use std::net::IpAddr;
use std::sync::Arc;

use ratatui::crossterm::event::{KeyCode, KeyEvent};
use tui_input::Input;

use super::{App, Request};
use crate::cli::{PENDING_HINT, verdict_text};
use crate::rules::{CompiledRules, Known, TraceMode, UrlFacts, normalize};
use crate::store::UrlRecord;
use crate::text::without_password;
use crate::tui::input::text_request;

/// Which input has the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExplainFocus {
    #[default]
    Url,
    ContentType,
    Address,
}

#[derive(Debug, Default)]
pub struct ExplainState {
    pub url: Input,
    pub content_type: Input,
    pub address: Input,
    pub focus: ExplainFocus,
    /// Keys go to the inputs (else to the view keys: 1-4, q, ?).
    pub editing: bool,
    /// The verdict and trace as text, or why there is none.
    pub result: String,
    pub scroll: u16,
    /// The URL evaluated (normalized), to look up in the crawl's log.
    pub url_now: Option<String>,
    /// The URL last asked about in the log.
    asked: Option<String>,
    /// The URL last looked up in the log, and what the log said of it.
    pub logged: Option<(String, Logged)>,
    /// The crawl's depth limits, for what the crawler itself would refuse.
    pub limits: Option<crate::cli::DepthLimits>,
}

/// What the crawl's log holds for a URL: its id and record, nothing, or
/// why it could not be read.
pub type Logged = Result<Option<(u64, UrlRecord)>, String>;

impl ExplainState {
    /// The log is asked again on the next evaluation: the crawl may have
    /// done more with the URL since (on entering the view).
    pub fn ask_again(&mut self) {
        self.asked = None;
    }

    /// What the crawl did with the URL evaluated, as lines under its
    /// verdict; `None` while the log has not answered for it.
    pub fn logged_text(&self) -> Option<String> {
        let (url, logged) = self.logged.as_ref()?;
        if Some(url) != self.url_now.as_ref() {
            return None;
        }
        Some(match logged {
            Ok(Some((id, r))) => {
                let mut text = format!(
                    "in the crawl's log: #{id} {} — {}",
                    r.state.name(),
                    without_password(&r.reason)
                );
                // The layers the rules cannot see: robots.txt, depth, nofollow.
                let is_rule = |rule: &str| rule.chars().all(|c| c.is_ascii_digit() || c == '.');
                for t in r.trace.iter().filter(|t| !is_rule(&t.rule)) {
                    let detail = without_password(&t.detail);
                    text.push_str(&format!("\n    {} {}: {detail}", t.rule, t.step));
                }
                text.push_str("\n  (3 URL log, / this URL: all the log holds for it)");
                text
            }
            Ok(None) => {
                "not in the crawl's log: not met by the crawl (or filtered without a record)".into()
            }
            Err(e) => format!("the crawl's log could not be read: {e}"),
        })
    }
}

impl ExplainState {
    /// Evaluates the inputs under `rules`.
    pub fn evaluate(&mut self, rules: &Arc<CompiledRules>) {
        self.scroll = 0;
        self.url_now = None;
        let text = self.url.value().trim();
        if text.is_empty() {
            self.result = "Type a URL to see its verdict and the trace of every rule.".into();
            return;
        }
        let url = match normalize(text) {
            Ok(u) => u,
            Err(e) => {
                self.result = format!("not a URL this crawler can fetch: {e}");
                return;
            }
        };
        self.url_now = Some(url.to_string());
        let address = self.address.value().trim();
        let address = if address.is_empty() {
            None
        } else {
            match address.parse::<IpAddr>() {
                Ok(a) => Some(a),
                Err(_) => {
                    self.result = format!("address {address:?} is not an IP address");
                    return;
                }
            }
        };
        // As `explain --content-type` takes it: parameters stripped.
        let content_type = self.content_type.value().trim();
        // A URL the crawl logged is judged at the link depth it was met at
        // (a depth rule would otherwise say what the crawl did not);
        // another, as a link from a start URL, as `explain` takes it.
        let logged_depth = self.logged_depth(url.as_str());
        let known = Known {
            address,
            link_depth: logged_depth.unwrap_or(Known::default().link_depth),
            ..Known::default()
        };
        let known = match content_type {
            "" => known,
            given => known.with_content_type(given),
        };
        let verdict = rules.evaluate(
            &UrlFacts::new(&url, &known).with_host_address(),
            &mut rules.scratch(),
            TraceMode::Full,
        );
        // The console's inputs, not the command line's options: the hint
        // on the `pending:` line (the URL above it may hold anything).
        self.result = verdict_text(url.as_str(), &verdict, rules);
        let hint = PENDING_HINT.split("OPTIONS").next().unwrap_or("(use ");
        if let Some(line) = self.result.find("\n  pending: ")
            && let Some(start) = self.result[line..].find(hint).map(|at| line + at)
            && let Some(len) = self.result[start..].find(')')
        {
            self.result
                .replace_range(start..=start + len, "(set the fields above)");
        }
        // Under the verdict line, which it qualifies.
        let depth = match logged_depth {
            Some(depth) => format!("\n  at link depth {depth}, as the crawl's log has it"),
            None => "\n  at link depth 1 (a link from a start URL)".into(),
        };
        let at = self
            .result
            .find("\n  verdict:")
            .and_then(|v| self.result[v + 1..].find('\n').map(|end| v + 1 + end))
            .unwrap_or(self.result.len());
        self.result.insert_str(at, &depth);
        // What the crawler itself refuses, rules aside (as `explain` says).
        let link_depth = known.link_depth;
        if verdict.fetch
            && let Some(why) = crate::cli::crawler_refusal(&url, link_depth, self.limits)
        {
            let at = self
                .result
                .find("\n  trace:")
                .map_or(self.result.len(), |t| t + 1);
            self.result.insert_str(at, &format!("  crawler: {why}\n"));
        }
    }

    /// The link depth the crawl's log has for `url`, once it answered.
    fn logged_depth(&self, url: &str) -> Option<u32> {
        match &self.logged {
            Some((logged, Ok(Some((_, record))))) if logged == url => Some(record.link_depth),
            _ => None,
        }
    }

    /// Scrolls the verdict `by` rows, within `most` (its last row at the
    /// bottom of the pane).
    pub fn scroll_by(&mut self, up: bool, by: u16, most: u16) {
        // From where the pane shows, which may be short of the scroll
        // asked for (a shorter verdict, a taller terminal).
        let now = self.scroll.min(most);
        self.scroll = if up {
            now.saturating_sub(by)
        } else {
            now.saturating_add(by).min(most)
        };
    }

    pub(super) fn input(&mut self) -> &mut Input {
        match self.focus {
            ExplainFocus::Url => &mut self.url,
            ExplainFocus::ContentType => &mut self.content_type,
            ExplainFocus::Address => &mut self.address,
        }
    }
}

impl App {
    pub(super) fn explain_key(&mut self, key: KeyEvent) {
        let (most, page) = crate::tui::view::explain_scroll_limits(self);
        let e = &mut self.explain;
        if !e.editing {
            match key.code {
                KeyCode::Enter | KeyCode::Char('i') | KeyCode::Char('/') => e.editing = true,
                KeyCode::Up | KeyCode::Char('k') => e.scroll_by(true, 1, most),
                KeyCode::Down | KeyCode::Char('j') => e.scroll_by(false, 1, most),
                KeyCode::PageUp => e.scroll_by(true, page, most),
                KeyCode::PageDown => e.scroll_by(false, page, most),
                _ => {}
            }
            return;
        }
        match key.code {
            KeyCode::Esc => e.editing = false,
            KeyCode::Tab | KeyCode::Down => {
                e.focus = match e.focus {
                    ExplainFocus::Url => ExplainFocus::ContentType,
                    ExplainFocus::ContentType => ExplainFocus::Address,
                    ExplainFocus::Address => ExplainFocus::Url,
                }
            }
            KeyCode::BackTab | KeyCode::Up => {
                e.focus = match e.focus {
                    ExplainFocus::Url => ExplainFocus::Address,
                    ExplainFocus::ContentType => ExplainFocus::Url,
                    ExplainFocus::Address => ExplainFocus::ContentType,
                }
            }
            KeyCode::PageUp => e.scroll_by(true, page, most),
            KeyCode::PageDown => e.scroll_by(false, page, most),
            _ => {
                if let Some(r) = text_request(key) {
                    e.input().handle(r);
                    self.explain_now();
                }
            }
        }
    }

    /// Evaluates the Explain inputs under the edited rules, and asks the
    /// crawl's log about the URL when it is one not asked about yet.
    pub(super) fn explain_now(&mut self) {
        let rules = self.rules.compiled.clone();
        self.explain.evaluate(&rules);
        let Some(url) = self.explain.url_now.clone() else {
            return;
        };
        if self.explain.asked.as_ref() != Some(&url) {
            self.explain.asked = Some(url.clone());
            self.request(Request::Logged(url));
        }
    }

    /// The log's answer about a URL typed in Explain: the verdict is
    /// worked out again at the link depth the log has for it.
    pub(super) fn take_logged(&mut self, url: String, logged: Logged) {
        // Answers come back in any order (each lookup runs on its own
        // blocking task): only the answer to the latest question counts,
        // which is asked only once (also when the input was cleared before
        // it came back, and the URL typed again).
        if self.explain.asked.as_ref() != Some(&url) {
            return;
        }
        let now = self.explain.url_now.as_ref() == Some(&url);
        self.explain.logged = Some((url, logged));
        if !now {
            return;
        }
        let scroll = self.explain.scroll;
        let rules = self.rules.compiled.clone();
        self.explain.evaluate(&rules);
        // An answer does not move what the user scrolled to.
        self.explain.scroll = scroll;
    }
}
