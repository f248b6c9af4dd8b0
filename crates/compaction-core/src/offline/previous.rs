//! The previous summary, parsed back into sections so a new summary can merge it.
//!
//! Invariant: every bullet of the previous summary lands in some section or in the
//! unstructured text; only empty placeholders are dropped.

use super::sections::{CURRENT_APPROACH, RESOLVE_STEP, Section};
use super::text::*;
use crate::files::FileEffect;

/// The label before a split turn's part of a compaction summary.
const SPLIT_TURN_LABEL: &str = "**Earlier in the turn that is still in progress:**";

/// The commands of a "Commands run:" list that passed in the end: `` `cmd` (passed) ``,
/// `(passed after …)`, `(failed, passes since)`.
fn passed_in_list(list: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = list;
    while let Some(start) = rest.find('`') {
        let after = &rest[start..];
        let Some(command) = backticked(after).first().map(|c| (*c).to_owned()) else { break };
        let Some(end) = after.find(&code(&command)).map(|at| at + code(&command).len()) else {
            break;
        };
        let status = after[end..].trim_start();
        if status.starts_with("(passed") || status.starts_with("(failed, passes since") {
            out.push(command);
        }
        rest = &after[end..];
    }
    out
}

/// An empty section's placeholder (`(none)`, `(none yet)`): the whole bullet is one
/// parenthesised note. A bullet that only opens with "(none" and goes on is a fact.
pub(super) fn is_placeholder(bullet: &str) -> bool {
    bullet.starts_with("(none") && bullet.find(')') == Some(bullet.len() - 1)
}

/// A bullet whose text opens with a task box, or is shaped like a placeholder, is written
/// escaped (`\[x] …`, `\(none …)`, see [`super::render::render`]): the escape is markup,
/// the rest is text.
fn unescaped(bullet: &str) -> &str {
    bullet
        .strip_prefix('\\')
        .filter(|rest| rest.starts_with('[') || rest.starts_with('('))
        .unwrap_or(bullet)
}

#[derive(Debug, Clone, Default)]
pub(super) struct PreviousSummary {
    /// Bullets per section, in their order (index = `Section::index`).
    pub(super) items: [Vec<String>; 8],
    pub(super) read_files: Vec<String>,
    pub(super) modified_files: Vec<String>,
    /// The whole text, one line, when it has none of our headings.
    pub(super) unstructured: Option<String>,
}

impl PreviousSummary {
    pub(super) fn parse(text: &str) -> Self {
        // The pinned section is rewritten from the pins active now, never carried.
        let text = crate::pins::without_pinned_section(text);
        let text = text.as_ref();
        let mut parsed = PreviousSummary::default();
        let mut current: Option<(Section, Option<String>)> = None;
        let mut must_keep = false;
        let mut in_pin = false;
        let mut in_fence = false;
        let mut recognised = false;
        let mut file_list: Option<bool> = None; // Some(true) = modified, Some(false) = read.
        let mut loose = Vec::new();
        // Where the split turn's part begins, per section: it is later than the history.
        let mut split_at: Option<[usize; 8]> = None;
        for line in text.lines() {
            let trimmed = line.trim();
            if trimmed == SPLIT_TURN_LABEL {
                split_at = Some(parsed.items.each_ref().map(Vec::len));
                continue;
            }
            match trimmed {
                "<read-files>" => {
                    file_list = Some(false);
                    continue;
                }
                "<modified-files>" => {
                    file_list = Some(true);
                    continue;
                }
                "</read-files>" | "</modified-files>" => {
                    file_list = None;
                    continue;
                }
                _ => {}
            }
            if let Some(modified) = file_list {
                if !trimmed.is_empty() {
                    let list =
                        if modified { &mut parsed.modified_files } else { &mut parsed.read_files };
                    list.push(trimmed.to_owned());
                }
                continue;
            }
            // The quality gate's "Must Keep" section: its facts go back to their sections;
            // pinned instructions are not carried (the pins active now are written afresh).
            if trimmed == "<pinned-instruction>" {
                in_pin = true;
                continue;
            }
            if in_pin {
                in_pin = trimmed != "</pinned-instruction>";
                continue;
            }
            // Code blocks of a summary (a model's, or an agent's own) are code, never
            // headings or bullets: `#endif` is no section.
            if trimmed.starts_with("```") {
                in_fence = !in_fence;
                continue;
            }
            if in_fence {
                continue;
            }
            let heading = super::origin::is_heading(trimmed);
            if let Some(title) = trimmed.strip_prefix('#').filter(|_| heading) {
                let title = title.trim_start_matches('#').trim().trim_end_matches(':');
                must_keep = title.eq_ignore_ascii_case("must keep");
                if must_keep {
                    current = None;
                    recognised = true;
                    continue;
                }
            }
            if must_keep {
                let bullet = strip_bullet(trimmed);
                let unquote = |text: &str| text.trim().trim_matches('"').to_owned();
                if let Some(path) = bullet.strip_prefix("Modified: ") {
                    parsed.modified_files.extend(backticked(path).into_iter().map(str::to_owned));
                } else if let Some(text) = bullet.strip_prefix("Constraint (user's words): ") {
                    parsed.items[Section::Constraints.index()].push(unquote(text));
                } else if let Some(text) = bullet.strip_prefix("Latest request: ") {
                    parsed.items[Section::Goal.index()]
                        .push(format!("Latest request: {}", unquote(text)));
                } else if let Some(text) = bullet.strip_prefix("Unresolved failure: ") {
                    parsed.items[Section::Blocked.index()].push(text.to_owned());
                }
                continue;
            }
            if let Some(title) = trimmed.strip_prefix('#').filter(|_| heading) {
                let title = title.trim_start_matches('#').trim().trim_end_matches(':');
                if title.eq_ignore_ascii_case("progress") {
                    current = Some((Section::Done, None));
                } else {
                    // A heading of another format (pi's "User Preferences", "Key Files", …)
                    // maps to the nearest section, or keeps its name in Critical Context.
                    current = Some(match Section::from_heading(title) {
                        Some(section) => (section, None),
                        None => match Section::from_foreign_heading(title) {
                            Some(section) => (section, None),
                            None => (Section::Critical, Some(title.to_owned())),
                        },
                    });
                }
                recognised = true;
                continue;
            }
            // The separator before a split turn's summary, horizontal rules, bold labels.
            if trimmed.is_empty()
                || trimmed.chars().all(|c| c == '-' || c == '*' || c == '_' || c == '=')
                || (trimmed.starts_with("**") && trimmed.ends_with("**"))
            {
                continue;
            }
            let bullet = strip_bullet(trimmed);
            if bullet.is_empty() || is_placeholder(bullet) {
                continue;
            }
            let bullet = unescaped(bullet);
            match &current {
                Some((section, None)) => {
                    parsed.items[section.index()].push(bullet.to_owned());
                }
                Some((section, Some(heading))) => {
                    parsed.items[section.index()].push(format!("{heading}: {bullet}"));
                }
                None => loose.push(bullet),
            }
        }
        if let Some(split_at) = split_at {
            parsed.settle_split_turn(&split_at);
        }
        if recognised && !loose.is_empty() {
            // Text before the first heading is context too.
            let joined = one_line(&loose.join(" "));
            parsed.items[Section::Critical.index()].insert(0, clip(&joined, 800));
        }
        if !recognised {
            let joined = one_line(&loose.join(" "));
            if !joined.is_empty() {
                parsed.unstructured = Some(clip(&joined, 800));
            }
        }
        parsed
    }

    /// Reads a split turn's part as what came after the history part: a correction it
    /// opens with rejects the approach the history left current, and a command it shows
    /// passing is no longer the history's open failure.
    fn settle_split_turn(&mut self, split_at: &[usize; 8]) {
        let in_progress = Section::InProgress.index();
        let constraints = Section::Constraints.index();
        let approaches: Vec<String> = self.items[in_progress][..split_at[in_progress]]
            .iter()
            .filter_map(|item| item.strip_prefix(CURRENT_APPROACH).map(str::to_owned))
            .collect();
        let correction = self.items[constraints][split_at[constraints]..]
            .iter()
            .position(|item| {
                item.starts_with("User correction: ") && !item.contains(" (rejected: ")
            })
            .map(|offset| split_at[constraints] + offset);
        match correction {
            Some(index) if !approaches.is_empty() => {
                let item = &mut self.items[constraints][index];
                *item = format!("{item} (rejected: {})", approaches.join(" "));
            }
            // The user let the approach stand and asked the next thing.
            _ => self.items[Section::Decisions.index()].extend(approaches),
        }
        // The history's last step and open approach belong to a turn that ended when the
        // split turn began.
        let (history, turn) = self.items[in_progress].split_at(split_at[in_progress]);
        let mut kept: Vec<String> = history
            .iter()
            .filter(|item| {
                !item.starts_with(CURRENT_APPROACH) && !item.starts_with("Last assistant step")
            })
            .cloned()
            .collect();
        kept.extend(turn.iter().cloned());
        self.items[in_progress] = kept;
        let mut passed: Vec<String> = Vec::new();
        for section in [Section::Done, Section::Critical] {
            for item in &self.items[section.index()][split_at[section.index()]..] {
                if let Some(list) = item.strip_prefix("Commands run: ") {
                    passed.extend(passed_in_list(list));
                } else if item.contains("` passes now") {
                    passed.extend(backticked(item).first().map(|command| (*command).to_owned()));
                }
            }
        }
        if passed.is_empty() {
            return;
        }
        let still_failing = |item: &String| {
            backticked(item).first().is_some_and(|command| passed.iter().any(|p| p == command))
                && (item.contains("` failed")
                    || item.starts_with(RESOLVE_STEP)
                    || item.starts_with("Fixing the failure of ")
                    || item.starts_with("Last error (unresolved"))
        };
        for section in
            [Section::Blocked, Section::InProgress, Section::NextSteps, Section::Critical]
        {
            let index = section.index();
            let (history, turn) =
                self.items[index].split_at(split_at[index].min(self.items[index].len()));
            let mut kept: Vec<String> =
                history.iter().filter(|item| !still_failing(item)).cloned().collect();
            kept.extend(turn.iter().cloned());
            self.items[index] = kept;
        }
    }

    /// The summary on one line, each section that has items as `Heading: item; item`:
    /// an earlier summary met among the messages (a branch the user came back from), told
    /// without its Markdown.
    pub(super) fn flattened(&self, max_chars: usize) -> String {
        if let Some(text) = &self.unstructured {
            return clip(text, max_chars);
        }
        let mut parts: Vec<String> = Vec::new();
        for section in super::sections::SECTIONS {
            let items = self.section(section);
            if items.is_empty() {
                continue;
            }
            let name = section.heading().trim().trim_start_matches('#').trim();
            let text = one_line(&items.join("; ")).replace("**", "");
            parts.push(format!("{name}: {}", text.trim_end_matches('.')));
        }
        clip(&parts.join(". "), max_chars)
    }

    pub(super) fn section(&self, section: Section) -> &[String] {
        &self.items[section.index()]
    }
}

/// The moves and deletions a previous summary records as Done items
/// ("Moved `a` to `b`", "Deleted `x`").
pub(super) fn previous_effects(previous: &PreviousSummary) -> Vec<FileEffect> {
    previous
        .section(Section::Done)
        .iter()
        .filter_map(|item| {
            let spans = backticked(item);
            if item.starts_with("Moved ") && spans.len() == 2 {
                Some(FileEffect::Moved { from: spans[0].to_owned(), to: spans[1].to_owned() })
            } else if item.starts_with("Deleted ") && spans.len() == 1 {
                Some(FileEffect::Deleted { path: spans[0].to_owned() })
            } else {
                None
            }
        })
        .collect()
}
