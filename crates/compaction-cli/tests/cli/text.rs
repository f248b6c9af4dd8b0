//! The CLI's text: counts agree with their nouns ("1 error", "2 entries"), a preview never
//! joins an empty part ("edit (error): …", not "editerror: : …"), a comparison says what
//! the numbers show, and an error that names ids lists them where the user can see them.

use super::*;

/// A session with one long user turn, a failed edit with text and one without, a
/// dangling entry (one error), and a pin.
fn session(dir: &Path) -> PathBuf {
    let big = "word ".repeat(2000);
    let lines = [
        serde_json::json!({"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}),
        serde_json::json!({"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":format!("Fix the parser. {big}")}}),
        serde_json::json!({"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"edit","arguments":{"path":"src/p.rs"}}],"provider":"p","model":"m","stopReason":"toolUse"}}),
        serde_json::json!({"type":"message","id":"t1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"edit","content":[{"type":"text","text":"Could not find the text to replace in src/p.rs"}],"isError":true}}),
        serde_json::json!({"type":"message","id":"t2","parentId":"a1","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"edit","content":[],"isError":true}}),
    ];
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let path = dir.join("s.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn tree_joins_a_tool_results_parts_without_empty_ones() {
    let dir = tempfile::tempdir().unwrap();
    session(dir.path());
    insta::assert_snapshot!(run(&["tree", "s.jsonl"], dir.path()));
}

#[test]
fn nothing_to_compact_says_what_the_numbers_show() {
    let dir = tempfile::tempdir().unwrap();
    session(dir.path());
    let over = run(&["plan", "s.jsonl", "--keep-recent", "100", "--min-turns", "0"], dir.path());
    assert!(over.contains("are more than the 100 recent tokens"), "{over}");
    assert!(!over.contains("fit in"), "{over}");
    insta::assert_snapshot!(over);
    let under = run(&["plan", "s.jsonl", "--keep-recent", "20000"], dir.path());
    assert!(under.contains("fit in the 20000 recent tokens"), "{under}");
}

#[test]
fn counts_agree_with_their_nouns() {
    let dir = tempfile::tempdir().unwrap();
    let path = session(dir.path());
    // One entry whose parent is missing: one error.
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!(
        "{}\n",
        serde_json::json!({"type":"message","id":"x1","parentId":"gone","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"hi"}})
    ));
    std::fs::write(&path, text).unwrap();
    let check = run(&["check", "s.jsonl"], dir.path());
    insta::assert_snapshot!(check);
    let stats = run(&["stats", "s.jsonl"], dir.path());
    for wrong in ["1 errors", "1 warnings", "1 notes", "1 entries", "1 messages", "1 tokens"] {
        assert!(!check.contains(wrong) && !stats.contains(wrong), "{wrong}:\n{check}\n{stats}");
    }
    let tokens = std::process::Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(["tokens", "--estimator", "heuristic"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            child.stdin.take().unwrap().write_all(b"a")?;
            child.wait_with_output()
        })
        .unwrap();
    let tokens = String::from_utf8_lossy(&tokens.stdout).into_owned();
    assert_eq!(tokens.trim(), "1 token (heuristic estimator, 1 byte, 1 char)");
}

#[test]
fn a_wrong_unpin_id_lists_the_active_pins_by_id() {
    let dir = tempfile::tempdir().unwrap();
    session(dir.path());
    let pinned =
        run(&["pin", "s.jsonl", "--text", "Never edit generated files.", "--json"], dir.path());
    let pin_id = stdout_json(&pinned)["entryId"].as_str().unwrap().to_owned();
    let out = run(&["unpin", "s.jsonl", "nope"], dir.path());
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert!(out.contains(&pin_id), "the error does not name the pin {pin_id}: {out}");
    assert!(out.contains("Never edit generated files."), "{out}");
    assert!(!out.contains("`compaction context` lists"), "{out}");
    // And with that id, it works.
    let out = run(&["unpin", "s.jsonl", &pin_id], dir.path());
    assert!(out.starts_with("exit: 0\n") && out.contains("(0 active pins left)"), "{out}");
}
