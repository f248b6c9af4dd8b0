//! Sections: the digest (and the previous summary) turned into prioritised bullets.
//!
//! Invariant: every bullet belongs to exactly one section; within a section a text
//! appears once; priorities decide what a tight budget drops first.

use super::OfflineKind;
use super::facts::*;
use super::text::*;

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
pub(super) const PRIORITY_MODIFIED_FILES: u32 = 95;
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
pub(super) const PRIORITY_COMMANDS: u32 = 28;
pub(super) const PRIORITY_READ_FILES: u32 = 40;
pub(super) const PRIORITY_IDENTIFIERS: u32 = 30;
/// Items carried over from a previous summary rank this much lower than fresh ones.
pub(super) const PREVIOUS_PENALTY: u32 = 8;
/// Items that mention a word of the user's focus rank this much higher.
pub(super) const FOCUS_BONUS: u32 = 15;

impl Digest {
    pub(super) fn into_sections(self, kind: OfflineKind, instructions: Option<&str>) -> Sections {
        let mut sections = Sections::default();
        let previous = self.previous.as_ref();
        let carried = |priority: u32| priority.saturating_sub(PREVIOUS_PENALTY);
        let limits = Limits::for_kind(kind);
        let carried_items = |section: Section| -> &[String] {
            previous.map(|previous| previous.section(section)).unwrap_or_default()
        };

        // Goal: the focus, the main goal, earlier requests (short), the latest verbatim.
        if let Some(focus) = instructions.map(one_line).filter(|focus| !focus.is_empty()) {
            sections.push(
                Section::Goal,
                format!("Focus requested: {}", clip(&focus, 300)),
                PRIORITY_FOCUS,
            );
        }
        let mut have_main_goal = false;
        let mut earlier: Vec<(String, u32)> = Vec::new();
        if let Some(text) = previous.and_then(|previous| previous.unstructured.as_ref()) {
            sections.push(Section::Goal, format!("Earlier: {text}"), PRIORITY_ESSENTIAL);
            have_main_goal = true;
        }
        let carried_goals = carried_items(Section::Goal);
        let mut carried_latest: Option<String> = None;
        for goal in carried_goals {
            let (label, text) = goal_label(goal);
            match label {
                GoalLabel::Main if !have_main_goal => {
                    sections.push(Section::Goal, text.to_owned(), PRIORITY_MAIN_GOAL);
                    have_main_goal = true;
                }
                GoalLabel::Latest => {
                    // A split turn's request follows the history's latest one.
                    if let Some(older) = carried_latest.replace(text.to_owned()) {
                        earlier.push((clip(&older, 200), carried(PRIORITY_FOLLOW_UP)));
                    }
                }
                GoalLabel::Main | GoalLabel::Earlier => {
                    earlier.push((text.to_owned(), carried(PRIORITY_FOLLOW_UP)))
                }
                GoalLabel::Focus => {}
            }
        }
        for summary in &self.earlier_summaries {
            sections.push(
                Section::Goal,
                format!("Earlier: {summary}"),
                carried(PRIORITY_ESSENTIAL),
            );
        }
        let fresh_latest = self.latest_request.clone();
        if !have_main_goal
            && fresh_latest.is_some()
            && let Some(old) = carried_latest.take()
        {
            // The request of an earlier split turn was the first one recorded: the goal.
            sections.push(Section::Goal, old, PRIORITY_MAIN_GOAL);
            have_main_goal = true;
        }
        match (&fresh_latest, carried_latest) {
            (Some(_), Some(old)) => earlier.push((clip(&old, 200), carried(PRIORITY_FOLLOW_UP))),
            (None, Some(old)) => {
                // Still the latest: no newer request in this part.
                sections.push_verbatim(
                    Section::Goal,
                    format!("Latest request: {old}"),
                    PRIORITY_CURRENT,
                );
            }
            (_, None) => {}
        }
        let request_count = self.requests.len();
        for (index, request) in self.requests.iter().enumerate() {
            let last = index + 1 == request_count;
            if index == 0 && !have_main_goal && !(last && kind == OfflineKind::TurnPrefix) {
                let label = match kind {
                    OfflineKind::Branch => "Explored on this branch: ",
                    OfflineKind::History | OfflineKind::TurnPrefix => "",
                };
                if last {
                    // The only request is both the goal and the latest request.
                    break;
                }
                sections.push(Section::Goal, format!("{label}{request}"), PRIORITY_MAIN_GOAL);
                have_main_goal = true;
                continue;
            }
            if last {
                break;
            }
            earlier.push((clip(request, 200), PRIORITY_FOLLOW_UP));
        }
        let skip = earlier.len().saturating_sub(limits.requests);
        for (text, priority) in earlier.into_iter().skip(skip) {
            sections.push(Section::Goal, format!("Earlier request: {text}"), priority);
        }
        if let Some(latest) = &fresh_latest {
            let label = match (kind, have_main_goal) {
                (OfflineKind::TurnPrefix, _) => "Request of this turn: ",
                (OfflineKind::Branch, false) => "Explored on this branch: ",
                (OfflineKind::History, false) => "",
                (OfflineKind::History | OfflineKind::Branch, true) => "Latest request: ",
            };
            let priority = if have_main_goal { PRIORITY_CURRENT } else { PRIORITY_MAIN_GOAL };
            sections.push_verbatim(Section::Goal, format!("{label}{latest}"), priority);
        }

        // Constraints: carried ones, rejected approaches with the user's words, new ones.
        // A correction whose proposal was in the earlier part: that part's next steps
        // were the proposal.
        let carried_next = carried_items(Section::NextSteps);
        for constraint in carried_items(Section::Constraints) {
            let unmatched =
                constraint.starts_with("User correction: ") && !constraint.contains(" (rejected: ");
            let text = match unmatched && !carried_next.is_empty() {
                true => format!("{constraint} (rejected: {})", clip(&carried_next.join(" "), 200)),
                false => constraint.clone(),
            };
            sections.push_verbatim(Section::Constraints, text, PRIORITY_CONSTRAINT);
        }
        for rejected in &self.rejected {
            sections.push_verbatim(
                Section::Constraints,
                format!(
                    "Rejected by the user: {} (user: \"{}\")",
                    clip(&rejected.proposal, 200),
                    rejected.words
                ),
                PRIORITY_CONSTRAINT,
            );
        }
        for constraint in &self.constraints {
            if self.rejected.iter().any(|rejected| &rejected.words == constraint) {
                continue;
            }
            sections.push_verbatim(Section::Constraints, constraint.clone(), PRIORITY_CONSTRAINT);
        }

        // Done: carried items not superseded by a newer one about the same path or command.
        let passed = self.passed_commands();
        let mut fresh_done: Vec<(String, u32)> = Vec::new();
        for change in self.changes.iter().skip(self.changes.len().saturating_sub(limits.done)) {
            let times =
                if change.times > 1 { format!(" ({} times)", change.times) } else { String::new() };
            let verb = if change.verb == "Wrote" && change.times > 1 {
                "Wrote/edited"
            } else {
                change.verb
            };
            fresh_done.push((format!("{verb} {}{times}", code(&change.path)), PRIORITY_DONE_EDIT));
        }
        for change in &self.tree_changes {
            fresh_done.push((change.clone(), PRIORITY_DONE_EDIT));
        }
        for fixed in &self.fixed {
            fresh_done.push((fixed.clone(), PRIORITY_DONE_EDIT));
        }
        let skip = self.passing.len().saturating_sub(limits.done);
        for (_, passing) in self.passing.iter().skip(skip) {
            fresh_done.push((passing.clone(), PRIORITY_DONE_COMMAND));
        }
        let fresh_subjects: Vec<&str> =
            fresh_done.iter().filter_map(|(text, _)| backticked(text).first().copied()).collect();
        for done in carried_items(Section::Done) {
            let subject = backticked(done).first().copied();
            if subject.is_some_and(|subject| fresh_subjects.contains(&subject)) {
                continue;
            }
            sections.push(Section::Done, done.clone(), carried(PRIORITY_DONE_EDIT));
        }
        // A carried blocker is resolved when its command (its first code span) passed since.
        let is_resolved = |item: &str| {
            backticked(item).first().is_some_and(|command| {
                passed.iter().any(|done| done == command)
                    || passed.iter().any(|done| {
                        let (family, targeted) = command_family(done);
                        !targeted && command_family(command).0 == family
                    })
            })
        };
        for item in carried_items(Section::Blocked) {
            if is_resolved(item) {
                let command = backticked(item).first().map(|c| code(c)).unwrap_or_default();
                sections.push(
                    Section::Done,
                    format!("{command} passes now (it was blocked before)"),
                    PRIORITY_DONE_EDIT,
                );
            }
        }
        for (text, priority) in fresh_done {
            sections.push(Section::Done, text, priority);
        }

        // In progress: calls waiting for their result at the end, the last step.
        let mut in_progress = Vec::new();
        // A branch summary reads no tool results (their calls carry the meaning), so its
        // calls are what the branch did, not work still waiting for a result.
        let calls_are_done = matches!(kind, OfflineKind::Branch);
        if calls_are_done {
            for call in self.abandoned.iter().chain(&self.pending) {
                let what = match (&call.command, &call.path) {
                    (Some(command), _) => format!("Ran {}", code(&clip(command, 160))),
                    (None, Some(path)) => format!("{} {}", capitalised(&call.name), code(path)),
                    (None, None) => format!("Called tool {}", code(&call.name)),
                };
                sections.push(Section::Done, what, PRIORITY_DONE_COMMAND);
            }
        } else {
            for call in &self.pending {
                let what = match (&call.command, &call.path) {
                    (Some(command), _) => {
                        format!("Running {} (no result yet)", code(&clip(command, 160)))
                    }
                    (None, Some(path)) => {
                        format!("{} {} (no result yet)", capitalised(&call.name), code(path))
                    }
                    (None, None) => format!("Tool {} called (no result yet)", code(&call.name)),
                };
                in_progress.push(what);
            }
        }
        let open: Vec<&Failure> = self.failures.iter().filter(|f| !f.resolved).collect();
        if self.last_was_failure
            && let Some(last) = open.last()
        {
            in_progress.push(format!("Fixing the failure of {} (see Blocked)", last.subject));
        }
        if let Some(statement) = &self.last_assistant_statement {
            in_progress.push(format!("Last assistant step: {statement}"));
        }
        if in_progress.is_empty() {
            for item in carried_items(Section::InProgress) {
                if !is_resolved(item) {
                    sections.push(Section::InProgress, item.clone(), carried(PRIORITY_CURRENT));
                }
            }
        }
        for item in in_progress {
            sections.push(Section::InProgress, item, PRIORITY_CURRENT);
        }

        // Blocked: carried items not resolved since, then new ones.
        for item in carried_items(Section::Blocked) {
            let interrupted = item.contains("`aborted`");
            if !is_resolved(item) && !interrupted {
                sections.push(Section::Blocked, item.clone(), carried(PRIORITY_BLOCKED));
            }
        }
        let open_count = open.len();
        for (index, failure) in open.iter().enumerate() {
            if index + limits.blocked < open_count {
                continue;
            }
            let priority =
                if index + 1 == open_count { PRIORITY_LAST_ERROR } else { PRIORITY_BLOCKED };
            sections.push(Section::Blocked, failure.text.clone(), priority);
        }

        // Key decisions (never a proposal the user rejected).
        let rejected_text = |decision: &str| {
            self.rejected.iter().any(|rejected| rejected.proposal.contains(decision))
        };
        for decision in carried_items(Section::Decisions) {
            sections.push(Section::Decisions, decision.clone(), carried(PRIORITY_DECISION));
        }
        let skip = self.decisions.len().saturating_sub(limits.decisions);
        for decision in self.decisions.iter().skip(skip) {
            if !rejected_text(decision) {
                sections.push(Section::Decisions, decision.clone(), PRIORITY_DECISION);
            }
        }

        // Next steps.
        let mut next = Vec::new();
        if let Some(last) = open.last() {
            next.push(format!("Resolve the failure of {} (see Blocked)", last.subject));
        }
        for step in self.plan.iter().take(limits.next_steps) {
            if !rejected_text(step) {
                next.push(step.clone());
            }
        }
        if self.plan.is_empty() && self.requests.is_empty() {
            for step in carried_items(Section::NextSteps) {
                if !is_resolved(step) {
                    sections.push(Section::NextSteps, step.clone(), carried(PRIORITY_NEXT));
                }
            }
        }
        for step in next {
            sections.push(Section::NextSteps, step, PRIORITY_NEXT);
        }

        // Critical context.
        let mut modified = self.modified_files.clone();
        let mut read = self.read_files.clone();
        let mut earlier_commands: Vec<(String, String)> = Vec::new();
        let mut identifiers: Vec<String> = Vec::new();
        if let Some(previous) = previous {
            modified.extend(self.carried_paths(&previous.modified_files));
            read.extend(self.carried_paths(&previous.read_files));
            for item in previous.section(Section::Critical) {
                if let Some(list) = item.strip_prefix("Modified files:") {
                    let listed: Vec<String> =
                        backticked(list).into_iter().map(str::to_owned).collect();
                    modified.extend(self.carried_paths(&listed));
                } else if let Some(list) = item.strip_prefix("Read files:") {
                    let listed: Vec<String> =
                        backticked(list).into_iter().map(str::to_owned).collect();
                    read.extend(self.carried_paths(&listed));
                } else if let Some(list) = item.strip_prefix("Commands run:") {
                    earlier_commands.extend(commands_with_status(list));
                } else if let Some(list) = item.strip_prefix("Identifiers:") {
                    identifiers.extend(backticked(list).into_iter().map(str::to_owned));
                } else if let Some(rest) = item.strip_prefix("Last error (unresolved") {
                    // A newer error takes the "last" place; a command that passed since
                    // resolves it.
                    let error = rest.split_once("): ").map_or(rest, |(_, error)| error);
                    let state = if is_resolved(rest) { "since resolved" } else { "earlier" };
                    if self.errors.is_empty() && !is_resolved(rest) {
                        sections.push(
                            Section::Critical,
                            item.clone(),
                            carried(PRIORITY_LAST_ERROR),
                        );
                    } else {
                        sections.push(
                            Section::Critical,
                            format!("Error seen ({state}): {error}"),
                            carried(PRIORITY_ERRORS),
                        );
                    }
                } else if item.starts_with("Last error") {
                    let error = item.split_once(": ").map_or(item.as_str(), |(_, error)| error);
                    sections.push(
                        Section::Critical,
                        format!("Error seen: {error}"),
                        carried(PRIORITY_ERRORS),
                    );
                } else if !item.contains("`aborted`") {
                    sections.push(Section::Critical, item.clone(), carried(PRIORITY_ERRORS));
                }
            }
        }
        let read_only: Vec<&String> =
            read.iter().filter(|path| !modified.contains(*path)).collect();
        if !modified.is_empty() {
            let label = match kind {
                OfflineKind::Branch => "Files changed on this branch",
                OfflineKind::History | OfflineKind::TurnPrefix => "Modified files",
            };
            let list: Vec<String> = modified.iter().map(|path| code(path)).collect();
            sections.push_verbatim(
                Section::Critical,
                format!("{label}: {}", list.join(", ")),
                PRIORITY_MODIFIED_FILES,
            );
        }
        for error in &self.user_errors {
            sections.push(
                Section::Critical,
                format!("Error the user reported: {error}"),
                PRIORITY_ERRORS + 5,
            );
        }
        if !read_only.is_empty() {
            let list: Vec<String> = read_only.iter().map(|path| code(path)).collect();
            sections.push(
                Section::Critical,
                format!("Read files: {}", list.join(", ")),
                PRIORITY_READ_FILES,
            );
        }
        if let Some((last, earlier)) = self.errors.split_last() {
            let skip = earlier.len().saturating_sub(limits.errors);
            for error in earlier.iter().skip(skip) {
                sections.push(Section::Critical, format!("Error seen: {error}"), PRIORITY_ERRORS);
            }
            match open.iter().rev().find(|failure| failure.error.as_deref() == Some(last.as_str()))
            {
                Some(failure) => sections.push(
                    Section::Critical,
                    format!("Last error (unresolved, {}): {last}", failure.subject),
                    PRIORITY_LAST_ERROR,
                ),
                None => sections.push(
                    Section::Critical,
                    format!("Last error (since resolved): {last}"),
                    PRIORITY_ERRORS,
                ),
            }
        }
        if !self.commands.is_empty() || !earlier_commands.is_empty() {
            let mut list: Vec<String> = earlier_commands
                .iter()
                .filter(|(command, _)| !self.commands.iter().any(|runs| &runs.command == command))
                .map(|(command, status)| format!("{} ({status})", code(command)))
                .collect();
            for runs in &self.commands {
                let failed_before = earlier_commands
                    .iter()
                    .any(|(command, status)| command == &runs.command && status.contains("fail"));
                let status = match (failed_before, runs.last_passed, runs.failures) {
                    (true, Some(true), 0) => "passed after earlier failures".to_owned(),
                    (_, _, _) => runs_status(runs),
                };
                list.push(format!("{} ({status})", code(&clip(&runs.command, 120))));
            }
            sections.push(
                Section::Critical,
                format!("Commands run: {}", list.join(", ")),
                PRIORITY_COMMANDS,
            );
        }
        for identifier in &self.identifiers {
            identifiers.retain(|known| known != identifier);
            identifiers.push(identifier.clone());
        }
        let skip = identifiers.len().saturating_sub(MAX_IDENTIFIERS);
        let identifiers: Vec<String> = identifiers
            .iter()
            .skip(skip)
            .filter(|identifier| !self.commands.iter().any(|runs| &runs.command == *identifier))
            .map(|identifier| code(identifier))
            .collect();
        if !identifiers.is_empty() {
            sections.push(
                Section::Critical,
                format!("Identifiers: {}", identifiers.join(", ")),
                PRIORITY_IDENTIFIERS,
            );
        }
        if kind == OfflineKind::Branch {
            let outcome = match (open.last(), &self.last_assistant_statement) {
                (Some(failure), _) => {
                    format!("Outcome: left with an open failure: {}", failure.text)
                }
                (None, Some(statement)) => format!("Outcome: {statement}"),
                (None, None) => "Outcome: no conclusion recorded".to_owned(),
            };
            sections.push(Section::Critical, outcome, PRIORITY_ESSENTIAL);
        }

        apply_focus(&mut sections, instructions);
        sections
    }
}

/// How a carried Goal bullet is labelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GoalLabel {
    Main,
    Earlier,
    Latest,
    Focus,
}

/// The label of a carried Goal bullet and its text without the label.
fn goal_label(goal: &str) -> (GoalLabel, &str) {
    const LABELS: [(&str, GoalLabel); 7] = [
        ("Latest request: ", GoalLabel::Latest),
        ("Request of this turn: ", GoalLabel::Latest),
        ("Earlier request: ", GoalLabel::Earlier),
        ("Follow-up: ", GoalLabel::Earlier),
        ("Explored on this branch: ", GoalLabel::Earlier),
        ("Focus requested: ", GoalLabel::Focus),
        ("Earlier: ", GoalLabel::Earlier),
    ];
    for (prefix, label) in LABELS {
        if let Some(text) = goal.strip_prefix(prefix) {
            return (label, text);
        }
    }
    (GoalLabel::Main, goal)
}

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
        let status = rest
            .strip_prefix(" (")
            .and_then(|tail| tail.find(')').map(|close| tail[..close].to_owned()))
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
