//! The Critical Context section: the errors (the last one
//! labelled open or resolved), the commands run with their outcome, the identifiers, and a
//! branch's outcome.
//!
//! Invariant: an error a Done item already quotes is not repeated; the file lists the entry
//! appends are not repeated.

use super::super::OfflineKind;
use super::super::facts::MAX_IDENTIFIERS;
use super::super::sections::*;
use super::super::text::*;
use super::Assembly;

/// How an error the user pasted is told.
pub(super) const USER_ERROR: &str = "Error the user reported: ";
/// How a command whose outcome the messages do not show is told.
pub(super) const UNCLEAR: &str = "Outcome not shown: ";
/// How a fact a later step relied on is told.
pub(super) const USED_LATER: &str = "Used later: ";
/// How a read-only check that found something is told.
pub(super) const CHECK: &str = "Check: ";

/// The labels of the file lists older summaries wrote in this section. The files are not
/// listed here any more: the entry appends its lists after the summary (pi's `<read-files>`
/// and `<modified-files>`), and each fact is said once.
const FILE_LISTS: [&str; 3] = ["Modified files:", "Read files:", "Files changed on this branch:"];

impl Assembly<'_> {
    /// Pushes the Critical Context bullets.
    pub(super) fn critical(&mut self) {
        let digest = self.digest;
        let mut earlier_commands: Vec<(String, String)> = Vec::new();
        let mut identifiers: Vec<String> = Vec::new();
        // An error a Done item quotes ("passes now (earlier failure: …)") is not repeated.
        let done_texts: Vec<String> = self
            .sections
            .items
            .iter()
            .filter(|item| item.section == Section::Done)
            .map(|item| item.text.clone())
            .collect();
        let quoted_in_done = |error: &str| {
            let error = error.trim();
            !error.is_empty() && done_texts.iter().any(|done| done.contains(error))
        };
        if let Some(previous) = self.previous {
            for item in previous.section(Section::Critical) {
                if FILE_LISTS.iter().any(|label| item.starts_with(label)) {
                    // An older summary's own file lists: the entry's lists hold them now.
                } else if item.ends_with(super::super::render::DROPPED_NOTE) {
                    // An older round's count of what it left out.
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
                    let state = match (self.is_resolved(rest), self.set_aside(rest)) {
                        (true, _) => "since resolved",
                        (false, true) => "before the user's correction",
                        (false, false) => "earlier",
                    };
                    if digest.errors.is_empty() && !self.is_resolved(rest) && !self.set_aside(rest)
                    {
                        self.sections.push(Section::Critical, item.clone(), PRIORITY_LAST_ERROR);
                    } else {
                        self.sections.push(
                            Section::Critical,
                            format!("Error seen ({state}): {error}"),
                            PRIORITY_ERRORS,
                        );
                    }
                } else if item.starts_with("Last error") || item.starts_with("Error seen") {
                    let error = item.split_once(": ").map_or(item.as_str(), |(_, error)| error);
                    if quoted_in_done(error) {
                        continue;
                    }
                    if item.starts_with("Error seen") {
                        self.sections.push(Section::Critical, item.clone(), PRIORITY_ERRORS);
                        continue;
                    }
                    self.sections.push(
                        Section::Critical,
                        format!("Error seen: {error}"),
                        PRIORITY_ERRORS,
                    );
                } else if item.starts_with(super::notes::USER_NOTE)
                    || item.starts_with(super::notes::ASSISTANT_NOTE)
                {
                    // The notes stage carries them, at their own priority.
                } else if let Some(error) = item.strip_prefix(USER_ERROR)
                    && !error.contains(super::goal::REPLY)
                    && let Some((reply, _)) = &digest.carried_replies
                {
                    // The first answer these messages open with is what was done about it.
                    self.sections.push(
                        Section::Critical,
                        format!("{USER_ERROR}{error}{}{reply}", super::goal::REPLY),
                        Self::carried_critical_priority(item),
                    );
                } else if !item.contains("`aborted`") {
                    self.sections.push(
                        Section::Critical,
                        item.clone(),
                        Self::carried_critical_priority(item),
                    );
                }
            }
        }
        for (error, reply) in digest.user_errors.iter().zip(&digest.user_error_replies) {
            let reply = reply
                .as_deref()
                .map(|reply| format!("{}{reply}", super::goal::REPLY))
                .unwrap_or_default();
            self.sections.push(
                Section::Critical,
                format!("{USER_ERROR}{error}{reply}"),
                PRIORITY_ERRORS + 5,
            );
        }
        for text in &digest.unclear {
            self.sections.push(Section::Critical, format!("{UNCLEAR}{text}"), PRIORITY_ERRORS + 4);
        }
        for fact in &digest.used_facts {
            self.sections.push(
                Section::Critical,
                format!("{USED_LATER}{fact}"),
                PRIORITY_ERRORS + 2,
            );
        }
        for text in &digest.checks {
            self.sections.push(Section::Critical, format!("{CHECK}{text}"), PRIORITY_ERRORS - 10);
        }
        if let Some((last, earlier)) = digest.errors.split_last() {
            // An error a Done item already quotes ("passes now (earlier failure: …)") is
            // not repeated.
            let earlier: Vec<&String> = earlier
                .iter()
                .filter(|error| !digest.fixed.iter().any(|fixed| &&fixed.error == error))
                .collect();
            let skip = earlier.len().saturating_sub(self.limits.errors);
            for error in earlier.into_iter().skip(skip) {
                let label = match digest.error_resolved(error) {
                    true => "Error seen (since resolved)",
                    false => "Error seen",
                };
                self.sections.push(Section::Critical, format!("{label}: {error}"), PRIORITY_ERRORS);
            }
            let failure = digest
                .failures
                .iter()
                .rev()
                .find(|failure| failure.error.as_deref() == Some(last.as_str()));
            match failure {
                Some(failure) if failure.is_open() => self.sections.push(
                    Section::Critical,
                    match self.kind {
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
                Some(failure) if failure.set_aside && !failure.resolved => self.sections.push(
                    Section::Critical,
                    format!(
                        "Last error (of {}, before the user's correction): {last}",
                        failure.subject
                    ),
                    PRIORITY_ERRORS,
                ),
                // A Done item quotes it already.
                Some(_) | None if digest.fixed.iter().any(|fixed| &fixed.error == last) => {}
                Some(_) | None => self.sections.push(
                    Section::Critical,
                    format!("Last error (since resolved): {last}"),
                    PRIORITY_ERRORS,
                ),
            }
        }
        if !digest.commands.is_empty() || !earlier_commands.is_empty() {
            let mut list: Vec<String> = earlier_commands
                .iter()
                .filter(|(command, _)| !digest.commands.iter().any(|runs| &runs.command == command))
                .map(|(command, status)| {
                    let status = match status.as_str() {
                        "failed" if self.is_resolved(&code(command)) => "failed, passes since",
                        "failed" if self.set_aside(&code(command)) => {
                            "failed before the user's correction"
                        }
                        other => other,
                    };
                    format!("{} ({status})", code(command))
                })
                .collect();
            for runs in &digest.commands {
                let failed_before = earlier_commands
                    .iter()
                    .any(|(command, status)| command == &runs.command && status.contains("fail"));
                let key = format!("cmd:{}", runs.command);
                let failure = digest.failures.iter().rev().find(|failure| failure.key == key);
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
            self.sections.push(
                Section::Critical,
                format!("Commands run: {}", list.join(", ")),
                PRIORITY_COMMANDS,
            );
        }
        for identifier in &digest.identifiers {
            identifiers.retain(|known| known != identifier);
            identifiers.push(identifier.clone());
        }
        let skip = identifiers.len().saturating_sub(MAX_IDENTIFIERS);
        let identifiers: Vec<String> = identifiers
            .iter()
            .skip(skip)
            .filter(|identifier| !digest.commands.iter().any(|runs| &runs.command == *identifier))
            .map(|identifier| code(identifier))
            .collect();
        if !identifiers.is_empty() {
            self.sections.push(
                Section::Critical,
                format!("Identifiers: {}", identifiers.join(", ")),
                PRIORITY_IDENTIFIERS,
            );
        }
        if self.kind == OfflineKind::Branch {
            let outcome = match (self.open.last(), &digest.last_assistant_statement) {
                (Some(failure), _) => {
                    format!("Outcome: left with an open failure: {}", failure.text)
                }
                (None, Some(statement)) => format!("Outcome: {statement}"),
                (None, None) => "Outcome: no conclusion recorded".to_owned(),
            };
            self.sections.push(Section::Critical, outcome, PRIORITY_ESSENTIAL);
        }
    }
}
