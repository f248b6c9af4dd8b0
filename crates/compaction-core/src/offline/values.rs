//! Replaced values: a setting, version, port or path that a later step changed, and the
//! marking of its old value wherever the summary still states it.
//!
//! A value changes when an edit replaces one token of a line by another (`timeout: 30s` →
//! `timeout: 60s`, `"react": "17.0.2"` → `"18.3.1"`), when `sed -i 's/OLD/NEW/'` rewrites a
//! literal, or when a text corrects itself ("the port is 3001, not 8080"). The summary then
//! shows the old value followed by an arrow to the new one (`30s` → `60s`): what a line
//! said before the change stays readable, and no line states the old value as current.
//!
//! Invariants: only a single token changes (no whitespace, at most [`VALUE_CHARS`]
//! characters); an old value is marked only as a whole token, in a line that names the
//! setting it belongs to, or anywhere when it is distinctive (digits, a path or a URL);
//! an occurrence an arrow already follows is left as it is, so marking twice changes
//! nothing.

use serde_json::Value;

use super::text::{char_len, sentences};

/// The longest value followed.
const VALUE_CHARS: usize = 80;

/// One value a later step replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ValueChange {
    /// The setting the value belongs to (the word before it on its line), or empty.
    pub(super) key: String,
    pub(super) old: String,
    pub(super) new: String,
}

/// Characters that continue a value token (`localhost:8000`, `1.2.3`, `release/1.2`).
fn token_char(c: char) -> bool {
    c.is_alphanumeric() || "._-/:@+~%#".contains(c)
}

/// The values an edit call replaced: per changed line of each old/new pair (pi's
/// `oldText`/`newText` and the other agents' spellings, or an `edits` list), the one token
/// that differs, when only one does.
pub(super) fn edit_value_changes(arguments: &Value) -> Vec<ValueChange> {
    let mut out = Vec::new();
    for (old, new) in super::changes::lines_changed_in_place(arguments) {
        if let Some(change) = line_value_change(old, new)
            && !out.contains(&change)
        {
            out.push(change);
        }
    }
    out
}

/// The one token in which `old` and `new` (one line each) differ, with the word before it
/// on the line as its key. A setting (a `key: value` or `key = value` line) or a
/// distinctive value (a version, a port, a path, a URL); not a renamed identifier in code.
fn line_value_change(old: &str, new: &str) -> Option<ValueChange> {
    let old_chars: Vec<char> = old.chars().collect();
    let new_chars: Vec<char> = new.chars().collect();
    let mut prefix = old_chars.iter().zip(&new_chars).take_while(|(a, b)| a == b).count();
    let max_suffix = old_chars.len().min(new_chars.len()) - prefix;
    let mut suffix = old_chars
        .iter()
        .rev()
        .zip(new_chars.iter().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    // Widen to whole tokens.
    while prefix > 0 && token_char(old_chars[prefix - 1]) {
        prefix -= 1;
    }
    while suffix > 0 && token_char(old_chars[old_chars.len() - suffix]) {
        suffix -= 1;
    }
    let old_value: String = old_chars[prefix..old_chars.len() - suffix].iter().collect();
    let new_value: String = new_chars[prefix..new_chars.len() - suffix].iter().collect();
    let (old_value, new_value) = (trim_value(&old_value), trim_value(&new_value));
    let value = |v: &str| !v.is_empty() && char_len(v) <= VALUE_CHARS && v.chars().all(token_char);
    if !value(old_value) || !value(new_value) || old_value == new_value {
        return None;
    }
    let before: String = old_chars[..prefix].iter().collect();
    let setting = before.trim_end().ends_with([':', '=']);
    if !setting && !distinctive(old_value) {
        return None;
    }
    let key = before
        .split(|c: char| !(c.is_alphanumeric() || "_-.".contains(c)))
        .rfind(|word| word.chars().any(char::is_alphabetic))
        .unwrap_or("")
        .to_owned();
    Some(ValueChange { key, old: old_value.to_owned(), new: new_value.to_owned() })
}

/// A value without the punctuation that ends a sentence or a list around it.
fn trim_value(value: &str) -> &str {
    value.trim_matches(|c: char| ".,:;".contains(c))
}

/// The literals `sed -i 's/OLD/NEW/' FILE` replaced in a shell script (any delimiter;
/// escaped dots and slashes read as themselves; patterns with other regex syntax left out).
pub(super) fn sed_value_changes(script: &str) -> Vec<ValueChange> {
    let mut out = Vec::new();
    for segment in crate::files::shell_segments(script) {
        let words: Vec<&str> = segment.split_whitespace().collect();
        if words.first() != Some(&"sed") || !words.iter().any(|word| word.starts_with("-i")) {
            continue;
        }
        for word in &words[1..] {
            let expression = word.trim_matches(['\'', '"']);
            let Some(rest) = expression.strip_prefix('s') else { continue };
            let Some(delimiter) = rest.chars().next().filter(|c| !c.is_alphanumeric()) else {
                continue;
            };
            let parts = split_unescaped(&rest[delimiter.len_utf8()..], delimiter);
            let [old, new, ..] = parts.as_slice() else { continue };
            let (old, new) = (literal(old), literal(new));
            if let (Some(old), Some(new)) = (old, new)
                && old != new
                && distinctive(&old)
            {
                let change = ValueChange { key: String::new(), old, new };
                if !out.contains(&change) {
                    out.push(change);
                }
            }
        }
    }
    out
}

/// `text` split at each `delimiter` that no backslash escapes.
fn split_unescaped(text: &str, delimiter: char) -> Vec<String> {
    let mut parts = Vec::new();
    let mut part = String::new();
    let mut escaped = false;
    for c in text.chars() {
        if escaped {
            if c != delimiter {
                part.push('\\');
            }
            part.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == delimiter {
            parts.push(std::mem::take(&mut part));
        } else {
            part.push(c);
        }
    }
    parts.push(part);
    parts
}

/// A sed pattern or replacement read as a literal value, if it is one.
fn literal(text: &str) -> Option<String> {
    let plain = text.replace("\\.", ".");
    let value = !plain.is_empty()
        && char_len(&plain) <= VALUE_CHARS
        && plain.chars().all(token_char)
        && !plain.contains(['\\', '&']);
    value.then_some(plain)
}

/// A value that names one thing wherever it occurs: a number, version, port, path or URL
/// (at least four characters, with a digit or a `/`).
pub(super) fn distinctive(value: &str) -> bool {
    char_len(value) >= 4 && value.chars().any(|c| c.is_ascii_digit() || c == '/')
}

/// The values a text says it corrects: "X, not Y" (and "X rather than Y") where both are
/// distinctive values: Y is replaced by X.
pub(super) fn corrected_values(text: &str) -> Vec<ValueChange> {
    let mut out = Vec::new();
    for sentence in sentences(text) {
        for marker in [", not ", " rather than ", " instead of "] {
            let Some((before, after)) = sentence.split_once(marker) else { continue };
            let new = before.split_whitespace().next_back().map(trim_token);
            let old = after.split_whitespace().next().map(trim_token);
            if let (Some(new), Some(old)) = (new, old)
                && distinctive(new)
                && distinctive(old)
                && new != old
            {
                let change =
                    ValueChange { key: String::new(), old: old.to_owned(), new: new.to_owned() };
                if !out.contains(&change) {
                    out.push(change);
                }
            }
        }
    }
    out
}

/// A word without the quotes, code marks and punctuation around it.
fn trim_token(word: &str) -> &str {
    word.trim_matches(|c: char| !token_char(c) || ".,:;".contains(c))
}

/// `text` with each stated occurrence of `change.old` followed by an arrow to the new
/// value (see the module documentation); `text` itself when nothing is marked.
pub(super) fn mark_value(text: &str, change: &ValueChange) -> String {
    if !text.contains(&change.old) {
        return text.to_owned();
    }
    let keyed = !change.key.is_empty() && text.to_lowercase().contains(&change.key.to_lowercase());
    if !keyed && !distinctive(&change.old) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + change.new.len() + 8);
    let mut rest = text;
    while let Some(at) = rest.find(&change.old) {
        let (before, after) = (&rest[..at], &rest[at + change.old.len()..]);
        out.push_str(before);
        out.push_str(&change.old);
        rest = after;
        let starts_token = before.chars().next_back().is_none_or(|c| !token_char(c));
        let mut next = after.chars();
        let ends_token = match next.next() {
            None => true,
            Some(c) if ".,:;".contains(c) => next.next().is_none_or(char::is_whitespace),
            Some(c) => !token_char(c),
        };
        if !starts_token || !ends_token {
            continue;
        }
        // Inside a code span, the arrow follows the span.
        let in_code = before.ends_with('`') && after.starts_with('`');
        if in_code {
            out.push('`');
            rest = &after[1..];
        }
        let marked = rest.trim_start().starts_with('→') || rest.trim_start().starts_with("->");
        if !marked {
            match in_code {
                true => out.push_str(&format!(" → `{}`", change.new)),
                false => out.push_str(&format!(" → {}", change.new)),
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn change(key: &str, old: &str, new: &str) -> ValueChange {
        ValueChange { key: key.into(), old: old.into(), new: new.into() }
    }

    #[test]
    fn an_edit_of_a_setting_or_a_version_replaces_one_value() {
        let setting =
            json!({ "oldText": "request_timeout: 30s", "newText": "request_timeout: 60s" });
        assert_eq!(edit_value_changes(&setting), [change("request_timeout", "30s", "60s")]);
        let version =
            json!({ "old_string": "tokio = \"1.28.0\"", "new_string": "tokio = \"1.41.1\"" });
        assert_eq!(edit_value_changes(&version), [change("tokio", "1.28.0", "1.41.1")]);
        let url = json!({ "oldText": "BASE = 'http://localhost:8000/api'", "newText": "BASE = 'http://localhost:8081/api'" });
        assert_eq!(
            edit_value_changes(&url),
            [change("BASE", "http://localhost:8000/api", "http://localhost:8081/api")]
        );
        // A renamed call in code, a new line and a rewrite of many lines change no value.
        let rename = json!({ "oldText": "    return parse(tokens)", "newText": "    return parse_all(tokens)" });
        assert_eq!(edit_value_changes(&rename), []);
        let added = json!({ "oldText": "a = 1", "newText": "a = 1\nb = 2" });
        assert_eq!(edit_value_changes(&added), []);
        let many = json!({ "oldText": "a = 1\nb = 2\nc = 3", "newText": "a = 4\nb = 5\nc = 6" });
        assert_eq!(edit_value_changes(&many), []);
    }

    #[test]
    fn sed_replaces_literals_and_texts_correct_values() {
        assert_eq!(
            sed_value_changes(
                "sed -i 's/17\\.0\\.2/18.3.1/' package.json && grep react package.json"
            ),
            [change("", "17.0.2", "18.3.1")]
        );
        assert_eq!(
            sed_value_changes("sed -i.bak 's|release/1.2|main|g' deploy.sh"),
            [change("", "release/1.2", "main")]
        );
        assert_eq!(sed_value_changes("sed -i 's/^foo.*$/bar/' a.txt"), []);
        assert_eq!(
            sed_value_changes("sed 's/1.0.0/2.0.0/' a.txt"),
            [],
            "without -i nothing changes"
        );
        assert_eq!(
            corrected_values(
                "I was wrong: the API is on http://localhost:8081, not http://localhost:8000."
            ),
            [change("", "http://localhost:8000", "http://localhost:8081")]
        );
        assert_eq!(corrected_values("Use tabs, not spaces."), []);
    }

    #[test]
    fn an_old_value_is_marked_where_it_is_stated() {
        let timeout = change("request_timeout", "30s", "60s");
        assert_eq!(
            mark_value("`request_timeout` is currently `30s` in config.yaml.", &timeout),
            "`request_timeout` is currently `30s` → `60s` in config.yaml."
        );
        // Without its key a short value is left alone; a marked one is not marked again.
        assert_eq!(mark_value("Waited 30s for the build.", &timeout), "Waited 30s for the build.");
        assert_eq!(mark_value("request_timeout 30s → 60s", &timeout), "request_timeout 30s → 60s");
        // A line that tells both (a superseded decision with what replaced it) is marked.
        assert_eq!(
            mark_value(
                "Superseded: `request_timeout` stays `30s` (later: set it to 60s)",
                &timeout
            ),
            "Superseded: `request_timeout` stays `30s` → `60s` (later: set it to 60s)"
        );
        let port = change("", "5173", "4000");
        let marked = mark_value("The dev server port is 5173. Configure it.", &port);
        assert_eq!(marked, "The dev server port is 5173 → 4000. Configure it.");
        assert_eq!(mark_value(&marked, &port), marked, "marking twice changes nothing");
        assert_eq!(mark_value("Port 51730 and v5173a stay.", &port), "Port 51730 and v5173a stay.");
    }
}
