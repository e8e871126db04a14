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
//!   else (as many as before) the one at its place, renamed; one moved in
//!   from elsewhere in the file, or out of a block, finds its text there
//!   by its name ([`Pool`]), with the comment lines above its header;
//! - a key the edit removed loses its comments with it.
//!
//! Keys keep the file's order; a new key follows the one the writer prints
//! before it. Comment lines take the indentation of the rule's new depth.
//! The caller checks that the text reads back as the rules saved, as for
//! every save.

use std::collections::HashMap;

use toml_edit::{DocumentMut, Item, RawString, Table, Value};

use crate::rules::model::RuleSet;

/// Every rule the file had, at any depth, by name (a name two rules had is
/// left out: it cannot say which), with the comment lines above its header.
#[derive(Debug, Default)]
pub(super) struct Pool {
    rules: HashMap<String, Option<Table>>,
}

impl Pool {
    /// The rules of `texts`, each the text of one top-level rule with the
    /// comment lines above it; but for names two of the rules saved now
    /// have (a copy renamed as its original): which one the file's text was
    /// is not known.
    pub(super) fn of(texts: impl Iterator<Item = String>, now: &RuleSet) -> Pool {
        let mut pool = Pool::default();
        let mut names: HashMap<&str, usize> = HashMap::new();
        now.walk(&mut |_, rule| *names.entry(rule.name.as_str()).or_default() += 1);
        for (name, count) in names {
            if count > 1 {
                pool.rules.insert(name.to_string(), None);
            }
        }
        for text in texts {
            if let Ok(doc) = text.parse::<DocumentMut>()
                && let Some(rules) = doc.get("rules").and_then(Item::as_array_of_tables)
            {
                for rule in rules.iter() {
                    pool.add(rule);
                }
            }
        }
        pool
    }

    fn add(&mut self, rule: &Table) {
        if let Some(name) = rule.get("name").and_then(Item::as_str) {
            self.rules
                .entry(name.to_string())
                .and_modify(|seen| *seen = None)
                .or_insert_with(|| Some(rule.clone()));
        }
        if let Some(nested) = rule.get("rules").and_then(Item::as_array_of_tables) {
            for rule in nested.iter() {
                self.add(rule);
            }
        }
    }

    fn get(&self, name: &str) -> Option<&Table> {
        self.rules.get(name)?.as_ref()
    }
}

/// `written`, the writer's text of one top-level rule (`[[rules]]` and
/// what follows), with the comments of `kept`, the text the file had for
/// it, or else of the rule of its name in `pool` (one moved out of a
/// block). `written` as it is when they do not read as one rule.
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
        None => new_rule
            .get("name")
            .and_then(Item::as_str)
            .and_then(|name| pool.get(name)),
    };
    let Some(old_rule) = old_rule else {
        return written.to_string();
    };
    merge(old_rule, new_rule, pool);
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
/// `old` had (see the module's doc).
fn merge(old: &Table, new: &mut Table, pool: &Pool) {
    // The header line's own decor: the comment lines above a nested rule's
    // header, a comment after it; at the writer's indentation.
    let indent = indentation(new.decor().prefix());
    *new.decor_mut() = old.decor().clone();
    reindent(new.decor_mut(), &indent);
    let keys: Vec<String> = new.iter().map(|(key, _)| key.to_string()).collect();
    for key in keys {
        let Some((old_key, old_item)) = old.get_key_value(&key) else {
            continue;
        };
        let Some((mut new_key, new_item)) = new.get_key_value_mut(&key) else {
            continue;
        };
        let indent = indentation(new_key.leaf_decor().prefix());
        *new_key.leaf_decor_mut() = old_key.leaf_decor().clone();
        reindent(new_key.leaf_decor_mut(), &indent);
        match (old_item, new_item) {
            (Item::Value(old_value), Item::Value(new_value)) => {
                if same_value(old_value, new_value) {
                    *new_value = old_value.clone();
                } else {
                    // The writer's value, between the file's spacing and
                    // comment.
                    *new_value.decor_mut() = old_value.decor().clone();
                }
            }
            (Item::ArrayOfTables(old_rules), Item::ArrayOfTables(new_rules)) => {
                let old_rules: Vec<&Table> = old_rules.iter().collect();
                let new_names: Vec<Option<String>> = new_rules
                    .iter()
                    .map(|rule| rule.get("name").and_then(Item::as_str).map(str::to_string))
                    .collect();
                let mut used = vec![false; old_rules.len()];
                for (at, rule) in new_rules.iter_mut().enumerate() {
                    let name = new_names[at].as_deref();
                    let same_name = old_rules.iter().enumerate().position(|(i, old)| {
                        !used[i] && name.is_some() && old.get("name").and_then(Item::as_str) == name
                    });
                    // Renamed: as many as before, and no rule of the block
                    // has the name the one at its place had.
                    let renamed = (old_rules.len() == new_names.len() && !used[at])
                        .then_some(at)
                        .filter(|&i| {
                            let had = old_rules[i].get("name").and_then(Item::as_str);
                            !new_names.iter().any(|n| n.as_deref() == had)
                        });
                    let counterpart = same_name.or(renamed).map(|i| {
                        used[i] = true;
                        old_rules[i]
                    });
                    // Moved in from elsewhere in the file.
                    let counterpart = counterpart.or_else(|| name.and_then(|n| pool.get(n)));
                    if let Some(old_rule) = counterpart {
                        merge(old_rule, rule, pool);
                    }
                }
            }
            _ => {}
        }
    }
    keep_the_files_order(old, new);
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
