//! The `log` command's listing: which URLs it asks for ([`ListingRequest`])
//! and how it writes them ([`write_listing`]), as a table or JSON lines,
//! or, for `--why`, everything the log holds for some URLs as the
//! console's why pane shows it.
//! The same code writes a listing to this process's stdout and, for a
//! `log` run in another terminal, to the socket of the crawl that holds
//! the log open (`log_socket.rs`), so both print the same.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Weak};

use serde::{Deserialize, Serialize};

use super::AppError;
use crate::cli::escape_control;
use crate::rules::facts::normalize;
use crate::store::{Query, State, StoreError, UrlLog};
use crate::tui::log_reader::read_record;
use crate::tui::view::why_text;

/// Records read from the log at a time.
const PAGE: usize = 1000;

/// What `log` lists, as its options gave it (checked by
/// [`ListingRequest::query`]).
/// Unknown fields are refused: a crawl of an older build asked for
/// something it does not know says so rather than listing something else.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListingRequest {
    pub state: Option<String>,
    pub grep: Option<String>,
    pub json: bool,
    /// URLs to tell everything about instead of a listing (`--why`).
    #[serde(default)]
    pub why: Vec<String>,
}

impl ListingRequest {
    /// The log query the options ask for, or the input error naming the
    /// option that is wrong (a `--why` that is no URL too).
    pub fn query(&self) -> Result<Query, AppError> {
        for text in &self.why {
            why_url(text)?;
        }
        let state = self
            .state
            .as_deref()
            .map(|s| {
                s.parse::<State>()
                    .map_err(|e| AppError::Input(format!("--state: {e}")))
            })
            .transpose()?;
        let text = self
            .grep
            .as_deref()
            .map(|g| {
                regex::Regex::new(g).map_err(|e| {
                    let why = crate::text::regex_error(&e);
                    let shown = crate::text::escape_control(&crate::text::shortened(g, 60));
                    AppError::Input(format!("--grep: regex `{shown}` does not compile: {why}"))
                })
            })
            .transpose()?;
        Ok(Query {
            state,
            text,
            ..Query::default()
        })
    }
}

/// The log a listing reads: held weakly, so that a listing piped into a
/// pager that waits on its reader does not keep a crawl's log open after
/// the crawl has ended (the listing fails then, saying so). It is held
/// only while a page is read.
#[derive(Debug, Clone)]
pub struct Source<'a> {
    pub log: Weak<UrlLog>,
    /// The log's folder, for messages.
    pub dir: &'a Path,
}

impl Source<'_> {
    fn log(&self) -> Result<Arc<UrlLog>, AppError> {
        self.log.upgrade().ok_or_else(|| {
            AppError::Runtime(format!(
                "{}: the crawl holding this URL log ended during the listing; run `log` again",
                self.dir.display()
            ))
        })
    }
}

/// Writes every record `request` asks for, in discovery order: the
/// table's header first, or one JSON object per line. A damaged index
/// entry (a state block) is rebuilt from the records once and the page
/// read again, as a write would, and `note` is told so (the reader's
/// terminal is not always this process's).
pub fn write_listing(
    source: &Source<'_>,
    request: &ListingRequest,
    out: &mut impl Write,
    note: &mut dyn FnMut(&str),
) -> Result<(), AppError> {
    let query = request.query()?;
    if !request.why.is_empty() {
        return write_why(source, request, out);
    }
    let runtime = |e: StoreError| AppError::Runtime(e.to_string());
    if !request.json {
        writeln!(
            out,
            "{:>8}  {:<9}  {:>6}  {:<60}  reason",
            "id", "state", "status", "url"
        )
        .map_err(io)?;
    }
    let mut repaired: Vec<Vec<u8>> = Vec::new();
    let mut after = None;
    loop {
        let log = source.log()?;
        let page = match log.page(&query, after, PAGE) {
            Err(StoreError::BadEntry { tree, key }) if !repaired.contains(&key) => {
                let e = StoreError::BadEntry { tree, key };
                if !log.repair_damaged(&e).map_err(runtime)? {
                    return Err(runtime(e));
                }
                note(&format!("{e}: rebuilt it from the records"));
                if let StoreError::BadEntry { key, .. } = e {
                    repaired.push(key);
                }
                continue;
            }
            page => page.map_err(runtime)?,
        };
        drop(log);
        let Some((last, _)) = page.last() else { break };
        after = Some(*last);
        for (id, record) in &page {
            if request.json {
                json_line(out, &crate::store::export_json(record, *id))?;
            } else {
                writeln!(
                    out,
                    "{:>8}  {:<9}  {:>6}  {:<60}  {}",
                    id,
                    record.state.name(),
                    record
                        .status
                        .map(|s| s.to_string())
                        .unwrap_or_else(|| "-".into()),
                    escape_control(&crate::text::without_password(&record.url)),
                    escape_control(&crate::text::without_password(&record.reason))
                )
                .map_err(io)?;
            }
        }
    }
    out.flush().map_err(io)
}

/// How a failed write of the listing's output begins.
pub const WRITE_FAILED: &str = "cannot write:";

fn io(e: std::io::Error) -> AppError {
    AppError::Runtime(format!("{WRITE_FAILED} {e}"))
}

/// One JSON object and its line break.
fn json_line(out: &mut impl Write, value: &serde_json::Value) -> Result<(), AppError> {
    crate::cli::write_json(out, value).map_err(io)?;
    writeln!(out).map_err(io)
}

/// A `--why` text as the URL the crawler would log, or the input error
/// naming it.
fn why_url(text: &str) -> Result<url::Url, AppError> {
    normalize(text)
        .map_err(|e| AppError::Input(format!("--why {}: {e}", escape_control(text.trim()))))
}

/// `--why`: for each URL (normalized as the crawler does), everything the
/// log holds for it and the referrers that led to it, as the console's
/// why pane has it, or its JSON line. A URL the log does not hold makes
/// the command fail once all are written: said on stderr only in text (as
/// `ls` says a missing file), and as an error line in JSON, so that a
/// reader gets a line per URL in the order asked.
fn write_why(
    source: &Source<'_>,
    request: &ListingRequest,
    out: &mut impl Write,
) -> Result<(), AppError> {
    let mut missing = Vec::new();
    let mut written = 0;
    for text in &request.why {
        let url = why_url(text)?;
        let log = source.log()?;
        let runtime = |e: StoreError| AppError::Runtime(format!("{url}: {e}"));
        let view = match log.id_of(url.as_str()).map_err(runtime)? {
            Some(id) => read_record(&log, id).map_err(runtime)?,
            None => None,
        };
        drop(log);
        if view.is_none() {
            missing.push(escape_control(url.as_str()));
        }
        // A blank line between two URLs' texts.
        if written > 0 && !request.json && view.is_some() {
            writeln!(out).map_err(io)?;
        }
        match (view, request.json) {
            (Some(view), true) => {
                json_line(out, &crate::store::export_json(&view.record, view.id))?;
            }
            (Some(view), false) => {
                writeln!(out, "{:<11}{}", "id", view.id).map_err(io)?;
                for line in why_text(&view) {
                    writeln!(out, "{}", line.trim_end()).map_err(io)?;
                }
                written += 1;
            }
            (None, true) => {
                json_line(
                    out,
                    &serde_json::json!({"url": url.as_str(), "error": "not in the log"}),
                )?;
            }
            (None, false) => {}
        }
    }
    out.flush().map_err(io)?;
    const HINT: &str = "(`crawlspace explain` tells what the rules would do with";
    match missing.as_slice() {
        [] => Ok(()),
        [url] => Err(AppError::Runtime(format!(
            "{url} is not in the log in {}: the crawl has not met it {HINT} it)",
            source.dir.display()
        ))),
        urls => {
            let of = if urls.len() == request.why.len() {
                format!("{} URLs asked", urls.len())
            } else {
                format!("{} of the {} URLs asked", urls.len(), request.why.len())
            };
            Err(AppError::Runtime(format!(
                "{of} are not in the log in {}: {}; the crawl has not met them {HINT} them)",
                source.dir.display(),
                urls.join(", ")
            )))
        }
    }
}
