//! Under the budget: facts said along the way are noted, carried and dropped first; items
//! past a cap go in when there is room and are counted when dropped.

use super::super::*;

#[test]
fn facts_said_along_the_way_are_noted_carried_and_dropped_first() {
    let messages = [
        user("Import the spreadsheet into the CRM."),
        assistant(
            "I read the sheet with `import.py` first. The loader skips 2 blank rows. \
             The header sits on row 3, so PROJECT_HEADER_ROW is now 3. It looks fine otherwise.",
            &[],
        ),
        user("Good. Weather stays on the daily report, 5 fields in all."),
        assistant("Done.", &[]),
        user("Now the invoices."),
    ];
    let summary = summarize(&messages);
    let critical = bullets(&summary, "## Critical Context");
    assert!(
        critical.iter().any(|item| item.starts_with("Assistant noted (on «Import the spreadsheet")
            && item.contains("The header sits on row 3, so PROJECT_HEADER_ROW is now 3.")),
        "{summary}"
    );
    assert!(
        critical.iter().all(|item| !item.contains("It looks fine otherwise")),
        "a sentence without a fact is not a note: {critical:#?}"
    );
    assert!(
        summary.contains("Weather stays on the daily report, 5 fields in all."),
        "the user's sentence is kept whole: {summary}"
    );

    // The next round carries the notes while there is room.
    let later = [user("Then send them."), assistant("Sent 12 invoices.", &[])];
    let next = summarize_after(&later, &summary, 20_000);
    assert!(next.contains("PROJECT_HEADER_ROW is now 3"), "{next}");
    // Under a tight budget the notes go before the requests.
    let tight = summarize_after(&later, &summary, next.chars().count() - 30);
    assert!(!tight.contains("PROJECT_HEADER_ROW is now 3"), "{tight}");
    assert!(tight.contains("Then send them."), "{tight}");
}

#[test]
fn items_past_a_cap_go_in_when_there_is_room_and_are_counted_when_dropped() {
    // 40 requests, each with an edit: more earlier requests and edits than their caps.
    let mut messages = Vec::new();
    for n in 0..40 {
        messages.push(user(&format!("Add the field number {n} to the ledger schema.")));
        let id = format!("e{n}");
        messages
            .push(assistant("", &[(id.as_str(), "edit", json!({"path": format!("src/f{n}.rs")}))]));
        messages.push(result(&id, "edit", "Successfully replaced text", false));
    }
    let roomy = summarize_within(&messages, 200_000);
    // With room, none is left out: the oldest earlier request and edit are there.
    assert!(
        roomy.contains("Earlier request: Add the field number 1 to the ledger schema."),
        "{roomy}"
    );
    assert!(roomy.contains("`src/f0.rs`"), "{roomy}");
    assert!(!roomy.contains("left out"), "{roomy}");
    // Tight, the oldest go first and the summary says how many items it left out.
    let tight = summarize_within(&messages, 2_500);
    assert!(!tight.contains("Add the field number 1 to"), "{tight}");
    assert!(
        tight.contains("Earlier request: Add the field number 38 to the ledger schema."),
        "{tight}"
    );
    assert!(tight.contains("lower-priority items were left out"), "{tight}");
}
