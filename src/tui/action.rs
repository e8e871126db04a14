//! Everything that can change the console's state: keys and mouse from the
//! terminal, news from the crawl, and results of work done off the UI task.
//! [`super::app::App::update`] is the only place that acts on them.

use ratatui::crossterm::event::KeyEvent;

use super::log_reader::{LogPage, RecordView};
use super::traps::TrapHint;
use super::whatif::Report;
use crate::crawl::detail::Detail;
use crate::crawl::engine::Stats;

/// One input to [`super::app::App::update`].
#[derive(Debug)]
pub enum Action {
    /// A key press, read according to the current view and mode.
    Key(KeyEvent),
    /// Text pasted into the terminal (bracketed paste): typed into the
    /// text input in use, never read as keys.
    Paste(String),
    /// Mouse wheel up over the screen: scroll the focused list.
    ScrollUp,
    /// Mouse wheel down.
    ScrollDown,
    /// The terminal changed size (columns, rows).
    Resize(u16, u16),
    /// A tenth of a second passed: ask for fresh data, sample the rate.
    Tick,
    /// The crawl's counters.
    Stats(Stats),
    /// Queues, hosts and rule hits of the crawl.
    Detail(Box<Detail>),
    /// The crawl ended (nothing left, or stopped).
    Finished(Stats),
    /// Something the crawl has to say beside its counts (a damaged
    /// record skipped, say), as a `crawlspace: …` line.
    Notice(String),
    /// A page of the URL log, read off the UI task.
    LogPage(LogPage),
    /// The record asked for by id, with its referrer chain, or why it could
    /// not be read.
    Record(u64, Result<Box<RecordView>, String>),
    /// What the log holds for a URL typed in Explain.
    Logged(String, Box<crate::tui::app::Logged>),
    /// Progress or the result of the what-if count with this number.
    WhatIf(u64, Box<Report>),
    /// Progress or the result of the rule form's preview with this number.
    Preview(u64, Box<super::preview::Preview>),
    /// A command could not be handed to the crawl (it has ended, or is
    /// not taking commands).
    Refused(String),
    /// Fresh trap hints from the latest discoveries.
    Traps(Vec<TrapHint>),
    /// The rules file was written (the message says where and how) or not.
    Saved(Result<String, String>),
    /// The rules file was not written: it changed on disk since the console
    /// read or wrote it (the message says so, and that `w` overwrites);
    /// with the text found there, which the overwrite keeps but for the rules.
    SaveConflict(String, Option<String>),
}
