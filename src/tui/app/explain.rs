//! The Explain view: a URL (and, optionally, a content type and an address,
//! as `explain --content-type/--address` take them) evaluated under the
//! edited rules on every key, with the full trace.

use std::net::IpAddr;
use std::sync::Arc;

use ratatui::crossterm::event::{KeyCode, KeyEvent};
use tui_input::Input;

use super::App;
use crate::cli::{PENDING_HINT, verdict_text};
use crate::rules::{CompiledRules, Known, TraceMode, UrlFacts, normalize};
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
}

impl ExplainState {
    /// Evaluates the inputs under `rules`.
    pub fn evaluate(&mut self, rules: &Arc<CompiledRules>) {
        self.scroll = 0;
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
        let known = Known {
            address,
            ..Known::default()
        };
        let known = match content_type {
            "" => known,
            given => known.with_content_type(given),
        };
        let verdict = rules.evaluate(
            &UrlFacts::new(&url, &known),
            &mut rules.scratch(),
            TraceMode::Full,
        );
        // The console's inputs, not the command line's options.
        self.result = verdict_text(url.as_str(), &verdict, rules)
            .replace(PENDING_HINT, "(set the fields above)");
    }

    pub fn scroll_step(&mut self, up: bool) {
        self.scroll = if up {
            self.scroll.saturating_sub(1)
        } else {
            self.scroll.saturating_add(1)
        };
    }

    fn input(&mut self) -> &mut Input {
        match self.focus {
            ExplainFocus::Url => &mut self.url,
            ExplainFocus::ContentType => &mut self.content_type,
            ExplainFocus::Address => &mut self.address,
        }
    }
}

impl App {
    pub(super) fn explain_key(&mut self, key: KeyEvent) {
        let e = &mut self.explain;
        if !e.editing {
            match key.code {
                KeyCode::Enter | KeyCode::Char('i') | KeyCode::Char('/') => e.editing = true,
                KeyCode::Up | KeyCode::Char('k') => e.scroll_step(true),
                KeyCode::Down | KeyCode::Char('j') => e.scroll_step(false),
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
            KeyCode::PageUp => e.scroll_step(true),
            KeyCode::PageDown => e.scroll_step(false),
            _ => {
                if let Some(r) = text_request(key) {
                    e.input().handle(r);
                    let rules = self.rules.compiled.clone();
                    self.explain.evaluate(&rules);
                }
            }
        }
    }
}
