//! Assembly: the digest and the previous summary merged into prioritised bullets, one
//! section at a time.
//!
//! Invariant: a carried item is dropped only when something newer supersedes it (a later
//! latest request, a Done item about the same path or command, a pass of a blocked
//! command); every must-keep fact (constraints, the latest request, the modified files) is
//! pushed verbatim.

use super::OfflineKind;
use super::extract::is_correction;
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
        // A correction redirected the request before it: the user's words are with the
        // constraints, the request it corrected stays the goal.
        if have_main_goal {
            earlier.retain(|(text, _)| !is_correction(text));
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
        // What the assistant did after the correction was not rejected by it.
        let accepted: Vec<&str> = carried_items(Section::Decisions)
            .iter()
            .filter_map(|decision| decision.strip_prefix(AFTER_CORRECTION))
            .collect();
        let carried_next: Vec<&String> = carried_items(Section::NextSteps)
            .iter()
            .filter(|step| !step.starts_with(RESOLVE_STEP) && !accepted.contains(&step.as_str()))
            .collect();
        for constraint in carried_items(Section::Constraints) {
            let unmatched =
                constraint.starts_with("User correction: ") && !constraint.contains(" (rejected: ");
            let text = match unmatched && !carried_next.is_empty() {
                true => {
                    let steps: Vec<&str> = carried_next.iter().map(|step| step.as_str()).collect();
                    format!("{constraint} (rejected: {})", clip(&steps.join(" "), 200))
                }
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
            fresh_done.push((change.done_item(), PRIORITY_DONE_EDIT));
        }
        for change in &self.tree_changes {
            fresh_done.push((change.clone(), PRIORITY_DONE_EDIT));
        }
        for fixed in &self.fixed {
            fresh_done.push((fixed.text(), PRIORITY_DONE_EDIT));
        }
        // A command that "passes now" needs no second "Ran" item.
        let passing: Vec<&String> = self
            .passing
            .iter()
            .filter(|(command, _)| !self.fixed.iter().any(|fixed| &fixed.command == command))
            .map(|(_, text)| text)
            .collect();
        for passing in passing.iter().skip(passing.len().saturating_sub(limits.done)) {
            fresh_done.push(((*passing).clone(), PRIORITY_DONE_COMMAND));
        }
        let fresh_subjects: Vec<&str> =
            fresh_done.iter().filter_map(|(text, _)| backticked(text).first().copied()).collect();
        for done in merged_edits(carried_items(Section::Done)) {
            let done = &self.renamed(&done);
            let subject = backticked(done).first().copied();
            // A fix of an earlier failure stays: a newer item about the command is another
            // run, not the same news.
            let earlier_fix = done.contains(" passes now (") && done.contains("earlier failure: ");
            if !earlier_fix && subject.is_some_and(|subject| fresh_subjects.contains(&subject)) {
                continue;
            }
            sections.push(Section::Done, done.clone(), carried(PRIORITY_DONE_EDIT));
        }
        // A carried failure the user's correction set aside (its first code span names it).
        let set_aside = |item: &str| {
            self.carried_failure_set_aside
                && backticked(item).first().copied() == self.carried_failure.as_deref()
        };
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
        // A carried "passes now" makes a fresh "Ran" of the command redundant unless the run
        // has test counts to tell.
        let passes_now: Vec<String> = sections
            .items
            .iter()
            .filter(|item| item.section == Section::Done && item.text.contains(" passes now ("))
            .filter_map(|item| backticked(&item.text).first().map(|command| (*command).to_owned()))
            .collect();
        for (text, priority) in fresh_done {
            let ran = text.strip_prefix("Ran ").and_then(|rest| backticked(rest).first().copied());
            let counted = text.contains("(tests passed: ");
            if !counted
                && ran.is_some_and(|command| passes_now.iter().any(|known| known == command))
            {
                continue;
            }
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
        let open: Vec<&Failure> = self.failures.iter().filter(|f| f.is_open()).collect();
        if self.last_was_failure
            && let Some(last) = open.last()
        {
            // In a split turn's part the failure itself is the item: the kept messages go on
            // with the turn, and whether it is still open, they tell.
            if kind != OfflineKind::TurnPrefix {
                in_progress.push(format!("Fixing the failure of {} (see Blocked)", last.subject));
            }
        }
        if let Some(statement) = &self.last_assistant_statement {
            let label = match self.interrupted {
                true => "Last assistant step (interrupted by the user)",
                false => "Last assistant step",
            };
            in_progress.push(format!("{label}: {statement}"));
        }
        if in_progress.is_empty() {
            for item in carried_items(Section::InProgress) {
                if !is_resolved(item) && !item.starts_with(CURRENT_APPROACH) {
                    sections.push(Section::InProgress, item.clone(), carried(PRIORITY_CURRENT));
                }
            }
        }
        for item in in_progress {
            sections.push(Section::InProgress, item, PRIORITY_CURRENT);
        }

        // Blocked: carried items not resolved since (nor set aside by the user's correction),
        // then new ones.
        for item in carried_items(Section::Blocked) {
            let interrupted = item.contains("`aborted`");
            if !is_resolved(item) && !interrupted && !set_aside(item) {
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
            match kind {
                OfflineKind::TurnPrefix => sections.push(
                    Section::InProgress,
                    format!("Failing where the kept messages begin: {}", failure.text),
                    priority,
                ),
                OfflineKind::History | OfflineKind::Branch => {
                    sections.push(Section::Blocked, failure.text.clone(), priority)
                }
            }
        }

        // Key decisions (never a proposal the user rejected).
        let rejected_text =
            |decision: &str| self.rejected.iter().any(|rejected| rejected.covers(decision));
        // Proposals an earlier summary records as rejected are no decision either.
        let carried_rejections: Vec<Rejected> = sections
            .items
            .iter()
            .filter(|item| item.section == Section::Constraints)
            .filter_map(|item| rejected_in(&item.text))
            .collect();
        let rejected_before =
            |decision: &str| carried_rejections.iter().any(|rejected| rejected.covers(decision));
        // The approach of a turn that was still open is a decision once the user let it be.
        let carried_approaches = carried_items(Section::InProgress)
            .iter()
            .filter_map(|item| item.strip_prefix(CURRENT_APPROACH));
        for decision in
            carried_items(Section::Decisions).iter().map(String::as_str).chain(carried_approaches)
        {
            if !rejected_text(decision) && !rejected_before(decision) {
                sections.push(Section::Decisions, decision, carried(PRIORITY_DECISION));
            }
        }
        for branch in &self.branch_summaries {
            sections.push(
                Section::Decisions,
                format!("On a branch the user left: {branch}"),
                PRIORITY_DECISION + 1,
            );
        }
        let skip = self.decisions.len().saturating_sub(limits.decisions);
        for decision in self.decisions.iter().skip(skip) {
            if rejected_text(decision) {
                continue;
            }
            let in_progress = self.turn_open
                && kind != OfflineKind::Branch
                && self.turn_decisions.contains(decision);
            match in_progress {
                true => sections.push(
                    Section::InProgress,
                    format!("{CURRENT_APPROACH}{decision}"),
                    PRIORITY_DECISION + 2,
                ),
                false => sections.push(Section::Decisions, decision.clone(), PRIORITY_DECISION),
            }
        }

        // Next steps.
        let mut next = Vec::new();
        if let Some(last) = open.last().filter(|_| kind != OfflineKind::TurnPrefix) {
            next.push(format!("{RESOLVE_STEP}{} (see Blocked)", last.subject));
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
        // An error a Done item quotes ("passes now (earlier failure: …)") is not repeated.
        let done_texts: Vec<String> = sections
            .items
            .iter()
            .filter(|item| item.section == Section::Done)
            .map(|item| item.text.clone())
            .collect();
        let quoted_in_done = |error: &str| {
            let error = error.trim();
            !error.is_empty() && done_texts.iter().any(|done| done.contains(error))
        };
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
                    if quoted_in_done(error) {
                        continue;
                    }
                    let state = match (is_resolved(rest), set_aside(rest)) {
                        (true, _) => "since resolved",
                        (false, true) => "before the user's correction",
                        (false, false) => "earlier",
                    };
                    if self.errors.is_empty() && !is_resolved(rest) && !set_aside(rest) {
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
                } else if item.starts_with("Last error") || item.starts_with("Error seen") {
                    let error = item.split_once(": ").map_or(item.as_str(), |(_, error)| error);
                    if quoted_in_done(error) {
                        continue;
                    }
                    if item.starts_with("Error seen") {
                        sections.push(Section::Critical, item.clone(), carried(PRIORITY_ERRORS));
                        continue;
                    }
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
            // An error a Done item already quotes ("passes now (earlier failure: …)") is
            // not repeated.
            let earlier: Vec<&String> = earlier
                .iter()
                .filter(|error| !self.fixed.iter().any(|fixed| &&fixed.error == error))
                .collect();
            let skip = earlier.len().saturating_sub(limits.errors);
            for error in earlier.into_iter().skip(skip) {
                let label = match self.error_resolved(error) {
                    true => "Error seen (since resolved)",
                    false => "Error seen",
                };
                sections.push(Section::Critical, format!("{label}: {error}"), PRIORITY_ERRORS);
            }
            let failure = self
                .failures
                .iter()
                .rev()
                .find(|failure| failure.error.as_deref() == Some(last.as_str()));
            match failure {
                Some(failure) if failure.is_open() => sections.push(
                    Section::Critical,
                    match kind {
                        OfflineKind::TurnPrefix => format!(
                            "Last error (of {}, open where the kept messages begin): {last}",
                            failure.subject
                        ),
                        OfflineKind::History | OfflineKind::Branch => {
                            format!("Last error (unresolved, {}): {last}", failure.subject)
                        }
                    },
                    PRIORITY_LAST_ERROR,
                ),
                Some(failure) if failure.set_aside && !failure.resolved => sections.push(
                    Section::Critical,
                    format!(
                        "Last error (of {}, before the user's correction): {last}",
                        failure.subject
                    ),
                    PRIORITY_ERRORS,
                ),
                // A Done item quotes it already.
                Some(_) | None if self.fixed.iter().any(|fixed| &fixed.error == last) => {}
                Some(_) | None => sections.push(
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
                .map(|(command, status)| {
                    let status = match status.as_str() {
                        "failed" if is_resolved(&code(command)) => "failed, passes since",
                        "failed" if set_aside(&code(command)) => {
                            "failed before the user's correction"
                        }
                        other => other,
                    };
                    format!("{} ({status})", code(command))
                })
                .collect();
            for runs in &self.commands {
                let failed_before = earlier_commands
                    .iter()
                    .any(|(command, status)| command == &runs.command && status.contains("fail"));
                let key = format!("cmd:{}", runs.command);
                let failure = self.failures.iter().rev().find(|failure| failure.key == key);
                let status = match (failed_before, runs.last_passed, runs.failures, failure) {
                    (true, Some(true), 0, _) => "passed after earlier failures".to_owned(),
                    (_, Some(false), _, Some(failure)) if failure.resolved => {
                        "failed, passes since".to_owned()
                    }
                    (_, Some(false), _, Some(failure)) if failure.set_aside => {
                        "failed before the user's correction".to_owned()
                    }
                    (_, _, _, _) => runs_status(runs),
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

/// The proposal a Constraints bullet records as rejected ("Rejected by the user: P (user:
/// …)", "User correction: … (rejected: P)"), with its sentences as statements.
/// `items` with the edits of one file told once: a history part and a split turn's part
/// (or two earlier summaries) may each list `Edited \`f\``; the counts add up.
fn merged_edits(items: &[String]) -> Vec<String> {
    /// Verb, path, count and the added lines ("`a`; `b`", possibly empty) of an edit item.
    fn edit(item: &str) -> Option<(&str, &str, usize, &str)> {
        let (verb, rest) = ["Wrote/edited ", "Edited ", "Wrote "]
            .iter()
            .find_map(|verb| item.strip_prefix(verb).map(|rest| (verb.trim_end(), rest)))?;
        let path = *backticked(rest).first()?;
        let tail = rest.strip_prefix(&code(path))?;
        let (tail, lines) = tail.split_once(": ").unwrap_or((tail, ""));
        let times = match tail.strip_prefix(" (").and_then(|t| t.strip_suffix(" times)")) {
            Some(count) => count.parse().ok()?,
            None if tail.is_empty() => 1,
            None => return None,
        };
        Some((verb, path, times, lines))
    }
    let mut out: Vec<String> = Vec::new();
    let mut seen: Vec<(String, usize, bool)> = Vec::new(); // path, index in out, written
    for item in items {
        let Some((verb, path, times, lines)) = edit(item) else {
            out.push(item.clone());
            continue;
        };
        let written = verb != "Edited";
        match seen.iter_mut().find(|(known, _, _)| known == path) {
            Some((_, index, was_written)) => {
                let (before, earlier_lines) =
                    edit(&out[*index]).map_or((1, ""), |(_, _, times, lines)| (times, lines));
                *was_written |= written;
                let verb = if *was_written { "Wrote/edited" } else { "Edited" };
                // The later item's lines are the newer ones.
                let lines = if lines.is_empty() { earlier_lines } else { lines };
                let lines = if lines.is_empty() { String::new() } else { format!(": {lines}") };
                out[*index] = format!("{verb} {} ({} times){lines}", code(path), before + times);
            }
            None => {
                seen.push((path.to_owned(), out.len(), written));
                out.push(item.clone());
            }
        }
    }
    out
}

fn rejected_in(item: &str) -> Option<Rejected> {
    let proposal = match item.strip_prefix("Rejected by the user: ") {
        Some(rest) => rest.rsplit_once(" (user: ").map(|(proposal, _)| proposal)?,
        None => item
            .strip_prefix("User correction: ")?
            .rsplit_once(" (rejected: ")
            .map(|(_, proposal)| proposal.strip_suffix(')').unwrap_or(proposal))?,
    };
    let statements =
        sentences(proposal).into_iter().map(|s| s.trim_end_matches('…').to_owned()).collect();
    Some(Rejected { proposal: proposal.to_owned(), words: String::new(), statements })
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
