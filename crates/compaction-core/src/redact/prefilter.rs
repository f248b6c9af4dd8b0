//! A cheap necessary condition for each costly rule, searched before the rule is compiled.
//!
//! The [`literals`](super::literals) index keeps a rule for a text that holds one of its key
//! strings, but the costly rules' strings are common: a coding session says `token` and `key`
//! in most of its texts, so the rules that carry the list of secret names (about 1,300
//! characters, in every rule that reads a value after a name) were compiled for nearly every
//! session, and so were rules with long bounded repetitions of Unicode classes
//! (`[^\s"']{1,1024}` compiles to a thousand copies of the class). Compiling them was most of
//! an offline run's time.
//!
//! So a costly rule first gets a *prefilter*: a small pattern derived from the rule's syntax
//! tree that matches wherever the rule matches (and more). It is compiled and searched first;
//! only a text it matches has the rule compiled and applied. It is made in two steps:
//!
//! - the heavy part (the list of names) and everything before it are replaced by the strings
//!   that part's matches end with (regex-syntax's suffix extraction): a rule
//!   `PREFIX NAMES SYNTAX` becomes `(ends of NAMES) SYNTAX`, searched once for every name;
//! - every repetition bounded above 8 loses its upper bound (`{1,1024}` becomes `{1,}`,
//!   `{3,256}` becomes `{3,}`, `{20,}` becomes `{8,}`), and groups lose their captures.
//!
//! Invariant (soundness): wherever a rule's regex matches a text, its prefilter matches the
//! same text. Dropping a prefix of a concatenation keeps a suffix of every match; the strings
//! a part's matches end with hold every such end; a repetition with a lower minimum and no
//! maximum matches whatever the bounded one does; look-arounds are kept, and are judged on
//! the same text. A text the prefilter rules out therefore gives the same result as applying
//! the rule, and redaction's output does not depend on the prefilters (a property test in
//! the parent compares the two; a unit test checks every match of the test corpora).

use regex_syntax::hir::{Class, Hir, HirKind, Repetition};

/// Repetitions bounded above this lose their bound (and a minimum above it is lowered to it).
const MAX_REPEAT: u32 = 8;
/// A part of a concatenation at least this heavy (see [`weight`]) is replaced by the strings
/// its matches end with, when there are finitely many.
const HEAVY: usize = 256;
/// A rule at least this heavy gets a prefilter; lighter ones compile fast enough as they are.
pub(super) const COSTLY: usize = 1_500;

/// A rough measure of what a syntax tree costs to compile: its literal bytes and class
/// ranges, repetitions counted as many times as they are copied.
pub(super) fn weight(hir: &Hir) -> usize {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 1,
        HirKind::Literal(literal) => literal.0.len(),
        HirKind::Class(Class::Unicode(class)) => class.ranges().len() * 2,
        HirKind::Class(Class::Bytes(class)) => class.ranges().len(),
        HirKind::Repetition(repetition) => {
            let copies = repetition.max.unwrap_or(repetition.min).max(1);
            weight(&repetition.sub).saturating_mul(copies as usize)
        }
        HirKind::Capture(capture) => weight(&capture.sub),
        HirKind::Concat(parts) | HirKind::Alternation(parts) => {
            parts.iter().map(weight).fold(0, usize::saturating_add)
        }
    }
}

/// `hir` with every repetition bounded above [`MAX_REPEAT`] unbounded (its minimum at most
/// [`MAX_REPEAT`]) and without capture groups: it matches wherever `hir` matches.
fn relaxed(hir: &Hir) -> Hir {
    match hir.kind() {
        HirKind::Repetition(repetition) => {
            let sub = Box::new(relaxed(&repetition.sub));
            let (min, max) = if repetition.max.is_some_and(|max| max > MAX_REPEAT)
                || repetition.min > MAX_REPEAT
            {
                (repetition.min.min(MAX_REPEAT), None)
            } else {
                (repetition.min, repetition.max)
            };
            Hir::repetition(Repetition { min, max, greedy: repetition.greedy, sub })
        }
        HirKind::Capture(capture) => relaxed(&capture.sub),
        HirKind::Concat(parts) => Hir::concat(parts.iter().map(relaxed).collect()),
        HirKind::Alternation(parts) => Hir::alternation(parts.iter().map(relaxed).collect()),
        _ => hir.clone(),
    }
}

/// How many bytes of each alternative's end a heavy part is cut to.
const ENDING: usize = 4;

/// A pattern that matches the last bytes of every match of `hir` (up to `want` of them,
/// whole characters and classes kept), and whether it is `hir` whole. A part that may
/// match nothing (a repetition from zero) ends with the empty string.
fn ending(hir: &Hir, want: usize) -> (Hir, bool) {
    match hir.kind() {
        HirKind::Literal(literal) if literal.0.len() > want => {
            let bytes = &literal.0;
            let mut from = bytes.len() - want;
            // Keep whole UTF-8 characters: step back over continuation bytes.
            while from > 0 && bytes[from] & 0xC0 == 0x80 {
                from -= 1;
            }
            (Hir::literal(bytes[from..].to_vec()), from == 0)
        }
        HirKind::Capture(capture) => ending(&capture.sub, want),
        HirKind::Alternation(branches) => {
            let (tails, whole): (Vec<Hir>, Vec<bool>) =
                branches.iter().map(|branch| ending(branch, want)).unzip();
            (Hir::alternation(tails), whole.into_iter().all(|whole| whole))
        }
        HirKind::Concat(parts) => ending_of_parts(parts, want),
        HirKind::Repetition(repetition) if repetition.min >= 1 => {
            let (tail, whole) = ending(&repetition.sub, want);
            (tail, whole && repetition.min == 1 && repetition.max == Some(1))
        }
        HirKind::Repetition(_) => (Hir::empty(), false),
        HirKind::Empty | HirKind::Look(_) | HirKind::Literal(_) | HirKind::Class(_) => {
            (hir.clone(), true)
        }
    }
}

/// [`ending`] of the concatenation of `parts`.
fn ending_of_parts(parts: &[Hir], want: usize) -> (Hir, bool) {
    let Some((last, before)) = parts.split_last() else { return (Hir::empty(), true) };
    if matches!(last.kind(), HirKind::Look(_)) {
        // A look-around is left out: the pattern matches more.
        return (ending_of_parts(before, want).0, false);
    }
    if let HirKind::Repetition(repetition) = last.kind()
        && repetition.min == 0
    {
        // Either the optional part matched something, and the match ends as it does, or it
        // matched nothing, and the match ends as the parts before it do.
        let (some, _) = ending(&repetition.sub, want);
        let (none, _) = ending_of_parts(before, want);
        return (Hir::alternation(vec![some, none]), false);
    }
    let (tail, whole) = ending(last, want);
    let have = tail.properties().minimum_len().unwrap_or(0);
    if !whole || have >= want || before.is_empty() {
        return (tail, whole && before.is_empty());
    }
    // The last part is kept whole and is short: what precedes it ends the pattern.
    let (head, head_whole) = ending_of_parts(before, want - have);
    (Hir::concat(vec![head, tail]), head_whole)
}

/// The last [`ENDING`] bytes of every match of `hir`, as a pattern, when `hir` is an
/// alternation (a list of names or words: its ends are as telling as its whole) and no
/// match may end with the empty string.
fn endings(mut hir: &Hir) -> Option<Hir> {
    while let HirKind::Capture(capture) = hir.kind() {
        hir = &capture.sub;
    }
    if !matches!(hir.kind(), HirKind::Alternation(_)) {
        return None;
    }
    let (tail, _) = ending(hir, ENDING);
    (tail.properties().minimum_len().unwrap_or(0) > 0).then_some(tail)
}

/// The prefilter of a rule whose parsed pattern is `hir`, as a syntax tree, or `None` when the
/// rule is cheap to compile (or no prefilter would be much cheaper than the rule).
pub(super) fn prefilter(hir: &Hir) -> Option<Hir> {
    let whole = weight(hir);
    if whole < COSTLY {
        return None;
    }
    let filter = match hir.kind() {
        HirKind::Concat(parts) => {
            // The last heavy part whose matches end with one of a few strings: it and all
            // before it become those strings.
            let cut = (0..parts.len()).rev().find_map(|at| {
                (weight(&parts[at]) >= HEAVY).then(|| endings(&parts[at]).map(|ends| (at, ends)))?
            });
            match cut {
                Some((at, ends)) => {
                    let mut rest = vec![ends];
                    rest.extend(parts[at + 1..].iter().map(relaxed));
                    Hir::concat(rest)
                }
                None => relaxed(hir),
            }
        }
        _ => relaxed(hir),
    };
    (weight(&filter) * 4 <= whole).then_some(filter)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(pattern: &str) -> Hir {
        regex_syntax::Parser::new().parse(pattern).unwrap()
    }

    fn filter(pattern: &str) -> Option<regex::bytes::Regex> {
        prefilter(&parse(pattern)).map(|hir| regex::bytes::Regex::new(&hir.to_string()).unwrap())
    }

    #[test]
    fn long_bounded_repetitions_lose_their_bound() {
        let pattern = r#"(?:^|\s)-u\s*(?P<secret>[^\s"']{1,1024})"#;
        let pre = filter(pattern).expect("a costly rule gets a prefilter");
        assert!(pre.is_match(b" -u a"));
        assert!(!pre.is_match(b" -x a"));
        // Cheap rules get none.
        assert!(filter(r"\bghp_[A-Za-z0-9]{36}\b").is_none());
    }

    #[test]
    fn a_heavy_alternation_and_what_precedes_it_become_its_endings() {
        let names: Vec<String> = (0..200).map(|n| format!("name{n:03}word")).collect();
        let pattern = format!(r"(?i)\b[a-z]*(?:{})\s*=\s*(?P<secret>\S{{3,256}})", names.join("|"));
        let hir = parse(&pattern);
        let pre = prefilter(&hir).expect("prefilter");
        assert!(weight(&pre) * 4 <= weight(&hir));
        let pre = regex::bytes::Regex::new(&pre.to_string()).unwrap();
        let rule = regex::Regex::new(&pattern).unwrap();
        for text in ["x NAME042WORD = abc", "name199word=xyz1", "name042word = ab", "nameword = abc"]
        {
            if rule.is_match(text) {
                assert!(pre.is_match(text.as_bytes()), "{text}");
            }
        }
        // What preceded the names is gone: the rule needs a word boundary before them.
        assert!(!rule.is_match("9name042word = abc"));
        assert!(pre.is_match(b"9name042word = abc"));
        assert!(!pre.is_match(b"name042word: abc"));
    }
}
