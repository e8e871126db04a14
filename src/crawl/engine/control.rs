//! The engine's control channel: commands to a running crawl (pause,
//! resume, new rules, queue weights, a detail report, stop) from the
//! console, a changed rules file or Ctrl-C. Commands that change what may be fetched
//! are counted as they are sent, for the fetch tasks that go on without
//! the engine (module `relay`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

use tokio::sync::mpsc;

use crate::rules::CompiledRules;
use crate::rules::model::RuleSet;

/// Commands to a running crawl (from the console, or a changed rules file).
#[derive(Debug)]
pub enum Control {
    Pause,
    Resume,
    /// A new rule set: new verdicts use it; queued URLs it filters are dropped.
    Rules(NewRules),
    Weights([u32; 6]),
    /// Asks for an [`super::Event::Detail`] (queues, hosts, rule hits).
    Detail,
    Stop,
}

/// A rule set for a running crawl: compiled, and as native TOML, the form
/// the log keeps of the rules its verdicts were reached by
/// (`UrlLog::set_rules_seen`), for the next run to compare with.
#[derive(Debug, Clone)]
pub struct NewRules {
    pub compiled: Arc<CompiledRules>,
    pub text: Arc<str>,
}

impl NewRules {
    /// `compiled` must be `rules` compiled (the caller usually has it
    /// already).
    pub fn new(rules: &RuleSet, compiled: Arc<CompiledRules>) -> NewRules {
        NewRules {
            compiled,
            text: native_text(rules).into(),
        }
    }
}

/// The rules as the log keeps them: native TOML without a header or source
/// lines, so that two runs with the same rules compare equal whatever their
/// files' comments and layout.
pub fn native_text(rules: &RuleSet) -> String {
    crate::rules::dialect::write::to_toml(&rules.without_lines(), "")
}

/// The sending side of an engine's control channel ([`control_channel`]).
/// A command that changes what may be fetched (new rules, a pause, a stop)
/// is counted before it is sent: a fetch task then starts none of the URLs
/// handed to it earlier (module `relay`), which go back to the engine and
/// meet the command as queued URLs do.
#[derive(Debug, Clone)]
pub struct ControlSender {
    tx: mpsc::Sender<Control>,
    /// Commands of those kinds sent so far (`ControlReceiver::changes`).
    changes: Arc<AtomicU64>,
}

/// The engine's side of its control channel ([`control_channel`]).
#[derive(Debug)]
pub struct ControlReceiver {
    pub(super) rx: mpsc::Receiver<Control>,
    pub(super) changes: Arc<AtomicU64>,
}

/// A control channel for [`super::Engine::run`], holding `capacity`
/// commands.
pub fn control_channel(capacity: usize) -> (ControlSender, ControlReceiver) {
    let (tx, rx) = mpsc::channel(capacity);
    let changes = Arc::new(AtomicU64::new(0));
    (
        ControlSender {
            tx,
            changes: changes.clone(),
        },
        ControlReceiver { rx, changes },
    )
}

impl ControlSender {
    /// Sends a command, waiting for room; an error when the crawl is over.
    pub async fn send(&self, command: Control) -> Result<(), mpsc::error::SendError<Control>> {
        let counted = self.count(&command);
        let sent = self.tx.send(command).await;
        if sent.is_err() && counted {
            self.changes.fetch_sub(1, AtomicOrdering::SeqCst);
        }
        sent
    }

    /// Sends a command if there is room now.
    pub fn try_send(&self, command: Control) -> Result<(), mpsc::error::TrySendError<Control>> {
        let counted = self.count(&command);
        let sent = self.tx.try_send(command);
        if sent.is_err() && counted {
            self.changes.fetch_sub(1, AtomicOrdering::SeqCst);
        }
        sent
    }

    /// Counts a command that changes what may be fetched, before it goes.
    fn count(&self, command: &Control) -> bool {
        let changes = matches!(command, Control::Rules(_) | Control::Pause | Control::Stop);
        if changes {
            self.changes.fetch_add(1, AtomicOrdering::SeqCst);
        }
        changes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::dialect::native;

    /// Comments, blank lines and other keys moving the rules down the file
    /// leave the text the log compares unchanged; a changed rule does not.
    #[test]
    fn the_rules_text_depends_on_the_rules_alone() {
        let rules = "[[rules]]\nname = \"a\"\naction = \"exclude\"\n\n[[rules]]\nname = \"b\"\nmatch = { field = \"path\", prefix = \"/b\" }\naction = \"download\"\n";
        let moved = format!(
            "[crawl]\nstart = []\n\n# about a\n\n{}",
            rules.replace("\n\n", "\n\n# b:\n\n")
        );
        let text = |t: &str| native_text(&native::parse(t).expect("rules").rules);
        assert_eq!(text(rules), text(&moved));
        assert!(!text(rules).contains("# line"), "{}", text(rules));
        assert_ne!(text(rules), text(&rules.replace("/b", "/c")));
    }
}
