//! Generated instances of the classes of defects a summary of an unseen session shows:
//! statuses without evidence, changes of mind, errors and their fixes, problems the user
//! raised, numbers cut short, facts from tool output, rules in any language, invented file
//! names, and decay across rounds. Each class has several template families, each with
//! several instances; the families are split once into a dev and a test part (a family is in
//! the test part iff its index is 2 modulo 3), and the rules are written against dev only.
//! The test below reports both parts after 1 and 3 rounds.

mod families;

use super::*;

/// What a probe of one instance checks.
pub(super) struct Instance {
    pub(super) class: &'static str,
    pub(super) family: usize,
    pub(super) messages: Vec<AgentMessage>,
    /// Each check: an item (a summary line) holding one of the subjects and the text.
    pub(super) expect: Vec<(Vec<String>, String)>,
    /// Text no bullet of the given sections may hold.
    pub(super) absent: Vec<(String, Vec<&'static str>)>,
}

impl Instance {
    pub(super) fn new(class: &'static str, family: usize, messages: Vec<AgentMessage>) -> Self {
        Instance { class, family, messages, expect: Vec::new(), absent: Vec::new() }
    }

    pub(super) fn expect(mut self, subjects: &[&str], text: &str) -> Self {
        self.expect.push((subjects.iter().map(|s| (*s).to_owned()).collect(), text.to_owned()));
        self
    }

    pub(super) fn absent(mut self, text: &str, sections: &[&'static str]) -> Self {
        self.absent.push((text.to_owned(), sections.to_vec()));
        self
    }

    pub(super) fn in_test_part(&self) -> bool {
        self.family % 3 == 2
    }
}

/// The summary after `rounds` compactions: the messages cut at user messages into that many
/// parts, each summarized with the summary before it.
pub(super) fn rounds_summary(messages: &[AgentMessage], rounds: usize, max_chars: usize) -> String {
    let starts: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, message)| matches!(message, AgentMessage::User(_)))
        .map(|(index, _)| index)
        .collect();
    let mut cuts: Vec<usize> = (1..rounds)
        .filter_map(|part| starts.get(part * starts.len() / rounds).copied())
        .filter(|cut| *cut > 0)
        .collect();
    cuts.dedup();
    cuts.push(messages.len());
    let mut previous: Option<String> = None;
    let mut start = 0;
    for cut in cuts {
        let summary = summarize_offline(&OfflineInput {
            kind: OfflineKind::History,
            messages: &messages[start..cut],
            previous_summary: previous.as_deref(),
            instructions: None,
            pins: &[],
            max_chars,
        });
        previous = Some(summary);
        start = cut;
    }
    previous.unwrap_or_default()
}

fn normalized(text: &str) -> String {
    one_line(&text.to_lowercase())
}

/// The checks of `instance` the summary passes, and how many it has.
pub(super) fn score(instance: &Instance, summary: &str) -> (usize, usize, Vec<String>) {
    let lines: Vec<String> = summary.lines().map(normalized).collect();
    let mut passed = 0;
    let mut misses = Vec::new();
    for (subjects, text) in &instance.expect {
        let text = normalized(text);
        let found = lines.iter().any(|line| {
            line.contains(&text)
                && subjects.iter().any(|subject| line.contains(&normalized(subject)))
        });
        if found {
            passed += 1;
        } else {
            misses.push(format!("missing {text:?}"));
        }
    }
    for (text, sections) in &instance.absent {
        let text = normalized(text);
        let said = sections.iter().any(|heading| {
            bullets(summary, heading).iter().any(|bullet| normalized(bullet).contains(&text))
        });
        if said {
            misses.push(format!("stated {text:?} under {sections:?}"));
        } else {
            passed += 1;
        }
    }
    (passed, instance.expect.len() + instance.absent.len(), misses)
}

/// Per class, [dev passed, dev total, test passed, test total] after `rounds` rounds.
fn table(rounds: usize, verbose: bool) -> Vec<(&'static str, [usize; 4])> {
    let mut rows: Vec<(&'static str, [usize; 4])> = Vec::new();
    for instance in families::all() {
        let summary = rounds_summary(&instance.messages, rounds, 16_000);
        let (passed, total, misses) = score(&instance, &summary);
        if verbose && !misses.is_empty() && !instance.in_test_part() {
            eprintln!(
                "[{} f{} r{rounds}] {}\n{summary}\n",
                instance.class,
                instance.family,
                misses.join("; ")
            );
        }
        let row = match rows.iter_mut().find(|(class, _)| *class == instance.class) {
            Some((_, row)) => row,
            None => {
                rows.push((instance.class, [0; 4]));
                &mut rows.last_mut().unwrap_or_else(|| unreachable!()).1
            }
        };
        let at = if instance.in_test_part() { 2 } else { 0 };
        row[at] += passed;
        row[at + 1] += total;
    }
    rows
}

fn percent(passed: usize, total: usize) -> f64 {
    if total == 0 { 100.0 } else { 100.0 * passed as f64 / total as f64 }
}

/// Prints the dev and test parts per class after 1 and 3 rounds
/// (`cargo test -p compaction-core --lib classes -- --nocapture`; `CLASSES_VERBOSE=1` prints
/// each dev miss with its summary) and holds both parts to the bar they reached.
#[test]
fn generated_class_instances_survive_one_and_three_rounds() {
    let verbose = std::env::var_os("CLASSES_VERBOSE").is_some();
    let mut totals = [[0usize; 4]; 2];
    for (slot, rounds) in [1, 3].into_iter().enumerate() {
        for (class, row) in table(rounds, verbose) {
            println!(
                "round {rounds} {class:<20} dev {:>3}/{:<3} {:5.1}%   test {:>3}/{:<3} {:5.1}%",
                row[0],
                row[1],
                percent(row[0], row[1]),
                row[2],
                row[3],
                percent(row[2], row[3])
            );
            for (total, value) in totals[slot].iter_mut().zip(row) {
                *total += value;
            }
        }
    }
    for (slot, rounds) in [1, 3].into_iter().enumerate() {
        let [dev, dev_total, test, test_total] = totals[slot];
        let (dev, test) = (percent(dev, dev_total), percent(test, test_total));
        println!("round {rounds} all dev {dev:.1}% test {test:.1}%");
        assert!(dev >= BAR && test >= BAR, "round {rounds}: dev {dev:.1}%, test {test:.1}%");
    }
}

/// The share of checks (in percent) each part must pass after 1 and after 3 rounds: below
/// what both reached when the rules were written (98.4%), above what the summarizer before
/// them reached (dev 69.6%, test 67.2% after 1 round).
const BAR: f64 = 90.0;
