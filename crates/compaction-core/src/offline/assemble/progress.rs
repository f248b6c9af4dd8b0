//! The Progress sections: Done (edits, fixes and passing commands, merged with the carried
//! ones a newer item does not supersede), In Progress (calls still waiting, the failure
//! being fixed, the last step) and Blocked (failures still open).
//!
//! Invariant: a carried blocker whose command passed since becomes a Done item ("passes
//! now"), never a Blocked one; the edits of one file are one Done item.

use super::super::OfflineKind;
use super::super::sections::*;
use super::super::text::*;
use super::Assembly;

impl Assembly<'_> {
    /// Pushes the Done bullets (carried ones first).
    pub(super) fn done(&mut self) {
        let digest = self.digest;
        // Carried items not superseded by a newer one about the same path or command.
        let mut fresh_done: Vec<(String, u32)> = Vec::new();
        let carried_edits = merged_edits(self.carried_items(Section::Done));
        let count = digest.changes.len();
        for (index, change) in digest.changes.iter().enumerate() {
            let priority = capped_priority(index, count, self.limits.done, PRIORITY_DONE_EDIT);
            // An earlier summary's item about the file gives way to this one, but its count
            // and the settings it names still hold.
            let earlier = carried_edits
                .iter()
                .filter_map(|item| edit_item(item))
                .find(|(_, path, _, _)| *path == change.path);
            let item = match earlier {
                Some((_, _, times, lines)) => {
                    let mut change = change.clone();
                    change.absorb_earlier(times, lines);
                    change.done_item()
                }
                None => change.done_item(),
            };
            fresh_done.push((item, priority));
        }
        for change in &digest.tree_changes {
            fresh_done.push((change.clone(), PRIORITY_DONE_EDIT));
        }
        for fixed in &digest.fixed {
            fresh_done.push((fixed.text(), PRIORITY_DONE_EDIT));
        }
        // A command that "passes now" needs no second "Ran" item.
        let passing: Vec<&String> = digest
            .passing
            .iter()
            .filter(|(command, _)| !digest.fixed.iter().any(|fixed| &fixed.command == command))
            .map(|(_, text)| text)
            .collect();
        for passing in passing.iter().skip(passing.len().saturating_sub(self.limits.done)) {
            fresh_done.push(((*passing).clone(), PRIORITY_DONE_COMMAND));
        }
        let fresh_subjects: Vec<&str> =
            fresh_done.iter().filter_map(|(text, _)| backticked(text).first().copied()).collect();
        for done in carried_edits {
            // A newer reply replaces the last reply an earlier summary recorded.
            if done.starts_with(FINISHED_STEP) && digest.last_assistant_statement.is_some() {
                continue;
            }
            let done = &digest.renamed(&done);
            let subject = backticked(done).first().copied();
            // A fix of an earlier failure stays: a newer item about the command is another
            // run, not the same news.
            let earlier_fix = done.contains(" passes now (") && done.contains("earlier failure: ");
            if !earlier_fix && subject.is_some_and(|subject| fresh_subjects.contains(&subject)) {
                continue;
            }
            self.sections.push(Section::Done, done.clone(), PRIORITY_DONE_EDIT);
        }
        for item in self.carried_items(Section::Blocked) {
            if self.is_resolved(item) {
                let command = backticked(item).first().map(|c| code(c)).unwrap_or_default();
                self.sections.push(
                    Section::Done,
                    format!("{command} passes now (it was blocked before)"),
                    PRIORITY_DONE_EDIT,
                );
            }
        }
        // A carried "passes now" makes a fresh "Ran" of the command redundant unless the run
        // has test counts to tell.
        let passes_now: Vec<String> = self
            .sections
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
            self.sections.push(Section::Done, text, priority);
        }
    }

    /// Pushes the In Progress bullets: the carried ones only when this part has none.
    pub(super) fn in_progress(&mut self) {
        let digest = self.digest;
        // Calls waiting for their result at the end, the last step.
        let mut in_progress = Vec::new();
        // A branch summary reads no tool results (their calls carry the meaning), so its
        // calls are what the branch did, not work still waiting for a result.
        let calls_are_done = matches!(self.kind, OfflineKind::Branch);
        if calls_are_done {
            for call in digest.abandoned.iter().chain(&digest.pending) {
                let what = match (&call.command, &call.path) {
                    (Some(command), _) => {
                        format!("Ran {}", code(&command_shown(command, COMMAND_CHARS)))
                    }
                    (None, Some(path)) => format!("{} {}", capitalised(&call.name), code(path)),
                    (None, None) => format!("Called tool {}", code(&call.name)),
                };
                self.sections.push(Section::Done, what, PRIORITY_DONE_COMMAND);
            }
        } else {
            for call in &digest.pending {
                let what = match (&call.command, &call.path) {
                    (Some(command), _) => {
                        format!(
                            "Running {} (no result yet)",
                            code(&command_shown(command, COMMAND_CHARS))
                        )
                    }
                    (None, Some(path)) => {
                        format!("{} {} (no result yet)", capitalised(&call.name), code(path))
                    }
                    (None, None) => format!("Tool {} called (no result yet)", code(&call.name)),
                };
                in_progress.push(what);
            }
        }
        if digest.last_was_failure
            && let Some(last) = self.open.last()
        {
            // In a split turn's part the failure itself is the item: the kept messages go on
            // with the turn, and whether it is still open, they tell.
            if self.kind != OfflineKind::TurnPrefix {
                in_progress.push(format!("Fixing the failure of {} (see Blocked)", last.subject));
            }
        }
        // The final reply of a turn that ended, with no plan left and no question waiting
        // for the user, is done, not in progress; carried In Progress items are then over
        // too.
        let turn_ended = self.kind == OfflineKind::History
            && !digest.turn_open
            && !digest.interrupted
            && digest.pending.is_empty()
            && digest.plan.is_empty()
            && digest.open_question.is_none();
        // A step that runs a call the user rejected is not in progress.
        let statement = digest.last_assistant_statement.as_ref().filter(|statement| {
            !digest
                .rejected_calls
                .iter()
                .any(|call| char_len(call) > 2 && statement.contains(call.as_str()))
        });
        // A question still waiting for the user's answer is where the work stands; the
        // step it closes is in it.
        let awaiting = digest.open_question.as_ref().filter(|_| !digest.interrupted);
        if let Some(question) = awaiting {
            in_progress.push(format!("{AWAITING_ANSWER}\"{}\"", clip(question, 320)));
        }
        let statement = statement.filter(|statement| {
            !awaiting.is_some_and(|question| question.contains(statement.as_str()))
        });
        if let Some(statement) = statement {
            match (turn_ended, digest.interrupted) {
                (true, _) => self.sections.push(
                    Section::Done,
                    format!(
                        "{FINISHED_STEP}{statement}{}",
                        reported_list(statement, &digest.reported)
                    ),
                    PRIORITY_CURRENT,
                ),
                (false, true) => in_progress
                    .push(format!("Last assistant step (interrupted by the user): {statement}")),
                (false, false) => in_progress.push(format!("Last assistant step: {statement}")),
            }
        }
        if in_progress.is_empty() && !(turn_ended && digest.last_assistant_statement.is_some()) {
            for item in self.carried_items(Section::InProgress) {
                if !self.is_resolved(item) && !item.starts_with(CURRENT_APPROACH) {
                    self.sections.push(Section::InProgress, item.clone(), PRIORITY_CURRENT);
                }
            }
        }
        for item in in_progress {
            self.sections.push(Section::InProgress, item, PRIORITY_CURRENT);
        }
    }

    /// Pushes the Blocked bullets: carried ones still open, then the newest open failures.
    pub(super) fn blocked(&mut self) {
        // Carried items not resolved since (nor set aside by the user's correction), then
        // new ones.
        for item in self.carried_items(Section::Blocked) {
            let interrupted = item.contains("`aborted`");
            if !self.is_resolved(item) && !interrupted && !self.set_aside(item) {
                self.sections.push(Section::Blocked, item.clone(), PRIORITY_BLOCKED);
            }
        }
        let open_count = self.open.len();
        for (index, failure) in self.open.iter().enumerate() {
            if index + self.limits.blocked < open_count {
                continue;
            }
            let priority =
                if index + 1 == open_count { PRIORITY_LAST_ERROR } else { PRIORITY_BLOCKED };
            match self.kind {
                OfflineKind::TurnPrefix => self.sections.push(
                    Section::InProgress,
                    format!("Failing where the kept messages begin: {}", failure.text),
                    priority,
                ),
                OfflineKind::History | OfflineKind::Branch => {
                    self.sections.push(Section::Blocked, failure.text.clone(), priority)
                }
            }
        }
    }
}

/// Verb, path, count and the added lines ("`a`; `b`", possibly empty) of an edit item.
fn edit_item(item: &str) -> Option<(&str, &str, usize, &str)> {
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

/// `items` with the edits of one file told once: a history part and a split turn's part
/// (or two earlier summaries) may each list `Edited \`f\``; the counts add up.
fn merged_edits(items: &[String]) -> Vec<String> {
    use crate::offline::changes::{SETTING_MARK, settings_in, still_held};
    let mut out: Vec<String> = Vec::new();
    let mut seen: Vec<(String, usize, bool)> = Vec::new(); // path, index in out, written
    for item in items {
        let Some((verb, path, times, lines)) = edit_item(item) else {
            out.push(item.clone());
            continue;
        };
        let written = verb != "Edited";
        match seen.iter_mut().find(|(known, _, _)| known == path) {
            Some((_, index, was_written)) => {
                let (before, earlier_lines) =
                    edit_item(&out[*index]).map_or((1, ""), |(_, _, times, lines)| (times, lines));
                *was_written |= written;
                let verb = if *was_written { "Wrote/edited" } else { "Edited" };
                // The later item's lines are the newer ones; the earlier item's settings
                // hold unless the later one names the same setting.
                let kept: Vec<String> = still_held(settings_in(earlier_lines), &settings_in(lines))
                    .iter()
                    .map(|line| format!("{SETTING_MARK}{}", code(line)))
                    .collect();
                let lines =
                    if lines.is_empty() { earlier_lines.to_owned() } else { lines.to_owned() };
                let lines = if kept.is_empty() || lines == earlier_lines {
                    lines
                } else {
                    format!("{}; {lines}", kept.join("; "))
                };
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

/// The list a final reply gave as done or found, after its first sentence: its items in
/// their order, each kept whole up to a length, as many as fit a line a reader takes in.
/// A sentence that introduces the list (ending in a colon) is followed by the items.
fn reported_list(statement: &str, items: &[String]) -> String {
    let opening = if statement.ends_with([':', '：']) { " " } else { REPORTED_LIST };
    const ITEM_CHARS: usize = 140;
    const LIST_CHARS: usize = 480;
    let mut out = String::new();
    for item in items {
        let item = clip(item, ITEM_CHARS);
        if char_len(&out) + char_len(&item) > LIST_CHARS {
            break;
        }
        out.push_str(if out.is_empty() { opening } else { "; " });
        out.push_str(&item);
    }
    out
}
