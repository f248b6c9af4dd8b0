//! Assembly: the digest and the previous summary merged into prioritised bullets, one
//! section at a time.
//!
//! Invariant: a carried item is dropped only when something newer supersedes it (a later
//! latest request, a Done item about the same path or command, a pass of a blocked
//! command); every must-keep fact (constraints, the latest request, the modified files) is
//! pushed verbatim.
//!
//! Stages, one module each, run in the order of the summary's sections: `goal`, then
//! `decisions` for the constraints, `progress` (Done, In Progress, Blocked), `decisions`
//! again for Key Decisions and Next Steps, `critical`, the turn `notes`, and last
//! `replaced` (moved paths and replaced values marked wherever an item states them). They
//! share an [`Assembly`]: the digest, the previous summary, the failures still open, and
//! the sections so far (a later stage reads what an earlier one pushed, e.g. the Done items
//! the critical context does not repeat).

mod critical;
mod decisions;
mod goal;
mod notes;
mod progress;
mod replaced;

pub(super) use goal::REPLY;

use super::OfflineKind;
use super::calls::command_family;
use super::facts::*;
use super::previous::PreviousSummary;
use super::sections::*;
use super::text::*;

impl Digest {
    pub(super) fn into_sections(self, kind: OfflineKind, instructions: Option<&str>) -> Sections {
        let mut assembly = Assembly::new(&self, kind);
        assembly.goal(instructions);
        assembly.constraints();
        assembly.done();
        assembly.in_progress();
        assembly.blocked();
        assembly.decisions();
        assembly.next_steps();
        assembly.critical();
        assembly.notes();
        assembly.mark_replaced();
        let mut sections = assembly.sections;
        apply_focus(&mut sections, instructions);
        sections
    }
}

/// What the stages share.
struct Assembly<'a> {
    digest: &'a Digest,
    kind: OfflineKind,
    limits: Limits,
    previous: Option<&'a PreviousSummary>,
    /// Commands that passed in this part.
    passed: Vec<&'a str>,
    /// Failures still open, oldest first.
    open: Vec<&'a Failure>,
    /// The bullets pushed so far.
    sections: Sections,
}

impl<'a> Assembly<'a> {
    fn new(digest: &'a Digest, kind: OfflineKind) -> Self {
        Assembly {
            digest,
            kind,
            limits: Limits::for_kind(kind),
            previous: digest.previous.as_ref(),
            passed: digest.passed_commands(),
            open: digest.failures.iter().filter(|failure| failure.is_open()).collect(),
            sections: Sections::default(),
        }
    }

    /// The previous summary's bullets of `section` (none without one).
    fn carried_items(&self, section: Section) -> &'a [String] {
        self.previous.map(|previous| previous.section(section)).unwrap_or_default()
    }

    /// The priority a carried Critical Context item had when its round wrote it: the
    /// priority of its kind, so a carried item competes with this part's items by kind
    /// and age the same way at every round (never promoted or demoted by being carried).
    fn carried_critical_priority(item: &str) -> u32 {
        const KINDS: [(&str, u32); 4] = [
            (critical::USER_ERROR, PRIORITY_ERRORS + 5),
            (critical::UNCLEAR, PRIORITY_ERRORS + 4),
            (critical::USED_LATER, PRIORITY_ERRORS + 2),
            (critical::CHECK, PRIORITY_ERRORS - 10),
        ];
        KINDS
            .iter()
            .find(|(prefix, _)| item.starts_with(prefix))
            .map_or(PRIORITY_ERRORS, |(_, priority)| *priority)
    }

    /// Whether a carried item's command (its first code span) passed since, itself or as a
    /// whole suite of its family.
    fn is_resolved(&self, item: &str) -> bool {
        backticked(item).first().is_some_and(|command| {
            self.passed.iter().any(|done| done == command)
                || self.passed.iter().any(|done| {
                    let (family, targeted) = command_family(done);
                    !targeted && command_family(command).0 == family
                })
        })
    }

    /// Whether a carried failure is the one the user's correction set aside (its first code
    /// span names it).
    fn set_aside(&self, item: &str) -> bool {
        self.digest.carried_failure_set_aside
            && backticked(item).first().copied() == self.digest.carried_failure.as_deref()
    }
}
