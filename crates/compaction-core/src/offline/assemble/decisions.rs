//! The sections about what was agreed: Constraints & Preferences (the user's rules and the
//! approaches the user rejected, with the user's words), Key Decisions and Next Steps.
//!
//! Invariant: a proposal the user rejected in this part is never a decision nor a next
//! step, and one an earlier summary records as rejected is no decision either.

use super::super::OfflineKind;
use super::super::facts::*;
use super::super::sections::*;
use super::super::text::*;
use super::Assembly;

impl Assembly<'_> {
    /// Whether the user rejected `text` in this part.
    fn rejected_now(&self, text: &str) -> bool {
        self.digest.rejected.iter().any(|rejected| rejected.covers(text))
    }

    /// Pushes the Constraints & Preferences bullets, all verbatim.
    pub(super) fn constraints(&mut self) {
        let digest = self.digest;
        // Constraints: carried ones, rejected approaches with the user's words, new ones.
        // A correction whose proposal was in the earlier part: that part's next steps
        // were the proposal.
        // What the assistant did after the correction was not rejected by it.
        let accepted: Vec<&str> = self
            .carried_items(Section::Decisions)
            .iter()
            .filter_map(|decision| decision.strip_prefix(AFTER_CORRECTION))
            .collect();
        let carried_next: Vec<&String> = self
            .carried_items(Section::NextSteps)
            .iter()
            .filter(|step| !step.starts_with(RESOLVE_STEP) && !accepted.contains(&step.as_str()))
            .collect();
        for constraint in self.carried_items(Section::Constraints) {
            let unmatched =
                constraint.starts_with("User correction: ") && !constraint.contains(" (rejected: ");
            let text = match unmatched && !carried_next.is_empty() {
                true => {
                    let steps: Vec<&str> = carried_next.iter().map(|step| step.as_str()).collect();
                    format!("{constraint} (rejected: {})", clip(&steps.join(" "), 200))
                }
                false => constraint.clone(),
            };
            if let Some((by, _)) = digest.superseded_by(&text, None, false) {
                self.superseded_rule(&text, by);
                continue;
            }
            self.sections.push_verbatim(Section::Constraints, text, PRIORITY_CONSTRAINT);
        }
        for rejected in &digest.rejected {
            self.sections.push_verbatim(
                Section::Constraints,
                format!(
                    "Rejected by the user: {} (user: \"{}\")",
                    clip(&rejected.proposal, 200),
                    rejected.words
                ),
                PRIORITY_CONSTRAINT,
            );
        }
        for (index, constraint) in digest.constraints.iter().enumerate() {
            if digest.rejected.iter().any(|rejected| &rejected.words == constraint) {
                continue;
            }
            if let Some((by, _)) = digest.superseded_by(constraint, Some(index), false) {
                self.superseded_rule(constraint, by);
                continue;
            }
            self.sections.push_verbatim(
                Section::Constraints,
                constraint.clone(),
                PRIORITY_CONSTRAINT,
            );
        }
    }

    /// Pushes the Key Decisions bullets (an approach of a turn still open goes to In Progress).
    pub(super) fn decisions(&mut self) {
        let digest = self.digest;
        // Never a proposal the user rejected.
        // Proposals an earlier summary records as rejected are no decision either.
        let carried_rejections: Vec<Rejected> = self
            .sections
            .items
            .iter()
            .filter(|item| item.section == Section::Constraints)
            .filter_map(|item| rejected_in(&item.text))
            .collect();
        let rejected_before =
            |decision: &str| carried_rejections.iter().any(|rejected| rejected.covers(decision));
        // The approach of a turn that was still open is a decision once the user let it be.
        let carried_approaches = self
            .carried_items(Section::InProgress)
            .iter()
            .filter_map(|item| item.strip_prefix(CURRENT_APPROACH));
        for decision in self
            .carried_items(Section::Decisions)
            .iter()
            .map(String::as_str)
            .chain(carried_approaches)
        {
            if let Some((by, by_user)) = digest.superseded_by(decision, None, true) {
                self.superseded_decision(decision, by, by_user);
            } else if !self.rejected_now(decision) && !rejected_before(decision) {
                self.sections.push(Section::Decisions, decision, PRIORITY_DECISION);
            }
        }
        for branch in &digest.branch_summaries {
            self.sections.push(
                Section::Decisions,
                format!("On a branch the user left: {branch}"),
                PRIORITY_DECISION + 1,
            );
        }
        let count = digest.decisions.len();
        for (index, decision) in digest.decisions.iter().enumerate() {
            let priority = capped_priority(index, count, self.limits.decisions, PRIORITY_DECISION);
            if self.rejected_now(decision) {
                continue;
            }
            if let Some((by, by_user)) = digest.superseded_by(decision, Some(index), true) {
                self.superseded_decision(decision, by, by_user);
                continue;
            }
            let in_progress = digest.turn_open
                && self.kind != OfflineKind::Branch
                && digest.turn_decisions.contains(decision);
            match in_progress {
                true => self.sections.push(
                    Section::InProgress,
                    format!("{CURRENT_APPROACH}{decision}"),
                    PRIORITY_DECISION + 2,
                ),
                false => self.sections.push(Section::Decisions, decision.clone(), priority),
            }
        }
    }

    /// Records that a later statement replaced a decision or a rule, in Critical Context.
    /// A rule is the user's own words and stays whole, marked superseded, with what
    /// replaced it. A decision the user replaced is not repeated: the line holds the
    /// statement that holds now (with its reason when it gives one), since restating the
    /// replaced one would state it as current again. One the assistant's own later wording
    /// replaced ("… rather than …") is weaker evidence: it stays, marked superseded.
    fn superseded_rule(&mut self, text: &str, by: &str) {
        let text = text.strip_prefix("Superseded rule: ").unwrap_or(text);
        self.sections.push(
            Section::Critical,
            format!("Superseded rule: {text} (later: {by})"),
            PRIORITY_DECISION,
        );
    }

    /// See [`Assembly::superseded_rule`].
    fn superseded_decision(&mut self, text: &str, by: &str, by_user: bool) {
        let text = text.strip_prefix("Superseded decision: ").unwrap_or(text);
        let line = match by_user {
            true => format!("An earlier decision was replaced; now: {by}"),
            false => format!("Superseded decision: {text} (later: {by})"),
        };
        self.sections.push(Section::Critical, line, PRIORITY_DECISION);
    }

    /// Pushes the Next Steps bullets: resolving the open failure, then the plan.
    pub(super) fn next_steps(&mut self) {
        let digest = self.digest;
        let mut next = Vec::new();
        if let Some(last) = self.open.last().filter(|_| self.kind != OfflineKind::TurnPrefix) {
            next.push(format!("{RESOLVE_STEP}{} (see Blocked)", last.subject));
        }
        // A call the user rejected or stopped is never what comes next.
        let rejected_call = |step: &str| {
            digest
                .rejected_calls
                .iter()
                .any(|call| char_len(call) > 2 && step.contains(call.as_str()))
        };
        for step in digest.plan.iter().take(self.limits.next_steps) {
            if !self.rejected_now(step) && !rejected_call(step) {
                next.push(step.clone());
            }
        }
        if digest.plan.is_empty() && digest.requests.is_empty() {
            for step in self.carried_items(Section::NextSteps) {
                if !self.is_resolved(step) {
                    self.sections.push(Section::NextSteps, step.clone(), PRIORITY_NEXT);
                }
            }
        }
        for step in next {
            self.sections.push(Section::NextSteps, step, PRIORITY_NEXT);
        }
    }
}

/// The proposal a Constraints bullet records as rejected ("Rejected by the user: P (user:
/// …)", "User correction: … (rejected: P)"), with its sentences as statements.
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
