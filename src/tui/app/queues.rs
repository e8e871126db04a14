//! The Queues view's state and keys: one queue selected, its weight raised
//! or lowered live (sent to the crawl at once).

use std::cell::Cell;

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::{App, Request};
use crate::crawl::engine::Control;

/// Highest weight the console sets.
const MAX_WEIGHT: u32 = 1_000_000;

#[derive(Debug)]
pub struct QueuesState {
    /// Index into the six queues of SPEC §2.2.
    pub selected: usize,
    /// The weights in force (as last sent to the crawl).
    pub weights: [u32; 6],
    /// The first queue the view showed last, on a terminal too short for
    /// all six: where its window starts next frame (the view sets it).
    pub first_shown: Cell<usize>,
}

impl QueuesState {
    pub fn new(weights: [u32; 6]) -> QueuesState {
        QueuesState {
            selected: 0,
            weights,
            first_shown: Cell::new(0),
        }
    }

    pub fn select_step(&mut self, up: bool) {
        self.selected = if up {
            self.selected.saturating_sub(1)
        } else {
            (self.selected + 1).min(5)
        };
    }
}

impl App {
    pub(super) fn queues_key(&mut self, key: KeyEvent) {
        let q = &mut self.queues;
        let old = q.weights[q.selected];
        let mut new = old;
        // The end a weight key met, if it could not move the weight.
        let mut at_end = None;
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => q.select_step(true),
            KeyCode::Down | KeyCode::Char('j') => q.select_step(false),
            // Doubling and halving: weights span four orders of magnitude.
            // Never the wrong way: a config may set a weight past either
            // end (0, or over a million), which the keys then leave alone.
            KeyCode::Char('+') | KeyCode::Char('=') | KeyCode::Right => {
                new = old.max(old.saturating_mul(2).clamp(1, MAX_WEIGHT));
                at_end = Some("highest");
            }
            KeyCode::Char('-') | KeyCode::Left => {
                new = old.min((old / 2).max(1));
                at_end = Some("lowest");
            }
            _ => {}
        }
        let name = crate::crawl::frontier::QUEUES[q.selected].name();
        if let Some(end) = at_end
            && new == old
        {
            self.message = Some(format!(
                "weight of {name} is {old} already, the {end} the console sets"
            ));
            return;
        }
        if new != old && self.crawl.finished {
            // Weights live in the running crawl only; the config's
            // `[queues]` sets them for the next one.
            self.message = Some(
                "the crawl has ended: weights change a running crawl ([queues] in the config sets the next one's)"
                    .into(),
            );
            return;
        }
        if new != old {
            q.weights[q.selected] = new;
            let weights = q.weights;
            self.request(Request::Control(Control::Weights(weights)));
            // `w` saves rules, not weights: said here, where it is news.
            self.message = Some(format!(
                "weight of {name}: {old} → {new}, for this crawl ([queues] in the config sets the next one's)"
            ));
        }
    }
}
