//! The class "a no that rejects nothing": a user message opens like a correction ("nope",
//! "no,", "non", "不是") but rejects no proposal. Two kinds, seen in real sessions:
//! - *the problem persists*: the assistant made a fix and said it should work; the user says
//!   the symptom is still there ("nope, still cannot drag"). The fix did not work, and the
//!   problem stays open; the approach was not refused;
//! - *the user restates a question*: the user asked something, the assistant answered
//!   another reading of it, and the user says which one they meant ("no, talking about
//!   expire at"). The answer was not refused either: it answered another question.
//!
//! A summary that records either as "Rejected by the user: …" states a refusal the
//! transcript never shows, and a later reader drops the answer or the fix from what was
//! decided. Control families hold real refusals ("no, don't use Redis, use Postgres"),
//! which must stay recorded as rejected, in seven languages (families 12 to 17 were added
//! after the first measurement, to give the dev part refusals in languages other than
//! English). Each family is one kind in one language with three
//! cases; the split is the classes' (family index 2 modulo 3 is test).

mod persists;
mod refuses;
mod restates;

use super::super::*;
use super::Instance;

const CLASS: &str = "no that rejects nothing";

/// What a family's user message does.
#[derive(Clone, Copy)]
enum Kind {
    /// The symptom is still there after a fix.
    Persists,
    /// The user says which question they meant.
    Restates,
    /// A real refusal of the proposal (control).
    Refuses,
}

/// One case: the user's first message, the assistant's reply to it (a fix announced, an
/// answer, or a proposal), the user's "no" message, the assistant's reply to that; then the
/// check: a subject and the text a line naming it must hold, and the term of the first
/// reply that no line may state as rejected (`Refuses`: that must be stated as rejected).
struct Case {
    ask: &'static str,
    reply: &'static str,
    no: &'static str,
    answer: &'static str,
    subject: &'static str,
    expected: &'static str,
    term: &'static str,
}

struct Family {
    kind: Kind,
    cases: [Case; 3],
}

/// The families, in order (a family's index decides its part).
const FAMILIES: [Family; 18] = [
    persists::ENGLISH,
    restates::ENGLISH,
    persists::ENGLISH_SAME_ERROR,
    restates::SPANISH,
    persists::SPANISH,
    restates::ENGLISH_TALKING_ABOUT,
    refuses::ENGLISH,
    persists::CHINESE,
    refuses::FRENCH,
    restates::CHINESE,
    persists::GERMAN,
    persists::FRENCH,
    refuses::GERMAN,
    refuses::CHINESE,
    refuses::KOREAN,
    refuses::JAPANESE,
    refuses::PORTUGUESE,
    refuses::ITALIAN,
];
/// Every instance: the user's first message, the assistant's reply (after an edit when it
/// announces a fix), the "no" message, the reply to it (after an edit when it fixes), then
/// unrelated turns.
pub(super) fn noes_that_reject_nothing() -> Vec<Instance> {
    let mut out = Vec::new();
    for (family, spec) in FAMILIES.iter().enumerate() {
        for (index, case) in spec.cases.iter().enumerate() {
            let fixes = matches!(spec.kind, Kind::Persists);
            let mut messages = vec![user(case.ask)];
            if fixes {
                messages.extend(super::families::edit(
                    &format!("n{family}_{index}a"),
                    "src/app.ts",
                    "a",
                    "b",
                ));
            }
            messages.push(assistant(case.reply, &[]));
            messages.push(user(case.no));
            if fixes {
                messages.extend(super::families::edit(
                    &format!("n{family}_{index}b"),
                    "src/app.ts",
                    "b",
                    "c",
                ));
            }
            messages.push(assistant(case.answer, &[]));
            messages.extend(super::families::filler(3, family));
            let instance = Instance::new(CLASS, family, messages);
            let instance = match spec.kind {
                Kind::Refuses => instance.expect(&[case.subject], case.expected),
                Kind::Persists | Kind::Restates => instance
                    .expect(&[case.subject], case.expected)
                    .never_current(&["rejected", case.term], &[]),
            };
            out.push(instance);
        }
    }
    out
}
