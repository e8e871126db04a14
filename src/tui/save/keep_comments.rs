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
//! - nested rules, when there are as many as before, are matched one to
//!   one in order and treated the same way;
//! - a key the edit removed loses its comments with it.
//!
//! Keys keep the file's order; a new key follows the one the writer prints
//! before it. The caller checks that the text reads
//! back as the rules saved, as for every save.

use toml_edit::{DocumentMut, Item, Table, Value};

/// `written`, the writer's text of one top-level rule (`[[rules]]` and
/// what follows), with the comments of `kept`, the text the file had for
/// it. `written` as it is when either does not read as one rule.
pub(super) fn with_kept_comments(kept: &str, written: &str) -> String {
    let (Ok(old), Ok(mut new)) = (kept.parse::<DocumentMut>(), written.parse::<DocumentMut>())
    else {
        return written.to_string();
    };
    let (Some(old_rule), Some(new_rule)) = (only_rule(old.as_table()), only_rule_mut(&mut new))
    else {
        return written.to_string();
    };
    merge(old_rule, new_rule);
    // Comment lines after the rule's last key (say a key commented out)
    // stand at the end of its text.
    let trailing = old.trailing().as_str().unwrap_or_default().to_string();
    if trailing.contains('#') {
        new.set_trailing(trailing);
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
fn merge(old: &Table, new: &mut Table) {
    // The header line's own decor: a comment after `[[rules]]`, or the
    // comment lines above a nested rule's header.
    *new.decor_mut() = old.decor().clone();
    let keys: Vec<String> = new.iter().map(|(key, _)| key.to_string()).collect();
    for key in keys {
        let Some((old_key, old_item)) = old.get_key_value(&key) else {
            continue;
        };
        let Some((mut new_key, new_item)) = new.get_key_value_mut(&key) else {
            continue;
        };
        *new_key.leaf_decor_mut() = old_key.leaf_decor().clone();
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
            (Item::ArrayOfTables(old_rules), Item::ArrayOfTables(new_rules))
                if old_rules.len() == new_rules.len() =>
            {
                for (old_rule, new_rule) in old_rules.iter().zip(new_rules.iter_mut()) {
                    merge(old_rule, new_rule);
                }
            }
            _ => {}
        }
    }
    keep_the_files_order(old, new);
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
        let merged = with_kept_comments(KEPT, written);
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
            with_kept_comments(kept, written),
            "[[rules]]\nname = 'a'\nmatch = { field = \"path\",   prefix = '/x' }  # why\nlog = false # said so\n"
        );
    }

    #[test]
    fn nested_rules_keep_theirs_when_as_many_remain() {
        let kept = "[[rules]]\nname = \"block\"\n\n# the first child\n[[rules.rules]]\nname = \"one\"   # one\naction = \"exclude\"\n";
        let written = "[[rules]]\nname = \"block\"\nfirst_match = true\n\n[[rules.rules]]\nname = \"one\"\naction = \"include\"\n";
        let merged = with_kept_comments(kept, written);
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
        assert_eq!(with_kept_comments("[[rules]\nname = ", written), written);
        assert_eq!(with_kept_comments("x = 1\n", written), written);
    }
}
