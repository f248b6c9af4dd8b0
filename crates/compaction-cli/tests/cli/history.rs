//! The commands over the history: prune, undo and recall, pins, branch, restoring files,
//! the probe evaluation, and `summarize` for hosts that append themselves.

use std::path::Path;

use super::*;

#[test]
fn prune_appends_context_edits_and_a_record_and_the_context_shows_placeholders() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.jsonl");
    std::fs::copy(example("coding-session.jsonl"), &file).unwrap();
    let before = std::fs::read(&file).unwrap();
    let rules = [("COMPACTION_PRUNE", r#"{"protectRecentTokens":2000,"minimumSavings":1000}"#)];
    let dry = run_with_env(&["prune", "s.jsonl", "--dry-run"], dir.path(), &rules);
    assert!(dry.starts_with("exit: 0\n") && dry.contains("would prune"), "{dry}");
    assert_eq!(std::fs::read(&file).unwrap(), before, "a dry run writes nothing");

    let out = run_with_env(&["prune", "s.jsonl", "--json"], dir.path(), &rules);
    assert!(out.starts_with("exit: 0\n"), "{out}");
    let after = std::fs::read(&file).unwrap();
    assert_eq!(&after[..before.len()], &before[..], "the log is only appended to");
    let added: Vec<serde_json::Value> = std::str::from_utf8(&after[before.len()..])
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let (entry, edits) = added.split_last().unwrap();
    assert_eq!(entry["type"], "custom");
    assert_eq!(entry["customType"], "compaction.prune");
    let pruned = entry["data"]["entries"].as_array().unwrap();
    // One context edit per pruned output: pi 1.6 shows the placeholders with no package.
    assert_eq!(edits.len(), pruned.len());
    for (edit, item) in edits.iter().zip(pruned) {
        assert_eq!(edit["type"], "context_edit");
        assert_eq!(edit["targetId"], item["id"]);
    }
    let first = pruned[0]["id"].as_str().unwrap().to_owned();

    let context = run(&["context", "s.jsonl"], dir.path());
    assert!(context.contains("[output pruned: "), "{context}");
    assert!(context.contains(&format!("recall entry {first}")), "{context}");
    // Pruning again right away finds nothing worth it.
    let again = run_with_env(&["prune", "s.jsonl"], dir.path(), &rules);
    assert!(again.starts_with("exit: 0\n") && again.contains("nothing"), "{again}");
    assert_eq!(std::fs::read(&file).unwrap(), after);
}

#[test]
fn branch_without_summarize_says_nothing_was_written_and_how_to_move() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("branch-two.jsonl"), dir.path().join("b.jsonl")).unwrap();
    let before = std::fs::read(dir.path().join("b.jsonl")).unwrap();
    let out = run(&["branch", "b.jsonl", "--to", "e80776cc"], dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    for part in [
        "nothing written",
        "the leaf is the last entry of the file",
        "`--leaf e80776cc`",
        "--summarize",
    ] {
        assert!(out.contains(part), "{part}: {out}");
    }
    assert_eq!(std::fs::read(dir.path().join("b.jsonl")).unwrap(), before);
    let json = stdout_json(&run(&["branch", "b.jsonl", "--to", "e80776cc", "--json"], dir.path()));
    assert_eq!(json["written"], false);
    assert!(json["hint"].as_str().unwrap().contains("--leaf e80776cc"), "{json}");
    let help = run(&["branch", "--help"], dir.path());
    assert!(
        help.contains("Summarize the branch left behind") && help.contains("write nothing."),
        "{help}"
    );
    assert!(!help.contains("Move to another entry"), "{help}");
}

#[test]
fn pin_and_unpin_show_in_context_and_refusals_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.jsonl");
    std::fs::copy(fixture("small-linear.jsonl"), &file).unwrap();
    let out = run(&["pin", "s.jsonl", "--entry", "42550013", "--json"], dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    let json: serde_json::Value = serde_json::from_str(
        out.split("--- stdout\n").nth(1).unwrap().split("--- stderr").next().unwrap(),
    )
    .unwrap();
    let pin_id = json["entryId"].as_str().unwrap().to_owned();
    assert_eq!(json["activePins"][0]["sourceEntryId"], "42550013");
    let out = run(&["pin", "s.jsonl", "--text", "Never change the file format."], dir.path());
    assert!(out.starts_with("exit: 0\n") && out.contains("(2 active pins)"), "{out}");
    let context = run(&["context", "s.jsonl"], dir.path());
    assert!(
        context
            .contains("<pinned-instruction>\nNever change the file format.\n</pinned-instruction>"),
        "{context}"
    );
    let before = std::fs::read(&file).unwrap();
    for refused in [
        vec!["pin", "s.jsonl", "--entry", "ffffffff"],
        vec!["pin", "s.jsonl", "--text", "  "],
        vec!["unpin", "s.jsonl", "ffffffff"],
    ] {
        let out = run(&refused, dir.path());
        assert!(out.starts_with("exit: 2\n") && out.contains("nothing written"), "{out}");
        assert_eq!(std::fs::read(&file).unwrap(), before);
    }
    let out = run(&["pin", "s.jsonl"], dir.path());
    assert!(out.starts_with("exit: 2\n"), "{out}");
    let out = run(&["unpin", "s.jsonl", &pin_id], dir.path());
    assert!(out.starts_with("exit: 0\n") && out.contains("1 active pin left"), "{out}");
    let context = run(&["context", "s.jsonl"], dir.path());
    assert_eq!(context.matches("<pinned-instruction>").count(), 1, "{context}");
}

#[test]
fn plan_lists_the_active_pins_among_the_must_keep_facts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(example("coding-session.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let out =
        run(&["pin", "s.jsonl", "--text", "Never change the session file format."], dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    let out = run(&["plan", "s.jsonl", "--keep-recent", "3000"], dir.path());
    assert!(out.contains("must keep:\n  pin: Never change the session file format.\n"), "{out}");
    let out = run(&["plan", "s.jsonl", "--keep-recent", "3000", "--json"], dir.path());
    let json = stdout_json(&out);
    assert_eq!(
        json["mustKeep"]["pins"],
        serde_json::json!(["Never change the session file format."])
    );
}

/// The bundled probe sets after 1, 2 and 3 successive offline compactions: every artifact
/// and constraint probe answered, at least 90% of each other category.
#[test]
fn eval_meets_the_targets_on_the_bundled_probe_sets() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/eval");
    let mut probes: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().ends_with(".probes.json"))
        .map(|path| path.display().to_string())
        .collect();
    probes.sort();
    assert!(probes.len() >= 5, "{probes:?}");
    let mut args = vec!["eval", "--json"];
    args.extend(probes.iter().map(String::as_str));
    let out = run(&args, &root);
    assert!(out.starts_with("exit: 0\n"), "{out}");
    let json = out.split("--- stdout\n").nth(1).unwrap().split("--- stderr").next().unwrap();
    let report: serde_json::Value = serde_json::from_str(json).unwrap();
    for total in report["totals"].as_array().unwrap() {
        let count = &total["compactions"];
        for (category, score) in total["scores"].as_object().unwrap() {
            let answered = score[0].as_u64().unwrap();
            let all = score[1].as_u64().unwrap();
            match category.as_str() {
                "artifact" | "constraint" => {
                    assert_eq!(answered, all, "{category} after {count} compactions: {out}")
                }
                _ => assert!(answered * 10 >= all * 9, "{category} after {count}: {out}"),
            }
        }
    }
    for file in report["files"].as_array().unwrap() {
        for run in file["runs"].as_array().unwrap() {
            assert!(run["compactionsMade"].as_u64().unwrap() >= 1, "{file}");
        }
    }
}

#[test]
fn prune_then_undo_gives_back_the_earlier_context_and_recall_the_originals() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.jsonl");
    std::fs::copy(example("coding-session.jsonl"), &file).unwrap();
    let rules = [("COMPACTION_PRUNE", r#"{"protectRecentTokens":2000,"minimumSavings":1000}"#)];
    let context_before = run(&["context", "s.jsonl", "--format", "json"], dir.path());
    let out = run_with_env(&["prune", "s.jsonl", "--json"], dir.path(), &rules);
    let pruned = stdout_json(&out);
    let first = pruned["candidates"][0]["id"].as_str().unwrap().to_owned();

    let stats = stdout_json(&run(&["stats", "s.jsonl", "--json"], dir.path()));
    assert_eq!(stats["prunedEntries"], pruned["candidates"].as_array().unwrap().len());
    assert!(stats["prunedTokens"].as_u64().unwrap() > 1000, "{stats}");

    // recall prints the original output; search finds it by its text.
    let original = std::fs::read_to_string(&file).unwrap();
    let line: serde_json::Value = original
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["id"] == first)
        .unwrap();
    let text = line["message"]["content"][0]["text"].as_str().unwrap().to_owned();
    let recalled = run(&["recall", "s.jsonl", &first], dir.path());
    assert!(recalled.contains(&text), "{recalled}");
    let word = text.split_whitespace().find(|w| w.len() > 8).unwrap();
    let found = stdout_json(&run(&["search", "s.jsonl", word, "--json"], dir.path()));
    assert!(found["hits"].as_array().unwrap().iter().any(|h| h["id"] == first), "{found}");

    let ledger = stdout_json(&run(&["dropped", "s.jsonl", "--json"], dir.path()));
    assert_eq!(ledger["steps"][0]["kind"], "prune");
    assert_eq!(ledger["steps"][0]["entries"][0], first.as_str());

    let undo = run(&["undo", "s.jsonl"], dir.path());
    assert!(undo.starts_with("exit: 0\n") && undo.contains("undid prune"), "{undo}");
    assert_eq!(run(&["context", "s.jsonl", "--format", "json"], dir.path()), context_before);
    let again = run(&["undo", "s.jsonl"], dir.path());
    assert!(again.contains("nothing to undo"), "{again}");
}

#[test]
fn undo_of_a_compaction_makes_the_path_before_it_current_for_pi_too() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("offline-coding.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let before = run(&["context", "s.jsonl", "--format", "json"], dir.path());
    let args =
        ["run", "s.jsonl", "--keep-recent", "500", "--min-turns", "0", "--strategy", "summarize"];
    let out = run(&args, dir.path());
    assert!(out.contains("appended compaction"), "{out}");
    let undo = run(&["undo", "s.jsonl", "--json"], dir.path());
    let report = stdout_json(&undo);
    assert_eq!(report["undone"], true);
    assert!(!report["step"]["entries"].as_array().unwrap().is_empty());
    // The last line is a plain custom entry under the compaction's parent.
    let text = std::fs::read_to_string(dir.path().join("s.jsonl")).unwrap();
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "custom");
    assert_eq!(last["customType"], "compaction.undo");
    assert_eq!(run(&["context", "s.jsonl", "--format", "json"], dir.path()), before);
}

#[test]
fn eval_names_the_file_and_problem_of_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let old = fixture("v1-legacy.jsonl").display().to_string();
    let probes = format!(
        r#"{{"session":"{old}","probes":[{{"category":"recall","question":"q","expect":["x"]}}]}}"#
    );
    std::fs::write(dir.path().join("old.probes.json"), probes).unwrap();
    let out = run(&["eval", "old.probes.json"], dir.path());
    assert!(out.starts_with("exit: 2\n") && out.contains("run `compaction migrate"), "{out}");
    let bad =
        r#"{"session":"s.jsonl","probes":[{"category":"vibes","question":"q","expect":["x"]}]}"#;
    std::fs::write(dir.path().join("bad.probes.json"), bad).unwrap();
    let out = run(&["eval", "bad.probes.json"], dir.path());
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert!(out.contains("bad.probes.json: probe 1 has category `vibes`"), "{out}");
    let empty = r#"{"session":"s.jsonl","probes":[{"category":"decision","question":"q","absent":[{"text":[" "]}]}]}"#;
    std::fs::write(dir.path().join("empty.probes.json"), empty).unwrap();
    let out = run(&["eval", "empty.probes.json"], dir.path());
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert!(out.contains("empty.probes.json: probe 1 has an `absent` rule without text"), "{out}");
}

#[test]
fn run_restore_files_reads_back_modified_files_from_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("mini-parse");
    std::fs::create_dir_all(cwd.join("src")).unwrap();
    std::fs::write(cwd.join("src/parser.rs"), "// the parser as it is now\n").unwrap();
    let fixture_text = std::fs::read_to_string(fixture("offline-coding.jsonl")).unwrap();
    let mut lines = fixture_text.lines();
    let mut header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    header["cwd"] = serde_json::Value::from(cwd.to_string_lossy().into_owned());
    let mut text = header.to_string();
    for line in lines {
        text.push('\n');
        text.push_str(line);
    }
    text.push('\n');
    std::fs::write(dir.path().join("s.jsonl"), text).unwrap();
    let out = run(
        &[
            "run",
            "s.jsonl",
            "--keep-recent",
            "500",
            "--min-turns",
            "0",
            "--restore-files",
            "--json",
        ],
        dir.path(),
    );
    let json = stdout_json(&out);
    let restored: Vec<&str> = json["restoredFiles"]["restored"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["path"].as_str().unwrap())
        .collect();
    assert_eq!(restored, ["src/parser.rs"], "{out}");
    assert_eq!(json["restoredFiles"]["skipped"][0]["path"], "src/lib.rs", "{out}");
    assert_eq!(json["restoredFiles"]["skipped"][0]["reason"], "missing", "{out}");
    let context = run(&["context", "s.jsonl"], dir.path());
    assert!(
        context.contains("<file path=\"src/parser.rs\">\n// the parser as it is now\n"),
        "{context}"
    );
}

#[test]
fn summarize_prints_the_compaction_run_would_append_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.jsonl");
    std::fs::copy(fixture("offline-coding.jsonl"), &file).unwrap();
    let before = std::fs::read(&file).unwrap();
    let out = run(&["summarize", "s.jsonl", "--keep-recent", "500", "--json"], dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert_eq!(std::fs::read(&file).unwrap(), before, "summarize changed the session file");
    let drafted = stdout_json(&out);
    assert_eq!(drafted["compacted"], true);
    // summarize computes the summary stage only; run's strategy could prune first.
    let ran = run(
        &["run", "s.jsonl", "--keep-recent", "500", "--strategy", "summarize", "--json"],
        dir.path(),
    );
    assert!(ran.starts_with("exit: 0\n"), "{ran}");
    let appended = last_entry(&file);
    for key in ["summary", "firstKeptEntryId", "tokensBefore", "details"] {
        assert_eq!(drafted["compaction"][key], appended[key], "{key} differs from `run`");
        assert_eq!(drafted["entry"][key], appended[key], "{key} differs from `run`");
    }
    assert_eq!(drafted["parentId"], appended["parentId"]);
    assert_eq!(drafted["entry"]["fromHook"], false);
}

#[test]
fn summarize_branch_prints_the_summary_branch_would_append() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("b.jsonl");
    std::fs::copy(fixture("branch-two.jsonl"), &file).unwrap();
    let before = std::fs::read(&file).unwrap();
    let args = ["--branch-from", "6dee93a9", "--branch-to", "e80776cc", "--json"];
    let out = run(&[&["summarize", "b.jsonl"][..], &args[..]].concat(), dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert_eq!(std::fs::read(&file).unwrap(), before, "summarize changed the session file");
    let drafted = stdout_json(&out);
    assert_eq!(drafted["summarized"], true);
    assert_eq!(drafted["fromId"], "6dee93a9");
    assert_eq!(drafted["targetId"], "e80776cc");
    let ran = run(
        &["branch", "b.jsonl", "--from", "6dee93a9", "--to", "e80776cc", "--summarize", "--json"],
        dir.path(),
    );
    assert!(ran.starts_with("exit: 0\n"), "{ran}");
    let appended = last_entry(&file);
    assert_eq!(drafted["summary"]["summary"], appended["summary"]);
    assert_eq!(drafted["summary"]["details"], appended["details"]);
    assert_eq!(drafted["entry"]["fromId"], appended["fromId"]);
}

#[test]
fn summarize_nothing_to_compact_exits_0_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("small-linear.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let out = run(&["summarize", "s.jsonl", "--json"], dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    let json = stdout_json(&out);
    assert_eq!(json["compacted"], false);
    assert!(json["reason"].as_str().is_some_and(|r| !r.is_empty()), "{out}");
}

#[test]
fn summarize_reads_under_the_shared_lock_and_refuses_while_a_writer_holds_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("offline-coding.jsonl"), dir.path().join("s.jsonl")).unwrap();
    // The lock is an flock on the session file itself.
    let lock = std::fs::File::open(dir.path().join("s.jsonl")).unwrap();
    lock.lock().unwrap();
    let out = run(&["summarize", "s.jsonl", "--keep-recent", "500", "--json"], dir.path());
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert!(out.contains("s.jsonl"), "{out}");
    lock.unlock().unwrap();
    // Readers share the lock: another reader holding it does not stop summarize.
    lock.lock_shared().unwrap();
    let out = run(&["summarize", "s.jsonl", "--keep-recent", "500", "--json"], dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
}

#[test]
fn summarize_asks_extensions_like_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("offline-coding.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let out = run(
        &[
            "summarize",
            "s.jsonl",
            "--keep-recent",
            "500",
            "--json",
            "--extension",
            r#"cat >/dev/null; echo '{"action":"replace","summary":"Hand-made checkpoint","details":{"by":"script"}}'"#,
        ],
        dir.path(),
    );
    assert!(out.starts_with("exit: 0\n"), "{out}");
    let json = stdout_json(&out);
    assert_eq!(json["compaction"]["summary"], "Hand-made checkpoint");
    assert_eq!(json["compaction"]["details"]["by"], "script");
    assert_eq!(json["entry"]["fromHook"], true);
    assert!(json["extension"].is_string(), "{out}");
}

#[test]
fn summarize_reason_reaches_extensions() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("offline-coding.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let event_file = dir.path().join("event.json");
    let extension = format!("cat > '{}'; echo '{{\"action\":\"continue\"}}'", event_file.display());
    for (flag, expected) in
        [(None, "manual"), (Some("threshold"), "threshold"), (Some("overflow"), "overflow")]
    {
        let mut args = vec!["summarize", "s.jsonl", "--keep-recent", "500", "--json"];
        args.extend(["--extension", &extension]);
        if let Some(reason) = flag {
            args.extend(["--reason", reason]);
        }
        let out = run(&args, dir.path());
        assert!(out.starts_with("exit: 0\n"), "{out}");
        let event: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&event_file).unwrap()).unwrap();
        assert_eq!(event["reason"], expected, "{event}");
    }
    let out = run(&["summarize", "s.jsonl", "--reason", "sometimes"], dir.path());
    assert!(out.starts_with("exit: 2\n"), "{out}");
}

#[test]
fn context_of_a_pi_1_6_session_shows_system_messages_readably_and_applies_context_edits() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("pi16/context-edits.jsonl"), dir.path().join("s.jsonl")).unwrap();
    // Just after the edit that replaces the output of `read secret.env`.
    let out = run(&["context", "s.jsonl", "--leaf", "3ba44b07"], dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert!(out.contains("── system ──\n[section preamble]\n"), "{out}");
    assert!(out.contains("[tools declared] read, bash, edit, write"), "{out}");
    assert!(!out.contains("\"toolsAdded\""), "no raw JSON for system messages: {out}");
    // The session replaces a tool output through a context edit: the replacement is shown.
    assert!(out.contains("[secret.env contents removed]"), "{out}");
    assert!(!out.contains("env line 1: value=919"), "{out}");
    // A later edit omits that output: the call stays, its result is gone.
    let out = run(&["context", "s.jsonl", "--leaf", "79a17893"], dir.path());
    assert!(out.contains("[tool call read call_1]"), "{out}");
    assert!(!out.contains("── tool result (read call_1)"), "{out}");
}

#[test]
fn a_lone_surrogate_escape_is_read_as_pi_reads_it_and_kept_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.jsonl");
    let header = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;
    // `\ud83d` without its low half: valid JSON, and pi keeps the lone surrogate.
    let user = r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"deploy the rocket \ud83d now","timestamp":1}}"#;
    let reply = r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"On it."}],"timestamp":2}}"#;
    std::fs::write(&file, format!("{header}\n{user}\n{reply}\n")).unwrap();
    let check = run(&["check", "s.jsonl"], dir.path());
    assert!(check.starts_with("exit: 0\n"), "{check}");
    let context = run(&["context", "s.jsonl"], dir.path());
    assert!(context.contains("deploy the rocket \u{fffd} now"), "{context}");
    let recalled = run(&["recall", "s.jsonl", "u1"], dir.path());
    assert!(recalled.contains("deploy the rocket"), "{recalled}");
    assert!(!recalled.contains("null"), "{recalled}");
    // A write keeps the line byte for byte.
    let pinned = run(&["pin", "s.jsonl", "--text", "keep the rocket"], dir.path());
    assert!(pinned.starts_with("exit: 0\n"), "{pinned}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains(user), "{text}");
}

#[test]
fn tree_hides_usage_entries_as_pi_1_6_does_and_keeps_their_children() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("pi16/cache-warm-images.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let text = std::fs::read_to_string(dir.path().join("s.jsonl")).unwrap();
    let usage_ids: Vec<String> = text
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|entry| entry["type"] == "usage")
        .map(|entry| entry["id"].as_str().unwrap().to_owned())
        .collect();
    assert!(!usage_ids.is_empty());
    let out = run(&["tree", "s.jsonl", "--full"], dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    for id in &usage_ids {
        assert!(!out.contains(id.as_str()), "usage entry {id} shown: {out}");
    }
    // The conversation after them is still there, down to the leaf.
    assert!(out.contains("← leaf"), "{out}");
}
