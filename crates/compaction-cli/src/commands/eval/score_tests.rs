use super::*;

const SUMMARY: &str = "## Goal\n- Speed up loading.\n\n## Progress\n### Done\n- Edited `src/a.ts`\n\
                       ### Blocked\n- `npm test` failed: TS2353\n\n## Key Decisions\n\
                       - Use a Set instead of a Map.\n\n## Critical Context\n\
                       - Last error (unresolved, `npm test`): TS2353\n\n<modified-files>\nsrc/a.ts\n</modified-files>";

fn rule(text: &[&str], sections: &[&str]) -> Absent {
    Absent {
        text: text.iter().map(|t| (*t).to_owned()).collect(),
        sections: sections.iter().map(|s| (*s).to_owned()).collect(),
    }
}

fn probe(category: &str, subject: &[&str], expect: &[&str]) -> Probe {
    Probe {
        category: category.to_owned(),
        question: "q".to_owned(),
        subject: subject.iter().map(|t| (*t).to_owned()).collect(),
        expect: expect.iter().map(|t| (*t).to_owned()).collect(),
        absent: Vec::new(),
    }
}

fn run(probes: &[Probe], summary: &str, kept: &[&str], pins: &[&str]) -> Vec<Graded> {
    let kept: Vec<String> = kept.iter().map(|t| (*t).to_owned()).collect();
    let pins: Vec<String> = pins.iter().map(|t| (*t).to_owned()).collect();
    score(probes, &Context { summary: Some(summary), kept: &kept, pins: &pins }).0
}

#[test]
fn absent_rules_match_lines_within_their_sections_or_tags() {
    let lines = grade::summary_lines(SUMMARY);
    // `### Blocked` lies under `## Progress` too; `## Key Decisions` ends it.
    assert_eq!(violations(&rule(&["TS2353"], &["Blocked"]), &lines).len(), 1);
    assert_eq!(violations(&rule(&["TS2353"], &["Progress"]), &lines).len(), 1);
    assert!(violations(&rule(&["TS2353"], &["Key Decisions"]), &lines).is_empty());
    // Every string on one line, anywhere in the summary.
    assert_eq!(violations(&rule(&["ts2353", "UNRESOLVED"], &[]), &lines).len(), 1);
    assert!(violations(&rule(&["Set", "unresolved"], &[]), &lines).is_empty());
    // A tag block is a section of its own; headings are not searched.
    assert_eq!(violations(&rule(&["src/a.ts"], &["modified-files"]), &lines).len(), 1);
    assert!(violations(&rule(&["Goal"], &[]), &lines).is_empty());
    assert_eq!(
        violations(&rule(&["Map"], &["key decisions"]), &lines),
        vec!["Map in: - use a set instead of a map."]
    );
}

#[test]
fn a_value_named_only_as_replaced_is_not_stated_as_current() {
    let summary = "## Critical Context\n\
                   - Changed: `HEADER_ROW = 4` → `HEADER_ROW = 1`, the wizard reads row 1.\n\
                   - Timeout 30 s -> 10 s after the review.\n\
                   - Retries stay at 3; earlier retries 3 -> 5 was reverted.";
    let lines = grade::summary_lines(summary);
    // The old value, followed by an arrow each time it occurs, is not current ...
    assert!(violations(&rule(&["HEADER_ROW = 4"], &[]), &lines).is_empty());
    assert!(violations(&rule(&["timeout 30 s"], &[]), &lines).is_empty());
    // ... the new one is, and so is a value also stated without an arrow.
    assert_eq!(violations(&rule(&["HEADER_ROW = 1"], &[]), &lines).len(), 1);
    assert_eq!(violations(&rule(&["10 s"], &[]), &lines).len(), 1);
    assert_eq!(violations(&rule(&["retries", "3"], &[]), &lines).len(), 1);
}

#[test]
fn an_expected_string_counts_only_in_an_item_that_names_the_subject() {
    let summary =
        "## Key Decisions\n- C standard: C17 (NVCC lacks C23)\n## Progress\n- ran gcc -std=c99";
    let graded = run(&[probe("decision", &["C standard"], &["C17"])], summary, &[], &[]);
    assert_eq!(graded[0].outcome, Outcome::Answered);
    // The string on a line that does not name the subject answers nothing ...
    let graded = run(&[probe("decision", &["C standard"], &["c99"])], summary, &[], &[]);
    assert_eq!(graded[0].outcome, Outcome::Missed);
    assert_eq!(graded[0].off_subject, vec!["c99".to_owned()]);
    // ... and neither does a kept paragraph without it; one with it does.
    let kept = ["We build with c99 for now.\n\nThe C standard stays c99 until NVCC catches up."];
    let graded = run(&[probe("decision", &["C standard"], &["c99"])], summary, &kept, &[]);
    assert_eq!((graded[0].outcome, graded[0].source), (Outcome::Answered, Some(Source::Kept)));
    let kept = ["The C standard is settled.\n\nWe build with c99 for now."];
    let graded = run(&[probe("decision", &["C standard"], &["c99"])], summary, &kept, &[]);
    assert_eq!(graded[0].outcome, Outcome::Missed);
    // A subject inside the expected string does not name it: the answer needs its context.
    let summary = "## Notes\n- Permission denied (os error 13)\n- arnaudtest: Permission denied (os error 13)";
    let probes = [probe(
        "error",
        &["arnaudtest", "Permission denied"],
        &["Permission denied (os error 13)"],
    )];
    let graded = run(&probes, &summary.replacen("\n- arnaudtest", "\n- other", 1), &[], &[]);
    assert_eq!(graded[0].outcome, Outcome::Missed);
    assert_eq!(run(&probes, summary, &[], &[])[0].outcome, Outcome::Answered);
    // The heading or tag a line lies directly under names its subject too.
    let graded = run(&[probe("artifact", &["modified-files"], &["src/a.ts"])], SUMMARY, &[], &[]);
    assert_eq!((graded[0].outcome, graded[0].source), (Outcome::Answered, Some(Source::Summary)));
}

#[test]
fn some_expected_strings_found_is_a_partial_answer() {
    let probes = [probe("recall", &["cooldown"], &["10 s", "3 s"])];
    let graded = run(&probes, "## Critical Context\n- cooldown 10 s after a swipe", &[], &[]);
    assert_eq!(graded[0].outcome, Outcome::Partial);
    assert_eq!(graded[0].missing, vec!["3 s".to_owned()]);
    let (_, tallies) = score(
        &probes,
        &Context { summary: Some("- cooldown: 10 s, then 3 s"), kept: &[], pins: &[] },
    );
    assert_eq!((tallies["recall"].answered, tallies["recall"].partial), (1, 0));
}

#[test]
fn a_must_not_stated_in_the_summary_or_the_pins_contradicts_the_probe() {
    let mut stale = probe("decision", &["C standard"], &["C17"]);
    stale.absent = vec![rule(&["C23"], &["Key Decisions", "pins"])];
    let summary = "## Key Decisions\n- C standard: C17\n";
    let graded = run(std::slice::from_ref(&stale), summary, &[], &[]);
    assert_eq!(graded[0].outcome, Outcome::Answered);
    // Stated as current even though the answer is there too: contradicted.
    let graded = run(
        std::slice::from_ref(&stale),
        "## Key Decisions\n- C standard: C17, later C23",
        &[],
        &[],
    );
    assert_eq!(graded[0].outcome, Outcome::Contradicted);
    let graded = run(std::slice::from_ref(&stale), summary, &[], &["Always compile as C23."]);
    assert_eq!(graded[0].outcome, Outcome::Contradicted);
    assert_eq!(graded[0].stated, vec!["C23 in: always compile as c23.".to_owned()]);
    // The kept messages are the session's own words: stale ones do not contradict.
    let graded = run(std::slice::from_ref(&stale), summary, &["We first chose C23."], &[]);
    assert_eq!(graded[0].outcome, Outcome::Answered);
}

#[test]
fn a_fixed_error_only_under_blocked_or_a_rejected_decision_does_not_answer() {
    let summary = "## Progress\n### Done\n- Edited `src/a.ts`\n### Blocked\n- npm test: TS2353\n";
    let graded = run(&[probe("error", &["npm test"], &["TS2353"])], summary, &[], &[]);
    assert_eq!(graded[0].outcome, Outcome::Missed);
    assert_eq!(graded[0].misplaced, vec!["TS2353".to_owned()]);
    // What fails now, and what nobody solved, is what Blocked is for.
    for category in ["continuation", "open"] {
        let graded = run(&[probe(category, &["npm test"], &["TS2353"])], summary, &[], &[]);
        assert_eq!(graded[0].outcome, Outcome::Answered, "{category}");
    }
    let summary = "## Constraints & Preferences\n- Rejected by the user: use a Map\n";
    let graded = run(&[probe("decision", &["Map"], &["use a Map"])], summary, &[], &[]);
    assert_eq!(graded[0].outcome, Outcome::Missed);
}

#[test]
fn without_a_subject_an_expected_string_counts_in_any_item() {
    let probes = [probe("artifact", &[], &["src/a.ts"]), probe("recall", &[], &["retry budget"])];
    let (graded, tallies) = score(
        &probes,
        &Context {
            summary: Some(SUMMARY),
            kept: &["we agreed on a retry budget of 3".to_owned()],
            pins: &[],
        },
    );
    let sources: Vec<Option<Source>> = graded.iter().map(|g| g.source).collect();
    assert_eq!(sources, [Some(Source::Summary), Some(Source::Kept)]);
    assert_eq!(tallies["artifact"].from_summary, 1);
    assert_eq!(tallies["recall"].from_summary, 0);
}
