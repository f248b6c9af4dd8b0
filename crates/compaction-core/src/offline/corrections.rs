//! What a user message that corrects the assistant rejects, and the rules any other user
//! message states.
//!
//! Invariant: a proposal is recorded as rejected only when the user's words open a
//! correction and refuse something (see `extract::refuses_nothing`); the user's own words
//! are kept whole with the constraints.

use super::extract::*;
use super::facts::*;
use super::text::*;

impl Digest {
    /// Records what `prose` (a user message opening a turn) rejects of the last turn's
    /// `statements`, or the rules it states; `replacements_before` is where this message's
    /// switches begin in `self.replacements`. Returns whether the message is a correction.
    pub(super) fn note_correction_or_rules(
        &mut self,
        prose: &str,
        statements: Vec<String>,
        replacements_before: usize,
        after_question: bool,
    ) -> bool {
        // A "no" that reports the problem persisting, or restates the user's question,
        // refuses nothing.
        let correction = is_correction(prose) && !refuses_nothing(prose, after_question);
        // A correction whose switch replaces nothing the last turn said but something an
        // earlier turn said or decided ("No, keep the sessions in Postgres instead", long
        // after the recommendation) is a change of mind about that: recorded by its
        // switch, not a rejection of the last turn.
        let elsewhere = correction
            && !statements.is_empty()
            && !statements.iter().any(|statement| shares_a_term(statement, prose))
            && self.replacements[replacements_before..].iter().any(|switch| {
                let says =
                    |text: &String| super::replacements::replaces(switch, &text.to_lowercase());
                let earlier = &self.notes[..self.notes.len().saturating_sub(1)];
                switch.phrase.is_empty()
                    && !statements.iter().any(says)
                    && (self.decisions.iter().any(says)
                        || earlier
                            .iter()
                            .any(|turn| turn.user.iter().chain(&turn.assistant).any(says)))
            });
        if elsewhere {
            self.add_constraint(verbatim_prefix(prose, 300));
        } else if correction && statements.is_empty() {
            // The proposal is outside what this digest read (an earlier part of a split
            // turn): the user's words stay whole, and the next reply is what was done.
            self.add_constraint(format!("User correction: {}", verbatim_prefix(prose, 300)));
            self.after_correction = true;
        } else if correction {
            let words = verbatim_prefix(prose, 300);
            // A correction aimed at one of several steps rejects the steps it talks about.
            let aimed: Vec<String> = statements
                .iter()
                .filter(|statement| shares_a_term(statement, prose))
                .cloned()
                .collect();
            let statements = if aimed.is_empty() { statements } else { aimed };
            self.decisions.retain(|decision| !statements.contains(decision));
            // What failed on the way to the rejected approach is not what to fix next.
            let turn = self.user_turns;
            for failure in self.failures.iter_mut().filter(|f| f.turn == turn && f.is_open()) {
                failure.set_aside = true;
            }
            // Before this part's first user message, the turn began in the previous one.
            self.carried_failure_set_aside |= turn == 0 && self.carried_failure.is_some();
            self.last_was_failure = false;
            // Each statement once, none that another one already says, and no lead-ins
            // ("Let me look at …") when there is more.
            let looking = |s: &str| s.to_lowercase().starts_with("let me ");
            let substantial = statements.iter().any(|s| !looking(s));
            let mut proposal: Vec<&str> = Vec::new();
            for statement in &statements {
                if (substantial && looking(statement))
                    || proposal.iter().any(|known| known.contains(statement.as_str()))
                {
                    continue;
                }
                proposal.retain(|known| !statement.contains(known));
                proposal.push(statement);
            }
            self.rejected.push(Rejected {
                proposal: clip(&proposal.join(" "), 300),
                words: words.clone(),
                statements: statements.clone(),
            });
            self.after_correction = true;
            self.add_constraint(words);
        } else if !restates_question(prose, after_question) {
            for constraint in constraints_of(prose) {
                self.add_constraint(constraint);
            }
        }
        correction
    }
}
