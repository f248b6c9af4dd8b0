//! The session store's guarantees: torn tails, I/O faults, interrupted rewrites, unreadable
//! headers, limits, names and permissions.

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use compaction::store::{
    FaultKind, FaultOp, FaultPlan, FsyncPolicy, LockWait, NewEntry, OpenOptions, Parent,
    RewriteOptions, RewriteStep, SessionStore, StoreError, migrate, migrate_with, repair_copy,
    repair_copy_with, session_path,
};
use compaction_core::DiagnosticKind;
use pretty_assertions::assert_eq;
use serde_json::Map;

use super::store_fixtures::*;

/// Writing, waiting briefly for the lock. Tests run in parallel threads of one process, and
/// a child process spawned by another test holds copies of every open descriptor, lock
/// files included, between its fork and its exec; without a wait, a reopen right after a
/// drop can find the lock still taken by this very process.
fn writing() -> OpenOptions {
    OpenOptions {
        lock_wait: LOCK_WAIT,
        ..OpenOptions { tail_grace: std::time::Duration::ZERO, ..OpenOptions::for_writing() }
    }
}

const LOCK_WAIT: LockWait = LockWait::For(std::time::Duration::from_secs(10));

#[test]
fn torn_tail_at_every_offset_of_the_last_three_entries_is_recovered() {
    let dir = tempfile::tempdir().unwrap();
    let text = v3_text().into_bytes();
    let full = compaction_core::parse_session(&text);
    let entries = full.entries();
    // Byte offsets where each line starts.
    let mut starts = vec![0usize];
    for (i, b) in text.iter().enumerate() {
        if *b == b'\n' {
            starts.push(i + 1);
        }
    }
    let first_cut = starts[entries.len() - 2]; // start of the third-to-last entry line
    let mut recovered = 0;
    let mut total = 0;
    for cut in first_cut..text.len() {
        total += 1;
        let path = write(dir.path(), &format!("cut-{cut}.jsonl"), &text[..cut]);
        let (mut store, report) = SessionStore::open(&path, writing()).unwrap();
        // Entries whose whole JSON text lies before the cut survive (a missing `\n` is fine).
        let survivors: Vec<&compaction_core::Entry> =
            entries.iter().filter(|e| starts[e.line - 1] + e.raw().len() <= cut).collect();
        let at_line_start = starts.contains(&cut);
        let complete_without_newline =
            survivors.last().is_some_and(|e| starts[e.line - 1] + e.raw().len() == cut);
        if at_line_start || complete_without_newline {
            assert_eq!(report.torn_tail, None, "cut {cut}");
        } else {
            let torn =
                report.torn_tail.clone().unwrap_or_else(|| panic!("cut {cut}: no torn tail"));
            let line_start = *starts.iter().filter(|s| **s < cut).max().unwrap();
            assert_eq!(std::fs::read(&torn.sidecar).unwrap(), &text[line_start..cut]);
            assert!(!report.messages().is_empty());
        }
        assert_eq!(report.missing_final_newline, complete_without_newline, "cut {cut}");
        let appended = store.append(note(cut as u64)).unwrap();
        drop(store);
        let after = parse_file(&path);
        assert_eq!(problems(&after), Vec::<String>::new(), "cut {cut}");
        let mut expected: Vec<String> = survivors.iter().map(|e| e.id.clone()).collect();
        expected.push(appended.id.clone());
        assert_eq!(ids(&after), expected, "cut {cut}");
        for survivor in &survivors {
            assert_eq!(after.get(&survivor.id).unwrap().raw(), survivor.raw());
        }
        assert_every_line_is_json(&path);
        recovered += 1;
    }
    eprintln!("torn tail: {recovered}/{total} offsets recovered");
    assert_eq!(recovered, total);
    assert!(total > 300, "{total} offsets");
}

#[test]
fn reading_never_modifies_a_torn_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = v3_text();
    text.push_str(r#"{"type":"custom","id":"zz"#);
    let path = write(dir.path(), "s.jsonl", text.as_bytes());
    let (store, report) = SessionStore::open(&path, OpenOptions::for_reading()).unwrap();
    assert_eq!(report.torn_tail, None);
    assert_eq!(store.session().entries().len(), 6);
    assert!(matches!(
        store.session().diagnostics().last().map(|d| d.kind),
        Some(DiagnosticKind::TornLastLine)
    ));
    let mut store = store;
    assert!(matches!(store.append(note(1)), Err(StoreError::ReadOnly { .. })));
    assert_eq!(std::fs::read(&path).unwrap(), text.as_bytes());
}

#[test]
fn appended_entries_fill_the_envelope_and_join_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new").join("deeper").join("s.jsonl");
    let (mut store, report) = SessionStore::create(&path, "/project", writing()).unwrap();
    assert_eq!(report.torn_tail, None);
    assert!(report.malformed_lines.is_empty() && report.messages().is_empty());
    let first = store.append(note(1)).unwrap();
    let second = store.append(note(2)).unwrap();
    let branch = store.append(note_under(3, Parent::Id(first.id.clone()))).unwrap();
    let root = store.append(note_under(4, Parent::Root)).unwrap();
    assert_eq!(first.parent_id, None);
    assert_eq!(second.parent_id.as_deref(), Some(first.id.as_str()));
    assert_eq!(branch.parent_id.as_deref(), Some(first.id.as_str()));
    assert_eq!(root.parent_id, None);
    for entry in [&first, &second, &branch, &root] {
        assert_eq!(entry.id.len(), 8);
        assert!(entry.id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')));
        let stamp = entry.timestamp().unwrap();
        assert_eq!(stamp.len(), 24, "{stamp}");
    }
    let unknown = store.append(note_under(5, Parent::Id("nope".into())));
    assert!(matches!(unknown, Err(StoreError::InvalidEntry { .. })));
    let mut reserved = Map::new();
    reserved.insert("id".into(), "mine".into());
    assert!(matches!(
        store.append(NewEntry::new("custom", reserved)),
        Err(StoreError::InvalidEntry { .. })
    ));
    let in_memory = ids(store.session());
    drop(store);
    let on_disk = parse_file(&path);
    assert_eq!(ids(&on_disk), in_memory);
    assert_eq!(problems(&on_disk), Vec::<String>::new());
    assert_eq!(on_disk.header().unwrap().version, Some(3));
    assert_eq!(on_disk.header().unwrap().cwd.as_deref(), Some("/project"));
    // Permissions: file 0600, created directories 0700.
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    assert_eq!(mode(path.parent().unwrap().parent().unwrap()), 0o700);
    // Creating over an existing file fails and leaves it alone.
    let before = std::fs::read(&path).unwrap();
    assert!(matches!(
        SessionStore::create(&path, "/x", writing()),
        Err(StoreError::AlreadyExists { .. })
    ));
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn names_from_outside_are_checked_before_use_in_paths() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["../escape.jsonl", "a/b.jsonl", "nul\0.jsonl", ".."] {
        assert!(session_path(dir.path(), bad).is_err(), "{bad:?}");
    }
    let sneaky = dir.path().join("sub").join("..").join("x.jsonl");
    assert!(matches!(
        SessionStore::create(&sneaky, "/", writing()),
        Err(StoreError::InvalidName { .. })
    ));
    assert!(!dir.path().join("x.jsonl").exists());
}

#[test]
fn a_complete_last_line_without_newline_gets_one_before_the_next_entry() {
    let dir = tempfile::tempdir().unwrap();
    let text = v3_text();
    let path = write(dir.path(), "s.jsonl", text.trim_end().as_bytes());
    let (mut store, report) = SessionStore::open(&path, writing()).unwrap();
    assert!(report.missing_final_newline);
    store.append(note(1)).unwrap();
    drop(store);
    let after = parse_file(&path);
    assert_eq!(problems(&after), Vec::<String>::new());
    assert_eq!(after.entries().len(), 7);
    assert_every_line_is_json(&path);
}

#[test]
fn unreadable_headers_refuse_writes_and_stay_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let entry = r#"{"type":"custom","id":"c1","parentId":null,"customType":"x"}"#;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("garbled", format!("{{\"type\":\"session\",\x01\n{entry}\n").into_bytes()),
        (
            "bad-field",
            format!("{{\"type\":\"session\",\"version\":\"x\"}}\n{entry}\n").into_bytes(),
        ),
    ];
    for (name, bytes) in cases {
        let path = write(dir.path(), &format!("{name}.jsonl"), &bytes);
        let error = SessionStore::open(&path, writing()).unwrap_err();
        assert!(matches!(error, StoreError::UnreadableHeader { .. }), "{name}: {error}");
        assert!(error.to_string().contains("compaction check --repair"), "{error}");
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{name} changed");
        assert!(matches!(migrate(&path), Err(StoreError::UnreadableHeader { .. })));
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{name} changed by migrate");
        // Reading still works.
        SessionStore::open(&path, OpenOptions::for_reading()).unwrap();
    }
    // The repaired copy has a header and the usable entry; the rest is set aside verbatim.
    let path = dir.path().join("garbled.jsonl");
    let original = std::fs::read(&path).unwrap();
    let repair = repair_copy(&path).unwrap();
    assert!(repair.header_rebuilt);
    assert_eq!(repair.entries, 1);
    assert_eq!(repair.rejected_lines, vec![1]);
    assert_eq!(std::fs::read(repair.rejected.unwrap()).unwrap(), b"{\"type\":\"session\",\x01\n");
    let copy = parse_file(&repair.copy);
    assert_eq!(problems(&copy), Vec::<String>::new());
    assert_eq!(ids(&copy), vec!["c1"]);
    assert_eq!(std::fs::read(&path).unwrap(), original);
    // The copy can be opened for writing.
    let (mut store, _) = SessionStore::open(&repair.copy, writing()).unwrap();
    store.append(note(1)).unwrap();
}

#[test]
fn a_file_whose_first_line_is_no_session_header_is_not_a_session_for_any_use() {
    let dir = tempfile::tempdir().unwrap();
    let entry = r#"{"type":"custom","id":"c1","parentId":null,"customType":"x"}"#;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("object", b"{\"a\":1}\n".to_vec()),
        ("garbage", format!("not json\n{entry}\n").into_bytes()),
        ("headerless", format!("{entry}\n").into_bytes()),
        ("torn-header", br#"{"type":"sess"#.to_vec()),
        ("empty", Vec::new()),
    ];
    for (name, bytes) in cases {
        let path = write(dir.path(), &format!("{name}.jsonl"), &bytes);
        for result in [
            SessionStore::open(&path, writing()).map(drop),
            SessionStore::open(&path, OpenOptions::for_reading()).map(drop),
            migrate(&path).map(drop),
            repair_copy(&path).map(drop),
        ] {
            let error = result.unwrap_err();
            assert!(matches!(error, StoreError::NotASession { .. }), "{name}: {error}");
            assert!(error.to_string().contains("is not a pi session file"), "{error}");
        }
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{name} changed");
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(name) && n != &format!("{name}.jsonl"))
            .collect();
        assert_eq!(names, Vec::<String>::new(), "{name}: no repaired copy, no lock file");
    }
}

#[test]
fn repair_copies_keep_entries_in_order_and_set_aside_every_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = v2_text();
    text.push_str(&format!("{}\n", "x".repeat(500)));
    text.push_str(r#"{"type":"custom","id":"b0000003","parentId":"b0000002","customType":"k"}"#);
    text.push('\n');
    text.push_str(r#"{"type":"cust"#);
    let path = write(dir.path(), "s.jsonl", text.as_bytes());
    let options = RewriteOptions { max_line_bytes: 400, ..RewriteOptions::default() };
    let repair = repair_copy_with(&path, &options).unwrap();
    assert!(!repair.header_rebuilt);
    assert_eq!(repair.rejected_lines, vec![3, 5, 7]);
    let rejected = std::fs::read_to_string(repair.rejected.unwrap()).unwrap();
    assert_eq!(rejected, format!("{{\"broken json\n{}\n{{\"type\":\"cust\n", "x".repeat(500)));
    let copy = parse_file(&repair.copy);
    assert_eq!(problems(&copy), Vec::<String>::new());
    assert_eq!(ids(&copy), vec!["b0000001", "b0000002", "b0000003"]);
    assert_eq!(copy.source_version(), 3);
    assert_eq!(std::fs::read(&path).unwrap(), text.as_bytes());
}

#[test]
fn migration_rewrites_atomically_keeps_a_backup_and_carries_bad_lines_over() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = v2_text();
    text.push_str(&format!("{}\n", "y".repeat(500)));
    let path = write(dir.path(), "s.jsonl", text.as_bytes());
    let options = RewriteOptions { max_line_bytes: 400, ..RewriteOptions::default() };
    let report = migrate_with(&path, LOCK_WAIT, &options).unwrap();
    assert_eq!(report.from_version, 2);
    assert_eq!(report.malformed_lines, 2);
    let backup = report.backup.unwrap();
    assert_eq!(backup, dir.path().join("s.jsonl.bak-v2"));
    assert_eq!(std::fs::read(&backup).unwrap(), text.as_bytes());
    let migrated = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = migrated.lines().collect();
    assert_eq!(lines.len(), 5);
    assert!(lines[0].contains(r#""version":3"#));
    assert_eq!(lines[2], r#"{"broken json"#);
    assert!(lines[3].contains(r#""role":"custom""#));
    assert_eq!(lines[4], "y".repeat(500));
    let session = parse_file(&path);
    assert_eq!(session.source_version(), 3);
    assert_eq!(ids(&session), vec!["b0000001", "b0000002"]);
    // Migrating again changes nothing.
    let again = migrate(&path).unwrap();
    assert_eq!(again.backup, None);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), migrated);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn migration_writes_each_of_two_records_joined_on_one_line_on_a_line_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let header = r#"{"type":"session","id":"s","timestamp":"t","cwd":"/w"}"#;
    let user = |text: &str| {
        format!(
            r#"{{"type":"message","timestamp":"t","message":{{"role":"user","content":"{text}"}}}}"#
        )
    };
    // pi 1.x wrote the second and third records with no newline between them.
    let text =
        format!("{header}\n{}\n{}{}\n{}\n", user("one"), user("two"), user("three"), user("four"));
    let path = write(dir.path(), "s.jsonl", text.as_bytes());
    let report = migrate(&path).unwrap();
    assert_eq!((report.entries, report.malformed_lines), (4, 0));
    let migrated = std::fs::read_to_string(&path).unwrap();
    let contents: Vec<String> = migrated
        .lines()
        .skip(1)
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .map(|entry| entry["message"]["content"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(contents, ["one", "two", "three", "four"]);
    let session = parse_file(&path);
    assert_eq!(ids(&session), vec!["00000001", "00000002", "00000003", "00000004"]);
}

#[test]
fn a_rewrite_interrupted_at_each_step_leaves_the_old_or_the_new_file() {
    let dir = tempfile::tempdir().unwrap();
    let old = v2_text().into_bytes();
    let reference = write(dir.path(), "reference.jsonl", &old);
    migrate(&reference).unwrap();
    let new = std::fs::read(&reference).unwrap();
    let steps = [
        RewriteStep::TempWritten,
        RewriteStep::TempSynced,
        RewriteStep::BackupKept,
        RewriteStep::Renamed,
        RewriteStep::DirSynced,
    ];
    for step in steps {
        let path = write(dir.path(), &format!("{step:?}.jsonl"), &old);
        let options = RewriteOptions { stop_after: Some(step), ..RewriteOptions::default() };
        let result = migrate_with(&path, LOCK_WAIT, &options);
        assert!(matches!(result, Err(StoreError::Interrupted { .. })), "{step:?}");
        let now = std::fs::read(&path).unwrap();
        let expected = if step >= RewriteStep::Renamed { &new } else { &old };
        assert_eq!(&now, expected, "{step:?}");
        // A later migration completes (an earlier backup is not overwritten).
        migrate(&path).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), new, "{step:?}");
        assert!(dir.path().join(format!("{step:?}.jsonl.bak-v2")).exists());
    }
}

#[test]
fn limits_are_errors_with_line_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = v3_text();
    text.push_str(&format!("{}\n", "z".repeat(2000)));
    let path = write(dir.path(), "s.jsonl", text.as_bytes());
    let options = OpenOptions { max_line_bytes: 1000, ..writing() };
    let (mut store, report) = SessionStore::open(&path, options).unwrap();
    assert_eq!(report.malformed_lines, vec![8]);
    let too_long = store
        .session()
        .diagnostics()
        .iter()
        .find(|d| d.kind == DiagnosticKind::LineTooLong)
        .unwrap();
    assert_eq!(too_long.line, 8);
    let mut big = Map::new();
    big.insert("data".into(), "w".repeat(2000).into());
    let error = store.append(NewEntry::new("custom", big)).unwrap_err();
    assert!(error.to_string().contains("line 9"), "{error}");
    let mut deep = Map::new();
    let nested: serde_json::Value =
        serde_json::from_str(&format!("{}1{}", "[".repeat(120), "]".repeat(120))).unwrap();
    let mut value = nested;
    for _ in 0..10 {
        value = serde_json::Value::Array(vec![value]);
    }
    deep.insert("data".into(), value);
    let error = store.append(NewEntry::new("custom", deep)).unwrap_err();
    assert!(error.to_string().contains("too deep"), "{error}");
    store.append(note(1)).unwrap();
    drop(store);
    assert_eq!(
        std::fs::read(&path).unwrap().len(),
        text.len() + {
            let session = parse_file(&path);
            session.entries().last().unwrap().raw().len() + 1
        }
    );
}

/// The append + rewrite scenario the fault tests run: returns the ids acknowledged before
/// the first error, and whether an error happened.
fn fault_scenario(path: &Path, plan: &FaultPlan) -> (Vec<String>, bool) {
    let mut acknowledged = Vec::new();
    let options = OpenOptions { faults: Some(plan.clone()), ..writing() };
    let (mut store, _) = match SessionStore::open(path, options.clone()) {
        Ok(opened) => opened,
        Err(_) => return (acknowledged, true),
    };
    for n in 0..3 {
        match store.append(note(n)) {
            Ok(entry) => acknowledged.push(entry.id),
            Err(_) => return (acknowledged, true),
        }
    }
    drop(store);
    let rewrite = RewriteOptions { faults: Some(plan.clone()), ..RewriteOptions::default() };
    if migrate_with(path, LOCK_WAIT, &rewrite).is_err() {
        return (acknowledged, true);
    }
    let (mut store, _) = match SessionStore::open(path, options) {
        Ok(opened) => opened,
        Err(_) => return (acknowledged, true),
    };
    for n in 3..5 {
        match store.append(note(n)) {
            Ok(entry) => acknowledged.push(entry.id),
            Err(_) => return (acknowledged, true),
        }
    }
    (acknowledged, false)
}

#[test]
fn an_io_fault_at_any_write_or_sync_keeps_every_committed_entry() {
    let dir = tempfile::tempdir().unwrap();
    let original = v2_text().into_bytes();
    let original_ids = ids(&compaction_core::parse_session(&original));
    // Count the operations of a clean run.
    let path = write(dir.path(), "count.jsonl", &original);
    let counter = FaultPlan::new(FaultOp::Write, u64::MAX, FaultKind::Io);
    let (_, failed) = fault_scenario(&path, &counter);
    assert!(!failed);
    let (writes, syncs) = counter.counts();
    assert!(writes >= 6 && syncs >= 7, "{writes} writes, {syncs} syncs");
    let mut cases = 0;
    for (op, count) in [(FaultOp::Write, writes), (FaultOp::Sync, syncs)] {
        for kind in [FaultKind::NoSpace, FaultKind::Io, FaultKind::ShortWrite] {
            if op == FaultOp::Sync && kind == FaultKind::ShortWrite {
                continue;
            }
            for nth in 1..=count {
                let name = format!("{op:?}-{kind:?}-{nth}.jsonl");
                let path = write(dir.path(), &name, &original);
                let plan = FaultPlan::new(op, nth, kind);
                let (acknowledged, failed) = fault_scenario(&path, &plan);
                assert!(plan.fired() && failed, "{name}: the fault did not surface as an error");
                // Reopening (which recovers) finds every acknowledged entry and nothing else.
                let (store, _) = SessionStore::open(&path, writing()).unwrap();
                let session = store.session();
                let expected: BTreeSet<String> =
                    original_ids.iter().cloned().chain(acknowledged.iter().cloned()).collect();
                let found: BTreeSet<String> = ids(session).into_iter().collect();
                assert_eq!(found, expected, "{name}");
                let errors: Vec<_> = session
                    .diagnostics()
                    .iter()
                    .filter(|d| d.severity() >= compaction_core::Severity::Warning)
                    .filter(|d| d.kind != DiagnosticKind::MalformedJson || d.line != 3)
                    .collect();
                assert!(errors.is_empty(), "{name}: {errors:?}");
                drop(store);
                assert_every_line_is_json_except_line_3(&path);
                cases += 1;
            }
        }
    }
    eprintln!(
        "I/O faults: {cases} cases ({writes} writes x 3 kinds, {syncs} syncs x 2 kinds), all recovered"
    );
}

fn assert_every_line_is_json_except_line_3(path: &Path) {
    let text = std::fs::read(path).unwrap();
    assert!(text.ends_with(b"\n"));
    for (i, line) in text[..text.len() - 1].split(|b| *b == b'\n').enumerate() {
        if i == 2 {
            continue;
        }
        assert!(serde_json::from_slice::<serde_json::Value>(line).is_ok(), "line {}", i + 1);
    }
}

#[test]
fn batch_and_never_policies_write_complete_lines() {
    let dir = tempfile::tempdir().unwrap();
    for policy in [FsyncPolicy::Batch(3), FsyncPolicy::Never] {
        let path = write(dir.path(), &format!("{policy:?}.jsonl"), v3_text().as_bytes());
        let options = OpenOptions { fsync: policy, ..writing() };
        let (mut store, _) = SessionStore::open(&path, options).unwrap();
        for n in 0..7 {
            store.append(note(n)).unwrap();
        }
        store.sync().unwrap();
        drop(store);
        let session = parse_file(&path);
        assert_eq!(session.entries().len(), 13);
        assert_eq!(problems(&session), Vec::<String>::new());
    }
}

#[test]
fn a_second_writer_in_the_same_process_is_refused_then_admitted() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "s.jsonl", v3_text().as_bytes());
    let (store, _) = SessionStore::open(&path, writing()).unwrap();
    let error = SessionStore::open(
        &path,
        OpenOptions { tail_grace: std::time::Duration::ZERO, ..OpenOptions::for_writing() },
    )
    .unwrap_err();
    let message = error.to_string();
    assert!(message.contains(&format!("is in use (pid {})", std::process::id())), "{message}");
    let waited = OpenOptions {
        lock_wait: LockWait::For(std::time::Duration::from_millis(100)),
        ..writing()
    };
    assert!(matches!(
        SessionStore::open(&path, waited.clone()),
        Err(StoreError::LockTimeout { .. })
    ));
    // Readers are never blocked.
    SessionStore::open(&path, OpenOptions::for_reading()).unwrap();
    drop(store);
    SessionStore::open(&path, waited).unwrap();
}

#[test]
fn a_line_with_invalid_utf8_stays_in_the_tree_and_keeps_its_bytes_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    // Current format: the bad line is an entry, its child stays attached, appends go after.
    let bad_v3 = invalid_bytes_at_marks(concat!(
        r#"{"type":"message","id":"c0000002","parentId":"a0000001","timestamp":"2025-01-01T00:00:07.000Z","message":{"role":"user","content":"bad @FF byte"}}"#,
        "\n",
        r#"{"type":"message","id":"c0000003","parentId":"c0000002","timestamp":"2025-01-01T00:00:08.000Z","message":{"role":"user","content":"after"}}"#,
        "\n",
    ));
    let mut text = v3_text().into_bytes();
    text.extend_from_slice(&bad_v3);
    let path = write(dir.path(), "s.jsonl", &text);
    let (mut store, _) = SessionStore::open(&path, writing()).unwrap();
    let bad = store.session().entries().iter().find(|e| e.id == "c0000002").unwrap().clone();
    assert!(bad.raw().contains("bad \u{FFFD} byte"));
    let appended = store.append(note(1)).unwrap();
    assert_eq!(appended.parent_id.as_deref(), Some("c0000003"));
    drop(store);
    let on_disk = std::fs::read(&path).unwrap();
    assert_eq!(&on_disk[..text.len()], &text[..], "the bad line was rewritten");
    let session = parse_file(&path);
    let leaf = session.entries().len() - 1;
    let path_ids: Vec<&str> =
        session.path(leaf).iter().map(|&i| session.entries()[i].id.as_str()).collect();
    assert_eq!(path_ids, ["a0000001", "c0000002", "c0000003", appended.id.as_str()]);
    assert_eq!(
        session.diagnostics().iter().map(|d| (d.line, d.kind)).collect::<Vec<_>>(),
        vec![(8, DiagnosticKind::InvalidUtf8)]
    );

    // Older format: migration writes the invalid bytes back where they were.
    let v1 = invalid_bytes_at_marks(concat!(
        r#"{"type":"session","id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#,
        "\n",
        r#"{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"caf@E9 and @F0@9F@98 cut"}}"#,
        "\n",
        r#"{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"user","content":"next"}}"#,
        "\n",
    ));
    let path = write(dir.path(), "v1.jsonl", &v1);
    let report = migrate(&path).unwrap();
    assert_eq!((report.entries, report.malformed_lines), (2, 0));
    let migrated = std::fs::read(&path).unwrap();
    let second = migrated.split(|b| *b == b'\n').nth(1).unwrap();
    let kept = b"caf\xe9 and \xf0\x9f\x98 cut";
    assert!(second.windows(kept.len()).any(|w| w == kept), "{}", String::from_utf8_lossy(second));
    let session = parse_file(&path);
    assert_eq!(ids(&session), vec!["00000001", "00000002"]);
    assert_eq!(session.entries()[1].parent_id.as_deref(), Some("00000001"));
    assert_eq!(session.entries()[0].line_bytes(), second);
}

/// `text` as bytes, with each `@XY` replaced by the byte 0xXY.
fn invalid_bytes_at_marks(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut parts = text.split('@');
    out.extend_from_slice(parts.next().unwrap().as_bytes());
    for part in parts {
        out.push(u8::from_str_radix(&part[..2], 16).unwrap());
        out.extend_from_slice(&part.as_bytes()[2..]);
    }
    out
}
