use crate::must_keep::UnresolvedError;

use super::matching::*;
use super::*;
use pretty_assertions::assert_eq;

fn facts() -> MustKeep {
    MustKeep {
        modified_files: vec!["src/export.ts".into(), "README.md".into()],
        constraints: vec!["Never change the file format.".into()],
        latest_request: Some("Now run the tests.".into()),
        unresolved_error: Some(UnresolvedError {
            command: "npm test".into(),
            error_line: "error TS2353: Object literal may only specify known properties, and 'rows' does not exist in type 'Options'.".into(),
        }),
    }
}

fn pins() -> Vec<Pin> {
    vec![Pin {
        id: "p1".into(),
        text: "Use rgb values,\n  no indices".into(),
        source_entry_id: None,
    }]
}

const GOOD: &str = "## Goal\nPort the exporter. Latest request: \"Now run the tests.\"\n\n\
    ## Constraints & Preferences\n- \"Never change the file format\"\n- Use rgb values, no indices\n\n\
    ## Progress\n### Done\n- Edited `src/export.ts` and README.md.\n### Blocked\n\
    - `npm test`: error TS2353 ('rows' does not exist in type 'Options')\n";

fn check(summary: &str, truncated: bool) -> Vec<Problem> {
    let must_keep = facts();
    let pins = pins();
    check_summary(
        summary,
        truncated,
        &GateFacts { must_keep: &must_keep, pins: &pins, checkpoint: true, summarized_tokens: 0 },
    )
}

#[test]
fn a_summary_with_every_fact_passes() {
    assert_eq!(check(GOOD, false), []);
}

#[test]
fn empty_refusal_and_truncation_are_rejected() {
    assert_eq!(check("  \n## \n", false), [Problem::Empty]);
    assert!(matches!(
        check("I’m sorry, but I can't help with that.", false).first(),
        Some(Problem::Refusal { .. })
    ));
    assert!(
        check("I can't help with summarizing this.", false)
            .iter()
            .any(|p| matches!(p, Problem::Refusal { .. }))
    );
    assert!(check(GOOD, true).contains(&Problem::Truncated));
    // A quoted apology deep inside a long summary is not a refusal.
    let long = format!(
        "{GOOD}\n## Critical Context\n- The user wrote: \"I'm sorry, but the build is red\".\n{}",
        "x ".repeat(300)
    );
    assert_eq!(check(&long, false), []);
}

#[test]
fn sections_need_goal_and_one_more() {
    let no_goal = GOOD.replace("## Goal", "## Aim");
    assert_eq!(
        check(&no_goal, false),
        [Problem::MissingSections { headings: vec!["Goal".into()] }]
    );
    assert!(matches!(
        check("Latest request: \"Now run the tests.\" Never change the file format. src/export.ts README.md Use rgb values, no indices; error TS2353 'Options'", false).first(),
        Some(Problem::MissingSections { .. })
    ));
}

#[test]
fn paths_must_appear_whole() {
    let summary = GOOD.replace("`src/export.ts`", "`src/export.tsx`");
    assert_eq!(check(&summary, false), [Problem::MissingFile { path: "src/export.ts".into() }]);
    assert!(contains_path("Edited src/export.ts.", "src/export.ts"));
    assert!(!contains_path("Edited lib/src/export.ts", "src/export.ts"));
    assert!(!contains_path("Edited src/export.ts.bak", "src/export.ts"));
}

#[test]
fn constraints_requests_and_pins_need_the_users_words() {
    let summary = GOOD
        .replace("Never change the file format", "Do not alter the format")
        .replace("Now run the tests.", "run tests")
        .replace("Use rgb values, no indices", "Use rgb values");
    assert_eq!(
        check(&summary, false),
        [
            Problem::MissingConstraint { text: "Never change the file format.".into() },
            Problem::MissingLatestRequest { text: "Now run the tests.".into() },
            Problem::MissingPin { id: "p1".into(), text: "Use rgb values,\n  no indices".into() },
        ]
    );
}

#[test]
fn a_long_request_is_quoted_by_its_opening_sentences() {
    let long = format!("Please continue with step 7. Keep going. {}", "filler text ".repeat(40));
    assert_eq!(opening(&long), "Please continue with step 7. Keep going.");
    let words = "word ".repeat(60);
    assert_eq!(opening(&words).chars().count(), 159);
    assert_eq!(opening("Short one."), "Short one.");
    // A short courtesy sentence may be left out; a long one may not.
    let polite = "Great, thanks. Now add support for comments to the lexer.";
    assert!(contains_quote("Request: Now add support for comments to the lexer.", polite));
    assert!(!contains_quote("Request: Great, thanks. Now add comments.", polite));
    let must_keep = MustKeep { latest_request: Some(long.clone()), ..MustKeep::default() };
    let gate =
        GateFacts { must_keep: &must_keep, pins: &[], checkpoint: false, summarized_tokens: 0 };
    assert_eq!(
        missing_facts("- Latest request: Please continue with step 7. Keep going.", &gate),
        []
    );
    let problems = missing_facts("nothing", &gate);
    let repaired = repair("nothing", &problems, &gate).unwrap_or_default();
    assert!(repaired.ends_with("\"Please continue with step 7. Keep going. …\""), "{repaired}");
    assert_eq!(missing_facts(&repaired, &gate), []);
}

#[test]
fn an_error_line_may_be_abbreviated_but_must_be_recognisable() {
    assert_eq!(
        distinctive_tokens(
            "error TS2353: Object literal may only specify known properties, and 'rows' does not exist in type 'Options'."
        ),
        ["TS2353", "properties", "rows", "Options"]
    );
    // Three of four tokens including the first: recognisable.
    let abbreviated = GOOD.replace(
        "error TS2353 ('rows' does not exist in type 'Options')",
        "TS2353, rows not in Options",
    );
    assert_eq!(check(&abbreviated, false), []);
    // Without the first (the error code), not recognisable.
    let vague = GOOD.replace(
        "error TS2353 ('rows' does not exist in type 'Options')",
        "a type error about Options properties",
    );
    assert!(matches!(check(&vague, false).as_slice(), [Problem::MissingError { .. }]));
}

#[test]
fn the_users_words_in_the_kept_messages_count_for_requests_constraints_and_pins() {
    let summary = "## Goal\n- CSV export\n\n## Progress\n- started";
    let facts = facts();
    let pins = pins();
    let gate = GateFacts { must_keep: &facts, pins: &pins, checkpoint: true, summarized_tokens: 0 };
    let problems = check_summary(summary, false, &gate);
    let section = format!(
        "## User messages (verbatim)\n\n```text\n{}\n{}\n{}\n```",
        facts.latest_request.clone().unwrap_or_default(),
        facts.constraints.join("\n"),
        pins.iter().map(|pin| pin.text.as_str()).collect::<Vec<_>>().join("\n")
    );
    let left = resolved_by_user_messages(problems.clone(), &section, &gate);
    // Files and the error are the summarizer's job; the user's words are resolved.
    assert!(
        left.iter().all(|problem| matches!(
            problem,
            Problem::MissingFile { .. } | Problem::MissingError { .. }
        )),
        "{left:?}"
    );
    assert!(left.len() < problems.len());
    assert_eq!(resolved_by_user_messages(problems.clone(), "", &gate), problems);
}

#[test]
fn repair_appends_only_missing_facts_and_then_passes() {
    let must_keep = facts();
    let pins = pins();
    let gate =
        GateFacts { must_keep: &must_keep, pins: &pins, checkpoint: true, summarized_tokens: 0 };
    let summary = GOOD
        .replace("`src/export.ts`", "the exporter")
        .replace("- Use rgb values, no indices\n", "");
    let problems = check_summary(&summary, false, &gate);
    let repaired = repair(&summary, &problems, &gate).unwrap_or_default();
    assert!(repaired.starts_with(summary.trim_end()));
    assert!(repaired.ends_with("## Must Keep\n- Modified: `src/export.ts`\n- Pinned instruction:\n\n<pinned-instruction>\nUse rgb values,\n  no indices\n</pinned-instruction>"), "{repaired}");
    assert_eq!(check_summary(&repaired, false, &gate), []);
}

#[test]
fn unusable_summaries_are_never_repaired() {
    let must_keep = facts();
    let pins = pins();
    let gate =
        GateFacts { must_keep: &must_keep, pins: &pins, checkpoint: true, summarized_tokens: 0 };
    let refusal = "I'm sorry, but I can't help with that.";
    let problems = check_summary(refusal, false, &gate);
    assert_eq!(repair(refusal, &problems, &gate), None);
    assert!(retry_instructions(&problems).contains("refusal"));
    for (summary, truncated) in [("", false), ("  \n", false), (GOOD, true)] {
        let problems = check_summary(summary, truncated, &gate);
        assert!(problems.iter().any(Problem::is_unusable), "{problems:?}");
        assert_eq!(repair(summary, &problems, &gate), None);
    }
}

#[test]
fn echoes_of_the_request_are_rejected() {
    let must_keep = facts();
    let gate =
        GateFacts { must_keep: &must_keep, pins: &[], checkpoint: false, summarized_tokens: 0 };
    // What a base model wrote back: the transcript's tags, the prompt's own lines.
    for echoed in [
        "<conversation>\n<user>\nExport the table\n</user>",
        "Summary:\n<user>\nExport the table as CSV.\n</user>",
        "<start_of_turn>user\nYou write checkpoint summaries",
        "## Goal\n- Requirements, limits, conventions and preferences the user stated or the work revealed.",
        "You write checkpoint summaries of working sessions between a user and an AI coding assistant.",
    ] {
        let problems = check_summary(echoed, false, &gate);
        assert!(
            problems.iter().any(|problem| matches!(problem, Problem::Echo { .. })),
            "{echoed}: {problems:?}"
        );
    }
    // A summary that mentions a tag inside a line, or pins in their own tag, is no echo.
    assert_eq!(echo(GOOD), None);
    assert_eq!(echo("- The parser now accepts `<user>` tags in templates."), None);
    assert_eq!(
        echo("## Pinned Instructions\n<pinned-instruction>\nUse tabs.\n</pinned-instruction>"),
        None
    );
}

#[test]
fn a_reply_without_the_structure_or_far_too_short_is_unusable() {
    let must_keep = facts();
    let gate =
        GateFacts { must_keep: &must_keep, pins: &[], checkpoint: true, summarized_tokens: 20_000 };
    let five_words = "The user fixed the bug.";
    let problems = check_summary(five_words, false, &gate);
    assert!(problems.iter().any(|p| matches!(p, Problem::MissingSections { .. })), "{problems:?}");
    assert!(problems.contains(&Problem::TooShort { words: 5, minimum: MIN_SUMMARY_WORDS }));
    assert!(problems.iter().any(Problem::is_unusable));
    assert!(!problems.iter().any(Problem::is_unreadable));
    // For a deterministic summarizer (whose text is the engine's own facts) the repair
    // appends every fact; a model's such reply is never repaired (the gate's rule).
    let repaired = repair(five_words, &problems, &gate).unwrap_or_default();
    assert_eq!(missing_facts(&repaired, &gate), []);
    // Headings alone are no summary either.
    let hollow = "## Goal\nFix it.\n## Progress\nDone.";
    let problems = check_summary(hollow, false, &gate);
    assert!(problems.contains(&Problem::TooShort { words: 3, minimum: MIN_SUMMARY_WORDS }));
    // The floor scales down for a short history.
    assert_eq!(minimum_words(100, true), 5);
    assert_eq!(minimum_words(0, true), 0);
    assert_eq!(minimum_words(20_000, false), MIN_SHORT_SUMMARY_WORDS);
    // Other heading styles for the same sections count.
    let styled = "**Goal:**\nPort it.\n\n### 1. Next steps\n- Run tests.";
    assert!(
        !check_summary(styled, false, &GateFacts { summarized_tokens: 0, ..gate })
            .iter()
            .any(|p| matches!(p, Problem::MissingSections { .. }))
    );
}

#[test]
fn the_length_floor_applies_only_below_the_highest_floor() {
    let must_keep = facts();
    let gate =
        GateFacts { must_keep: &must_keep, pins: &[], checkpoint: true, summarized_tokens: 0 };
    let long = format!("## Goal\n{}", "word ".repeat(MIN_SUMMARY_WORDS as usize));
    let short = format!("## Goal\n{}", "word ".repeat(MIN_SUMMARY_WORDS as usize - 1));
    let tiny = format!("## Goal\n{}", "word ".repeat(MIN_SHORT_SUMMARY_WORDS as usize - 1));
    for checkpoint in [true, false] {
        for summary in [long.as_str(), short.as_str(), tiny.as_str(), GOOD, "Fixed."] {
            let at = |summarized_tokens| {
                check_summary(summary, false, &GateFacts { summarized_tokens, checkpoint, ..gate })
            };
            if length_floor_applies(summary, checkpoint) {
                // Some count of transcript tokens makes it too short.
                assert!(
                    at(u64::MAX).iter().any(|p| matches!(p, Problem::TooShort { .. })),
                    "{summary}"
                );
            } else {
                // Whatever the count, the same problems as with no floor.
                for tokens in [1, 100, 20_000, u64::MAX] {
                    assert_eq!(at(tokens), at(0), "{summary} at {tokens} tokens");
                }
            }
        }
    }
    assert!(!length_floor_applies(&long, true));
    assert!(length_floor_applies(&short, true));
    assert!(!length_floor_applies(&short, false));
    assert!(length_floor_applies(&tiny, false));
}

#[test]
fn a_whole_repair_copies_no_pin_the_summary_already_carries() {
    // Round 21: restating every fact (the structure is missing) copied each pin a second
    // time beside the pinned section, so a long pin made the context after grow.
    let must_keep = facts();
    let pins = pins();
    let gate =
        GateFacts { must_keep: &must_keep, pins: &pins, checkpoint: true, summarized_tokens: 0 };
    let section = crate::pins::pinned_section(&[pins[0].text.clone()]).unwrap();
    let summary = format!("{section}\n\nSome text without the sections.");
    let problems = check_summary(&summary, false, &gate);
    assert!(problems.iter().any(|p| matches!(p, Problem::MissingSections { .. })), "{problems:?}");
    let repaired = repair(&summary, &problems, &gate).unwrap();
    assert_eq!(repaired.matches("<pinned-instruction>").count(), 1, "{repaired}");
    assert!(repaired.contains("Latest request"), "{repaired}");
    // A summary without its pin still gets it.
    let repaired = repair("Some text.", &check_summary("Some text.", false, &gate), &gate).unwrap();
    assert_eq!(repaired.matches("<pinned-instruction>").count(), 1, "{repaired}");
}
