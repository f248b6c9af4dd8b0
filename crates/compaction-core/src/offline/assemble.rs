//! Assembly: the digest and the previous summary merged into prioritised bullets, one
//! section at a time.
//!
//! Invariant: a carried item is dropped only when something newer supersedes it (a later
//! latest request, a Done item about the same path or command, a pass of a blocked
//! command); every must-keep fact (constraints, the latest request, the modified files) is
//! pushed verbatim.

use super::OfflineKind;
use super::facts::*;
use super::outcomes::command_family;
use super::sections::*;
use super::text::*;

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
