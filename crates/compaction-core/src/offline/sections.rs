//! Sections: the checkpoint's headings, its bullets with their priorities, the per-kind
//! caps, and the focus ranking.
//!
//! Invariant: every bullet belongs to exactly one section; within a section a text
//! appears once; priorities decide what a tight budget drops first.

use super::OfflineKind;
use super::calls::CommandRuns;
use super::text::*;

/// How an In Progress item for a decision of a turn still open starts.
pub(super) const CURRENT_APPROACH: &str = "Current approach: ";

/// How the Key Decisions item for the approach taken after a correction starts.
pub(super) const AFTER_CORRECTION: &str = "After the user's correction: ";

/// How the Done item for the final reply of a turn that ended starts (the reply of a turn
/// still open is its In Progress "Last assistant step").
pub(super) const FINISHED_STEP: &str = "Last reply (turn ended): ";
/// What follows a finished step's sentence before the items of the list its reply gave as
/// done or found (see `assemble::progress`).
pub(super) const REPORTED_LIST: &str = "; its list: ";

/// How the In Progress item for a question the assistant asked, still waiting for the
/// user's answer, starts (the next part reads it back, so that a "yes" answers it).
pub(super) const AWAITING_ANSWER: &str = "Asked the user, awaiting the answer: ";

/// How the Next Steps item for an open failure starts.
pub(super) const RESOLVE_STEP: &str = "Resolve the failure of ";

/// The checkpoint's sections, in output order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Section {
    Goal,
    Constraints,
    Done,
    InProgress,
    Blocked,
    Decisions,
    NextSteps,
    Critical,
}

pub(super) const SECTIONS: [Section; 8] = [
    Section::Goal,
    Section::Constraints,
    Section::Done,
    Section::InProgress,
    Section::Blocked,
    Section::Decisions,
    Section::NextSteps,
    Section::Critical,
];

impl Section {
    pub(super) fn index(self) -> usize {
        match self {
            Section::Goal => 0,
            Section::Constraints => 1,
            Section::Done => 2,
            Section::InProgress => 3,
            Section::Blocked => 4,
            Section::Decisions => 5,
            Section::NextSteps => 6,
            Section::Critical => 7,
        }
    }

    /// The heading lines printed before this section's items.
    pub(super) fn heading(self) -> &'static str {
        match self {
            Section::Goal => "## Goal\n",
            Section::Constraints => "## Constraints & Preferences\n",
            Section::Done => "### Done\n",
            Section::InProgress => "### In Progress\n",
            Section::Blocked => "### Blocked\n",
            Section::Decisions => "## Key Decisions\n",
            Section::NextSteps => "## Next Steps\n",
            Section::Critical => "## Critical Context\n",
        }
    }

    /// Recognises a heading of a previous summary (`## Goal`, `### Done`, …).
    pub(super) fn from_heading(title: &str) -> Option<Section> {
        let title = title.trim().trim_end_matches(':').to_lowercase();
        let section = match title.as_str() {
            "goal" | "goals" | "original request" => Section::Goal,
            "constraints & preferences" | "constraints and preferences" | "constraints" => {
                Section::Constraints
            }
            "done" | "early progress" => Section::Done,
            "in progress" => Section::InProgress,
            "blocked" => Section::Blocked,
            "key decisions" | "decisions" => Section::Decisions,
            "next steps" => Section::NextSteps,
            "critical context" | "context for suffix" => Section::Critical,
            _ => return None,
        };
        Some(section)
    }
}

impl Section {
    /// Maps a heading of another summary format (pi's own, a model's) to a section.
    pub(super) fn from_foreign_heading(title: &str) -> Option<Section> {
        let title = title.to_lowercase();
        let has = |words: &[&str]| words.iter().any(|word| title.contains(word));
        if has(&["preference", "constraint", "rule", "requirement", "convention", "style"]) {
            Some(Section::Constraints)
        } else if has(&["goal", "objective", "task", "request"]) {
            Some(Section::Goal)
        } else if has(&["decision", "agreed", "design", "approach", "architecture", "structure"]) {
            Some(Section::Decisions)
        } else if has(&["next", "todo", "to do", "remaining", "open question", "follow"]) {
            Some(Section::NextSteps)
        } else if has(&["blocker", "blocked"]) {
            Some(Section::Blocked)
        } else if has(&["in progress", "current work", "working on"]) {
            Some(Section::InProgress)
        } else if has(&["done", "completed", "accomplished", "progress", "changes made"]) {
            Some(Section::Done)
        } else {
            None
        }
    }
}

/// One bullet of the output. Higher `priority` survives trimming longer; among equal
/// priorities the older item (lower `order`) goes first.
#[derive(Debug, Clone)]
pub(super) struct Item {
    pub(super) section: Section,
    pub(super) text: String,
    pub(super) priority: u32,
    pub(super) order: usize,
    /// Must-keep text (a constraint, the latest request, the modified files): never
    /// shortened, so checks for it find it word for word.
    pub(super) verbatim: bool,
}

/// Item lists per section, in output order within each section.
#[derive(Debug, Default)]
pub(super) struct Sections {
    pub(super) items: Vec<Item>,
}

impl Sections {
    pub(super) fn push(&mut self, section: Section, text: impl Into<String>, priority: u32) {
        let text = one_line(&text.into());
        if text.is_empty() {
            return;
        }
        if self.items.iter().any(|item| item.section == section && item.text == text) {
            return;
        }
        let order = self.items.len();
        self.items.push(Item { section, text, priority, order, verbatim: false });
    }

    /// Pushes an item that is never shortened (it may still be dropped, last).
    pub(super) fn push_verbatim(
        &mut self,
        section: Section,
        text: impl Into<String>,
        priority: u32,
    ) {
        let count = self.items.len();
        self.push(section, text, priority.max(PRIORITY_ESSENTIAL));
        if self.items.len() > count
            && let Some(item) = self.items.last_mut()
        {
            item.verbatim = true;
        }
    }
}

pub(super) const PRIORITY_ESSENTIAL: u32 = 90;
pub(super) const PRIORITY_MAIN_GOAL: u32 = 100;
pub(super) const PRIORITY_LAST_ERROR: u32 = 100;
pub(super) const PRIORITY_FOCUS: u32 = 98;
pub(super) const PRIORITY_CURRENT: u32 = 92;
pub(super) const PRIORITY_NEXT: u32 = 80;
pub(super) const PRIORITY_FOLLOW_UP: u32 = 78;
pub(super) const PRIORITY_CONSTRAINT: u32 = 75;
pub(super) const PRIORITY_BLOCKED: u32 = 72;
pub(super) const PRIORITY_ERRORS: u32 = 65;
pub(super) const PRIORITY_DONE_EDIT: u32 = 62;
pub(super) const PRIORITY_DECISION: u32 = 58;
pub(super) const PRIORITY_DONE_COMMAND: u32 = 52;
pub(super) const PRIORITY_USER_NOTE: u32 = 46;
pub(super) const PRIORITY_ASSISTANT_NOTE: u32 = 38;
/// What a document the work wrote says: the room the replies' notes leave.
pub(super) const PRIORITY_DOCUMENT_NOTE: u32 = 36;
/// An item past its kind's cap (the oldest requests, edits and decisions of a long
/// part): in only when the budget has room left, and counted when dropped.
pub(super) const PRIORITY_PAST_CAP: u32 = 34;

/// The priority of the item at `index` of a list of `len` whose kind keeps its `priority`
/// for the newest `cap`: past the cap the oldest still go in, at [`PRIORITY_PAST_CAP`], so
/// the budget drops them first and counts them, never unsaid.
pub(super) fn capped_priority(index: usize, len: usize, cap: usize, priority: u32) -> u32 {
    if index < len.saturating_sub(cap) { PRIORITY_PAST_CAP } else { priority }
}
pub(super) const PRIORITY_COMMANDS: u32 = 28;
pub(super) const PRIORITY_IDENTIFIERS: u32 = 30;
/// Items that mention a word of the user's focus rank this much higher.
pub(super) const FOCUS_BONUS: u32 = 15;

/// Per-section caps; a turn prefix gets a shorter summary.
pub(super) struct Limits {
    pub(super) requests: usize,
    pub(super) done: usize,
    pub(super) blocked: usize,
    pub(super) decisions: usize,
    pub(super) next_steps: usize,
    pub(super) errors: usize,
}

impl Limits {
    pub(super) fn for_kind(kind: OfflineKind) -> Self {
        match kind {
            OfflineKind::History | OfflineKind::Branch => Limits {
                requests: 30,
                done: 20,
                blocked: 8,
                decisions: 8,
                next_steps: 6,
                errors: 4,
            },
            OfflineKind::TurnPrefix => {
                Limits { requests: 2, done: 8, blocked: 3, decisions: 3, next_steps: 3, errors: 2 }
            }
        }
    }
}

/// Reads back a "Commands run:" list: each code span and the parenthesised status after it.
pub(super) fn commands_with_status(list: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = list;
    while let Some(start) = rest.find('`') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('`') else {
            break;
        };
        let command = after[..end].trim().to_owned();
        rest = &after[end + 1..];
        // The status runs to its matching parenthesis ("passed after 1 failed run(s)").
        let status = rest
            .strip_prefix(" (")
            .and_then(|tail| {
                let mut depth = 0usize;
                tail.char_indices().find_map(|(at, c)| match c {
                    '(' => {
                        depth += 1;
                        None
                    }
                    ')' if depth == 0 => Some(tail[..at].to_owned()),
                    ')' => {
                        depth -= 1;
                        None
                    }
                    _ => None,
                })
            })
            .unwrap_or_default();
        if !command.is_empty() {
            out.push((command, status));
        }
    }
    out
}

pub(super) fn runs_status(runs: &CommandRuns) -> String {
    match (runs.last_passed, runs.failures, runs.passes) {
        (Some(true), 0, _) => "passed".to_owned(),
        (Some(true), failures, _) => format!("passed after {failures} failed run(s)"),
        (Some(false), _, 0) => "failed".to_owned(),
        (Some(false), _, _) => "failed on its latest run".to_owned(),
        (None, _, _) => "no result".to_owned(),
    }
}

/// Raises the priority of items that mention a word of the user's focus.
pub(super) fn apply_focus(sections: &mut Sections, instructions: Option<&str>) {
    let Some(instructions) = instructions else {
        return;
    };
    let words: Vec<String> = instructions
        .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '.' && c != '/')
        .filter(|word| {
            let length = char_len(word);
            length >= 4 || (length >= 2 && !word.is_ascii())
        })
        .map(str::to_lowercase)
        .collect();
    if words.is_empty() {
        return;
    }
    for item in &mut sections.items {
        let lower = item.text.to_lowercase();
        if words.iter().any(|word| lower.contains(word.as_str())) {
            item.priority += FOCUS_BONUS;
        }
    }
}
