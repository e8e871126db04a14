//! The console (SPEC §4): ratatui + crossterm over a running crawl.
//!
//! One task owns the terminal (STYLE habit 7). Keys and mouse come from a
//! reader thread, crawl news from the engine's bounded event channel, and
//! results of work done elsewhere (log pages, what-if counts, trap hints,
//! file writes) from a bounded results channel; each goes through
//! [`app::App::update`], bursts are drained, and the screen is drawn once.
//! The UI never waits on the crawl or on disk: log reads and what-if counts
//! run on blocking tasks and report back.
//!
//! Modules: [`app`] (state and update), [`action`] (its inputs), [`view`]
//! (drawing), [`edit`] (rule list edits, undo), [`log_reader`] (log pages
//! off the UI task), [`whatif`], [`preview`] (the rule form's count),
//! [`traps`], [`save`], [`input`].

pub mod action;
pub mod app;
pub mod edit;
pub mod input;
pub mod log_reader;
pub mod preview;
pub mod save;
pub mod traps;
pub mod view;
pub mod whatif;

mod run;
#[cfg(test)]
mod tests;

pub use run::{Console, drive, run};
