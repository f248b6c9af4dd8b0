//! A question the assistant asked: what it is about, and its answer across a cut.

use super::*;
use crate::offline::facts::question_asked;

fn asked(text: &str) -> Option<String> {
    question_asked(&sentences(text))
}

#[test]
fn a_question_that_names_nothing_comes_with_the_proposal_before_it() {
    // The proposal, not the bare question, is what a "yes" agrees to.
    assert_eq!(
        asked("I'd cache the rates in Redis for 15 minutes. That's it. Shall I go ahead?")
            .as_deref(),
        Some("I'd cache the rates in Redis for 15 minutes. Shall I go ahead?")
    );
    // A numbered list: its numbers say nothing, its two closest items do.
    assert_eq!(
        asked("Scope:\n\n1. `models.go`: add `ArchivedAt`\n2. `store.go`: add `Archive(id)`\n3. Hide archived rows in `List`\n\nSound good?")
            .as_deref(),
        Some("`store.go`: add `Archive(id)` Hide archived rows in `List` Sound good?")
    );
    // Scripts written without spaces.
    assert_eq!(
        asked("我准备把图片存储从本地磁盘迁到 S3 的 `media-prod` 桶。要我继续吗？").as_deref(),
        Some("我准备把图片存储从本地磁盘迁到 S3 的 `media-prod` 桶。 要我继续吗？")
    );
    // A question that names what it asks about stands alone; a reply that ends otherwise
    // asks nothing.
    assert_eq!(
        asked("The tests pass. Should I also bump `serde` to 1.0.210?").as_deref(),
        Some("Should I also bump `serde` to 1.0.210?")
    );
    assert_eq!(asked("Shall I go ahead? I went ahead."), None);
}

#[test]
fn a_yes_after_the_cut_answers_the_question_asked_before_it() {
    let before = summarize(&[
        user("Look into the slow quotes and tell me what you would change."),
        assistant(
            "I'd cache the exchange rates in Redis with a 15 minute expiry. Shall I go ahead?",
            &[],
        ),
    ]);
    let waiting = bullets(&before, "### In Progress");
    assert_eq!(
        waiting,
        vec![format!(
            "{AWAITING_ANSWER}\"I'd cache the exchange rates in Redis with a 15 minute expiry. Shall I go ahead?\""
        )]
    );
    let after = summarize_after(
        &[
            user("yes"),
            assistant(
                "",
                &[(
                    "e1",
                    "Edit",
                    json!({ "file_path": "quotes.py", "old_string": "a", "new_string": "b" }),
                )],
            ),
            result("e1", "Edit", "The file quotes.py has been updated.", false),
            assistant("Done.", &[]),
        ],
        &before,
        16_000,
    );
    let decisions = bullets(&after, "## Key Decisions");
    assert!(
        decisions
            .iter()
            .any(|d| d.contains("15 minute expiry") && d.ends_with("the user answered: yes")),
        "{after}"
    );
    // Answered: no longer waiting.
    assert!(!after.contains(AWAITING_ANSWER), "{after}");
}
