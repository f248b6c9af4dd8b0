//! The write path against other writers and odd files: a program appending while a
//! compaction runs, older and newer formats, torn bare values, full disks, interrupted
//! migrations, symbolic links, modes, FIFOs and copies.

use std::io::Write as _;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use compaction::compact::{CompactError, CompactRequest, Compactor};
use compaction::extension::Extensions;
use compaction::offline::OfflineSummarizer;
use compaction::store::{
    FaultKind, FaultOp, FaultPlan, FileChange, LockWait, OpenOptions, RewriteOptions, RewriteStep,
    SessionStore, StoreError, migrate, migrate_with,
};
use compaction::summarizer::{Summarizer, SummaryProgress, SummaryRequest, SummaryResponse};
use compaction_core::settings::CompactionSettings;
use compaction_core::tokens::estimator_by_name;
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use super::store_fixtures::*;

fn writing() -> OpenOptions {
    OpenOptions {
        lock_wait: LockWait::For(Duration::from_secs(10)),
        ..OpenOptions { tail_grace: std::time::Duration::ZERO, ..OpenOptions::for_writing() }
    }
}

fn core_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../compaction-core/tests/fixtures").join(name)
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The offline summarizer, with another program writing `bytes` to the session while the
/// first summarizer call is in flight (as pi appending without the lock would).
struct Meddling {
    path: PathBuf,
    bytes: Mutex<Option<Vec<u8>>>,
}

impl Summarizer for Meddling {
    fn summarize<'a>(
        &'a self,
        request: &'a SummaryRequest,
        cancel: &'a CancellationToken,
        progress: &'a (dyn Fn(SummaryProgress) + Send + Sync),
    ) -> futures_util::future::BoxFuture<
        'a,
        Result<SummaryResponse, compaction::error::SummarizerError>,
    > {
        if let Some(bytes) = self.bytes.lock().unwrap().take() {
            let mut file = std::fs::OpenOptions::new().append(true).open(&self.path).unwrap();
            file.write_all(&bytes).unwrap();
        }
        OfflineSummarizer.summarize(request, cancel, progress)
    }

    fn label(&self) -> String {
        "meddling".into()
    }
}

fn user_line(id: &str, parent: &str, text: &str) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-03-04T10:00:00.000Z","message":{{"role":"user","content":"{text}","timestamp":0}}}}"#
    )
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Outcomes {
    replanned: usize,
    refused: usize,
    lost: usize,
}

/// One compaction of the realistic fixture while `meddle` bytes are appended mid-flight.
/// Returns whether it re-planned (the entry follows the new line, which stays in the
/// context) or refused (the file is the original plus exactly the other writer's bytes).
fn compaction_with_a_concurrent_append(meddle: &dyn Fn(&str) -> Vec<u8>) -> Outcomes {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::copy(core_fixture("offline-coding.jsonl"), &path).unwrap();
    let before = std::fs::read(&path).unwrap();
    let leaf_id = parse_file(&path).entries().last().unwrap().id.clone();
    let bytes = meddle(&leaf_id);
    let summarizer = Meddling { path: path.clone(), bytes: Mutex::new(Some(bytes.clone())) };
    let settings = CompactionSettings {
        keep_recent_tokens: 500,
        min_turns_to_keep: 0,
        estimator: "pi".to_owned(),
        ..CompactionSettings::default()
    };
    let estimator = estimator_by_name("pi").unwrap();
    let extensions = Extensions::new();
    let compactor = Compactor {
        summarizer: &summarizer,
        settings: &settings,
        context_window: 20_000,
        estimator: estimator.as_ref(),
        redactor: Default::default(),
        extensions: &extensions,
    };
    let (mut store, _) = SessionStore::open(&path, writing()).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let result = runtime.block_on(compactor.run(
        &mut store,
        &CompactRequest::default(),
        &CancellationToken::new(),
        &|_| {},
    ));
    drop(store);
    let after = std::fs::read(&path).unwrap();
    let mut expected = before.clone();
    expected.extend_from_slice(&bytes);
    let mut outcomes = Outcomes::default();
    match result {
        Err(CompactError::Changed { .. }) if after == expected => outcomes.refused += 1,
        Ok(outcome) if after.starts_with(&expected) => {
            // One more complete line, attached to the new entry, whose message stays in
            // the context after the compaction.
            let session = parse_file(&path);
            let new_id = session.entries()[session.entries().len() - 2].id.clone();
            let fine = after[expected.len()..].iter().filter(|&&b| b == b'\n').count() == 1
                && outcome.entry.parent_id.as_deref() == Some(new_id.as_str())
                && problems(&session).is_empty()
                && compaction_core::context::build_context(&session, session.leaf())
                    .items
                    .iter()
                    .any(|item| session.entries()[item.entry].id == new_id);
            if fine {
                outcomes.replanned += 1;
            } else {
                outcomes.lost += 1;
            }
        }
        Ok(_) | Err(_) => outcomes.lost += 1,
    }
    outcomes
}

/// Trials per scenario: 100 by default (about 3 s each here); RELIABILITY.md records runs
/// with `COMPACTION_CONCURRENT_TRIALS=200`.
fn trials() -> usize {
    std::env::var("COMPACTION_CONCURRENT_TRIALS").ok().and_then(|v| v.parse().ok()).unwrap_or(100)
}

fn tally(meddle: &dyn Fn(usize, &str) -> Vec<u8>) -> Outcomes {
    let mut total = Outcomes::default();
    for trial in 0..trials() {
        let outcome = compaction_with_a_concurrent_append(&|leaf| meddle(trial, leaf));
        total.replanned += outcome.replanned;
        total.refused += outcome.refused;
        total.lost += outcome.lost;
    }
    total
}

#[test]
fn a_complete_line_appended_during_a_compaction_stays_in_the_context() {
    let outcomes = tally(&|trial, leaf| {
        format!("{}\n", user_line(&format!("ca{trial:06x}"), leaf, "and one more thing"))
            .into_bytes()
    });
    eprintln!("complete line appended mid-compaction: {outcomes:?}");
    assert_eq!(outcomes, Outcomes { replanned: trials(), refused: 0, lost: 0 });
}

#[test]
fn a_half_written_line_during_a_compaction_is_never_fused_with() {
    let outcomes = tally(&|trial, leaf| {
        let line = user_line(&format!("cb{trial:06x}"), leaf, "half of it");
        // Cut anywhere inside the line (never at its end).
        let cut = 1 + trial % (line.len() - 1);
        line.as_bytes()[..cut].to_vec()
    });
    eprintln!("half-written line appended mid-compaction: {outcomes:?}");
    assert_eq!(outcomes, Outcomes { replanned: 0, refused: trials(), lost: 0 });
}

#[test]
fn a_line_on_another_branch_during_a_compaction_is_refused() {
    let outcomes = tally(&|trial, _leaf| {
        format!("{}\n", user_line(&format!("cc{trial:06x}"), "5e550003", "elsewhere")).into_bytes()
    });
    eprintln!("line on another branch mid-compaction: {outcomes:?}");
    assert_eq!(outcomes, Outcomes { replanned: 0, refused: trials(), lost: 0 });
}

#[test]
fn an_append_after_another_writer_is_refused_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "s.jsonl", v3_text().as_bytes());
    let (mut store, _) = SessionStore::open(&path, writing()).unwrap();
    let leaf = store.session().entries().last().unwrap().id.clone();
    let other = |bytes: &[u8]| {
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(bytes).unwrap();
    };
    other(b"{\"type\":\"mess");
    let error = store.append(note(1)).unwrap_err();
    assert!(
        matches!(error, StoreError::Changed { change: FileChange::Incomplete { .. }, .. }),
        "{error}"
    );
    assert!(store.reload().is_err(), "a reload never accepts an incomplete line");
    let line = user_line("beefcafe", &leaf, "x");
    other(&line.as_bytes()[13..]);
    other(b"\n");
    let error = store.append(note(2)).unwrap_err();
    assert!(matches!(error, StoreError::Changed { change: FileChange::Grew { .. }, .. }));
    store.reload().unwrap();
    let entry = store.append(note(3)).unwrap();
    assert_eq!(entry.parent_id.as_deref(), Some("beefcafe"));
    // A rewrite of the same length is noticed by its last bytes.
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("\"note\"", "\"NOTE\"")).unwrap();
    let error = store.append(note(4)).unwrap_err();
    assert!(matches!(error, StoreError::Changed { change: FileChange::Rewritten { .. }, .. }));
    drop(store);
    assert_every_line_is_json(&path);
}

#[test]
fn writing_to_an_older_format_migrates_it_on_disk_first_so_every_id_is_on_disk() {
    for (name, version) in [("v1-legacy.jsonl", 1), ("v2-legacy.jsonl", 2)] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::copy(core_fixture(name), &path).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let original = std::fs::read(&path).unwrap();
        let (mut store, report) = SessionStore::open(&path, writing()).unwrap();
        let migrated = report.migrated.clone().unwrap();
        assert_eq!(migrated.from_version, version);
        assert!(report.messages().iter().any(|m| m.contains("migrated on disk")), "{report:?}");
        let entry = store.append(note(1)).unwrap();
        drop(store);
        let backup = migrated.backup.unwrap();
        assert_eq!(std::fs::read(&backup).unwrap(), original, "{name}");
        let on_disk = parse_file(&path);
        assert_eq!(on_disk.source_version(), 3, "{name}");
        assert!(!on_disk.is_migrated());
        let parent = entry.parent_id.unwrap();
        assert!(on_disk.contains(&parent), "{name}: parent {parent} is not on disk");
        assert_eq!(problems(&on_disk), Vec::<String>::new(), "{name}");
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o644);
    }
}

#[test]
fn a_newer_format_version_is_read_with_a_warning_and_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let text = v3_text().replacen("\"version\":3", "\"version\":99", 1);
    let path = write(dir.path(), "s.jsonl", text.as_bytes());
    let error = SessionStore::open(&path, writing()).unwrap_err();
    assert!(matches!(error, StoreError::UnsupportedVersion { version: 99, .. }), "{error}");
    assert!(matches!(migrate(&path), Err(StoreError::UnsupportedVersion { .. })));
    let (_, report) = SessionStore::open(&path, OpenOptions::for_reading()).unwrap();
    assert!(report.newer_version);
    assert!(report.messages().iter().any(|m| m.contains("version 99")), "{report:?}");
    assert_eq!(std::fs::read(&path).unwrap(), text.as_bytes());
}

#[test]
fn a_file_with_a_byte_order_mark_is_read_but_never_written_as_pi_1_6_cannot_read_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = vec![0xEF, 0xBB, 0xBF];
    bytes.extend_from_slice(v3_text().as_bytes());
    let path = write(dir.path(), "s.jsonl", &bytes);
    let error = SessionStore::open(&path, writing()).unwrap_err();
    assert!(matches!(error, StoreError::ByteOrderMark { .. }), "{error}");
    let message = error.to_string();
    assert!(message.contains("line 1") && message.contains("pi 1.6"), "{message}");
    let (store, _) = SessionStore::open(&path, OpenOptions::for_reading()).unwrap();
    assert!(store.session().line_style().bom);
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}

#[test]
fn a_torn_tail_that_is_a_bare_json_value_goes_to_the_sidecar() {
    for tail in ["12345", r#"{"type":"message"}"#, "null", r#""text""#] {
        let dir = tempfile::tempdir().unwrap();
        let text = format!("{}{tail}", v3_text());
        let path = write(dir.path(), "s.jsonl", text.as_bytes());
        let (mut store, report) = SessionStore::open(&path, writing()).unwrap();
        let torn = report.torn_tail.clone().unwrap_or_else(|| panic!("{tail}: kept in place"));
        assert_eq!(std::fs::read(&torn.sidecar).unwrap(), tail.as_bytes());
        store.append(note(1)).unwrap();
        drop(store);
        let session = parse_file(&path);
        assert_eq!(problems(&session), Vec::<String>::new(), "{tail}");
        assert_every_line_is_json(&path);
    }
}

#[test]
fn a_full_disk_leaves_no_empty_torn_sidecar_behind() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{}{{\"type\":\"cust", v3_text());
    let path = write(dir.path(), "s.jsonl", text.as_bytes());
    for attempt in 0..3 {
        for kind in [FaultKind::NoSpace, FaultKind::ShortWrite] {
            let options =
                OpenOptions { faults: Some(FaultPlan::new(FaultOp::Write, 1, kind)), ..writing() };
            let error = SessionStore::open(&path, options).unwrap_err();
            assert!(error.to_string().contains("torn"), "{attempt}: {error}");
            assert_eq!(listing(dir.path()), vec!["s.jsonl"], "attempt {attempt}");
            assert_eq!(std::fs::read(&path).unwrap(), text.as_bytes());
        }
    }
}

#[test]
fn an_interrupted_migration_leaves_no_temporary_file_or_extra_backup_after_the_next() {
    for step in [RewriteStep::TempWritten, RewriteStep::TempSynced, RewriteStep::BackupKept] {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "s.jsonl", v2_text().as_bytes());
        let options = RewriteOptions { stop_after: Some(step), ..RewriteOptions::default() };
        let interrupted = migrate_with(&path, LockWait::NoWait, &options);
        assert!(matches!(interrupted, Err(StoreError::Interrupted { .. })), "{step:?}");
        assert!(listing(dir.path()).iter().any(|n| n.contains(".tmp-")), "{step:?}");
        let report = migrate(&path).unwrap();
        assert_eq!(report.backup, Some(dir.path().join("s.jsonl.bak-v2")), "{step:?}");
        assert_eq!(listing(dir.path()), vec!["s.jsonl", "s.jsonl.bak-v2"], "{step:?}");
        assert_eq!(std::fs::read(dir.path().join("s.jsonl.bak-v2")).unwrap(), v2_text().as_bytes());
    }
}

#[test]
fn a_temporary_file_in_use_is_never_taken_for_a_stale_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "s.jsonl", v2_text().as_bytes());
    let busy = dir.path().join(".s.jsonl.tmp-0000beef");
    let held = std::fs::File::create(&busy).unwrap();
    held.lock().unwrap();
    let stale = dir.path().join(".s.jsonl.tmp-0000dead");
    std::fs::write(&stale, "left by a crash").unwrap();
    // A FIFO under a temporary name is neither opened (it would block) nor removed.
    let fifo = dir.path().join(".s.jsonl.tmp-0000f1f0");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    migrate(&path).unwrap();
    assert!(fifo.exists());
    assert!(busy.exists(), "a locked temporary file was removed");
    assert!(!stale.exists(), "a stale temporary file was kept");
}

#[test]
fn migrating_through_a_symbolic_link_rewrites_its_target_and_keeps_the_mode() {
    let dir = tempfile::tempdir().unwrap();
    let real_dir = dir.path().join("real");
    std::fs::create_dir(&real_dir).unwrap();
    let target = write(&real_dir, "s.jsonl", v2_text().as_bytes());
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
    let owner = std::fs::metadata(&target).unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let report = migrate(&link).unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(report.backup, Some(real_dir.join("s.jsonl.bak-v2")));
    let after = std::fs::metadata(&target).unwrap();
    assert_eq!(after.permissions().mode() & 0o7777, 0o644);
    assert_eq!((after.uid(), after.gid()), (owner.uid(), owner.gid()));
    assert_eq!(parse_file(&link).source_version(), 3);
    assert_eq!(listing(dir.path()), vec!["link.jsonl", "real"]);
}

#[test]
fn no_lock_file_is_left_beside_a_session_or_made_for_a_missing_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "s.jsonl", v3_text().as_bytes());
    let (mut store, _) = SessionStore::open(&path, writing()).unwrap();
    store.append(note(1)).unwrap();
    assert_eq!(listing(dir.path()), vec!["s.jsonl"]);
    drop(store);
    let missing = dir.path().join("missing.jsonl");
    assert!(SessionStore::open(&missing, writing()).is_err());
    assert!(migrate(&missing).is_err());
    assert_eq!(listing(dir.path()), vec!["s.jsonl"]);
}

#[test]
fn a_writer_waiting_while_the_file_is_replaced_locks_and_writes_the_new_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "s.jsonl", v3_text().as_bytes());
    let held = compaction::store::SessionLock::acquire(&path, LockWait::NoWait).unwrap();
    let waiter = {
        let path = path.clone();
        std::thread::spawn(move || {
            let (mut store, _) = SessionStore::open(&path, writing()).unwrap();
            store.append(note(7)).unwrap()
        })
    };
    std::thread::sleep(Duration::from_millis(200));
    // The holder replaces the file by a rename (as a rewrite does), then lets go.
    let replacement = write(dir.path(), "new.jsonl", v3_text().as_bytes());
    std::fs::rename(&replacement, &path).unwrap();
    drop(held);
    let entry = waiter.join().unwrap();
    let session = parse_file(&path);
    assert!(session.contains(&entry.id), "the waiter wrote to a file that is gone");
    assert_eq!(problems(&session), Vec::<String>::new());
}

#[test]
fn fifos_and_directories_are_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.jsonl");
    let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    for path in [fifo.as_path(), dir.path()] {
        for options in [writing(), OpenOptions::for_reading()] {
            let error = SessionStore::open(path, options).unwrap_err();
            assert!(matches!(error, StoreError::NotRegularFile { .. }), "{error}");
        }
        assert!(matches!(migrate(path), Err(StoreError::NotRegularFile { .. })));
    }
    assert!(fifo.exists());
}

#[test]
fn a_copy_never_touches_its_output_until_published_and_refuses_the_input_itself() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "s.jsonl", v3_text().as_bytes());
    std::os::unix::fs::symlink(&input, dir.path().join("link.jsonl")).unwrap();
    std::fs::hard_link(&input, dir.path().join("hard.jsonl")).unwrap();
    let same = [
        input.clone(),
        dir.path().join("./s.jsonl"),
        dir.path().join("link.jsonl"),
        dir.path().join("hard.jsonl"),
    ];
    for output in &same {
        for replace in [false, true] {
            let error = SessionStore::open_copy(&input, output, replace, writing()).unwrap_err();
            assert!(matches!(error, StoreError::OutputIsInput { .. }), "{output:?}: {error}");
        }
    }
    let existing = write(dir.path(), "out.jsonl", b"keep me");
    let error = SessionStore::open_copy(&input, &existing, false, writing()).unwrap_err();
    assert!(matches!(error, StoreError::AlreadyExists { .. }), "{error}");
    // A copy dropped before publishing leaves the output as it was and no temporary file.
    let (mut copy, _) = SessionStore::open_copy(&input, &existing, true, writing()).unwrap();
    copy.append(note(1)).unwrap();
    drop(copy);
    assert_eq!(std::fs::read(&existing).unwrap(), b"keep me");
    assert_eq!(listing(dir.path()), vec!["hard.jsonl", "link.jsonl", "out.jsonl", "s.jsonl"]);
    // Published, it replaces the output; the input is unchanged.
    let (mut copy, _) = SessionStore::open_copy(&input, &existing, true, writing()).unwrap();
    copy.append(note(2)).unwrap();
    assert_eq!(copy.publish().unwrap(), existing);
    assert_eq!(std::fs::read(&input).unwrap(), v3_text().as_bytes());
    assert_eq!(parse_file(&existing).entries().len(), 7);
    assert_eq!(listing(dir.path()), vec!["hard.jsonl", "link.jsonl", "out.jsonl", "s.jsonl"]);
}

/// An extension that writes to the session while it decides, then supplies the summary.
struct MeddlingHook {
    path: PathBuf,
    bytes: Mutex<Option<Vec<u8>>>,
}

impl compaction::extension::Extension for MeddlingHook {
    fn name(&self) -> &str {
        "meddling-hook"
    }
    fn before_compact<'a>(
        &'a self,
        _: &'a compaction::extension::BeforeCompactEvent<'_>,
    ) -> compaction::extension::HookFuture<'a, compaction::extension::Decision> {
        if let Some(bytes) = self.bytes.lock().unwrap().take() {
            let mut file = std::fs::OpenOptions::new().append(true).open(&self.path).unwrap();
            file.write_all(&bytes).unwrap();
        }
        let replacement = compaction::extension::Replacement::new("summary from the hook");
        Box::pin(async move { Ok(compaction::extension::Decision::Replace(replacement)) })
    }
}

#[test]
fn an_extension_writing_to_the_session_while_it_decides_is_followed_or_refused() {
    let mut outcomes = (0, 0, 0);
    for trial in 0..20usize {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::copy(core_fixture("offline-coding.jsonl"), &path).unwrap();
        let before = std::fs::read(&path).unwrap();
        let leaf = parse_file(&path).entries().last().unwrap().id.clone();
        let line = format!("{}\n", user_line(&format!("ed{trial:06x}"), &leaf, "meanwhile"));
        let complete = trial % 2 == 0;
        let bytes = if complete {
            line.into_bytes()
        } else {
            line.as_bytes()[..1 + trial * 7 % (line.len() - 2)].to_vec()
        };
        let hook = MeddlingHook { path: path.clone(), bytes: Mutex::new(Some(bytes.clone())) };
        let extensions = Extensions::new().with(std::sync::Arc::new(hook));
        let settings = CompactionSettings {
            keep_recent_tokens: 500,
            min_turns_to_keep: 0,
            estimator: "pi".to_owned(),
            ..CompactionSettings::default()
        };
        let estimator = estimator_by_name("pi").unwrap();
        let compactor = Compactor {
            summarizer: &OfflineSummarizer,
            settings: &settings,
            context_window: 20_000,
            estimator: estimator.as_ref(),
            redactor: Default::default(),
            extensions: &extensions,
        };
        let (mut store, _) = SessionStore::open(&path, writing()).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let result = runtime.block_on(compactor.run(
            &mut store,
            &CompactRequest::default(),
            &CancellationToken::new(),
            &|_| {},
        ));
        drop(store);
        let after = std::fs::read(&path).unwrap();
        let mut expected = before.clone();
        expected.extend_from_slice(&bytes);
        match result {
            Ok(outcome)
                if complete
                    && after.starts_with(&expected)
                    && outcome.entry.parent_id == Some(format!("ed{trial:06x}")) =>
            {
                outcomes.0 += 1;
            }
            Err(CompactError::Changed { .. }) if !complete && after == expected => outcomes.1 += 1,
            Ok(_) | Err(_) => outcomes.2 += 1,
        }
    }
    assert_eq!(outcomes, (10, 10, 0), "(followed, refused, lost)");
}

/// A `flock` belongs to the open file description, which a child process shares from `fork`
/// until its `exec` closes it. A writer that closes and reopens its session while another
/// thread of the same program starts a process (a hook, an editor) must not mistake that
/// instant for another writer.
#[test]
fn reopening_while_other_threads_start_processes_is_not_refused_as_in_use() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "s.jsonl", v3_text().as_bytes());
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let spawners: Vec<_> = (0..2)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    std::process::Command::new("true").status().unwrap();
                }
            })
        })
        .collect();
    let mut refused = 0;
    for _ in 0..300 {
        match SessionStore::open(
            &path,
            OpenOptions { tail_grace: std::time::Duration::ZERO, ..OpenOptions::for_writing() },
        ) {
            Ok((store, _)) => drop(store),
            Err(StoreError::InUse { .. }) => refused += 1,
            Err(other) => panic!("{other}"),
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for spawner in spawners {
        spawner.join().unwrap();
    }
    assert_eq!(refused, 0, "opens refused as in use by this program's own children");
}

#[test]
fn a_new_entry_never_takes_an_id_that_occurs_in_an_unreadable_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let header = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;
    let first = user_line("aaaa0001", "null", "hello").replace("\"null\"", "null");
    // A line we cannot read (an unknown shape to us, but pi may read it) using `0000abcd`,
    // and a line over the store's line limit using `feedbeef`.
    let unreadable = r#"{"type":"message","id":"0000abcd","parentId":"aaaa0001","message":{"role":"user","content":"x""#.to_owned() + "}";
    let long = user_line("feedbeef", "aaaa0001", &"y".repeat(4096));
    std::fs::write(&path, format!("{header}\n{first}\n{unreadable}\n{long}\n")).unwrap();
    let options = OpenOptions { max_line_bytes: 1024, ..writing() };
    let (mut store, report) = SessionStore::open(&path, options).unwrap();
    assert_eq!(report.malformed_lines, vec![3, 4]);
    compaction::store::names::force_next_entry_ids(&[
        "aaaa0001", "0000abcd", "feedbeef", "c0ffee01",
    ]);
    let fields =
        serde_json::json!({"message": {"role": "user", "content": "next", "timestamp": 0}});
    let entry = store
        .append(compaction::store::NewEntry::new("message", fields.as_object().unwrap().clone()))
        .unwrap();
    assert_eq!(entry.id, "c0ffee01");
}

#[test]
fn a_line_appended_while_migrate_writes_is_never_left_only_in_the_backup() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.jsonl");
    std::fs::copy(core_fixture("v1-legacy.jsonl"), &path).unwrap();
    let original = std::fs::read(&path).unwrap();
    let appended = br#"{"type":"message","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"late","timestamp":1}}"#;
    let target = path.clone();
    compaction::store::before_next_install(move || {
        let mut file = std::fs::OpenOptions::new().append(true).open(&target).unwrap();
        file.write_all(appended).unwrap();
        file.write_all(b"\n").unwrap();
    });
    let error = migrate(&path).unwrap_err();
    assert!(matches!(error, StoreError::Changed { .. }), "{error:?}");
    // The file is the original plus the other program's line; no backup was made.
    let mut expected = original.clone();
    expected.extend_from_slice(appended);
    expected.push(b'\n');
    assert_eq!(std::fs::read(&path).unwrap(), expected);
    assert!(
        !listing(dir.path()).iter().any(|name| name.contains(".bak-")),
        "{:?}",
        listing(dir.path())
    );
    assert!(
        !listing(dir.path()).iter().any(|name| name.contains(".tmp-")),
        "{:?}",
        listing(dir.path())
    );
    // Once the other program is done, migrating again carries the line over.
    migrate(&path).unwrap();
    assert!(std::fs::read_to_string(&path).unwrap().contains("late"));
}
