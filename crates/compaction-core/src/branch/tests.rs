use super::*;
use crate::parse_session;
use pretty_assertions::assert_eq;
use serde_json::json;

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/"}"#;

fn session(lines: &[Value]) -> Session {
    let mut text = String::from(HEADER);
    for line in lines {
        text.push('\n');
        text.push_str(&line.to_string());
    }
    text.push('\n');
    let session = parse_session(text.as_bytes());
    assert!(session.diagnostics().is_empty(), "{:?}", session.diagnostics());
    session
}

fn user(id: &str, parent: Option<&str>, text: &str) -> Value {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2025-01-01T00:00:01Z",
           "message": {"role": "user", "content": text}})
}

fn assistant(id: &str, parent: &str, text: &str, calls: &[(&str, &str)]) -> Value {
    let mut content = vec![json!({"type": "text", "text": text})];
    for (n, (tool, path)) in calls.iter().enumerate() {
        content.push(json!({"type": "toolCall", "id": format!("c{n}"), "name": tool,
                            "arguments": {"path": path}}));
    }
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2025-01-01T00:00:02Z",
           "message": {"role": "assistant", "content": content, "stopReason": "stop"}})
}

fn tool_result(id: &str, parent: &str) -> Value {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2025-01-01T00:00:03Z",
           "message": {"role": "toolResult", "toolCallId": "c0", "toolName": "read",
                       "content": [{"type": "text", "text": "file text"}], "isError": false}})
}

fn branch_summary(id: &str, parent: &str, summary: &str, details: Value, from_hook: bool) -> Value {
    json!({"type": "branch_summary", "id": id, "parentId": parent, "timestamp": "2025-01-01T00:00:04Z",
           "fromId": parent, "summary": summary, "details": details, "fromHook": from_hook})
}

fn compaction(id: &str, parent: &str, summary: &str) -> Value {
    json!({"type": "compaction", "id": id, "parentId": parent, "timestamp": "2025-01-01T00:00:05Z",
           "summary": summary, "firstKeptEntryId": parent, "tokensBefore": 100,
           "details": {"readFiles": ["from-compaction"], "modifiedFiles": []}})
}

fn at(session: &Session, id: &str) -> usize {
    session.index_of(id).unwrap()
}

fn ids(session: &Session, indices: &[usize]) -> Vec<String> {
    indices.iter().map(|&i| session.entries()[i].id.clone()).collect()
}

/// Tokens = characters of the text a message carries (a simple, predictable estimator).
fn chars(message: &AgentMessage) -> u64 {
    let text = match message {
        AgentMessage::User(m) => m.content.joined_text(),
        AgentMessage::Assistant(m) => crate::message::joined_text(&m.content),
        AgentMessage::BranchSummary(m) | AgentMessage::CompactionSummary(m) => m.summary.clone(),
        AgentMessage::Custom(m) => m.content.joined_text(),
        AgentMessage::ToolResult(_)
        | AgentMessage::BashExecution(_)
        | AgentMessage::System(_)
        | AgentMessage::Other(_) => String::new(),
    };
    text.len() as u64
}

/// root ─ a1 ─ u2 ─ a2 (left branch, leaf "a2")
///           └ u3 ─ a3 (right branch)
fn forked() -> Session {
    session(&[
        user("u1", None, "start"),
        assistant("a1", "u1", "ok", &[]),
        user("u2", Some("a1"), "left"),
        assistant("a2", "u2", "done left", &[("read", "L.md")]),
        user("u3", Some("a1"), "right"),
        assistant("a3", "u3", "done right", &[]),
    ])
}

#[test]
fn collection_between_sibling_branches_stops_at_the_fork() {
    let s = forked();
    let collected = collect_branch_entries(&s, at(&s, "a2"), at(&s, "a3"));
    assert_eq!(collected.common_ancestor, Some(at(&s, "a1")));
    assert_eq!(ids(&s, &collected.entries), ["u2", "a2"]);
    // Target inside the other branch, not at its tip.
    let collected = collect_branch_entries(&s, at(&s, "a3"), at(&s, "u2"));
    assert_eq!(ids(&s, &collected.entries), ["u3", "a3"]);
}

#[test]
fn collection_to_an_ancestor_takes_the_entries_after_it() {
    let s = forked();
    let collected = collect_branch_entries(&s, at(&s, "a2"), at(&s, "u1"));
    assert_eq!(collected.common_ancestor, Some(at(&s, "u1")));
    assert_eq!(ids(&s, &collected.entries), ["a1", "u2", "a2"]);
}

#[test]
fn collection_to_a_descendant_or_itself_is_empty() {
    let s = forked();
    let collected = collect_branch_entries(&s, at(&s, "a1"), at(&s, "a3"));
    assert_eq!(
        collected,
        BranchCollection { common_ancestor: Some(at(&s, "a1")), entries: vec![] }
    );
    let collected = collect_branch_entries(&s, at(&s, "a2"), at(&s, "a2"));
    assert_eq!(
        collected,
        BranchCollection { common_ancestor: Some(at(&s, "a2")), entries: vec![] }
    );
}

#[test]
fn collection_without_a_common_ancestor_takes_the_whole_path() {
    let s = session(&[
        user("u1", None, "one"),
        assistant("a1", "u1", "ok", &[]),
        user("r2", None, "second root"),
    ]);
    let collected = collect_branch_entries(&s, at(&s, "a1"), at(&s, "r2"));
    assert_eq!(collected.common_ancestor, None);
    assert_eq!(ids(&s, &collected.entries), ["u1", "a1"]);
}

#[test]
fn collection_keeps_compactions_and_non_message_entries() {
    let s = session(&[
        user("u1", None, "start"),
        user("u2", Some("u1"), "left"),
        compaction("c1", "u2", "S"),
        json!({"type": "label", "id": "l1", "parentId": "c1", "timestamp": "t", "targetId": "u2", "label": "x"}),
        user("u3", Some("u1"), "right"),
    ]);
    let collected = collect_branch_entries(&s, at(&s, "l1"), at(&s, "u3"));
    assert_eq!(ids(&s, &collected.entries), ["u2", "c1", "l1"]);
}

fn prepare(s: &Session, from: &str, to: &str, budget: u64) -> BranchPreparation {
    let collected = collect_branch_entries(s, at(s, from), at(s, to));
    prepare_branch_entries(s, &collected.entries, budget, &chars)
}

#[test]
fn preparation_leaves_out_tool_results_and_non_messages() {
    let s = session(&[
        user("u1", None, "start"),
        user("u2", Some("u1"), "go"),
        assistant("a2", "u2", "reading", &[("read", "A.md")]),
        tool_result("t2", "a2"),
        json!({"type": "model_change", "id": "m1", "parentId": "t2", "timestamp": "t", "provider": "p", "modelId": "m"}),
        json!({"type": "custom_message", "id": "cm", "parentId": "m1", "timestamp": "t", "customType": "note",
               "content": "extension note", "display": true}),
        json!({"type": "custom", "id": "cu", "parentId": "cm", "timestamp": "t", "customType": "state"}),
    ]);
    let prepared = prepare(&s, "cu", "u1", 0);
    assert_eq!(prepared.entry_ids, ["u2", "a2", "cm"]);
    let roles: Vec<&str> = prepared.messages.iter().map(AgentMessage::role).collect();
    assert_eq!(roles, ["user", "assistant", "custom"]);
    assert_eq!(prepared.total_tokens, 2 + 7 + 14);
    assert_eq!(prepared.read_files, ["A.md"]);
}

/// u1 ─ u2(10) ─ a2(10) ─ bs(summary of 30) ─ u3(10) ─ a3(10); target u1.
fn with_summary(summary_len: usize) -> Session {
    session(&[
        user("u1", None, "start"),
        user("u2", Some("u1"), &"x".repeat(10)),
        assistant("a2", "u2", &"y".repeat(10), &[("edit", "old.rs")]),
        branch_summary("bs", "a2", &"s".repeat(summary_len), json!({}), false),
        user("u3", Some("bs"), &"x".repeat(10)),
        assistant("a3", "u3", &"y".repeat(10), &[("read", "new.rs")]),
    ])
}

#[test]
fn budget_stops_before_the_first_message_that_does_not_fit() {
    let s = with_summary(30);
    // 10 + 10 fit in 25; the summary (30) does not, and 20 >= 0.9 * 25 = 22.5 is false,
    // so the summary squeezes in (total 50) and the walk stops.
    let prepared = prepare(&s, "a3", "u1", 25);
    assert_eq!(prepared.entry_ids, ["bs", "u3", "a3"]);
    assert_eq!(prepared.total_tokens, 50);
    // Budget 22: 20 < 19.8 is false, so the summary is left out.
    let prepared = prepare(&s, "a3", "u1", 22);
    assert_eq!(prepared.entry_ids, ["u3", "a3"]);
    assert_eq!(prepared.total_tokens, 20);
    // A plain message never squeezes in: budget 55 takes a3, u3, bs (50), stops at a2.
    let prepared = prepare(&s, "a3", "u1", 55);
    assert_eq!(prepared.entry_ids, ["bs", "u3", "a3"]);
    assert_eq!(prepared.total_tokens, 50);
    // Exactly reaching the budget is allowed.
    let prepared = prepare(&s, "a3", "u1", 60);
    assert_eq!(prepared.entry_ids, ["a2", "bs", "u3", "a3"]);
    // No limit.
    let prepared = prepare(&s, "a3", "u1", 0);
    assert_eq!(prepared.entry_ids, ["u2", "a2", "bs", "u3", "a3"]);
    assert_eq!(prepared.total_tokens, 70);
}

#[test]
fn ninety_percent_rule_is_a_strict_comparison() {
    // Budget 20 after u3 + a3 = 20 would stop at bs; total 20 < 18 is false.
    let s = with_summary(30);
    assert_eq!(prepare(&s, "a3", "u1", 20).entry_ids, ["u3", "a3"]);
    // Budget 23 → 20 < 20.7, the summary is taken.
    assert_eq!(prepare(&s, "a3", "u1", 23).entry_ids, ["bs", "u3", "a3"]);
}

#[test]
fn files_of_the_message_that_ends_the_walk_count_but_older_ones_do_not() {
    let s = session(&[
        user("u1", None, "start"),
        assistant("a0", "u1", &"y".repeat(10), &[("write", "oldest.rs")]),
        assistant("a1", "a0", &"y".repeat(10), &[("read", "stopper.rs")]),
        assistant("a2", "a1", &"y".repeat(10), &[("read", "kept.rs")]),
    ]);
    let prepared = prepare(&s, "a2", "u1", 15);
    assert_eq!(prepared.entry_ids, ["a2"]);
    assert_eq!(prepared.read_files, ["kept.rs", "stopper.rs"]);
    assert_eq!(prepared.modified_files, Vec::<String>::new());
}

#[test]
fn nested_branch_summary_details_count_even_beyond_the_budget_unless_from_a_hook() {
    let s = session(&[
        user("u1", None, "start"),
        branch_summary(
            "b1",
            "u1",
            "older",
            json!({"readFiles": ["r1", "both"], "modifiedFiles": ["m1"]}),
            false,
        ),
        branch_summary(
            "b2",
            "b1",
            "hook",
            json!({"readFiles": ["hook-read"], "modifiedFiles": ["hook-mod"]}),
            true,
        ),
        compaction("c1", "b2", "compacted"),
        user("u2", Some("c1"), &"x".repeat(40)),
        assistant("a2", "u2", "edit", &[("edit", "both")]),
    ]);
    let prepared = prepare(&s, "a2", "u1", 44);
    // a2 (4) + u2 (40) fill the budget; c1 then does not fit and 44 < 39.6 is false.
    assert_eq!(prepared.entry_ids, ["u2", "a2"]);
    assert_eq!(prepared.read_files, ["r1"]);
    assert_eq!(prepared.modified_files, ["both", "m1"]);
}

#[test]
fn empty_branch_summaries_and_compactions_become_messages() {
    let s = session(&[
        user("u1", None, "start"),
        branch_summary("b1", "u1", "", json!(null), false),
        compaction("c1", "b1", "compacted"),
    ]);
    let prepared = prepare(&s, "c1", "u1", 0);
    let roles: Vec<&str> = prepared.messages.iter().map(AgentMessage::role).collect();
    assert_eq!(roles, ["branchSummary", "compactionSummary"]);
    // Compaction details are not read by branch preparation.
    assert_eq!(prepared.read_files, Vec::<String>::new());
}

/// A random tree: entry `i` hangs from an earlier entry (or is a root) and is one of a
/// few kinds, with text of random length.
fn random_session(shape: &[(Option<usize>, u8, usize)]) -> Session {
    let mut lines = Vec::new();
    for (i, &(parent, kind, len)) in shape.iter().enumerate() {
        let id = format!("e{i}");
        let parent = parent.filter(|_| i > 0).map(|p| format!("e{}", p % i));
        let parent = parent.as_deref();
        let text = "t".repeat(len);
        lines.push(match kind % 5 {
            0 => user(&id, parent, &text),
            1 => {
                let mut line = assistant(&id, "x", &text, &[("read", "r.rs"), ("edit", "e.rs")]);
                line["parentId"] = json!(parent);
                line
            }
            2 => {
                let mut line = tool_result(&id, "x");
                line["parentId"] = json!(parent);
                line
            }
            3 => {
                let mut line =
                    branch_summary(&id, "x", &text, json!({"readFiles": ["d.rs"]}), false);
                line["parentId"] = json!(parent);
                line
            }
            _ => json!({"type": "label", "id": id, "parentId": parent, "timestamp": "t",
                        "targetId": "e0", "label": "l"}),
        });
    }
    session(&lines)
}

proptest::proptest! {
    #[test]
    fn collection_is_the_chain_below_the_deepest_common_ancestor(
        shape in proptest::collection::vec(
            (proptest::option::weighted(0.9, 0usize..1000), 0u8..5, 0usize..40), 1..40),
        from in 0usize..1000,
        to in 0usize..1000,
        budget in 0u64..80,
    ) {
        let s = random_session(&shape);
        let (from, to) = (from % shape.len(), to % shape.len());
        let collected = collect_branch_entries(&s, from, to);
        let to_path = s.path(to);
        let from_path = s.path(from);
        // The ancestor is on both paths, and nothing below it on the old path is on the
        // target's path.
        if let Some(ancestor) = collected.common_ancestor {
            proptest::prop_assert!(to_path.contains(&ancestor) && from_path.contains(&ancestor));
        }
        for &index in &collected.entries {
            proptest::prop_assert!(!to_path.contains(&index));
        }
        // One parent chain from just below the ancestor to the old leaf.
        let mut expected_parent = collected.common_ancestor;
        for &index in &collected.entries {
            proptest::prop_assert_eq!(s.parent_of(index), expected_parent);
            expected_parent = Some(index);
        }
        if collected.common_ancestor != Some(from) {
            proptest::prop_assert_eq!(collected.entries.last().copied(), Some(from));
        }

        // The prepared messages are a newest run of the message-producing entries.
        let prepared = prepare_branch_entries(&s, &collected.entries, budget, &chars);
        let producing: Vec<String> = collected
            .entries
            .iter()
            .filter(|&&index| branch_message(&s, index).is_some())
            .map(|&index| s.entries()[index].id.clone())
            .collect();
        proptest::prop_assert!(producing.ends_with(&prepared.entry_ids));
        proptest::prop_assert!(prepared.messages.iter().all(|m| m.role() != "toolResult"));
        proptest::prop_assert_eq!(
            prepared.total_tokens,
            prepared.messages.iter().map(chars).sum::<u64>()
        );
        if budget > 0 && prepared.total_tokens > budget {
            // Only a summary taken last (the oldest one) may overflow the budget.
            let oldest = s.index_of(&prepared.entry_ids[0]).unwrap();
            proptest::prop_assert!(is_summary_entry(&s.entries()[oldest].kind));
        }
        if budget == 0 {
            proptest::prop_assert_eq!(prepared.entry_ids.len(), producing.len());
        }
    }
}

#[test]
fn entry_fields_carry_the_summary_and_file_lists() {
    let details = BranchDetails { read_files: vec!["a".into()], modified_files: vec!["b".into()] };
    let fields =
        branch_summary_entry_fields("S", "leaf1", &details, Some(json!({"input": 5})), false);
    assert_eq!(
        Value::Object(fields),
        json!({"type": "branch_summary", "fromId": "leaf1", "summary": "S",
               "details": {"readFiles": ["a"], "modifiedFiles": ["b"]},
               "usage": {"input": 5}, "fromHook": false})
    );
    let fields = branch_summary_entry_fields("S", "leaf1", &BranchDetails::default(), None, true);
    assert!(!fields.contains_key("usage"));
    assert_eq!(fields.get("fromHook"), Some(&Value::Bool(true)));
    assert_eq!(serde_json::to_value(&details).unwrap(), fields_details(&details));
}

fn fields_details(details: &BranchDetails) -> Value {
    branch_summary_entry_fields("", "", details, None, false)["details"].clone()
}

#[test]
fn fields_make_an_entry_the_parser_reads_back() {
    let details = BranchDetails { read_files: vec!["r".into()], modified_files: vec![] };
    let mut fields = branch_summary_entry_fields("text", "old", &details, None, false);
    fields.insert("id".into(), json!("n1"));
    fields.insert("parentId".into(), json!("u1"));
    fields.insert("timestamp".into(), json!("2025-01-01T00:00:09Z"));
    let entry = crate::entry::Entry::from_value(9, &Value::Object(fields)).unwrap();
    let EntryKind::BranchSummary(data) = &entry.kind else { panic!("{:?}", entry.kind) };
    assert_eq!(data.from_id, "old");
    assert_eq!(data.summary, "text");
    assert!(!data.from_hook);
    let read: BranchDetails = serde_json::from_value(data.details.clone().unwrap()).unwrap();
    assert_eq!(read, details);
}
