//! The comments of an edited rule: the native writer prints an edited
//! rule anew, and what the file said inside the rule's table (a comment
//! above a key, one after its value, the lines that end the table) would
//! be lost with its old text. Both texts are read with `toml_edit`, which
//! keeps every comment with the key or value it stands by, and the
//! writer's text takes them back:
//! - a key whose value is unchanged keeps its line as the file had it,
//!   comment, spacing and quoting included;
//! - a key whose value changed takes the writer's value with the comments
//!   that stood above and after it (a comment says why, and is the user's
//!   to drop; losing it is not);
//! - a nested rule is matched with the one of the same name the block had,
//!   else with the rule of its name elsewhere in the file (moved in; or,
//!   for a top-level rule, moved out of a block), found in the [`Pool`]
//!   with the comment lines above its header, else (as many as before, and
//!   the old name gone) with the one at its place, renamed, else with the
//!   latest rule of its name an earlier save wrote (an undo brought it
//!   back);
//! - a key the edit removed loses its comments with it.
//!
//! Keys keep the file's order; a new key follows the one the writer prints
//! before it. Comment lines keep the file's indentation, but those of a
//! rule that moved to another depth take the writer's. The caller checks
//! that the text reads back as the rules saved, as for every save.

use std::collections::{HashMap, HashSet};

use toml_edit::{DocumentMut, Item, RawString, Table, Value};

use crate::rules::model::RuleSet;

/// Every rule the file had, at any depth, by name (a name two rules had is
/// left out: it cannot say which), with the comment lines above its
/// header; then those of earlier saves' files for names the file lacks.
#[derive(Debug, Default)]
pub(super) struct Pool {
    /// The file's rules.
    rules: HashMap<String, Option<Table>>,
    /// Earlier saves' rules, the latest version of each.
    earlier: HashMap<String, Table>,
    /// The names of the rules saved now, for renames in a block.
    now: HashSet<String>,
    /// The names of the file's top-level rules: a top-level rule not found
    /// in the file's text by the caller is not one of them under a name
    /// another took (its text is not looked up by name).
    top: HashSet<String>,
}

impl Pool {
    /// The rules of `texts` then of `earlier` (each the text of one
    /// top-level rule with the comment lines above it; the latest version
    /// of a rule first), but for names that
    /// two rules saved now have (a copy renamed as its original) or that a
    /// new rule has (one not in any file yet): which text was theirs is
    /// not known, or none was.
    pub(super) fn of<'a>(
        texts: impl Iterator<Item = String>,
        earlier: impl Iterator<Item = &'a String>,
        now: &RuleSet,
    ) -> Pool {
        let mut pool = Pool::default();
        let mut names: HashMap<&str, usize> = HashMap::new();
        now.walk(&mut |_, rule| {
            // A new rule counts as a second one: its name is not looked up.
            let count = if rule.origin.line == 0 { 2 } else { 1 };
            *names.entry(rule.name.as_str()).or_default() += count;
        });
        for (name, count) in names {
            pool.now.insert(name.to_string());
            if count > 1 {
                pool.rules.insert(name.to_string(), None);
            }
        }
        let mut seen = HashMap::new();
        for text in texts {
            for rule in rules_of(&text) {
                if let Some(name) = rule_name(&rule) {
                    pool.top.insert(name.to_string());
                }
                add(&mut seen, rule);
            }
        }
        // Earlier versions, the latest first: a name another version had
        // is that rule changed, not another rule, so the latest says.
        for text in earlier {
            let mut version = HashMap::new();
            for rule in rules_of(text) {
                add(&mut version, rule);
            }
            for (name, rule) in version {
                if let Some(rule) = rule
                    && !pool.rules.contains_key(&name)
                {
                    pool.earlier.entry(name).or_insert(rule);
                }
            }
        }
        for (name, rule) in seen {
            pool.rules.entry(name).or_insert(rule);
        }
        pool
    }

    /// The file's rule of this name.
    fn get(&self, name: &str) -> Option<&Table> {
        self.rules.get(name)?.as_ref()
    }

    /// An earlier save's rule of this name, when the file has none and no
    /// rule saved now shares it.
    fn get_earlier(&self, name: &str) -> Option<&Table> {
        if self.rules.contains_key(name) {
            return None;
        }
        self.earlier.get(name)
    }

    /// A rule of this name is saved now.
    fn has_now(&self, name: &str) -> bool {
        self.now.contains(name)
    }
}

/// The top-level rules of one rule's text (one, when it reads).
fn rules_of(text: &str) -> Vec<Table> {
    let Ok(doc) = text.parse::<DocumentMut>() else {
        return Vec::new();
    };
    match doc.get("rules").and_then(Item::as_array_of_tables) {
        Some(rules) => rules.iter().cloned().collect(),
        None => Vec::new(),
    }
}

/// `rule` and its nested rules, by name; a name met twice says nothing.
fn add(seen: &mut HashMap<String, Option<Table>>, rule: Table) {
    if let Some(nested) = rule.get("rules").and_then(Item::as_array_of_tables) {
        for inner in nested.iter() {
            add(seen, inner.clone());
        }
    }
    if let Some(name) = rule_name(&rule) {
        seen.entry(name.to_string())
            .and_modify(|twice| *twice = None)
            .or_insert(Some(rule));
    }
}

/// `written`, the writer's text of one top-level rule (`[[rules]]` and
/// what follows), with the comments of `kept`, the text the file had for
/// it, or else of the rule of its name in `pool` that was not a top-level
/// one of the file (moved out of a block, or one an undo brought back).
/// `written` as it is when they do not read as one rule.
pub(super) fn with_kept_comments(kept: Option<&str>, written: &str, pool: &Pool) -> String {
    let Ok(mut new) = written.parse::<DocumentMut>() else {
        return written.to_string();
    };
    let old = kept.and_then(|kept| kept.parse::<DocumentMut>().ok());
    let Some(new_rule) = only_rule_mut(&mut new) else {
        return written.to_string();
    };
    let old_rule = match &old {
        Some(old) => only_rule(old.as_table()),
        None => rule_name(new_rule)
            .filter(|name| !pool.top.contains(*name))
            .and_then(|name| pool.get(name).or_else(|| pool.get_earlier(name))),
    };
    let Some(old_rule) = old_rule else {
        return written.to_string();
    };
    // From the pool: it stood in a block.
    merge(old_rule, new_rule, pool, old.is_none());
    if old.is_none() {
        // Its comment lines above come first in its text, after the blank
        // line the caller puts before every rule.
        let above = new_rule.decor().prefix().and_then(RawString::as_str);
        let above = above
            .unwrap_or_default()
            .trim_start_matches('\n')
            .to_string();
        new_rule.decor_mut().set_prefix(above);
    }
    // Comment lines after the rule's last key (say a key commented out)
    // stand at the end of its text.
    if let Some(old) = &old {
        let trailing = old.trailing().as_str().unwrap_or_default().to_string();
        if trailing.contains('#') {
            new.set_trailing(trailing);
        }
    }
    new.to_string()
}

/// The one table of the top-level `rules` array.
fn only_rule(doc: &Table) -> Option<&Table> {
    let rules = doc.get("rules")?.as_array_of_tables()?;
    (rules.len() == 1).then(|| rules.get(0)).flatten()
}

fn only_rule_mut(doc: &mut DocumentMut) -> Option<&mut Table> {
    let rules = doc.get_mut("rules")?.as_array_of_tables_mut()?;
    if rules.len() != 1 {
        return None;
    }
    rules.get_mut(0)
}

/// Gives `new`, one rule's table as the writer printed it, the comments
/// `old` had (see the module's doc). `moved`: `old` stood elsewhere in the
/// file, at another depth (another block, or the top level), so its
/// comment lines take the writer's indentation and the writer's blank
/// line above the header stays.
fn merge(old: &Table, new: &mut Table, pool: &Pool, moved: bool) {
    // The header line's own decor: the comment lines above a nested rule's
    // header, a comment after it; at the writer's indentation.
    let written = new.decor().prefix().and_then(RawString::as_str);
    let blank_above = moved && written.is_some_and(|p| p.starts_with('\n'));
    let indent = indentation(new.decor().prefix());
    *new.decor_mut() = old.decor().clone();
    // Comment lines keep the file's indentation, unless the rule moved to
    // another depth.
    if moved {
        reindent(new.decor_mut(), &indent);
    }
    if blank_above {
        let prefix = new.decor().prefix().and_then(RawString::as_str);
        let prefix = prefix
            .unwrap_or_default()
            .trim_start_matches('\n')
            .to_string();
        new.decor_mut().set_prefix(format!("\n{prefix}"));
    }
    let keys: Vec<String> = new.iter().map(|(key, _)| key.to_string()).collect();
    for key in keys {
        let old_entry = old.get_key_value(&key);
        let Some((mut new_key, new_item)) = new.get_key_value_mut(&key) else {
            continue;
        };
        // Nested rules, also where the block is new (a rule moved under
        // one that had none).
        if let Item::ArrayOfTables(new_rules) = new_item {
            let old_rules = match old_entry {
                Some((_, Item::ArrayOfTables(old_rules))) => old_rules.iter().collect(),
                _ => Vec::new(),
            };
            merge_nested(&old_rules, new_rules, pool, moved);
            continue;
        }
        // Only a key the file wrote as `key = value` too: the decor of a
        // `[rules.match]` header or of dotted keys does not fit this line.
        let Some((old_key, Item::Value(old_value))) = old_entry else {
            continue;
        };
        let Item::Value(new_value) = new_item else {
            continue;
        };
        let indent = indentation(new_key.leaf_decor().prefix());
        *new_key.leaf_decor_mut() = old_key.leaf_decor().clone();
        if moved {
            reindent(new_key.leaf_decor_mut(), &indent);
        }
        if same_value(old_value, new_value) {
            *new_value = old_value.clone();
        } else {
            // The writer's value, between the file's spacing and comment.
            *new_value.decor_mut() = old_value.decor().clone();
        }
    }
    keep_the_files_order(old, new);
}

/// The nested rules of a block: each with the one of its name the block
/// had, else the rule of its name elsewhere in the file (moved in), else
/// (as many as before) the one at its place, renamed.
fn merge_nested(
    old_rules: &[&Table],
    new_rules: &mut toml_edit::ArrayOfTables,
    pool: &Pool,
    moved: bool,
) {
    let new_names: Vec<Option<String>> = new_rules
        .iter()
        .map(|rule| rule_name(rule).map(str::to_string))
        .collect();
    let mut used = vec![false; old_rules.len()];
    for (at, rule) in new_rules.iter_mut().enumerate() {
        let name = new_names[at].as_deref();
        let same_name = old_rules
            .iter()
            .enumerate()
            .position(|(i, old)| !used[i] && name.is_some() && rule_name(old) == name);
        // Renamed: as many as before, and no rule saved now has the name
        // the one at its place had.
        let renamed = || {
            (old_rules.len() == new_names.len() && !used[at])
                .then_some(at)
                .filter(|&i| rule_name(old_rules[i]).is_some_and(|had| !pool.has_now(had)))
        };
        // The old table, and whether it stood at another depth; those of a
        // block that moved moved with it.
        let (old_rule, at_depth) = if let Some(i) = same_name {
            used[i] = true;
            (old_rules[i], moved)
        } else if let Some(old_rule) = name.and_then(|n| pool.get(n)) {
            // Moved in from elsewhere in the file.
            (old_rule, true)
        } else if let Some(i) = renamed() {
            used[i] = true;
            (old_rules[i], moved)
        } else if let Some(old_rule) = name.and_then(|n| pool.get_earlier(n)) {
            // A rule an undo brought back into the block.
            (old_rule, true)
        } else {
            continue;
        };
        merge(old_rule, rule, pool, at_depth);
    }
}

/// The `name` of a rule's table.
fn rule_name(rule: &Table) -> Option<&str> {
    rule.get("name").and_then(Item::as_str)
}

/// The indentation of a key or header whose decor prefix is `prefix`: what
/// follows its last line break.
fn indentation(prefix: Option<&RawString>) -> String {
    let prefix = prefix.and_then(RawString::as_str).unwrap_or_default();
    prefix.rsplit('\n').next().unwrap_or_default().to_string()
}

/// Puts the comment lines of `decor`'s prefix, and what stands before its
/// key or header, at `indent`.
fn reindent(decor: &mut toml_edit::Decor, indent: &str) {
    let Some(prefix) = decor.prefix().and_then(RawString::as_str) else {
        return;
    };
    let mut lines: Vec<String> = prefix
        .split('\n')
        .map(|line| match line.trim_start() {
            "" => String::new(),
            comment => format!("{indent}{comment}"),
        })
        .collect();
    if let Some(last) = lines.last_mut() {
        *last = indent.to_string();
    }
    decor.set_prefix(lines.join("\n"));
}

/// Puts the keys of `new` in the order `old` had them; a key it did not
/// have follows the key the writer printed before it.
fn keep_the_files_order(old: &Table, new: &mut Table) {
    let was: Vec<&str> = old.iter().map(|(key, _)| key).collect();
    let mut rank = std::collections::HashMap::new();
    // (place in the file, then place after that key); -1 before them all.
    let mut after = (-1isize, 0usize);
    for (written, (key, _)) in new.iter().enumerate() {
        let place = match was.iter().position(|k| *k == key) {
            Some(at) => {
                after = (at as isize, 0);
                after
            }
            None => (after.0, written + 1),
        };
        rank.insert(key.to_string(), place);
    }
    new.sort_values_by(|a, _, b, _| rank.get(a.get()).cmp(&rank.get(b.get())));
}

/// The same TOML value, whatever its layout and comments.
fn same_value(a: &Value, b: &Value) -> bool {
    let read = |v: &Value| {
        let mut bare = v.clone();
        bare.decor_mut().clear();
        toml::from_str::<toml::Table>(&format!("v = {bare}\n")).ok()
    };
    matches!((read(a), read(b)), (Some(a), Some(b)) if a == b)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEPT: &str = "[[rules]]   # the first rule
name = \"stay on the demo host\"
# only this host: links elsewhere are logged
match = { field = \"host\", exact = \"127.0.0.1\" }
filter = \"must-have\"
log = true                    # \"why not crawled?\"
priority = \"high\"   # removed by the edit, with its comment
# stop = true   (a key commented out)";

    #[test]
    fn an_edited_rule_keeps_the_comments_of_its_keys() {
        let written = "[[rules]]
name = \"stay home\"
enabled = false
match = { field = \"host\", exact = \"127.0.0.2\" }
log = true
filter = \"must-have\"
";
        let merged = with_kept_comments(Some(KEPT), written, &Pool::default());
        assert_eq!(
            merged,
            "[[rules]]   # the first rule
name = \"stay home\"
enabled = false
# only this host: links elsewhere are logged
match = { field = \"host\", exact = \"127.0.0.2\" }
filter = \"must-have\"
log = true                    # \"why not crawled?\"
# stop = true   (a key commented out)"
        );
    }

    #[test]
    fn an_unchanged_value_keeps_its_layout_and_a_changed_one_its_comment() {
        let kept = "[[rules]]\nname = 'a'\nmatch = { field = \"path\",   prefix = '/x' }  # why\nlog = true # said so\n";
        let written =
            "[[rules]]\nname = \"a\"\nmatch = { field = \"path\", prefix = \"/x\" }\nlog = false\n";
        assert_eq!(
            with_kept_comments(Some(kept), written, &Pool::default()),
            "[[rules]]\nname = 'a'\nmatch = { field = \"path\",   prefix = '/x' }  # why\nlog = false # said so\n"
        );
    }

    #[test]
    fn nested_rules_keep_theirs_when_as_many_remain() {
        let kept = "[[rules]]\nname = \"block\"\n\n# the first child\n[[rules.rules]]\nname = \"one\"   # one\naction = \"exclude\"\n";
        let written = "[[rules]]\nname = \"block\"\nfirst_match = true\n\n[[rules.rules]]\nname = \"one\"\naction = \"include\"\n";
        let merged = with_kept_comments(Some(kept), written, &Pool::default());
        assert!(
            merged.contains("# the first child\n[[rules.rules]]"),
            "{merged}"
        );
        assert!(merged.contains("name = \"one\"   # one\n"), "{merged}");
        assert!(merged.contains("action = \"include\""), "{merged}");
    }

    #[test]
    fn text_that_does_not_read_is_left_to_the_writer() {
        let written = "[[rules]]\nname = \"a\"\n";
        assert_eq!(
            with_kept_comments(Some("[[rules]\nname = "), written, &Pool::default()),
            written
        );
        assert_eq!(
            with_kept_comments(Some("x = 1\n"), written, &Pool::default()),
            written
        );
    }
}
