//! A worker removes the scratch files that compactions of dead processes left in the
//! temporary folder (a worker killed with SIGKILL leaves the one it was writing), and only
//! those: not one whose process runs, not one a compaction holds locked, not another file.

use std::io::{BufRead, BufReader};

use super::sessions::{command, scratch_files, worker, write_sessions};

/// The id of a process that has exited.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    child.wait().unwrap();
    child.id()
}

#[test]
fn a_worker_removes_the_scratch_files_of_dead_processes_only() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    write_sessions(&dir.path().join("sessions"), 2);
    let import = command(dir.path(), &tmp)
        .args(["store", "import", "sessions", "--to", "sqlite:db.sqlite"])
        .output()
        .unwrap();
    assert!(import.status.success(), "{}", String::from_utf8_lossy(&import.stderr));

    let dead = dead_pid();
    let orphan = format!("compaction-scratch-{dead}-1a2b3c4d.jsonl");
    let locked = format!("compaction-scratch-{dead}-5e6f7a8b.jsonl");
    let living = format!("compaction-scratch-{}-9c0d1e2f.jsonl", std::process::id());
    let folder = format!("compaction-scratch-{dead}-folder.jsonl");
    let unrelated = "compaction-scratch-notapid.jsonl".to_owned();
    for name in [&orphan, &locked, &living, &unrelated] {
        std::fs::write(tmp.join(name), "{\"type\":\"session\"}\n").unwrap();
    }
    std::fs::create_dir(tmp.join(&folder)).unwrap();
    let held = std::fs::File::open(tmp.join(&locked)).unwrap();
    held.lock().unwrap();

    let mut once = worker(dir.path(), &tmp, "sqlite:db.sqlite", &["--once"]);
    let stdout = once.stdout.take().unwrap();
    let events: Vec<serde_json::Value> = BufReader::new(stdout)
        .lines()
        .map(|line| serde_json::from_str(&line.unwrap()).unwrap())
        .collect();
    assert!(once.wait().unwrap().success());
    let reclaimed: Vec<&str> = events
        .iter()
        .filter(|event| event["event"] == "reclaimed")
        .filter_map(|event| event["file"].as_str())
        .collect();
    assert_eq!(reclaimed, [tmp.join(&orphan).display().to_string()], "{events:?}");
    let compacted = events.iter().filter(|event| event["event"] == "compacted").count();
    assert_eq!(compacted, 2, "{events:?}");
    // The orphan is gone; the rest stays, and the worker's own scratch files are gone too.
    let mut kept = vec![folder, locked, living, unrelated];
    kept.sort();
    assert_eq!(scratch_files(&tmp), kept);
    drop(held);
}
