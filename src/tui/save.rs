//! Where edited rules are written (SPEC §4: every applied change goes back
//! to the rules file). A native config whose `[[rules]]` tables come last
//! is rewritten in place: the head, everything before the first rule, is
//! kept byte for byte (comments, `[crawl]`, `[queues]`), and so is the text
//! of every rule left unchanged (its own comments, nested rules and
//! layout); added and edited rules are written by the native writer, an
//! edited rule with the comments the file had for it (`keep_comments`):
//! found in place, renamed in place, moved into or out of a block, or
//! brought back by an undo after a save (the texts of earlier saves are
//! kept for that, `past`). The comment lines that end the file stay at
//! its end. Each top-level rule keeps the comment lines that stood above
//! its `[[rules]]` line wherever it moves: for the first rule, the comment
//! lines right above it (the head ends before them); for the others, blank
//! lines among them kept (a section heading a blank line above counts).
//! What the file said of a rule is found by the rule's line in the file
//! and checked by its name, or by its content, so that nothing moves to
//! another rule ([`rules_text`] says in which order). Should the text so
//! made not read back as the rules saved, the rules are written by the
//! writer alone. Tables after the rules (a `[queues]` added at the end) are
//! moved above them as written, with the comment lines right above their
//! headers, and the first save says so. A layout that moving them would
//! change (checked by reading the file back as a config) gets a rules-only
//! file beside it (`NAME.rules.toml`) rather than a rewrite that could
//! lose what the user wrote; the message says which.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod keep_comments;

use crate::rules::dialect::write::{rule_to_toml, to_toml};
use crate::rules::model::{Rule, RuleSet};

/// What the file said of one top-level rule: the rule as read, the
/// comment lines above it, and its own text.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    rule: Rule,
    /// The comment lines above its `[[rules]]` (for the first rule, only
    /// those after the head, which keeps its own).
    note: Option<String>,
    /// From its `[[rules]]` line to its last line that is not blank before
    /// the next rule's note: its keys, comments and nested rules.
    text: String,
}

/// Versions of rules an earlier save's file had that a save keeps: undo
/// goes back that far with the comments.
const PAST_AT_MOST: usize = 512;

impl Kept {
    /// Its text with the comment lines above it.
    fn with_note(&self) -> String {
        match &self.note {
            Some(note) => format!("{note}\n{}", self.text),
            None => self.text.clone(),
        }
    }
}

/// How the console saves rules for one config file.
#[derive(Debug, Clone, PartialEq)]
pub enum SaveTarget {
    /// Rewrite `path`: `head` (the text before the rules) then the rules.
    /// `kept`: what the file said of each top-level rule, by the line
    /// (1-based) of its `[[rules]]` in the file as last read or written.
    InPlace {
        path: PathBuf,
        head: String,
        kept: BTreeMap<usize, Kept>,
        /// The headers of the tables that stood after the rules and were
        /// moved into `head`, for the message of the first save.
        moved: Vec<String>,
        /// The comment lines that end the file, kept at its end.
        tail: String,
        /// What earlier saves' files said of their top-level rules, every
        /// version, oldest first (at most [`PAST_AT_MOST`]): a rule an
        /// undo brings back finds its text there, or its comments.
        past: Vec<Kept>,
        /// The file's text as the console read it: what its first save
        /// expects to find there ([`SaveTarget::read`]; the writer knows
        /// what it wrote since).
        read: String,
    },
    /// Write a rules-only file at `path`, beside `config`.
    Beside { path: PathBuf, config: PathBuf },
}

impl SaveTarget {
    /// Decides how to save rules for the config file `path` holding `text`.
    /// Tables after the rules (a `[queues]` added at the end, say) are
    /// moved above them, as they are, so that the rules can be rewritten in
    /// place; when that would not read back as the same config, the rules
    /// go to a file beside it.
    pub fn for_config(path: &Path, text: &str) -> SaveTarget {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let Some(first) = lines.iter().position(|l| is_rule_header(l)) else {
            // No rules yet: they are appended.
            let mut head = text.to_string();
            if !head.is_empty() && !head.ends_with('\n') {
                head.push('\n');
            }
            return SaveTarget::InPlace {
                path: path.to_path_buf(),
                head,
                kept: BTreeMap::new(),
                moved: Vec::new(),
                tail: String::new(),
                past: Vec::new(),
                read: text.to_string(),
            };
        };
        // The comment lines right above the first rule are its note.
        let rules_from = first - comments_above(&lines, first);
        let mut head = lines[..rules_from].concat();
        if !head.is_empty() && !head.ends_with('\n') {
            head.push('\n');
        }
        // The comments that end the file stay at its end, apart from any
        // table moved.
        let tail = tail_of(text);
        let body = &lines[..lines.len() - tail_len(&lines)];
        let (moved, names) = tables_after_rules(body, first);
        let kept = kept_of(text, rules_from);
        if moved.is_empty() {
            return SaveTarget::InPlace {
                path: path.to_path_buf(),
                head,
                kept,
                moved: names,
                tail,
                past: Vec::new(),
                read: text.to_string(),
            };
        }
        // Above the comments that end the head (a heading for the rules),
        // not under them.
        let (body, heading) = split_heading(&head);
        let gap = if body.is_empty() || body.ends_with("\n\n") {
            ""
        } else {
            "\n"
        };
        let head = if heading.is_empty() {
            format!("{body}{gap}{moved}\n")
        } else {
            format!("{body}{gap}{moved}\n\n{heading}")
        };
        let target = SaveTarget::InPlace {
            path: path.to_path_buf(),
            head,
            kept,
            moved: names,
            tail,
            past: Vec::new(),
            read: text.to_string(),
        };
        // The same settings and rules, read back from the file as it would
        // be written with the rules as they are.
        let same = crate::rules::dialect::native::parse(text).is_ok_and(|read| {
            let mut probe = target.clone();
            let (_, written, _) = probe.render(&read.rules);
            crate::config::Config::from_toml("", &written).ok()
                == crate::config::Config::from_toml("", text).ok()
                && reads_back(&written, &read.rules)
        });
        if same {
            target
        } else {
            SaveTarget::Beside {
                path: beside(path),
                config: path.to_path_buf(),
            }
        }
    }

    /// The config file's text as the console read it; `None` for a rules
    /// file of its own beside the config.
    pub fn read(&self) -> Option<&str> {
        match self {
            SaveTarget::InPlace { read, .. } => Some(read),
            SaveTarget::Beside { .. } => None,
        }
    }

    /// The file to write, its text, and what to tell the user. The text is
    /// taken to be the file's from now on (for what is kept next time), as
    /// the rules take their lines in it (`relined`).
    pub fn render(&mut self, rules: &RuleSet) -> (PathBuf, String, String) {
        match self {
            SaveTarget::InPlace {
                path,
                head,
                kept,
                moved,
                tail,
                past,
                ..
            } => {
                let gap = if head.is_empty() || head.ends_with("\n\n") {
                    ""
                } else {
                    "\n"
                };
                let tail = if tail.is_empty() {
                    String::new()
                } else {
                    format!("\n{tail}\n")
                };
                let with_kept = format!(
                    "{head}{gap}{}\n{tail}",
                    rules_text(rules, kept, past).trim()
                );
                let text = if reads_back(&with_kept, rules) {
                    with_kept
                } else {
                    let written = rules_text(rules, &BTreeMap::new(), &[]);
                    format!("{head}{gap}{}\n{tail}", written.trim())
                };
                // Neither reads back (a head that holds rules the scan did
                // not see, `[[ rules ]]` say): the config is left alone,
                // as for a layout that cannot be rewritten.
                if !reads_back(&text, rules) {
                    let mut beside = SaveTarget::Beside {
                        path: beside(path),
                        config: path.clone(),
                    };
                    return beside.render(rules);
                }
                let message = if moved.is_empty() {
                    format!(
                        "rules saved in {} (native TOML, the rest of the file kept)",
                        path.display()
                    )
                } else {
                    format!(
                        "rules saved in {} (native TOML; {} moved above the rules, as written)",
                        path.display(),
                        moved.join(", ")
                    )
                };
                moved.clear();
                // A version seen again moves to the end (the latest); its
                // line does not make it another.
                for k in kept.values() {
                    past.retain(|p| {
                        !(p.note == k.note && p.text == k.text && same_rule(&p.rule, &k.rule))
                    });
                    past.push(k.clone());
                }
                let over = past.len().saturating_sub(PAST_AT_MOST);
                past.drain(..over);
                *kept = kept_of(&text, head.lines().count());
                (path.clone(), text, message)
            }
            SaveTarget::Beside { path, config } => {
                let message = format!(
                    "rules saved as native TOML in {} ({} could not be rewritten without changing it, so it was left as it is: the crawl reads its rules from there, so copy them in)",
                    path.display(),
                    config.display()
                );
                (path.clone(), to_toml(&rules.without_lines(), ""), message)
            }
        }
    }
}

/// The rules for a file whose head keeps its own `[crawl]` table (with
/// `disposition`): each top-level rule with the note and the text `kept`
/// has for it (its text only while the rule is unchanged; an edited rule
/// gets the comments of it), or as the writer prints it. Found, in turn:
/// anywhere, as the very same rule (its line is stale when an undo brought
/// back the lines from before a save); as the very same rule in an earlier
/// save's file (`past`: an undo brought back a rule since deleted or
/// replaced); at the line the rule had, under its name; at its line under
/// another name, as that rule renamed, when no rule has that name now and
/// the rules' lines are all the file's (not stale) with this the one name
/// that differs. A
/// rule not found and not new (it has a line) takes the comments of the
/// rule of its name that the file, or an earlier save's, had in a block
/// (it moved out of one).
fn rules_text(rules: &RuleSet, kept: &BTreeMap<usize, Kept>, past: &[Kept]) -> String {
    let mut names_now = std::collections::HashSet::new();
    rules.walk(&mut |_, rule| {
        names_now.insert(rule.name.as_str());
    });
    // Lines are fresh when every top-level rule with one stands at a rule
    // of the file, and at most one under another name (a rename).
    let mismatched = rules
        .rules
        .iter()
        .filter(|r| r.origin.line > 0)
        .map(|r| kept.get(&r.origin.line).map(|k| k.rule.name != r.name))
        .try_fold(0, |n, differs| differs.map(|d| n + usize::from(d)));
    let renames_allowed = mismatched.is_some_and(|n| n <= 1);
    // Where a rule moved into or out of a block finds what the file said
    // of it (earlier saves' versions, the latest first). Built only for a
    // save that edits a rule: it reads every text kept.
    let pool = std::cell::OnceCell::new();
    let pool = || {
        pool.get_or_init(|| {
            let earlier: Vec<String> = past.iter().rev().map(Kept::with_note).collect();
            keep_comments::Pool::of(kept.values().map(Kept::with_note), earlier.iter(), rules)
        })
    };
    let mut out = String::new();
    let mut used = std::collections::HashSet::new();
    for rule in &rules.rules {
        let kept = find_kept(rule, kept, past, &used, |name| {
            renames_allowed && !names_now.contains(name)
        });
        let kept = kept.map(|(at, k)| {
            if let Some(at) = at {
                used.insert(at);
            }
            k
        });
        out.push('\n');
        if let Some(note) = kept.and_then(|k| k.note.as_deref()) {
            out.push_str(note);
            out.push('\n');
        }
        match kept {
            Some(kept) if same_rule(&kept.rule, rule) => {
                out.push_str(&kept.text);
                out.push('\n');
            }
            // Source lines of imported or earlier rules are stale once
            // edited: the writer would print them as `# line N` comments.
            edited => {
                let known = rule.origin.line > 0;
                let mut rule = rule.clone();
                rule.forget_lines();
                let written = rule_to_toml(&rule);
                let text = match edited {
                    Some(kept) => {
                        keep_comments::with_kept_comments(Some(&kept.text), &written, pool())
                    }
                    None if known => keep_comments::with_kept_comments(None, &written, pool()),
                    None => written,
                };
                out.push_str(text.trim_end());
                out.push('\n');
            }
        }
    }
    out
}

/// What the file, or an earlier save's, said of top-level `rule`, in the
/// order of [`rules_text`]'s doc, with the line of the file's entry (`None`
/// for an earlier save's). `used`: entries other rules took; `renamed_from`:
/// whether a rule once named so may be this one renamed.
fn find_kept<'a>(
    rule: &Rule,
    kept: &'a BTreeMap<usize, Kept>,
    past: &'a [Kept],
    used: &std::collections::HashSet<usize>,
    renamed_from: impl Fn(&str) -> bool,
) -> Option<(Option<usize>, &'a Kept)> {
    let free = |at: &usize| !used.contains(at);
    // The very same rule, in this file.
    let same = kept
        .iter()
        .find(|(at, k)| free(at) && k.rule.name == rule.name && same_rule(&k.rule, rule));
    if let Some((at, k)) = same {
        return Some((Some(*at), k));
    }
    // The very same rule in an earlier save's file: an undo brought it
    // back, whatever took its name since.
    let known = rule.origin.line > 0;
    let in_past = past
        .iter()
        .rev()
        .find(|k| known && k.rule.name == rule.name && same_rule(&k.rule, rule));
    if let Some(k) = in_past {
        return Some((None, k));
    }
    // At its line: under its name (edited), or renamed.
    let (at, k) = kept.get_key_value(&rule.origin.line)?;
    let edited = k.rule.name == rule.name;
    (free(at) && (edited || renamed_from(&k.rule.name))).then_some((Some(*at), k))
}

/// `text` reads as a native config holding exactly `rules`.
fn reads_back(text: &str, rules: &RuleSet) -> bool {
    crate::rules::dialect::native::parse(text).is_ok_and(|read| {
        read.rules.disposition == rules.disposition && same_rules(&read.rules.rules, &rules.rules)
    })
}

/// What `text` says of each of its top-level rules, by the line of its
/// `[[rules]]`; nothing when `text` does not read as native rules. The
/// first `head_lines` lines are the head's: comments there stay with it, so
/// the first rule has a note only when one was written above it after the
/// head (it had one, and a save moved it first).
fn kept_of(text: &str, head_lines: usize) -> BTreeMap<usize, Kept> {
    let Ok(parsed) = crate::rules::dialect::native::parse(text) else {
        return BTreeMap::new();
    };
    let lines: Vec<&str> = text.lines().collect();
    let rules = &parsed.rules.rules;
    // The index of each rule's `[[rules]]` line, where the parser says it
    // is and the line says so too.
    let headers: Vec<Option<usize>> = rules
        .iter()
        .map(|rule| {
            let at = rule.origin.line.checked_sub(1)?;
            let line = lines.get(at)?;
            line.trim_start().starts_with("[[rules]]").then_some(at)
        })
        .collect();
    let mut kept = BTreeMap::new();
    for (i, (rule, header)) in rules.iter().zip(&headers).enumerate() {
        let Some(at) = *header else { continue };
        let note_from = note_start(&lines, at, if i == 0 { head_lines } else { 0 });
        let note = (note_from < at).then(|| lines[note_from..at].join("\n"));
        // Up to the next rule's note, or the comments that end the file
        // (its tail, kept at the end whatever becomes of the last rule).
        let end = match headers.get(i + 1) {
            Some(Some(next)) => note_start(&lines, *next, 0),
            Some(None) => continue,
            None => lines.len() - tail_len(&lines[at + 1..]),
        };
        // A table that is not a rule ends it too, with the comment lines
        // right above its header (both moved above the rules).
        let end = (at + 1..end)
            .find(|&j| is_other_header(lines[j]))
            .map_or(end, |j| j - comments_above(&lines, j).min(j - at - 1));
        let own = &lines[at..end.max(at + 1)];
        let last = own.iter().rposition(|l| !l.trim().is_empty()).unwrap_or(0);
        let text = own[..=last].join("\n");
        kept.insert(
            at + 1,
            Kept {
                rule: rule.clone(),
                note,
                text,
            },
        );
    }
    kept
}

/// Where the comment lines just above line `at` start: comment and blank
/// lines up to it (a section heading a blank line above counts), none
/// before line `floor`, from the first comment line on; `at` itself when
/// there are none.
fn note_start(lines: &[&str], at: usize, floor: usize) -> usize {
    let above = lines[floor.min(at)..at]
        .iter()
        .rev()
        .take_while(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
        .count();
    let block = &lines[at - above..at];
    match block.iter().position(|l| !l.trim().is_empty()) {
        Some(first) => at - above + first,
        None => at,
    }
}

/// `head` cut before the comment and blank lines that end it, when they
/// hold a comment: what comes before, and those lines.
fn split_heading(head: &str) -> (&str, &str) {
    let lines: Vec<&str> = head.split_inclusive('\n').collect();
    let tail = lines
        .iter()
        .rev()
        .take_while(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
        .count();
    let tail_lines = &lines[lines.len() - tail..];
    // Blank lines before the first comment stay with the body.
    let Some(first) = tail_lines.iter().position(|l| !l.trim().is_empty()) else {
        return (head, "");
    };
    let cut: usize = lines[..lines.len() - tail + first]
        .iter()
        .map(|l| l.len())
        .sum();
    head.split_at(cut)
}

/// How many comment and blank lines end `lines`, from the first comment
/// line of that run (blank lines before it are not counted); 0 when the
/// run holds no comment.
fn tail_len(lines: &[&str]) -> usize {
    let run = lines
        .iter()
        .rev()
        .take_while(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
        .count();
    let from = lines.len() - run;
    match lines[from..].iter().position(|l| !l.trim().is_empty()) {
        Some(first) => run - first,
        None => 0,
    }
}

/// The comment lines that end `text` after its last rule (and any table
/// after it), trailing blank lines dropped; empty when there are none or
/// `text` has no rule.
fn tail_of(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if !lines.iter().any(|l| is_rule_header(l)) {
        return String::new();
    }
    let tail = &lines[lines.len() - tail_len(&lines)..];
    let last = tail.iter().rposition(|l| !l.trim().is_empty());
    last.map_or(String::new(), |last| tail[..=last].join("\n"))
}

/// A top-level rule's header.
fn is_rule_header(line: &str) -> bool {
    line.trim_start().starts_with("[[rules]]")
}

/// A table header that is not the rules' (nor their nested tables').
fn is_other_header(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with('[') && !t.starts_with("[[rules") && !t.starts_with("[rules")
}

/// How many comment lines stand right above line `at`.
fn comments_above(lines: &[&str], at: usize) -> usize {
    lines[..at]
        .iter()
        .rev()
        .take_while(|l| l.trim_start().starts_with('#'))
        .count()
}

/// The tables after the rules (from line `first`, the first rule's
/// header), each from its header to the next rule or the end (the comment
/// lines right above a rule stay with it), as written; and their headers.
fn tables_after_rules(lines: &[&str], first: usize) -> (String, Vec<String>) {
    let mut tables: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let mut i = first;
    while i < lines.len() {
        if !is_other_header(lines[i]) {
            i += 1;
            continue;
        }
        names.push(lines[i].trim().to_string());
        let next_rule = (i + 1..lines.len())
            .find(|&j| is_rule_header(lines[j]))
            .unwrap_or(lines.len());
        let end = next_rule - comments_above(lines, next_rule).min(next_rule - i - 1);
        // With the comment lines right above its header.
        let from = i - comments_above(lines, i).min(i - first - 1);
        let table = lines[from..end].concat();
        tables.push(table.trim_end().to_string());
        i = end;
    }
    (tables.join("\n\n"), names)
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

/// The two rules are the same in every field but `origin`.
pub fn same_rule(a: &Rule, b: &Rule) -> bool {
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
        // While a rule has the name the file had there, the rule now at
        // that line is not taken for it renamed: b renamed, and c renamed
        // "b", leaves b's note to neither.
        let mut taken = lined.clone();
        taken.rules[2].name = "b2".into();
        taken.rules[3].name = "b".into();
        let (_, taken, _) = target.clone().render(&taken);
        assert!(taken.contains("name = \"b2\""), "{taken}");
        assert!(!taken.contains("# why b:"), "{taken}");
        // Renamed (no rule has its old name now): its note goes with it;
        // a note is not found at a line where another rule stands now.
        let mut renamed = lined.clone();
        renamed.rules[2].name = "b2".into();
        renamed.rules.swap(1, 3);
        let (_, moved, _) = target.render(&renamed);
        assert!(
            moved.contains("# why b:\n# the second line\n[[rules]]\nname = \"b2\""),
            "{moved}"
        );
        assert_eq!(moved.matches("# why b:").count(), 1, "{moved}");
        assert!(
            moved.contains("# ---- c\n\n[[rules]]\nname = \"c\""),
            "{moved}"
        );
        assert_eq!(moved.matches("# ---- c").count(), 1, "{moved}");
    }

    /// A rule left unchanged keeps its text: comments inside its table,
    /// its nested rules with theirs, and the comments at the end of the
    /// file. An edited rule is written anew; a moved one keeps its text.
    #[test]
    fn unchanged_rules_keep_their_own_text() {
        let b = "[[rules]]\nname = \"b\"   # why b\n# the action, inside b\naction = \"exclude\"\n\n  [[rules.rules]]\n  name = \"b1\" # nested\n  match = { field = \"path\", prefix = \"/x\" }";
        let c = "[[rules]]\nname = \"c\"\n# inside c\naction = \"download\"";
        let text = format!("{CONFIG}\n# about b\n\n{b}\n\n# above c\n{c}\n\n# the end\n");
        let mut target = SaveTarget::for_config(Path::new("c.toml"), &text);
        let mut rules = native::parse(&text).expect("rules").rules;
        // Saved as it is: the same text.
        let (_, same, _) = target.render(&rules);
        assert_eq!(same, text);
        // c edited and moved first, a new rule after it: b keeps its text
        // wherever it stands; c keeps its note and is written anew, with
        // the comments of its table; "# the end" ends the file still.
        rules.rules[2].enabled = false;
        rules.rules.swap(0, 2);
        rules.rules.insert(1, Rule::new("new", 0));
        let (_, saved, _) = target.render(&rules);
        assert!(saved.contains(b), "{saved}");
        assert!(
            saved.contains("name = \"c\"\nenabled = false\n# inside c\naction = \"download\"\n"),
            "{saved}"
        );
        assert!(
            saved.ends_with("\n\n# the end\n"),
            "the file's end stays: {saved}"
        );
        assert!(
            saved.contains("# above c\n[[rules]]\nname = \"c\"\nenabled = false"),
            "{saved}"
        );
        assert_eq!(saved.matches("# why b").count(), 1, "{saved}");
        let back = native::parse(&saved).expect("saved file parses").rules;
        assert!(same_rules(&back.rules, &rules.rules), "{saved}");
        // With the lines the rules now have, saving again gives the same.
        let lined = relined(&rules, &saved).expect("same rules");
        let (_, again, _) = target.render(&lined);
        assert_eq!(again, saved);
    }

    /// A rule moved into a block keeps its comments, those above it
    /// included, at the block's indentation; moved out again, it takes
    /// them back to the top level.
    #[test]
    fn a_rule_moved_into_a_block_and_out_keeps_its_comments() {
        let block = "[[rules]]\nname = \"block\"\nfirst_match = true\n\n  [[rules.rules]]\n  name = \"inner\"  # inner\n  action = \"exclude\"";
        let hub = "# the hub pages: scanned only\n[[rules]]\nname = \"hub\"\n# which ones\nmatch = { field = \"path\", prefix = \"/hub/\" }\naction = \"exclude-scan\"       # links, no copy";
        let text = format!("{CONFIG}\n{block}\n\n{hub}\n");
        let mut target = SaveTarget::for_config(Path::new("c.toml"), &text);
        let mut rules = native::parse(&text).expect("rules").rules;
        let hub_rule = rules.rules.remove(2);
        rules.rules[1].rules.push(hub_rule);
        let (_, inside, _) = target.render(&rules);
        assert!(
            inside.contains(
                "  action = \"exclude\"\n\n  # the hub pages: scanned only\n  [[rules.rules]]\n  name = \"hub\"\n  # which ones\n  match = { field = \"path\", prefix = \"/hub/\" }\n  action = \"exclude-scan\"       # links, no copy"
            ),
            "{inside}"
        );
        assert!(inside.contains("  name = \"inner\"  # inner"), "{inside}");
        assert_eq!(inside.matches("# the hub pages").count(), 1, "{inside}");
        // And out again, from the text as saved.
        let mut rules = relined(&rules, &inside).expect("same rules");
        let hub_rule = rules.rules[1].rules.remove(1);
        rules.rules.push(hub_rule);
        let (_, outside, _) = target.render(&rules);
        assert!(
            outside.ends_with(&format!("\n\n{hub}\n")),
            "back as it was: {outside}"
        );
    }

    /// A rule moved under one that had no block (which becomes one) keeps
    /// its comments, with the blank line above its header.
    #[test]
    fn a_rule_moved_under_a_plain_rule_keeps_its_comments() {
        let docs = "# docs first\n[[rules]]\nname = \"docs\"   # docs\nmatch = { field = \"path\", prefix = \"/docs/\" }\npriority = \"high\"  # before the rest";
        let text = format!("{CONFIG}\n{docs}\n");
        let mut target = SaveTarget::for_config(Path::new("c.toml"), &text);
        let mut rules = native::parse(&text).expect("rules").rules;
        let moved = rules.rules.remove(1);
        rules.rules[0].rules.push(moved);
        let (_, saved, _) = target.render(&rules);
        assert!(
            saved.ends_with(
                "name = \"a\"\naction = \"exclude\"\n\n  # docs first\n  [[rules.rules]]\n  name = \"docs\"   # docs\n  match = { field = \"path\", prefix = \"/docs/\" }\n  priority = \"high\"  # before the rest\n"
            ),
            "{saved}"
        );
    }

    /// A rule moved into a block where another was deleted takes its own
    /// comments, not those of the rule that stood at that place.
    #[test]
    fn a_rule_moved_into_a_block_is_not_taken_for_the_one_deleted_there() {
        let block = "[[rules]]\nname = \"block\"\n\n  [[rules.rules]]\n  name = \"x\"\n\n  # why y\n  [[rules.rules]]\n  name = \"y\"  # y";
        let c = "# why c\n[[rules]]\nname = \"c\"  # c";
        let text = format!("{CONFIG}\n{block}\n\n{c}\n");
        let mut target = SaveTarget::for_config(Path::new("c.toml"), &text);
        let mut rules = native::parse(&text).expect("rules").rules;
        rules.rules[1].rules.pop();
        let moved = rules.rules.remove(2);
        rules.rules[1].rules.push(moved);
        let (_, saved, _) = target.render(&rules);
        assert!(
            !saved.contains("why y") && !saved.contains("# y"),
            "{saved}"
        );
        assert!(
            saved.contains("  # why c\n  [[rules.rules]]\n  name = \"c\"  # c"),
            "{saved}"
        );
    }

    /// An undo after a save brings back rules with the lines they had
    /// before it: an unchanged rule keeps its text all the same, and a rule
    /// the save deleted gets back the comments it had.
    #[test]
    fn an_undo_after_a_save_keeps_the_rules_comments() {
        let b = "# why b\n[[rules]]\nname = \"b\"  # b\naction = \"download\"  # keep";
        let text = format!("{CONFIG}\n{b}\n");
        let original = native::parse(&text).expect("rules").rules;
        // A new rule first, saved, then undone.
        let mut target = SaveTarget::for_config(Path::new("c.toml"), &text);
        let mut inserted = original.clone();
        inserted.rules.insert(0, Rule::new("n", 0));
        target.render(&inserted);
        let (_, undone, _) = target.render(&original);
        assert_eq!(undone, text);
        // b deleted, saved, then undone.
        let mut target = SaveTarget::for_config(Path::new("c.toml"), &text);
        let mut deleted = original.clone();
        deleted.rules.remove(1);
        let (_, without, _) = target.render(&deleted);
        assert!(!without.contains("why b"), "{without}");
        let (_, undone, _) = target.render(&original);
        assert_eq!(undone, text);
        // A new rule given a deleted rule's name is not that rule.
        let mut target = SaveTarget::for_config(Path::new("c.toml"), &text);
        target.render(&deleted);
        let mut new_b = deleted.clone();
        let mut fresh = Rule::new("b", 0);
        fresh.action = Some(crate::rules::model::Action::Exclude);
        new_b.rules.push(fresh);
        let (_, saved, _) = target.render(&new_b);
        assert!(
            !saved.contains("# keep") && !saved.contains("why b"),
            "{saved}"
        );
        // And undone twice: the first b is back as it was.
        let (_, undone, _) = target.render(&original);
        assert_eq!(undone, text);
    }

    /// Undo across several saves brings the file back as it was: each
    /// save keeps what the one before it said of every rule.
    #[test]
    fn undoing_across_several_saves_restores_the_file() {
        let block = "# ---- blocks\n[[rules]]\nname = \"block\"\nfirst_match = true\n# the nested rules follow\n\n  # sorted listings\n  [[rules.rules]]\n  name = \"sorted\"\n  match = { field = \"query\", contains = \"sort=\" }   # any sort\n\n  [[rules.rules]]\n  name = \"other\"  # other";
        let docs = "# docs come first\n[[rules]]\nname = \"docs\"\nmatch = { field = \"path\", prefix = \"/docs/\" }\npriority = \"high\"   # urgent";
        let text = format!("{CONFIG}\n{block}\n\n{docs}\n");
        let original = native::parse(&text).expect("rules").rules;
        // Each edit is made on the list as the last save relined it, and
        // saved; then each undo brings back the list before an edit and
        // saves it, as the console does.
        type Edit = fn(&mut RuleSet);
        let replay = |edits: &[Edit]| {
            let mut target = SaveTarget::for_config(Path::new("c.toml"), &text);
            let mut states = vec![original.clone()];
            for edit in edits {
                let mut next = states.last().expect("a state").clone();
                edit(&mut next);
                let (_, saved, _) = target.render(&next);
                states.push(relined(&next, &saved).expect("same rules"));
            }
            states.pop();
            let mut last = String::new();
            while let Some(state) = states.pop() {
                last = target.render(&state).1;
            }
            last
        };
        // A nested rule deleted, then another rule changed.
        let delete_nested: Edit = |r| {
            r.rules[1].rules.remove(0);
        };
        let toggle_first: Edit = |r| r.rules[0].enabled = !r.rules[0].enabled;
        assert_eq!(replay(&[delete_nested, toggle_first]), text);
        // The block changed, then renamed.
        let toggle_block: Edit = |r| r.rules[1].enabled = !r.rules[1].enabled;
        let rename_block: Edit = |r| r.rules[1].name = "blocks".into();
        assert_eq!(replay(&[toggle_block, rename_block]), text);
        // A rule deleted, then a new rule of its name.
        let delete_docs: Edit = |r| {
            r.rules.remove(2);
        };
        let new_docs: Edit = |r| r.rules.push(Rule::new("docs", 0));
        assert_eq!(replay(&[delete_docs, new_docs]), text);
    }

    /// A nested rule renamed to the name of a rule an earlier save deleted
    /// keeps its own comments, not that rule's.
    #[test]
    fn a_rename_to_a_deleted_rules_name_keeps_its_own_comments() {
        let block = "[[rules]]\nname = \"block\"\n\n  # x note\n  [[rules.rules]]\n  name = \"x\"  # x\n\n  [[rules.rules]]\n  name = \"y\"";
        let old = "# old note\n[[rules]]\nname = \"old\"  # old";
        let text = format!("{CONFIG}\n{block}\n\n{old}\n");
        let mut target = SaveTarget::for_config(Path::new("c.toml"), &text);
        let mut rules = native::parse(&text).expect("rules").rules;
        rules.rules.remove(2);
        let (_, saved, _) = target.render(&rules);
        let mut rules = relined(&rules, &saved).expect("same rules");
        rules.rules[1].rules[0].name = "old".into();
        let (_, renamed, _) = target.render(&rules);
        assert!(
            renamed.contains("  # x note\n  [[rules.rules]]\n  name = \"old\"  # x"),
            "{renamed}"
        );
        assert!(!renamed.contains("old note"), "{renamed}");
    }

    /// Editing a block leaves the comment lines inside it where the file
    /// had them (a heading at column 0 above its nested rules stays there).
    #[test]
    fn an_edited_block_keeps_its_comment_lines_indented_as_written() {
        let block = "[[rules]]\nname = \"block\"\nfirst_match = true\n# the nested rules follow\n\n  [[rules.rules]]\n  name = \"x\"  # x\n    # deeper, as written\n  action = \"exclude\"";
        let text = format!("{CONFIG}\n{block}\n");
        let mut target = SaveTarget::for_config(Path::new("c.toml"), &text);
        let mut rules = native::parse(&text).expect("rules").rules;
        rules.rules[1].enabled = false;
        let (_, saved, _) = target.render(&rules);
        assert_eq!(
            saved,
            text.replace(
                "first_match = true\n",
                "enabled = false\nfirst_match = true\n"
            )
        );
    }

    /// A rule written with a `[rules.match]` table, once edited, gets the
    /// writer's `match = {...}` line, not that table header's spacing.
    #[test]
    fn an_edited_rule_written_with_a_sub_table_reads_cleanly() {
        let text = format!(
            "{CONFIG}\n[[rules]]\nname = \"m\"\naction = \"exclude\"\n[rules.match]\nfield = \"path\"\nprefix = \"/m/\"\n"
        );
        let mut target = SaveTarget::for_config(Path::new("c.toml"), &text);
        let mut rules = native::parse(&text).expect("rules").rules;
        rules.rules[1].enabled = false;
        let (_, saved, _) = target.render(&rules);
        assert!(saved.contains("\nmatch = { field = \"path\""), "{saved}");
        let back = native::parse(&saved).expect("reads").rules;
        assert!(same_rules(&back.rules, &rules.rules), "{saved}");
    }

    /// An undo brings back the lines rules had before a save: a rule met at
    /// a stale line keeps its text all the same, found by its content.
    #[test]
    fn rules_with_stale_lines_keep_their_text() {
        let b = "[[rules]]\nname = \"b\"\n# inside b\naction = \"exclude\"";
        let text = format!("{CONFIG}\n# above b\n{b}\n");
        let mut target = SaveTarget::for_config(Path::new("c.toml"), &text);
        let before = native::parse(&text).expect("rules").rules;
        let mut edited = before.clone();
        edited.rules.insert(1, Rule::new("new", 0));
        let (_, saved, _) = target.render(&edited);
        assert!(saved.contains(b), "{saved}");
        // Undone: the rules as they were, with the lines of the old file.
        let (_, undone, _) = target.render(&before);
        assert_eq!(undone, text);
    }

    /// A config whose rules the line scan cannot see (`[[ rules ]]` is
    /// valid TOML too) would get its rules twice: they go beside it.
    #[test]
    fn a_config_that_would_not_read_back_is_left_alone() {
        let text =
            "[crawl]\nstart = [\"http://h/\"]\n\n[[ rules ]]\nname = \"a\"\naction = \"exclude\"\n";
        let mut target = SaveTarget::for_config(Path::new("c.toml"), text);
        let rules = native::parse(text).expect("rules").rules;
        let (path, body, message) = target.render(&rules);
        assert_eq!(path, Path::new("c.rules.toml"), "{message}");
        assert!(message.contains("copy them in"), "{message}");
        let back = native::parse(&body).expect("parses").rules;
        assert!(same_rules(&back.rules, &rules.rules));
    }

    /// Kept text that would not read back as the rules saved is not used:
    /// the writer prints every rule instead.
    #[test]
    fn kept_text_that_does_not_read_back_is_not_used() {
        let text = format!("{CONFIG}\n[[rules]]\nname = \"b\" # b\n");
        let mut target = SaveTarget::for_config(Path::new("c.toml"), &text);
        let rules = native::parse(&text).expect("rules").rules;
        if let SaveTarget::InPlace { kept, .. } = &mut target {
            let b = kept
                .values_mut()
                .find(|k| k.rule.name == "b")
                .expect("b kept");
            b.text = "[[rules]]\nname = \"b\"\naction = \"download\"".into();
        }
        let (_, saved, _) = target.render(&rules);
        assert!(!saved.contains("download"), "{saved}");
        assert!(!saved.contains("# b"), "{saved}");
        let back = native::parse(&saved).expect("saved file parses").rules;
        assert!(same_rules(&back.rules, &rules.rules), "{saved}");
    }

    /// The comment lines right above the first rule are its note, not the
    /// head's: they move with it, and stay above it when it is moved back.
    #[test]
    fn the_first_rules_comments_move_with_it() {
        let text = "# ---- scope\n\n# keep to the host\n[[rules]]\nname = \"host\"\naction = \"exclude\"\n\n# private\n[[rules]]\nname = \"private\"\naction = \"exclude\"\n";
        let mut target = SaveTarget::for_config(Path::new("c.toml"), text);
        let mut rules = native::parse(text).expect("rules").rules;
        let (_, same, _) = target.render(&rules);
        assert_eq!(same, text);
        rules.rules.swap(0, 1);
        let (_, moved, _) = target.render(&rules);
        assert_eq!(
            moved,
            "# ---- scope\n\n# private\n[[rules]]\nname = \"private\"\naction = \"exclude\"\n\n# keep to the host\n[[rules]]\nname = \"host\"\naction = \"exclude\"\n"
        );
        let mut back = relined(&rules, &moved).expect("same rules");
        back.rules.swap(0, 1);
        let (_, again, _) = target.render(&back);
        assert_eq!(again, text);
    }

    /// Tables after the rules move above them, as written (with their
    /// comments), so that the config keeps its rules in place.
    #[test]
    fn tables_after_the_rules_move_above_them() {
        let text = "# my crawl\n[crawl]\nstart = [\"http://h/\"]\n\n[[rules]]\nname = \"a\"  # kept\naction = \"exclude\"\n\n# weights\n[queues]\nfollow = 3\n\n# b's note\n[[rules]]\nname = \"b\"\n";
        let mut target = SaveTarget::for_config(Path::new("c.toml"), text);
        let rules = native::parse(text).expect("rules").rules;
        let (path, saved, message) = target.render(&rules);
        assert_eq!(path, Path::new("c.toml"));
        assert_eq!(
            saved,
            "# my crawl\n[crawl]\nstart = [\"http://h/\"]\n\n# weights\n[queues]\nfollow = 3\n\n[[rules]]\nname = \"a\"  # kept\naction = \"exclude\"\n\n# b's note\n[[rules]]\nname = \"b\"\n"
        );
        assert!(
            message.contains("[queues] moved above the rules"),
            "{message}"
        );
        assert_eq!(
            crate::config::Config::from_toml("", &saved).ok(),
            crate::config::Config::from_toml("", text).ok()
        );
        // Said once: the next save finds the file in order.
        let lined = relined(&rules, &saved).expect("same rules");
        let (_, again, message) = target.render(&lined);
        assert_eq!(again, saved);
        assert!(!message.contains("moved"), "{message}");
    }

    /// A heading that ends the head (above the rules) stays above the
    /// rules: moved tables go before it.
    #[test]
    fn moved_tables_go_above_the_rules_heading() {
        let text = "[crawl]\nstart = [\"http://h/\"]\n\n# ---- the rules\n\n# a's note\n[[rules]]\nname = \"a\"\n\n[queues]\nfollow = 3\n";
        let mut target = SaveTarget::for_config(Path::new("c.toml"), text);
        let rules = native::parse(text).expect("rules").rules;
        let (_, saved, _) = target.render(&rules);
        assert_eq!(
            saved,
            "[crawl]\nstart = [\"http://h/\"]\n\n[queues]\nfollow = 3\n\n# ---- the rules\n\n# a's note\n[[rules]]\nname = \"a\"\n"
        );
    }

    /// The comments that end the file stay at its end: after an edited last
    /// rule, and after the rules when a table before them moves up.
    #[test]
    fn the_files_last_comments_stay_at_its_end() {
        let text = "[crawl]\nstart = [\"http://h/\"]\n\n[[rules]]\nname = \"a\"\n\n[queues]\nfollow = 3\n\n# the end\n";
        let mut target = SaveTarget::for_config(Path::new("c.toml"), text);
        let mut rules = native::parse(text).expect("rules").rules;
        rules.rules[0].enabled = false;
        let (_, saved, _) = target.render(&rules);
        assert_eq!(
            saved,
            "[crawl]\nstart = [\"http://h/\"]\n\n[queues]\nfollow = 3\n\n[[rules]]\nname = \"a\"\nenabled = false\n\n# the end\n"
        );
    }

    /// A layout that moving tables would change (a nested rule after a
    /// table) is left as it is: the rules go to a file beside it.
    #[test]
    fn a_layout_that_cannot_move_means_a_file_beside() {
        let text = "[crawl]\nstart = [\"http://h/\"]\n\n[[rules]]\nname = \"a\"\n\n[queues]\nfollow = 3\n\n[[rules.rules]]\nname = \"b\"\n";
        native::parse(text).expect("valid TOML, if odd");
        let mut target = SaveTarget::for_config(Path::new("dir/c.toml"), text);
        assert_eq!(
            target,
            SaveTarget::Beside {
                path: PathBuf::from("dir/c.rules.toml"),
                config: PathBuf::from("dir/c.toml")
            }
        );
        let rules = native::parse(text).expect("rules").rules;
        let (_, body, message) = target.render(&rules);
        assert!(message.contains("dir/c.rules.toml"));
        assert_eq!(native::parse(&body).expect("parses").rules.rules.len(), 1);
    }

    #[test]
    fn a_config_without_rules_gets_them_appended() {
        let text = "[crawl]\nstart = [\"http://h/\"]";
        let mut target = SaveTarget::for_config(Path::new("c.toml"), text);
        let rules = native::parse("[[rules]]\nname = \"a\"\naction = \"exclude\"\n")
            .expect("rules")
            .rules;
        let (_, saved, _) = target.render(&rules);
        assert!(
            saved.starts_with("[crawl]\nstart = [\"http://h/\"]\n\n[[rules]]"),
            "{saved}"
        );
    }
}

/// The demo's config, where most keys carry a comment: renaming any one
/// rule in the console changes that one line of the file, nothing else.
#[cfg(test)]
mod demo_config {
    use super::*;
    use crate::rules::dialect::native;

    #[test]
    fn renaming_a_rule_changes_only_its_name_line() {
        let text = include_str!("../../config/demo.toml");
        let rules = native::parse(text).expect("rules").rules;
        for i in 0..rules.rules.len() {
            let mut target = SaveTarget::for_config(Path::new("demo.toml"), text);
            let mut edited = rules.clone();
            edited.rules[i].name.push_str(" (edited)");
            let (_, saved, _) = target.render(&edited);
            let (before, after): (Vec<&str>, Vec<&str>) =
                (text.lines().collect(), saved.lines().collect());
            assert_eq!(before.len(), after.len(), "rule {i}:\n{saved}");
            let changed: Vec<(&str, &str)> = before
                .iter()
                .zip(&after)
                .filter(|(a, b)| a != b)
                .map(|(a, b)| (*a, *b))
                .collect();
            let name = &rules.rules[i].name;
            assert_eq!(
                changed,
                [(
                    format!("name = \"{name}\"").as_str(),
                    format!("name = \"{name} (edited)\"").as_str()
                )],
                "rule {i}"
            );
        }
    }
}
