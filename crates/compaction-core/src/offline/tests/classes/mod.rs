//! Generated instances of the classes of defects a summary of an unseen session shows:
//! statuses without evidence, changes of mind, errors and their fixes, problems the user
//! raised, numbers cut short, facts from tool output, rules in any language, invented file
//! names, what a command made, what a written document says, a proposal the user confirmed
//! with a bare "yes", output as the terminal colours it, a setting changed in place, a list
//! that reports done work rather than a plan, a command a shell runs for another, a run
//! behind setup steps, a reply shown with the wrong request, what an instruction file says
//! under each heading, a request answered by an edit, a "no" that rejects nothing, and decay
//! across rounds. Each class has several template families, each with several instances; the families are split once into a dev and a test part (a
//! family is in the test part iff its index is 2 modulo 3), and the rules are written
//! against dev only. The test below reports both parts after 1 and 3 rounds.

mod coloured;
mod confirmed;
mod created;
mod documents;
mod done_by_edit;
mod families;
mod instructions;
mod lists;
mod not_rejected;
mod replies;
mod reported;
mod setting;
mod settled;
mod setup;
mod statuses;
mod superseded;
mod wrapped;

use super::*;

/// What a probe of one instance checks.
pub(super) struct Instance {
    pub(super) class: &'static str,
    pub(super) family: usize,
    pub(super) messages: Vec<AgentMessage>,
    /// The messages kept verbatim after the last part summarized: not summarized, only
    /// read for what they settle (see `OfflineInput::after`).
    pub(super) kept: Vec<AgentMessage>,
    /// Each check: an item (a summary line) holding one of the subjects and the text.
    pub(super) expect: Vec<(Vec<String>, String)>,
    /// Text no bullet of the given sections may hold.
    pub(super) absent: Vec<(String, Vec<&'static str>)>,
    /// Statements the summary may not make, graded as `compaction eval` grades a probe's
    /// `absent` rule: no line (of the given headings or tags; of the whole summary with its
    /// file lists when none) holds every string, unless each occurrence of one of them is
    /// followed by an arrow (`A → B` says A was replaced).
    pub(super) stated: Vec<(Vec<String>, Vec<&'static str>)>,
}

impl Instance {
    pub(super) fn new(class: &'static str, family: usize, messages: Vec<AgentMessage>) -> Self {
        Instance {
            class,
            family,
            messages,
            kept: Vec::new(),
            expect: Vec::new(),
            absent: Vec::new(),
            stated: Vec::new(),
        }
    }

    pub(super) fn kept(mut self, kept: Vec<AgentMessage>) -> Self {
        self.kept = kept;
        self
    }

    pub(super) fn expect(mut self, subjects: &[&str], text: &str) -> Self {
        self.expect.push((subjects.iter().map(|s| (*s).to_owned()).collect(), text.to_owned()));
        self
    }

    pub(super) fn absent(mut self, text: &str, sections: &[&'static str]) -> Self {
        self.absent.push((text.to_owned(), sections.to_vec()));
        self
    }

    /// A statement the summary may not make (see `stated`); `sections` are headings without
    /// their `#` marks or tag names (`modified-files`), empty for the whole summary.
    pub(super) fn never_current(mut self, texts: &[&str], sections: &[&'static str]) -> Self {
        self.stated.push((texts.iter().map(|s| (*s).to_owned()).collect(), sections.to_vec()));
        self
    }

    pub(super) fn in_test_part(&self) -> bool {
        self.family % 3 == 2
    }
}

/// The summary after `rounds` compactions: the messages cut at user messages into that many
/// parts, each summarized with the summary before it, and followed in the context by the
/// messages after it (the later parts, then `kept`), as a compaction of the whole session
/// with a smaller kept part each round is. Each summary is the one a compaction entry
/// stores: with the file lists appended (the previous entry's lists, then the part's file
/// operations, as `prepare` builds them), and the next round reads it so.
pub(super) fn rounds_summary(
    messages: &[AgentMessage],
    kept: &[AgentMessage],
    rounds: usize,
    max_chars: usize,
) -> String {
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
    let mut lists: Option<(Vec<String>, Vec<String>)> = None;
    let mut start = 0;
    for cut in cuts {
        let mut files = crate::files::FileOperations::default();
        if let Some((read, modified)) = &lists {
            files.add_details(&json!({ "readFiles": read, "modifiedFiles": modified }));
        }
        files.add_messages(&messages[start..cut]);
        let (read, modified) = (files.read_only(), files.modified());
        let after: Vec<AgentMessage> = messages[cut..].iter().chain(kept).cloned().collect();
        let summary = summarize_offline(&OfflineInput {
            after: &after,
            kind: OfflineKind::History,
            messages: &messages[start..cut],
            previous_summary: previous.as_deref(),
            instructions: None,
            pins: &[],
            max_chars,
        });
        let appendix = crate::files::file_lists_appendix(&read, &modified);
        previous = Some(format!("{}{appendix}", summary.trim_end()));
        lists = Some((read, modified));
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
    let lines = crate::grade::summary_lines(summary);
    for (texts, sections) in &instance.stated {
        let texts: Vec<String> = texts.iter().map(|text| normalized(text)).collect();
        let wanted: Vec<String> = sections.iter().map(|section| normalized(section)).collect();
        match crate::grade::stated_as_current(&lines, &texts, &wanted).next() {
            Some(said) => misses.push(format!("stated {texts:?} as current in: {}", said.line)),
            None => passed += 1,
        }
    }
    let total = instance.expect.len() + instance.absent.len() + instance.stated.len();
    (passed, total, misses)
}

/// Per class, [dev passed, dev total, test passed, test total] after `rounds` rounds.
/// `by_family` prints each family's checks passed (its part named).
fn table(rounds: usize, verbose: bool, by_family: bool) -> Vec<(&'static str, [usize; 4])> {
    let mut rows: Vec<(&'static str, [usize; 4])> = Vec::new();
    let mut families: Vec<(&'static str, usize, usize, usize)> = Vec::new();
    for instance in families::all() {
        let summary = rounds_summary(&instance.messages, &instance.kept, rounds, 16_000);
        let (passed, total, misses) = score(&instance, &summary);
        match families.iter_mut().find(|f| f.0 == instance.class && f.1 == instance.family) {
            Some(family) => {
                family.2 += passed;
                family.3 += total;
            }
            None => families.push((instance.class, instance.family, passed, total)),
        }
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
    if by_family {
        for (class, family, passed, total) in families {
            let part = if family % 3 == 2 { "test" } else { "dev" };
            println!("round {rounds} {class:<20} family {family:>2} {part:<4} {passed:>2}/{total}");
        }
    }
    rows
}

fn percent(passed: usize, total: usize) -> f64 {
    if total == 0 { 100.0 } else { 100.0 * passed as f64 / total as f64 }
}

/// Prints the dev and test parts per class after 1 and 3 rounds
/// (`cargo test -p compaction-core --lib classes -- --nocapture`; `CLASSES_VERBOSE=1` prints
/// each dev miss with its summary, `CLASSES_FAMILIES=1` each family's score) and holds
/// both parts to the bar they reached.
#[test]
fn generated_class_instances_survive_one_and_three_rounds() {
    let verbose = std::env::var_os("CLASSES_VERBOSE").is_some();
    let by_family = std::env::var_os("CLASSES_FAMILIES").is_some();
    let mut totals = [[0usize; 4]; 2];
    for (slot, rounds) in [1, 3].into_iter().enumerate() {
        for (class, row) in table(rounds, verbose, by_family) {
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
