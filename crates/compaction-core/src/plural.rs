//! Counted nouns in messages: `1 error`, `2 errors`, `1 entry`, `3 entries`.
//!
//! Every message that puts a count before a noun goes through [`plural`], so no message
//! says "1 errors" or "2 entry(s)".

/// `count` followed by `singular`, made plural unless `count` is 1: `y` after a consonant
/// becomes `ies`, a noun ending in `s`, `x`, `ch` or `sh` takes `es`, `leaf` becomes
/// `leaves`, `child` becomes `children`; any other noun takes `s`. A noun that is already
/// plural-only (`bytes` of a count) is given in the singular.
pub fn plural(count: impl std::fmt::Display, singular: &str) -> String {
    let count = count.to_string();
    if count == "1" {
        return format!("1 {singular}");
    }
    format!("{count} {}", plural_noun(singular))
}

/// The plural of `singular` (see [`plural`]).
pub fn plural_noun(singular: &str) -> String {
    // The last word carries the number: "tool call" → "tool calls".
    let (head, word) = match singular.rfind(' ') {
        Some(at) => singular.split_at(at + 1),
        None => ("", singular),
    };
    let word = match word {
        "leaf" => "leaves".to_owned(),
        "child" => "children".to_owned(),
        _ if word.ends_with('y')
            && !word[..word.len() - 1].ends_with(['a', 'e', 'i', 'o', 'u']) =>
        {
            format!("{}ies", &word[..word.len() - 1])
        }
        _ if ["s", "x", "ch", "sh"].iter().any(|end| word.ends_with(end)) => format!("{word}es"),
        _ => format!("{word}s"),
    };
    format!("{head}{word}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        for (noun, many) in [
            ("error", "errors"),
            ("entry", "entries"),
            ("summary", "summaries"),
            ("key", "keys"),
            ("leaf", "leaves"),
            ("branch", "branches"),
            ("byte", "bytes"),
            ("tool call", "tool calls"),
            ("unreadable line", "unreadable lines"),
            ("box", "boxes"),
        ] {
            assert_eq!(plural(1usize, noun), format!("1 {noun}"));
            for count in [0u64, 2, 11, 101] {
                assert_eq!(plural(count, noun), format!("{count} {many}"));
            }
        }
    }
}
