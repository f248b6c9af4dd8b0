//! Fact extraction: the one pass over the messages that fills the digest (`digest`):
//! requests, plans and identifiers here, what a correction rejects and the rules a message
//! states through `corrections`, tool results and commands through `outcomes`, what later
//! statements replace through `replacements`.
//!
//! Both the offline summary and the must-keep facts are built from this one digest.
//! Invariant: a failure is open until a later success of the same command, file or tool
//! resolves it; tool outputs are scanned line by line and never copied whole.

use std::borrow::Cow;
use std::collections::BTreeSet;

pub(super) use super::calls::*;
pub(super) use super::digest::*;
use super::extract::*;
use super::previous::{PreviousSummary, previous_effects};
use super::scan::*;
pub(super) use super::sections::{
    AFTER_CORRECTION, AWAITING_ANSWER, CURRENT_APPROACH, FINISHED_STEP, RESOLVE_STEP,
};
use super::text::*;
use crate::files::FileEffect;
use crate::message::{AgentMessage, ContentBlock};

impl Digest {
    pub(super) fn observe(&mut self, message: &AgentMessage) {
        match message {
            AgentMessage::User(user) => self.observe_user(&content_text(&user.content)),
            AgentMessage::Custom(custom) => {
                let text = content_text(&custom.content);
                // An importer keeps a harness's meta messages (a skill it loaded) as custom
                // messages: an instruction file among them gives its rules. One the importer
                // marked (`details.instructionFile`) gives them whatever its text looks like.
                if let Some((path, body)) = injected_instructions(&text) {
                    self.note_instruction_rules(&path, body.lines());
                } else if let Some(file) = custom.instruction_file() {
                    self.note_instruction_rules(file, text.lines());
                }
                self.note_identifiers(&text);
            }
            AgentMessage::Assistant(assistant) => {
                self.abandon_pending();
                let mut text = String::new();
                for block in &assistant.content {
                    match block {
                        ContentBlock::Text(block) => {
                            if !text.is_empty() {
                                text.push('\n');
                            }
                            text.push_str(&block.text);
                        }
                        ContentBlock::ToolCall(call) => {
                            if let Some(command) = command_argument(&call.arguments) {
                                self.note_used_facts(&command);
                            }
                            self.pending.push(PendingCall {
                                id: call.id.clone(),
                                name: call.name.to_lowercase(),
                                path: path_argument(&call.arguments),
                                command: command_argument(&call.arguments),
                                script: script_argument(&call.arguments),
                                added: super::changes::Added::of(&call.arguments),
                                values: super::values::edit_value_changes(&call.arguments),
                                patch: ["input", "patch"].iter().find_map(|key| {
                                    call.arguments.get(*key)?.as_str().map(str::to_owned)
                                }),
                                documents: super::documents::written_prose(
                                    &call.arguments,
                                    path_argument(&call.arguments).as_deref(),
                                ),
                            });
                        }
                        ContentBlock::Image(_)
                        | ContentBlock::Thinking(_)
                        | ContentBlock::Other(_) => {}
                    }
                }
                let aborted = assistant.stop_reason.as_deref() == Some("aborted");
                let turn_ends = assistant.stop_reason.as_deref() == Some("stop");
                self.turn_open = !turn_ends;
                if aborted {
                    // The user interrupted (Esc): not a failure, and its calls get no result;
                    // the step it was taking is not in progress, nor its plan next.
                    self.abandon_pending();
                    self.interrupted = self.last_assistant_statement.is_some();
                    self.plan.clear();
                } else if !text.trim().is_empty() {
                    let planned = self.plan.clone();
                    self.observe_assistant_text(&text, turn_ends);
                    // A reply that ends the turn without a plan closes the earlier plan.
                    if turn_ends && self.plan == planned {
                        self.plan.clear();
                    }
                }
                if aborted {
                } else if assistant.is_failed() {
                    let reason = assistant.stop_reason.as_deref().unwrap_or("error");
                    let detail = assistant
                        .error_message
                        .as_deref()
                        .map(|message| format!(": {}", clip(&one_line(message), 200)))
                        .unwrap_or_default();
                    // A provider's failure (overloaded, rate limited, network) says nothing
                    // about the project: it is open only until a later reply succeeds, and
                    // never an error seen in the work.
                    self.fail(
                        "model-reply".to_owned(),
                        "the model reply".to_owned(),
                        format!("The model reply ended with `{reason}`{detail}"),
                        None,
                    );
                } else {
                    self.resolve("model-reply");
                }
            }
            AgentMessage::ToolResult(result) => self.observe_tool_result(result),
            AgentMessage::BashExecution(bash) => {
                let command = one_line(&bash.command);
                let scan = scan_output(bash.output.lines());
                let failed = bash.cancelled
                    || bash.exit_code.is_some_and(|code| code != 0)
                    || scan.tests_failed;
                self.shell_outcome(
                    &command,
                    &bash.command,
                    failed,
                    bash.exit_code,
                    &scan,
                    bash.cancelled,
                    bash.output.lines(),
                );
            }
            // Their pinned sections are left out: the pins active now have their own.
            AgentMessage::CompactionSummary(summary) => {
                let text = crate::pins::without_pinned_section(&summary.summary);
                self.earlier_summaries.push(clip(&one_line(&text), 400));
            }
            AgentMessage::BranchSummary(summary) => {
                // Work on a branch the user came back from: what was tried there and why it
                // was left, not a goal of this one. Its pinned section is left out too.
                let text = crate::pins::without_pinned_section(&summary.summary);
                let flattened = PreviousSummary::parse(&text).flattened(500);
                if !flattened.is_empty() {
                    self.branch_summaries.push(flattened);
                }
            }
            AgentMessage::System(_) | AgentMessage::Other(_) => {}
        }
    }

    pub(super) fn observe_user(&mut self, text: &str) {
        self.abandon_pending();
        // An instruction file the harness put into a user-role message (a skill it loaded,
        // a project's AGENTS.md) is read as the file: its rules, not a request.
        if let Some((path, body)) = injected_instructions(text) {
            self.note_instruction_rules(&path, body.lines());
            return;
        }
        // Only the user's own words ask or rule; what their tools wrapped around them
        // (IDE notices, command echoes, reminders) does neither.
        let words = human_words(text);
        let text = words.as_str();
        if text.is_empty() || is_slash_command(text) {
            return;
        }
        let (prose, pasted) = split_user_text(text);
        let after_question = std::mem::replace(&mut self.user_asked, asks(&prose));
        let question = self.open_question.take();
        if let Some(question) = question.filter(|_| is_short_answer(&prose, &pasted)) {
            // A short reply to the assistant's question answers it; the request it belongs
            // to is still the latest one.
            let decision = format!(
                "Asked \"{}\"; the user answered: {}",
                clip(&question, 320),
                clip(&one_line(&prose), 200)
            );
            self.decisions.retain(|known| known != &decision);
            self.decisions.push(decision);
            for constraint in constraints_of(&prose) {
                self.add_constraint(constraint);
            }
            self.note_identifiers(&prose);
            return;
        }
        let replacements_before = self.replacements.len();
        self.note_replacements(&prose, true);
        let pasted_errors = scan_output(pasted.iter().map(String::as_str)).errors;
        for error in &pasted_errors {
            if let Some(at) = self.user_errors.iter().position(|known| known == error) {
                self.user_errors.remove(at);
                self.user_error_replies.remove(at);
            }
            self.user_errors.push(error.clone());
            self.user_error_replies.push(None);
            self.unanswered_errors.push(error.clone());
        }
        let statements = std::mem::take(&mut self.turn_statements);
        self.turn_decisions.clear();
        self.turn_open = true;
        // A new request makes the previous turn's plan history.
        self.plan.clear();
        let correction =
            self.note_correction_or_rules(&prose, statements, replacements_before, after_question);
        if settles(&prose) {
            self.settle_failures(&prose);
        }
        // A correction's rules are what it asks; elsewhere they are kept as constraints.
        // A correction redirects the request before it: it is the request only when this
        // part has no other (its own words are kept with the constraints).
        let redirects = correction && !self.requests.is_empty();
        if let Some(mut request) =
            request_of(&prose, !correction).filter(|request| !redirects && says_something(request))
        {
            // "I get this:" introduces what was pasted.
            if request.ends_with(':')
                && let Some(error) = pasted_errors.first()
            {
                request = format!("{request} {error}");
            }
            self.requests.push(Request { text: request, reply: None, edit: None });
            self.latest_request = Some(verbatim_prefix(&prose, 1_000));
        }
        self.note_identifiers(head(&prose, 8_000));
        self.notes.push(super::notes::TurnNotes::opened_by(&prose));
        self.user_turns += 1;
    }

    /// The user said a problem is settled: the open failures their words name are no longer
    /// something to fix; a short message that names none settles the latest one.
    fn settle_failures(&mut self, prose: &str) {
        let words = naming_words(prose);
        let mut named = false;
        for failure in self.failures.iter_mut().filter(|failure| failure.is_open()) {
            let about = format!(
                "{} {}",
                failure.what.to_lowercase(),
                failure.error_line.as_deref().unwrap_or("").to_lowercase()
            );
            if words.iter().any(|word| about.contains(word.as_str())) {
                failure.set_aside = true;
                named = true;
            }
        }
        if !named
            && prose.split_whitespace().count() <= 15
            && let Some(latest) = self.failures.iter_mut().rev().find(|f| f.is_open())
        {
            latest.set_aside = true;
        }
    }

    /// What the previous summary says the assistant was about to do: a correction at the
    /// start of this part rejects it.
    pub(super) fn seed_proposals(&mut self, previous: &PreviousSummary) {
        use super::sections::Section;
        let finished = previous.section(Section::Done).iter().filter_map(|item| {
            item.strip_prefix(FINISHED_STEP).map(|step| format!("Last assistant step: {step}"))
        });
        let in_progress = previous.section(Section::InProgress).iter().cloned();
        for item in in_progress.chain(finished) {
            let item = item.as_str();
            // A question the assistant asked before the cut: a short reply at the start of
            // these messages answers it.
            if let Some(question) = item.strip_prefix(AWAITING_ANSWER) {
                self.open_question = Some(question.trim_matches('"').to_owned());
            }
            if let Some(approach) = item.strip_prefix(CURRENT_APPROACH) {
                self.turn_statements.push(approach.to_owned());
            }
            if let Some(step) = item
                .strip_prefix("Last assistant step: ")
                .or_else(|| item.strip_prefix("Last assistant step (interrupted by the user): "))
            {
                self.turn_statements.push(step.to_owned());
                // The decision that step belongs to was part of the same proposal.
                let decisions = previous.section(Section::Decisions);
                let own = decisions.iter().filter(|decision| decision.contains(step));
                self.turn_statements.extend(own.cloned());
            }
        }
        self.carried_failure = previous.section(Section::NextSteps).iter().find_map(|step| {
            step.strip_prefix(RESOLVE_STEP)
                .and_then(|rest| backticked(rest).first().map(|command| (*command).to_owned()))
        });
        // Steps the summarizer wrote itself ("Resolve the failure of …") proposed nothing.
        self.turn_statements.extend(
            previous
                .section(Section::NextSteps)
                .iter()
                .filter(|step| !step.starts_with(RESOLVE_STEP))
                .cloned(),
        );
        // The earlier part ended on the user's correction: the first reply here answers it.
        let last_request = previous.section(Section::Goal).iter().rev().find_map(|goal| {
            goal.strip_prefix("Latest request: ")
                .or_else(|| goal.strip_prefix("Request of this turn: "))
        });
        let answered = previous
            .section(Section::Decisions)
            .iter()
            .any(|decision| decision.starts_with(AFTER_CORRECTION));
        self.after_correction = !answered && last_request.is_some_and(is_correction);
        // The earlier part ended on the user's question: a "no, I mean …" here restates it.
        self.user_asked = previous
            .section(Section::Goal)
            .last()
            .is_some_and(|goal| asks(goal.split(super::assemble::REPLY).next().unwrap_or(goal)));
    }

    pub(super) fn add_constraint(&mut self, constraint: String) {
        if !self.constraints.contains(&constraint) {
            self.constraints.push(constraint);
        }
    }

    /// Calls still waiting for a result when the conversation moved on never get one.
    fn abandon_pending(&mut self) {
        self.abandoned.append(&mut self.pending);
    }

    /// `text` (a carried item) with the paths in its code spans renamed by this digest's
    /// moves.
    pub(super) fn renamed(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for effect in &self.effects {
            let FileEffect::Moved { from, to } = effect else { continue };
            let spans: Vec<String> = backticked(&out).into_iter().map(str::to_owned).collect();
            for span in spans.iter().filter(|span| is_under(span, from)) {
                let renamed = format!("{to}{}", &span[from.len()..]);
                out = out.replace(&code(span), &code(&renamed));
            }
        }
        out
    }

    /// `paths` (from an earlier summary) after this digest's moves and deletions.
    pub(super) fn carried_paths<'a>(
        &self,
        paths: impl IntoIterator<Item = &'a String>,
    ) -> BTreeSet<String> {
        let mut out: BTreeSet<String> = paths.into_iter().cloned().collect();
        // The previous summary's own moves and deletions first (a split turn's part may
        // have moved files its history part lists), then this digest's.
        let recorded = self.previous.as_ref().map(previous_effects).unwrap_or_default();
        for effect in recorded.iter().chain(&self.effects) {
            match effect {
                FileEffect::Moved { from, to } => {
                    let moved: Vec<String> =
                        out.iter().filter(|path| is_under(path, from)).cloned().collect();
                    for path in moved {
                        out.remove(&path);
                        out.insert(format!("{to}{}", &path[from.len()..]));
                    }
                }
                FileEffect::Deleted { path: deleted } => {
                    out.retain(|path| !is_under(path, deleted))
                }
                FileEffect::Written { .. } => {}
            }
        }
        out
    }

    /// Reads the prose a successful call wrote into documents as notes of the turn.
    pub(super) fn note_documents(&mut self, documents: &[(String, String)]) {
        for (path, text) in documents {
            self.turn_notes().add_document(path, text);
        }
    }

    /// The notes of the turn in progress (those of what came before the first user message
    /// when no turn has opened yet).
    fn turn_notes(&mut self) -> &mut super::notes::TurnNotes {
        if self.notes.is_empty() {
            self.notes.push(super::notes::TurnNotes::default());
        }
        let last = self.notes.len() - 1;
        &mut self.notes[last]
    }

    pub(super) fn observe_assistant_text(&mut self, text: &str, ends_turn: bool) {
        self.turn_notes().add_assistant(text);
        self.note_used_facts(text);
        self.note_replacements(text, false);
        if let Some(reply) = key_reply(text) {
            // The first answer after an error the user pasted is what was done about it.
            for error in std::mem::take(&mut self.unanswered_errors) {
                if let Some(at) = self.user_errors.iter().position(|known| known == &error) {
                    self.user_error_replies[at] = Some(reply.clone());
                }
            }
            if let Some(request) = self.requests.last_mut() {
                request.reply = Some(reply);
            } else if self.user_turns == 0 && self.previous.is_some() {
                // No request of these messages yet: the answer is the previous summary's.
                match &mut self.carried_replies {
                    Some((_, last)) => *last = reply,
                    None => self.carried_replies = Some((reply.clone(), reply)),
                }
            }
        }
        let mut decisions = decisions_of(text);
        if decisions.is_empty() {
            decisions.extend(diagnosis_of(text));
        }
        for decision in decisions {
            self.decisions.retain(|known| known != &decision);
            self.turn_statements.push(decision.clone());
            self.turn_decisions.push(decision.clone());
            self.decisions.push(decision);
        }
        let Lists { plan, reported } = plan_of(text, ends_turn);
        self.reported = reported;
        if std::mem::take(&mut self.after_correction)
            && let Some(accepted) = plan
                .first()
                .cloned()
                .or_else(|| sentences(head(text, 4_000)).into_iter().find(|s| char_len(s) > 3))
        {
            let decision = format!("{AFTER_CORRECTION}{}", clip(&accepted, 220));
            self.decisions.retain(|known| known != &decision);
            self.decisions.push(decision);
        }
        if !plan.is_empty() {
            self.turn_statements.extend(plan.iter().cloned());
            self.plan = plan;
        }
        // The first sentence that says something: not a short "Got it." before more.
        let all = sentences(head(text, 4_000));
        self.open_question = question_asked(&all);
        let last = all.len().saturating_sub(1);
        self.last_assistant_statement = all
            .iter()
            .enumerate()
            .find(|(index, sentence)| {
                char_len(sentence) > 3
                    && (*index == last || sentence.split_whitespace().count() > 2)
            })
            .map(|(_, sentence)| clip(sentence, 200));
        self.interrupted = false;
        if let Some(statement) = &self.last_assistant_statement
            && !self.turn_statements.contains(statement)
        {
            self.turn_statements.push(statement.clone());
        }
        self.note_identifiers(head(text, 16_000));
    }

    pub(super) fn note_identifiers(&mut self, text: &str) {
        for span in backticked(text) {
            if looks_like_identifier(span) && !self.identifiers.iter().any(|known| known == span) {
                if self.identifiers.len() >= MAX_IDENTIFIERS {
                    self.identifiers.remove(0);
                }
                self.identifiers.push(span.to_owned());
            }
        }
    }
}

/// An instruction file a harness injected as a user-role message: the path it names and
/// the file's text. Claude Code loads a skill as "Base directory for this skill: DIR" and
/// the skill's `SKILL.md`; Codex sends a project's instructions as "# AGENTS.md
/// instructions for DIR" (the file's text follows, inside `<INSTRUCTIONS>` when tagged),
/// to which newer versions append a `## Skills` section of their own: the harness's rules
/// for its skills, not the project's, so it is left out.
fn injected_instructions(text: &str) -> Option<(String, Cow<'_, str>)> {
    let text = text.trim_start();
    let (first, body) = text.split_once('\n').unwrap_or((text, ""));
    if let Some(dir) = first.strip_prefix("Base directory for this skill:") {
        return Some((format!("{}/SKILL.md", dir.trim().trim_end_matches('/')), body.into()));
    }
    let heading = first.strip_prefix('#')?.trim_start();
    let (file, _) = heading.split_once(" instructions for ")?;
    let file = file.trim();
    if file.is_empty() || file.contains(char::is_whitespace) {
        return None;
    }
    let body = match crate::import::split_codex_skills(body) {
        Some((project, _)) => project.into(),
        None => body.into(),
    };
    Some((file.to_owned(), body))
}

/// The question a reply ends with, if it ends with one. A question that names nothing
/// ("Shall I go ahead?", "¿Lo hago?", "진행할까요?") is asked about what the reply set out
/// before it: it comes with the one or two closest sentences before it that say something
/// (a closing "That's it." or a list's number says nothing), so that the user's "yes"
/// answers a stated proposal.
pub(super) fn question_asked(sentences: &[String]) -> Option<String> {
    let (question, before) = sentences.split_last()?;
    let question = question.trim();
    if !question.ends_with(['?', '？']) {
        return None;
    }
    let names_code =
        |sentence: &str| sentence.contains('`') || sentence.chars().any(|c| c.is_ascii_digit());
    // Five words, two with a name or a number in them, or a long run of a script written
    // without spaces.
    let says_something = |sentence: &str| {
        let words = sentence.split_whitespace().count();
        words > 4 || (words >= 2 && names_code(sentence)) || char_len(sentence) > 24
    };
    let names_nothing = !names_code(question)
        && question.split_whitespace().count() <= 6
        && char_len(question) <= 40;
    if !names_nothing {
        return Some(question.to_owned());
    }
    let mut proposal: Vec<&str> = Vec::new();
    let mut length = 0;
    for sentence in before.iter().rev() {
        let sentence = sentence.trim();
        if !says_something(sentence) {
            continue;
        }
        if proposal.len() == 2 || length + char_len(sentence) > 240 {
            break;
        }
        length += char_len(sentence) + 1;
        proposal.push(sentence);
    }
    proposal.reverse();
    proposal.push(question);
    Some(proposal.join(" "))
}
