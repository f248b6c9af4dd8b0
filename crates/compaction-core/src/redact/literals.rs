//! The literals a rule's every match holds, so a rule is compiled and searched only for a
//! text that holds one of them.
//!
//! Compiling the whole rule table costs more than redacting a session with it (bounded
//! repetitions of Unicode classes, such as `[^\s"']{1,1024}`, compile to automata of many
//! thousand states), and most texts hold none of most rules' key words. Each pattern is
//! parsed (cheap next to compiling it) and its syntax tree read for a set of strings one of
//! which every match contains, compared without regard to ASCII case; one Aho-Corasick
//! automaton over all the rules' strings then says, in one pass over a text, which rules
//! may match it. A rule whose pattern yields no such set is a candidate for every text.
//!
//! Invariant (soundness): when a rule's regex matches somewhere in a text, the text holds
//! one of the rule's strings (ASCII case aside). A text the index rules out therefore gives
//! the same result as searching it, and redaction's output does not depend on the index.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex_syntax::hir::{Class, Hir, HirKind};

/// The most strings one set may hold (a cross product of classes grows fast).
const MAX_SET: usize = 32;
/// The most characters a class may hold and still count as a choice of literals.
const MAX_CLASS: usize = 8;

/// A set of byte strings, ASCII lower case (a vector: the sets are small, and built and
/// dropped by the thousand).
type Set = Vec<Vec<u8>>;

/// `set` without repeated strings.
fn deduplicated(mut set: Set) -> Set {
    set.sort_unstable();
    set.dedup();
    set
}

/// What one node of a syntax tree says about the texts it matches.
#[derive(Debug, Clone, Default)]
struct Facts {
    /// The node matches exactly one of these strings (ASCII case folded), when known.
    exact: Option<Set>,
    /// Every match of the node contains one of these strings, when known besides `exact`.
    required: Option<Set>,
}

/// A set that can serve as a rule's required strings: non-empty, without the empty string.
fn usable(set: &Set) -> bool {
    !set.is_empty() && set.iter().all(|literal| !literal.is_empty())
}

/// The more selective of two required sets: the longer shortest string, then fewer strings.
fn better(a: Option<Set>, b: Option<Set>) -> Option<Set> {
    let score = |set: &Set| {
        let shortest = set.iter().map(Vec::len).min().unwrap_or(0);
        (shortest, std::cmp::Reverse(set.len()))
    };
    match (a.filter(usable), b.filter(usable)) {
        (Some(a), Some(b)) => Some(if score(&b) > score(&a) { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// Every string of `a` followed by every string of `b`, or `None` past [`MAX_SET`].
fn product(a: &Set, b: &Set) -> Option<Set> {
    if a.len().saturating_mul(b.len()) > MAX_SET {
        return None;
    }
    Some(a.iter().flat_map(|x| b.iter().map(move |y| [x.as_slice(), y].concat())).collect())
}

/// The set of one string.
fn single(bytes: &[u8]) -> Set {
    vec![bytes.to_ascii_lowercase()]
}

/// The strings a class matches, when it holds few enough characters.
fn class_strings(class: &Class) -> Option<Set> {
    let mut set = Set::new();
    match class {
        Class::Unicode(class) => {
            let count: u32 =
                class.ranges().iter().map(|r| u32::from(r.end()) - u32::from(r.start()) + 1).sum();
            if count as usize > MAX_CLASS * 2 {
                return None;
            }
            for range in class.ranges() {
                for c in range.start()..=range.end() {
                    set.push(c.encode_utf8(&mut [0; 4]).as_bytes().to_ascii_lowercase());
                }
            }
        }
        Class::Bytes(class) => {
            let count: usize =
                class.ranges().iter().map(|r| usize::from(r.end() - r.start()) + 1).sum();
            if count > MAX_CLASS * 2 {
                return None;
            }
            for range in class.ranges() {
                for b in range.start()..=range.end() {
                    set.push(vec![b.to_ascii_lowercase()]);
                }
            }
        }
    }
    let set = deduplicated(set);
    // An empty class matches nothing; it is left unknown rather than reasoned about.
    (!set.is_empty() && set.len() <= MAX_CLASS).then_some(set)
}

/// What `hir` says about the texts it matches: exact strings when few, and the strings one of
/// which every match holds.
fn facts(hir: &Hir) -> Facts {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Facts { exact: Some(single(b"")), required: None },
        // An exactly known node's required set is its exact one (see `better`).
        HirKind::Literal(literal) => Facts { exact: Some(single(&literal.0)), required: None },
        HirKind::Class(class) => Facts { exact: class_strings(class), required: None },
        HirKind::Capture(capture) => facts(&capture.sub),
        HirKind::Repetition(repetition) => {
            let sub = facts(&repetition.sub);
            let exact = match (repetition.min, repetition.max) {
                (_, Some(0)) => Some(single(b"")),
                (1, Some(1)) => sub.exact.clone(),
                _ => None,
            };
            let required = if repetition.min >= 1 { better(sub.required, sub.exact) } else { None };
            Facts { exact, required }
        }
        HirKind::Concat(children) => concat(children),
        HirKind::Alternation(branches) => alternation(branches),
    }
}

/// A concatenation: runs of exactly known parts join into longer strings; the required set
/// is the most selective of those runs and of the parts' own required sets.
fn concat(children: &[Hir]) -> Facts {
    // The exact strings of the children so far, while every child is exactly known.
    let mut whole = Some(single(b""));
    // The run of exactly known children since the last break, once it is not `whole`.
    let mut run: Option<Set> = None;
    let mut required = None;
    for child in children {
        let child = facts(child);
        match &child.exact {
            Some(exact) => {
                // `whole` is unknown only once a break started `run`.
                let current = run.as_ref().or(whole.as_ref());
                match current.and_then(|current| product(current, exact)) {
                    Some(joined) if run.is_some() => run = Some(joined),
                    Some(joined) => whole = Some(joined),
                    None => {
                        required = better(required, run.take().or_else(|| whole.take()));
                        run = Some(exact.clone());
                    }
                }
            }
            None => {
                required = better(required, run.take().or_else(|| whole.take()));
                run = Some(single(b""));
            }
        }
        required = better(required, better(child.required, child.exact));
    }
    required = better(required, run.or_else(|| whole.clone()));
    Facts { exact: whole, required }
}

/// An alternation: known when every branch is; the union of the branches' sets.
fn alternation(branches: &[Hir]) -> Facts {
    let mut exact = Some(Set::new());
    let mut required = Some(Set::new());
    for branch in branches {
        let branch = facts(branch);
        exact = match (exact, &branch.exact) {
            (Some(mut all), Some(set)) if all.len() + set.len() <= MAX_SET => {
                all.extend(set.iter().cloned());
                Some(deduplicated(all))
            }
            _ => None,
        };
        required = match (required, better(branch.required, branch.exact)) {
            (Some(mut all), Some(set)) if all.len() + set.len() <= MAX_SET * 4 => {
                all.extend(set);
                Some(deduplicated(all))
            }
            _ => None,
        };
    }
    Facts { exact, required }
}

/// Strings one of which every match of `pattern` contains (ASCII lower case), or `None`
/// when the pattern does not parse or no such set is found.
#[cfg(test)]
pub(super) fn required_literals(pattern: &str) -> Option<Set> {
    let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
    required_literals_of(&hir)
}

/// Strings one of which every match of the parsed pattern `hir` contains (ASCII lower case).
pub(super) fn required_literals_of(hir: &Hir) -> Option<Set> {
    let facts = facts(hir);
    better(facts.required, facts.exact).map(deduplicated)
}

/// Which of a list of patterns may match a text.
#[derive(Debug)]
pub(super) struct LiteralIndex {
    /// For each pattern of the automaton, the rule it belongs to.
    owners: Vec<usize>,
    automaton: Option<AhoCorasick>,
    /// The rules without required strings: candidates for every text.
    always: Vec<bool>,
}

impl LiteralIndex {
    /// The index of `patterns`, in order.
    #[cfg(test)]
    pub(super) fn new<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Self {
        Self::from_sets(patterns.into_iter().map(required_literals))
    }

    /// The index of rules given by their required strings (see [`required_literals_of`]),
    /// in order; `None` for a rule without such strings.
    pub(super) fn from_sets(sets: impl IntoIterator<Item = Option<Set>>) -> Self {
        let mut owners = Vec::new();
        let mut literals: Vec<Vec<u8>> = Vec::new();
        let mut always = Vec::new();
        for (rule, set) in sets.into_iter().enumerate() {
            match set {
                Some(set) => {
                    always.push(false);
                    owners.extend(std::iter::repeat_n(rule, set.len()));
                    literals.extend(set);
                }
                None => always.push(true),
            }
        }
        let automaton = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&literals)
            .ok();
        if automaton.is_none() {
            // Without the automaton every rule is searched, as with no index at all.
            always.iter_mut().for_each(|always| *always = true);
        }
        LiteralIndex { owners, automaton, always }
    }

    /// For each rule, whether it may match `text` (false only when it cannot).
    pub(super) fn candidates(&self, text: &str) -> Vec<bool> {
        let mut may = self.always.clone();
        let Some(automaton) = &self.automaton else { return may };
        let mut left = may.iter().filter(|may| !**may).count();
        for found in automaton.find_overlapping_iter(text) {
            let rule = self.owners[found.pattern().as_usize()];
            if !may[rule] {
                may[rule] = true;
                left -= 1;
                if left == 0 {
                    break;
                }
            }
        }
        may
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(pattern: &str) -> Option<Vec<String>> {
        required_literals(pattern)
            .map(|set| set.into_iter().map(|s| String::from_utf8(s).unwrap()).collect())
    }

    #[test]
    fn literals_join_across_exact_parts_and_fold_ascii_case() {
        assert_eq!(strings(r"(?i)ghp_[a-z0-9]{36}"), Some(vec!["ghp_".into()]));
        assert_eq!(strings(r"AKIA[A-Z0-9]{16}"), Some(vec!["akia".into()]));
        assert_eq!(
            strings(r"-----BEGIN (?:RSA|EC) KEY"),
            Some(vec!["-----begin ec key".into(), "-----begin rsa key".into()])
        );
    }

    #[test]
    fn every_branch_of_an_alternation_must_be_known() {
        assert_eq!(strings(r"(?:token|secret)=\S+"), Some(vec!["secret=".into(), "token=".into()]));
        assert_eq!(strings(r"(?:token|\S+)=x"), Some(vec!["=x".into()]));
        assert_eq!(strings(r"(?:token|\S+)"), None);
    }

    #[test]
    fn optional_parts_are_never_required() {
        assert_eq!(strings(r"(?:abc)?\d+"), None);
        assert_eq!(strings(r"x*"), None);
        assert_eq!(strings(r"(?:abc){2,}"), Some(vec!["abc".into()]));
    }

    #[test]
    fn unicode_case_folding_keeps_each_form() {
        // Under (?i), `k` also matches the Kelvin sign and `s` the long s.
        let found = strings(r"(?i)ks").unwrap();
        assert!(found.contains(&"ks".to_owned()), "{found:?}");
        assert!(found.contains(&"\u{212a}\u{17f}".to_owned()), "{found:?}");
    }

    /// Texts holding secrets and ordinary text: the generated secret corpus (dev and test
    /// families), the planted corpora, the ordinary lines and the bundled session, each also
    /// in upper and lower case and with `s` and `k` written as the long s and the Kelvin
    /// sign (which `(?i)` matches too).
    fn texts() -> Vec<(bool, String)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut texts: Vec<(bool, String)> = compaction_testdata::secrets::corpus()
            .iter()
            .map(|sample| (sample.test, sample.text()))
            .collect();
        for name in ["planted.json", "planted-wide.json"] {
            let path = root.join("tests/fixtures/secrets").join(name);
            let planted: Vec<serde_json::Value> =
                serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
            texts.extend(planted.iter().map(|p| (false, p["text"].as_str().unwrap().to_owned())));
        }
        for name in
            ["tests/fixtures/secrets/ordinary-lines.txt", "../../examples/coding-session.jsonl"]
        {
            let text = std::fs::read_to_string(root.join(name)).unwrap();
            texts.extend(text.lines().map(|line| (false, line.to_owned())));
        }
        let variants: Vec<(bool, String)> = texts
            .iter()
            .flat_map(|(test, text)| {
                [
                    text.to_uppercase(),
                    text.to_lowercase(),
                    text.replace('s', "\u{17f}").replace('k', "\u{212a}"),
                ]
                .map(|variant| (*test, variant))
            })
            .collect();
        texts.extend(variants);
        texts
    }

    #[test]
    fn every_match_of_a_rule_holds_one_of_its_strings() {
        let patterns: Vec<String> = super::super::all_rules()
            .map(|rule| super::super::ascii_classes(rule.pattern))
            .collect();
        let index = LiteralIndex::new(patterns.iter().map(String::as_str));
        let regexes: Vec<regex::Regex> =
            patterns.iter().map(|pattern| regex::Regex::new(pattern).unwrap()).collect();
        let with_strings = index.always.iter().filter(|always| !**always).count();
        assert!(with_strings * 2 > patterns.len(), "{with_strings} of {} rules", patterns.len());
        let (mut matched, mut ruled_out) = ([0_usize; 2], [0_usize; 2]);
        for (test, text) in texts() {
            let may = index.candidates(&text);
            for (number, regex) in regexes.iter().enumerate() {
                if regex.is_match(&text) {
                    assert!(may[number], "rule {number} matches but was ruled out: {text}");
                    matched[usize::from(test)] += 1;
                } else if !may[number] {
                    ruled_out[usize::from(test)] += 1;
                }
            }
        }
        println!(
            "matches checked: dev {}, test {}; searches ruled out: dev {}, test {}",
            matched[0], matched[1], ruled_out[0], ruled_out[1]
        );
        assert!(matched[0] > 1_000 && matched[1] > 100, "{matched:?}");
    }

    #[test]
    fn every_match_of_a_rule_is_a_match_of_its_filter() {
        let compiled = super::super::compiled();
        let filtered: Vec<_> = compiled
            .rules
            .iter()
            .zip(super::super::all_rules())
            .filter(|(rule, _)| rule.filter_hir.is_some())
            .collect();
        assert!(filtered.len() > 20, "{} rules have a filter", filtered.len());
        let (mut matched, mut ruled_out) = (0_usize, 0_usize);
        for (_, text) in texts() {
            for (rule, table) in &filtered {
                let regex = rule.regex().unwrap();
                if regex.is_match(&text) {
                    assert!(
                        rule.may_match(&text),
                        "{} matches but its filter does not: {text}",
                        table.name
                    );
                    matched += 1;
                } else if !rule.may_match(&text) {
                    ruled_out += 1;
                }
            }
        }
        println!("matches checked: {matched}; searches the filters ruled out: {ruled_out}");
        assert!(matched > 1_000, "{matched}");
    }

    #[test]
    fn the_index_rules_out_only_texts_without_the_strings() {
        let index = LiteralIndex::new([r"(?i)password=\S+", r"\d{4}", r"ghp_[a-z]+"]);
        assert_eq!(index.candidates("PassWord=x"), vec![true, true, false]);
        assert_eq!(index.candidates("nothing here"), vec![false, true, false]);
        assert_eq!(index.candidates("ghp_abc"), vec![false, true, true]);
    }
}
