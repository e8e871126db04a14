//! Where edited rules are written (SPEC §4: every applied change goes back
//! to the rules file). A native config whose `[[rules]]` tables come last
//! is rewritten in place: everything before the first `[[rules]]` is kept
//! byte for byte (comments, `[crawl]`, `[queues]`) and the rules after it
//! are written by the native writer, each top-level rule after the first
//! with the comment lines that stood above its `[[rules]]` line, blank lines
//! among them kept (found by the rule's line in the file and checked by its
//! name, so that a note never moves to another rule; comments inside a
//! rule's table, trailing ones included, are not kept).
//! Any other layout gets a rules-only file beside it (`NAME.rules.toml`)
//! rather than a rewrite that could lose what the user wrote; the message
//! says which.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::rules::dialect::write::to_toml;
use crate::rules::model::{Rule, RuleSet};

/// The comment lines above a rule in the file, and the rule's name then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    rule: String,
    text: String,
}

/// How the console saves rules for one config file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SaveTarget {
    /// Rewrite `path`: `head` (the text before the rules) then the rules.
    /// `notes`: the comment lines just above each top-level rule after the
    /// first, by the line (1-based) of its `[[rules]]` in the file as last
    /// read or written.
    InPlace {
        path: PathBuf,
        head: String,
        notes: BTreeMap<usize, Note>,
    },
    /// Write a rules-only file at `path`, beside `config`.
    Beside { path: PathBuf, config: PathBuf },
}

impl SaveTarget {
    /// Decides how to save rules for the config file `path` holding `text`.
    pub fn for_config(path: &Path, text: &str) -> SaveTarget {
        let mut offset = 0;
        let mut rules_start = None;
        let mut foreign_after = false;
        for line in text.split_inclusive('\n') {
            let t = line.trim_start();
            if t.starts_with("[[rules]]") && rules_start.is_none() {
                rules_start = Some(offset);
            } else if rules_start.is_some()
                && t.starts_with('[')
                && !t.starts_with("[[rules")
                && !t.starts_with("[rules")
            {
                foreign_after = true;
            }
            offset += line.len();
        }
        match (rules_start, foreign_after) {
            (_, true) => SaveTarget::Beside {
                path: beside(path),
                config: path.to_path_buf(),
            },
            (start, false) => {
                let head = &text[..start.unwrap_or(text.len())];
                let mut head = head.to_string();
                if !head.is_empty() && !head.ends_with('\n') {
                    head.push('\n');
                }
                SaveTarget::InPlace {
                    path: path.to_path_buf(),
                    head,
                    notes: notes_of(text),
                }
            }
        }
    }

    /// The file to write, its text, and what to tell the user. The text is
    /// taken to be the file's from now on (for the comments kept next time),
    /// as the rules take their lines in it (`relined`).
    pub fn render(&mut self, rules: &RuleSet) -> (PathBuf, String, String) {
        // The comment above each rule, found by the line the rule had.
        let lines: Vec<(usize, String)> = rules
            .rules
            .iter()
            .map(|r| (r.origin.line, r.name.clone()))
            .collect();
        // Source lines of imported or earlier rules are stale once edited.
        let mut rules = rules.clone();
        clear_lines(&mut rules.rules);
        let body = to_toml(&rules, "");
        match self {
            SaveTarget::InPlace { path, head, notes } => {
                // The head keeps its own `[crawl]` table (with `disposition`):
                // drop the writer's, or the file would define it twice.
                let disposition =
                    format!("[crawl]\ndisposition = {:?}\n", rules.disposition.name());
                let body = body.replacen(&disposition, "", 1);
                let body = with_notes(&body, &lines, notes);
                let gap = if head.is_empty() || head.ends_with("\n\n") {
                    ""
                } else {
                    "\n"
                };
                let text = format!("{head}{gap}{}\n", body.trim());
                let message = format!(
                    "rules saved in {} (native TOML, the rest of the file kept)",
                    path.display()
                );
                *notes = notes_of(&text);
                (path.clone(), text, message)
            }
            SaveTarget::Beside { path, config } => {
                let message = format!(
                    "rules saved as native TOML in {} ({} has tables after its rules, so it was left as it is)",
                    path.display(),
                    config.display()
                );
                (path.clone(), body, message)
            }
        }
    }
}

/// The comment lines just above each top-level rule of `text` but the
/// first (whose comments belong to the head), by the line of its
/// `[[rules]]`; none when `text` does not read as native rules.
fn notes_of(text: &str) -> BTreeMap<usize, Note> {
    let Ok(parsed) = crate::rules::dialect::native::parse(text) else {
        return BTreeMap::new();
    };
    let lines: Vec<&str> = text.lines().collect();
    let note = |rule: &Rule| {
        let at = rule.origin.line.checked_sub(1)?.min(lines.len());
        // Comment and blank lines up to the header (a section heading a
        // blank line above counts), from the first comment line on.
        let block = lines[..at]
            .iter()
            .rev()
            .take_while(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
            .count();
        let block = &lines[at - block..at];
        let first = block.iter().position(|l| !l.trim().is_empty())?;
        let text = block[first..].join("\n");
        let rule = rule.name.clone();
        Some((at + 1, Note { rule, text }))
    };
    parsed.rules.rules.iter().skip(1).filter_map(note).collect()
}

/// `body` (the writer's rules) with each top-level rule's note above its
/// `[[rules]]` line: found by the line the rule had (`lines`, in order, 0
/// for a new rule) and kept only under the same name.
fn with_notes(body: &str, lines: &[(usize, String)], notes: &BTreeMap<usize, Note>) -> String {
    let mut out = String::with_capacity(body.len());
    let mut rule = 0;
    for line in body.split_inclusive('\n') {
        if line.trim_end() == "[[rules]]" {
            let note = lines
                .get(rule)
                .and_then(|(at, name)| notes.get(at).filter(|n| n.rule == *name));
            if let Some(note) = note {
                out.push_str(&note.text);
                out.push('\n');
            }
            rule += 1;
        }
        out.push_str(line);
    }
    out
}

fn beside(path: &Path) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "crawl".into());
    path.with_file_name(format!("{stem}.rules.toml"))
}

/// `rules` with the lines they have in `text`, the file just rendered for
/// them, so that traces and the Explain view point into the file as saved
/// (an edit moves the rules after it; a new rule has no line until then).
/// `None` when `text` does not read back as the same rules.
pub fn relined(rules: &RuleSet, text: &str) -> Option<RuleSet> {
    let read = crate::rules::dialect::native::parse(text).ok()?.rules;
    if read.disposition != rules.disposition || !same_rules(&read.rules, &rules.rules) {
        return None;
    }
    let mut relined = rules.clone();
    take_lines(&mut relined.rules, &read.rules).then_some(relined)
}

/// Copies the lines of `from` into `into`, rule by rule; false (leaving
/// `into` partly done) when the two lists differ in shape.
fn take_lines(into: &mut [Rule], from: &[Rule]) -> bool {
    into.len() == from.len()
        && into.iter_mut().zip(from).all(|(rule, read)| {
            rule.origin = read.origin;
            take_lines(&mut rule.rules, &read.rules)
        })
}

/// The two lists hold the same rules, wherever they stand in a file: every
/// field but `origin` compared, without copying (the console asks on every
/// frame).
pub fn same_rules(a: &[Rule], b: &[Rule]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_rule(a, b))
}

fn same_rule(a: &Rule, b: &Rule) -> bool {
    // Taken apart field by field, so that a field added to `Rule` fails
    // to compile here until it is compared.
    let Rule {
        name,
        enabled,
        condition,
        negate,
        action,
        set,
        priority,
        filter,
        log,
        stop,
        meta,
        source,
        rules,
        first_match,
        origin: _,
    } = a;
    *name == b.name
        && *enabled == b.enabled
        && *condition == b.condition
        && *negate == b.negate
        && *action == b.action
        && *set == b.set
        && *priority == b.priority
        && *filter == b.filter
        && *log == b.log
        && *stop == b.stop
        && *meta == b.meta
        && *source == b.source
        && *first_match == b.first_match
        && same_rules(rules, &b.rules)
}

fn clear_lines(rules: &mut [Rule]) {
    for rule in rules {
        rule.origin.line = 0;
        clear_lines(&mut rule.rules);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::dialect::native;

    /// Lines come from a saved text that holds exactly the rules saved;
    /// any other text (a head that also holds rules, say) gives none.
    #[test]
    fn rules_take_their_lines_only_from_a_text_that_holds_them() {
        let rules = native::parse(CONFIG).expect("rules").rules;
        let text = "[[rules]]\nname = \"a\"\naction = \"exclude\"\n";
        let head = "# a note\n[crawl]\ndisposition = \"disallow-log\"\n\n";
        let lined = relined(&rules, &format!("{head}{text}")).expect("same rules");
        assert_eq!(lined.rules[0].origin.line, 5);
        assert!(same_rules(&lined.rules, &rules.rules));
        assert_eq!(relined(&rules, text), None, "another disposition");
        let twice = format!("{head}{text}{text}");
        assert_eq!(relined(&rules, &twice), None, "two rules");
        let other = format!("{head}{}", text.replace("exclude", "download"));
        assert_eq!(relined(&rules, &other), None, "another action");
        assert_eq!(relined(&rules, "not toml ["), None);
    }

    const CONFIG: &str = "# my crawl\n[crawl]\nstart = [\"http://h/\"]\ndisposition = \"disallow-log\"\n\n[queues]\nuser = 5\n\n[[rules]]\nname = \"a\"\naction = \"exclude\"\n";

    #[test]
    fn a_config_with_rules_last_is_rewritten_keeping_its_head() {
        let mut target = SaveTarget::for_config(Path::new("c.toml"), CONFIG);
        let mut rules = native::parse(CONFIG).expect("rules").rules;
        rules.rules[0].name = "renamed".into();
        let (path, text, message) = target.render(&rules);
        assert_eq!(path, Path::new("c.toml"));
        assert!(text.starts_with("# my crawl\n[crawl]\nstart"), "{text}");
        assert!(message.contains("c.toml"));
        // Reads back to the same rules, with the head's settings intact.
        let back = native::parse(&text).expect("saved file parses");
        assert_eq!(back.rules.rules[0].name, "renamed");
        assert_eq!(back.rules.disposition.name(), "disallow-log");
        crate::config::Config::from_toml("c.toml", &text).expect("still a valid config");
    }

    /// The comments just above a rule stay above it through edits, moves
    /// and saves; a renamed rule or a rule met at a stale line gets none
    /// (a note never moves to another rule).
    #[test]
    fn comments_above_rules_are_kept() {
        let text = format!(
            "{CONFIG}\n# why b:\n# the second line\n[[rules]]\nname = \"b\"\n\n# ---- c\n\n[[rules]]\nname = \"c\"\n"
        );
        let mut target = SaveTarget::for_config(Path::new("c.toml"), &text);
        let mut rules = native::parse(&text).expect("rules").rules;
        // A new rule before b, and c edited.
        rules.rules.insert(1, Rule::new("new", 0));
        rules.rules[3].enabled = false;
        let (_, saved, _) = target.render(&rules);
        assert!(
            saved.contains("# why b:\n# the second line\n[[rules]]\nname = \"b\""),
            "{saved}"
        );
        assert!(
            saved.contains("# ---- c\n\n[[rules]]\nname = \"c\""),
            "{saved}"
        );
        assert_eq!(saved.matches("# why b:").count(), 1, "{saved}");
        // Saved again with the lines the rules now have: the same text.
        let lined = relined(&rules, &saved).expect("same rules");
        let (_, again, _) = target.render(&lined);
        assert_eq!(again, saved);
        // Renamed: its note is not carried over; nor is a note found at a
        // line where another rule stands now.
        let mut renamed = lined.clone();
        renamed.rules[2].name = "b2".into();
        renamed.rules.swap(1, 3);
        let (_, moved, _) = target.render(&renamed);
        assert!(!moved.contains("# why b:"), "{moved}");
        assert!(
            moved.contains("# ---- c\n\n[[rules]]\nname = \"c\""),
            "{moved}"
        );
        assert_eq!(moved.matches("# ---- c").count(), 1, "{moved}");
    }

    #[test]
    fn a_table_after_the_rules_means_a_file_beside() {
        let text = format!("{CONFIG}\n[queues]\nfollow = 3\n");
        let mut target = SaveTarget::for_config(Path::new("dir/c.toml"), &text);
        assert_eq!(
            target,
            SaveTarget::Beside {
                path: PathBuf::from("dir/c.rules.toml"),
                config: PathBuf::from("dir/c.toml")
            }
        );
        let rules = native::parse(CONFIG).expect("rules").rules;
        let (_, body, message) = target.render(&rules);
        assert!(message.contains("dir/c.rules.toml"));
        assert_eq!(native::parse(&body).expect("parses").rules.rules.len(), 1);
    }

    #[test]
    fn a_config_without_rules_gets_them_appended() {
        let text = "[crawl]\nstart = [\"http://h/\"]";
        let mut target = SaveTarget::for_config(Path::new("c.toml"), text);
        let rules = native::parse(CONFIG).expect("rules").rules;
        let (_, saved, _) = target.render(&rules);
        assert!(
            saved.starts_with("[crawl]\nstart = [\"http://h/\"]\n\n[[rules]]"),
            "{saved}"
        );
    }
}
