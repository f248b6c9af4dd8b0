//! Restoring recently modified files after a compaction, on real files: the budgets hold,
//! paths outside the session's `cwd` (absolute, `..`, symlinks) are refused, binary and
//! missing files are skipped, and the harness does it after every compaction.

use std::path::Path;

use compaction::restore::{RestoreLimits, SkipReason, restore_files};
use compaction::store::{FsyncPolicy, NewEntry, OpenOptions, SessionStore};
use compaction_core::redact::Redactor;
use compaction_core::restore::RESTORED_FILES_CUSTOM_TYPE;
use compaction_core::tokens::estimator_by_name;
use compaction_core::{AgentMessage, EntryKind};
use serde_json::{Map, Value, json};

fn fields(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap()
}

/// A session in `cwd` whose assistant edited `paths` in order (the last is the most
/// recent), then a compaction listing them; returns the store and the compaction's id.
fn session_editing(dir: &Path, cwd: &Path, paths: &[&str]) -> (SessionStore, String) {
    let options = OpenOptions { fsync: FsyncPolicy::Never, ..OpenOptions::for_writing() };
    let (mut store, _) =
        SessionStore::create(&dir.join("session.jsonl"), &cwd.to_string_lossy(), options).unwrap();
    store
        .append(NewEntry::new(
            "message",
            fields(json!({"message": {"role": "user", "content": "edit the files"}})),
        ))
        .unwrap();
    for (number, path) in paths.iter().enumerate() {
        let call = format!("c{number}");
        store
            .append(NewEntry::new(
                "message",
                fields(json!({"message": {"role": "assistant", "content": [
                    {"type": "toolCall", "id": call, "name": "edit", "arguments": {"path": path}}
                ]}})),
            ))
            .unwrap();
    }
    let first = store.session().entries()[0].id.clone();
    let compaction = store
        .append(NewEntry::new(
            "compaction",
            fields(json!({
                "summary": "S", "firstKeptEntryId": first, "tokensBefore": 100,
                "details": {"readFiles": [], "modifiedFiles": paths},
            })),
        ))
        .unwrap();
    (store, compaction.id)
}

#[test]
fn budgets_order_and_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("project");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(cwd.join("src")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "TOP SECRET\n").unwrap();
    std::fs::write(cwd.join("src/big.rs"), "fn big() {}\n".repeat(400)).unwrap();
    std::fs::write(cwd.join("src/small.rs"), "fn small() {}\n").unwrap();
    std::fs::write(cwd.join("logo.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), cwd.join("link.txt")).unwrap();
    let absolute = outside.join("secret.txt").to_string_lossy().into_owned();
    let paths = [
        "src/small.rs",
        "../outside/secret.txt",
        absolute.as_str(),
        "link.txt",
        "logo.png",
        "gone.rs",
        "src/big.rs",
    ];
    let (mut store, compaction) = session_editing(dir.path(), &cwd, &paths);
    let estimator = estimator_by_name("pi").unwrap();
    let limits = RestoreLimits { files: 10, per_file_tokens: 300, total_tokens: 305 };
    let outcome = restore_files(
        &mut store,
        &compaction,
        limits,
        None,
        estimator.as_ref(),
        &Redactor::default(),
    )
    .unwrap();

    // Most recent first; the big file is cut to the per-file budget, and the small one fits
    // in the 5 tokens of the total that are left.
    let restored: Vec<(&str, bool)> =
        outcome.restored.iter().map(|f| (f.path.as_str(), f.truncated)).collect();
    assert_eq!(restored, [("src/big.rs", true), ("src/small.rs", false)]);
    assert!(outcome.restored.iter().all(|f| f.tokens <= 300));
    assert!(outcome.restored.iter().map(|f| f.tokens).sum::<u64>() <= 305);
    let reason = |path: &str| outcome.skipped.iter().find(|s| s.path == path).map(|s| s.reason);
    assert_eq!(reason("../outside/secret.txt"), Some(SkipReason::OutsideCwd));
    assert_eq!(reason(&absolute), Some(SkipReason::OutsideCwd));
    assert_eq!(reason("link.txt"), Some(SkipReason::OutsideCwd));
    assert_eq!(reason("logo.png"), Some(SkipReason::Binary));
    assert_eq!(reason("gone.rs"), Some(SkipReason::Missing));

    let entry = outcome.entry.clone().unwrap();
    assert_eq!(entry.parent_id.as_deref(), Some(compaction.as_str()));
    let EntryKind::CustomMessage { custom_type, display } = &entry.kind else {
        panic!("not a custom_message")
    };
    assert_eq!(custom_type, RESTORED_FILES_CUSTOM_TYPE);
    assert!(!display);
    let text = entry.to_value().unwrap()["content"].as_str().unwrap().to_owned();
    assert!(!text.contains("TOP SECRET"), "{text}");
    assert!(text.contains("<file path=\"src/big.rs\" truncated=\"true\">\nfn big() {}\n"));
    // The model sees it: the context ends with the restored files as a user message.
    let session = store.session();
    let context = compaction_core::context::build_context(session, session.leaf());
    let Some(AgentMessage::User(last)) = context.llm_messages(session).last().cloned() else {
        panic!("the context does not end with a user message")
    };
    assert!(last.content.joined_text().contains("fn big() {}"));
}

#[test]
fn the_total_budget_limits_how_many_files_are_restored() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("p");
    std::fs::create_dir_all(&cwd).unwrap();
    for name in ["a.txt", "b.txt", "c.txt"] {
        std::fs::write(cwd.join(name), "word ".repeat(200)).unwrap();
    }
    let (mut store, compaction) = session_editing(dir.path(), &cwd, &["a.txt", "b.txt", "c.txt"]);
    let estimator = estimator_by_name("pi").unwrap();
    // Each file is 250 tokens (pi's rule: 1000 characters / 4).
    let limits = RestoreLimits { files: 2, per_file_tokens: 5000, total_tokens: 20_000 };
    let outcome = restore_files(
        &mut store,
        &compaction,
        limits,
        None,
        estimator.as_ref(),
        &Redactor::default(),
    )
    .unwrap();
    let paths: Vec<&str> = outcome.restored.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["c.txt", "b.txt"], "the two most recent");
    assert!(outcome.restored.iter().all(|f| !f.truncated && f.tokens == 250));
    let limits = RestoreLimits { files: 3, per_file_tokens: 5000, total_tokens: 500 };
    drop(store);
    std::fs::remove_file(dir.path().join("session.jsonl")).unwrap();
    let (mut store, compaction) = session_editing(dir.path(), &cwd, &["a.txt", "b.txt", "c.txt"]);
    let outcome = restore_files(
        &mut store,
        &compaction,
        limits,
        None,
        estimator.as_ref(),
        &Redactor::default(),
    )
    .unwrap();
    assert_eq!(outcome.restored.len(), 2);
    assert_eq!(
        outcome.skipped.iter().map(|s| s.reason).collect::<Vec<_>>(),
        [SkipReason::NoBudget]
    );
    // Nothing restorable: nothing appended.
    let limits = RestoreLimits { files: 0, ..limits };
    let before = std::fs::read(dir.path().join("session.jsonl")).unwrap();
    let outcome = restore_files(
        &mut store,
        &compaction,
        limits,
        None,
        estimator.as_ref(),
        &Redactor::default(),
    )
    .unwrap();
    assert!(outcome.entry.is_none());
    assert_eq!(std::fs::read(dir.path().join("session.jsonl")).unwrap(), before);
}

/// Files named by a session that are no regular text file of a readable size, generated by
/// class: a FIFO with no writer, a directory, a socket, a text file over the read bound, a
/// link inside the folder to `/dev/zero`, each named three ways (`NAME`, `./NAME`,
/// `sub/../NAME`). None may block, none may be read past the bound, each is skipped with its
/// reason. Instance `i` (in the order generated) is in the test part when `i % 3 == 0`.
#[test]
fn files_that_are_no_regular_file_or_too_large_are_skipped_without_blocking_or_reading_them() {
    use std::os::unix::net::UnixListener;
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("project");
    std::fs::create_dir_all(cwd.join("sub")).unwrap();
    let status = std::process::Command::new("mkfifo").arg(cwd.join("pipe")).status().unwrap();
    assert!(status.success());
    std::fs::create_dir(cwd.join("folder")).unwrap();
    let _socket = UnixListener::bind(cwd.join("socket")).unwrap();
    let line = "let value = compute(input); // an ordinary line of a large generated file\n";
    let big = line
        .repeat(usize::try_from(compaction::restore::MAX_RESTORE_BYTES).unwrap() / line.len() + 1);
    std::fs::write(cwd.join("huge.rs"), big).unwrap();
    std::os::unix::fs::symlink("/dev/zero", cwd.join("zero")).unwrap();
    let kinds = [
        ("pipe", SkipReason::Unreadable),
        ("folder", SkipReason::Unreadable),
        ("socket", SkipReason::Unreadable),
        ("huge.rs", SkipReason::TooLarge),
        ("zero", SkipReason::OutsideCwd),
    ];
    let mut instances = Vec::new();
    for (name, reason) in kinds {
        for shape in ["{}", "./{}", "sub/../{}"] {
            instances.push((shape.replace("{}", name), reason));
        }
    }
    let (mut dev, mut test) = ((0, 0), (0, 0));
    let mut failures = Vec::new();
    let estimator = estimator_by_name("pi").unwrap();
    for (index, (path, reason)) in instances.iter().enumerate() {
        let part = if index.is_multiple_of(3) { &mut test } else { &mut dev };
        part.1 += 1;
        let session_dir = tempfile::tempdir().unwrap();
        let (mut store, compaction) = session_editing(session_dir.path(), &cwd, &[path]);
        let limits = RestoreLimits { files: 10, per_file_tokens: 100_000, total_tokens: 100_000 };
        let started = std::time::Instant::now();
        let outcome = restore_files(
            &mut store,
            &compaction,
            limits,
            None,
            estimator.as_ref(),
            &Redactor::default(),
        )
        .unwrap();
        let skipped: Vec<SkipReason> = outcome.skipped.iter().map(|s| s.reason).collect();
        if skipped == [*reason] && outcome.restored.is_empty() && started.elapsed().as_secs() < 5 {
            part.0 += 1;
        } else {
            failures.push(format!(
                "#{index} {path}: skipped {skipped:?}, restored {}, {:?}",
                outcome.restored.len(),
                started.elapsed()
            ));
        }
    }
    println!("restore candidates: dev {}/{}, test {}/{}", dev.0, dev.1, test.0, test.1);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
