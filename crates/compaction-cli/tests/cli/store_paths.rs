//! What the writing commands do with the files they are given: `-o` never destroys the input
//! or an existing output, FIFOs and non-sessions are refused, older formats are migrated on
//! disk first, newer ones are never written, no lock file is left, Ctrl-C exits 130.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{fixture, run};

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn session_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("offline-coding.jsonl"), dir.path().join("s.jsonl")).unwrap();
    dir
}

const COMPACT: [&str; 4] = ["--keep-recent", "500", "--min-turns", "0"];

fn run_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["run", "s.jsonl"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&COMPACT);
    args
}

#[test]
fn run_output_onto_the_input_is_refused_and_the_input_kept() {
    let dir = session_dir();
    let before = std::fs::read(dir.path().join("s.jsonl")).unwrap();
    std::os::unix::fs::symlink("s.jsonl", dir.path().join("link.jsonl")).unwrap();
    std::fs::hard_link(dir.path().join("s.jsonl"), dir.path().join("hard.jsonl")).unwrap();
    for output in ["s.jsonl", "./s.jsonl", "link.jsonl", "hard.jsonl"] {
        for force in [false, true] {
            let mut extra = vec!["-o", output];
            if force {
                extra.push("--force");
            }
            let out = run(&run_args(&extra), dir.path());
            assert!(out.starts_with("exit: 2\n"), "{output}: {out}");
            assert!(out.contains("is the input"), "{output}: {out}");
            assert_eq!(std::fs::read(dir.path().join("s.jsonl")).unwrap(), before, "{output}");
        }
    }
    assert_eq!(listing(dir.path()), vec!["hard.jsonl", "link.jsonl", "s.jsonl"]);
}

#[test]
fn run_output_onto_an_existing_file_needs_force_and_survives_a_failure() {
    let dir = session_dir();
    std::fs::write(dir.path().join("out.jsonl"), "keep me").unwrap();
    let out = run(&run_args(&["-o", "out.jsonl"]), dir.path());
    assert!(out.starts_with("exit: 2\n") && out.contains("--force"), "{out}");
    assert_eq!(std::fs::read(dir.path().join("out.jsonl")).unwrap(), b"keep me");
    // With --force, a compaction that fails (no API key) leaves the output as it was.
    let out = run(
        &run_args(&["-o", "out.jsonl", "--force", "--provider", "openai", "--model", "gpt-4o"]),
        dir.path(),
    );
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert_eq!(std::fs::read(dir.path().join("out.jsonl")).unwrap(), b"keep me");
    assert_eq!(listing(dir.path()), vec!["out.jsonl", "s.jsonl"]);
    // A successful one replaces it.
    let out = run(&run_args(&["-o", "out.jsonl", "--force"]), dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    let replaced = std::fs::read_to_string(dir.path().join("out.jsonl")).unwrap();
    assert!(replaced.lines().last().unwrap().contains("\"type\":\"compaction\""));
    assert_eq!(listing(dir.path()), vec!["out.jsonl", "s.jsonl"]);
}

#[test]
fn run_output_with_nothing_to_compact_writes_no_output() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("small-linear.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let out = run(&["run", "s.jsonl", "-o", "out.jsonl"], dir.path());
    assert!(out.starts_with("exit: 0\n") && out.contains("out.jsonl was not written"), "{out}");
    assert_eq!(listing(dir.path()), vec!["s.jsonl"]);
}

/// Runs the binary, killing it (and failing) if it does not finish within 10 s.
fn run_with_deadline(args: &[&str], cwd: &Path) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let output = child.wait_with_output().unwrap();
            return (status.code().unwrap_or(-1), String::from_utf8_lossy(&output.stderr).into());
        }
        if started.elapsed() > Duration::from_secs(10) {
            child.kill().unwrap();
            panic!("`compaction {}` hung", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_fifo_as_the_session_is_refused_by_every_command_without_hanging() {
    let dir = tempfile::tempdir().unwrap();
    assert!(Command::new("mkfifo").arg(dir.path().join("s.jsonl")).status().unwrap().success());
    let commands: [&[&str]; 8] = [
        &["stats", "s.jsonl"],
        &["context", "s.jsonl"],
        &["tree", "s.jsonl"],
        &["check", "s.jsonl"],
        &["plan", "s.jsonl"],
        &["run", "s.jsonl"],
        &["migrate", "s.jsonl"],
        &["run", "s.jsonl", "-o", "out.jsonl"],
    ];
    for args in commands {
        let (code, stderr) = run_with_deadline(args, dir.path());
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains("is a FIFO"), "{args:?}: {stderr}");
    }
    assert_eq!(listing(dir.path()), vec!["s.jsonl"]);
}

#[test]
fn not_a_session_exits_2_for_every_command_and_is_never_repaired() {
    let cases: [(&str, &[u8]); 3] =
        [("object", b"{\"a\":1}\n"), ("empty", b""), ("text", b"hello\nworld\n")];
    let commands: [&[&str]; 10] = [
        &["stats", "s.jsonl"],
        &["context", "s.jsonl"],
        &["tree", "s.jsonl"],
        &["leaves", "s.jsonl"],
        &["check", "s.jsonl"],
        &["check", "s.jsonl", "--repair"],
        &["plan", "s.jsonl"],
        &["run", "s.jsonl"],
        &["migrate", "s.jsonl"],
        &["run", "s.jsonl", "-o", "out.jsonl"],
    ];
    for (name, bytes) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.jsonl"), bytes).unwrap();
        for args in commands {
            let out = run(args, dir.path());
            assert!(out.starts_with("exit: 2\n"), "{name} {args:?}: {out}");
            assert!(out.contains("is not a pi session file"), "{name} {args:?}: {out}");
        }
        assert_eq!(std::fs::read(dir.path().join("s.jsonl")).unwrap(), bytes);
        assert_eq!(listing(dir.path()), vec!["s.jsonl"], "{name}");
    }
}

#[test]
fn a_damaged_header_fails_the_reading_commands_and_is_reported_by_check() {
    let dir = tempfile::tempdir().unwrap();
    let entry = r#"{"type":"custom","id":"c1","parentId":null,"customType":"x"}"#;
    let text = format!("{{\"type\":\"session\",\"version\":\"three\"}}\n{entry}\n");
    std::fs::write(dir.path().join("s.jsonl"), &text).unwrap();
    for args in [["stats", "s.jsonl"], ["context", "s.jsonl"], ["plan", "s.jsonl"]] {
        let out = run(&args, dir.path());
        assert!(out.starts_with("exit: 2\n") && out.contains("check --repair"), "{args:?}: {out}");
    }
    let out = run(&["check", "s.jsonl"], dir.path());
    assert!(out.starts_with("exit: 1\n") && out.contains("invalid-header"), "{out}");
}

#[test]
fn a_newer_format_version_is_read_with_a_warning_and_run_refuses_to_write() {
    let dir = session_dir();
    let path = dir.path().join("s.jsonl");
    let text =
        std::fs::read_to_string(&path).unwrap().replacen("\"version\":3", "\"version\":99", 1);
    std::fs::write(&path, &text).unwrap();
    let out = run(&["stats", "s.jsonl"], dir.path());
    assert!(out.starts_with("exit: 0\n") && out.contains("warning:"), "{out}");
    assert!(out.contains("version 99"), "{out}");
    let out = run(&run_args(&[]), dir.path());
    assert!(out.starts_with("exit: 2\n") && out.contains("version 99"), "{out}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn run_on_a_version_1_session_migrates_it_on_disk_first_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::copy(fixture("v1-legacy.jsonl"), &path).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let original = std::fs::read(&path).unwrap();
    let out = run(&["run", "s.jsonl", "--keep-recent", "50", "--min-turns", "0"], dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert!(out.contains("migrated on disk to version 3"), "{out}");
    assert_eq!(std::fs::read(dir.path().join("s.jsonl.bak-v1")).unwrap(), original);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.lines().next().unwrap().contains("\"version\":3"), "{text}");
    // Every id the compaction references is on disk, and the file is clean.
    let check = run(&["check", "s.jsonl"], dir.path());
    assert!(check.starts_with("exit: 0\n"), "{check}");
    let compaction: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    for field in ["parentId", "firstKeptEntryId"] {
        let id = compaction[field].as_str().unwrap();
        assert!(text.contains(&format!("\"id\":\"{id}\"")), "{field} {id} is not on disk");
    }
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o644);
}

#[test]
fn migrate_keeps_the_mode_and_writes_through_a_symbolic_link() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("s.jsonl");
    std::fs::copy(fixture("v2-legacy.jsonl"), &target).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::os::unix::fs::symlink("s.jsonl", dir.path().join("link.jsonl")).unwrap();
    let out = run(&["migrate", "link.jsonl"], dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    let link = std::fs::symlink_metadata(dir.path().join("link.jsonl")).unwrap();
    assert!(link.file_type().is_symlink());
    assert_eq!(std::fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o644);
    assert_eq!(listing(dir.path()), vec!["link.jsonl", "s.jsonl", "s.jsonl.bak-v2"]);
}

#[test]
fn writing_commands_leave_no_lock_file_and_name_wait_when_the_session_is_busy() {
    let dir = session_dir();
    let out = run(&run_args(&[]), dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    let out = run(&["run", "missing.jsonl"], dir.path());
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert_eq!(listing(dir.path()), vec!["s.jsonl"]);
    // Another process holds the session's lock (flock(1) on the file itself).
    let mut holder = Command::new("flock")
        .args(["s.jsonl", "sleep", "30"])
        .current_dir(dir.path())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let out = loop {
        let out = run(&["migrate", "s.jsonl"], dir.path());
        if out.contains("in use") || Instant::now() > deadline {
            break out;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    holder.kill().unwrap();
    holder.wait().unwrap();
    assert!(out.starts_with("exit: 2\n") && out.contains("--wait"), "{out}");
}

/// A summarizer server that never answers a completion request (and answers 404 to the
/// questions for its window); the receiver gets one message per completion request.
fn silent_server() -> (String, std::sync::mpsc::Receiver<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (accepted, connected) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::{BufRead as _, BufReader, Write as _};
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            // The summarizer first asks for the server's window (`/props` and the like):
            // those get a 404 at once; the completion request is held unanswered.
            let mut request_line = String::new();
            let _ = BufReader::new(stream.try_clone().unwrap()).read_line(&mut request_line);
            if !request_line.contains("/chat/completions") {
                let _ = stream.write_all(
                    b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                );
                continue;
            }
            held.push(stream);
            let _ = accepted.send(());
        }
    });
    (format!("http://127.0.0.1:{port}/v1"), connected)
}

fn provider_run_args(base_url: &str) -> Vec<String> {
    let mut args: Vec<String> = ["run", "s.jsonl", "--provider", "openai", "--model", "gpt-4o"]
        .iter()
        .map(ToString::to_string)
        .collect();
    args.extend(["--base-url".into(), base_url.into()]);
    args.extend(["--api-key-env".into(), "COMPACTION_TEST_KEY".into()]);
    args.extend(COMPACT.iter().map(ToString::to_string));
    args
}

#[test]
fn ctrl_c_during_a_compaction_exits_130_and_leaves_the_file_unchanged() {
    let dir = session_dir();
    let before = std::fs::read(dir.path().join("s.jsonl")).unwrap();
    let (base_url, connected) = silent_server();
    let child = Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(provider_run_args(&base_url))
        .current_dir(dir.path())
        .env("COMPACTION_TEST_KEY", "sk-test")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    connected.recv_timeout(Duration::from_secs(20)).expect("the summarizer never connected");
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert_eq!(std::fs::read(dir.path().join("s.jsonl")).unwrap(), before);
}

/// Ctrl-C typed in a terminal (through `script`'s pseudo-terminal, when it is installed):
/// the spinner line is cleared before the error is printed, and the exit status is 130.
#[test]
fn ctrl_c_in_a_terminal_clears_the_spinner_and_exits_130() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: `script` (util-linux) is not installed");
        return;
    }
    let dir = session_dir();
    let before = std::fs::read(dir.path().join("s.jsonl")).unwrap();
    let (base_url, connected) = silent_server();
    let mut command_line = env!("CARGO_BIN_EXE_compaction").to_owned();
    for arg in provider_run_args(&base_url) {
        command_line.push(' ');
        command_line.push_str(&arg);
    }
    let mut child = Command::new("script")
        .args(["-qfec", &command_line, "/dev/null"])
        .current_dir(dir.path())
        .env("COMPACTION_TEST_KEY", "sk-test")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    connected.recv_timeout(Duration::from_secs(20)).expect("the summarizer never connected");
    std::thread::sleep(Duration::from_millis(300));
    use std::io::Write as _;
    child.stdin.take().unwrap().write_all(b"\x03").unwrap();
    let output = child.wait_with_output().unwrap();
    let screen = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(130), "{screen:?}");
    let last_frame = screen.rfind("waiting for the summarizer").expect("no spinner was drawn");
    let error = screen.rfind("error:").unwrap();
    assert!(screen[last_frame..error].contains("\x1b[2K"), "spinner left on screen: {screen:?}");
    assert_eq!(std::fs::read(dir.path().join("s.jsonl")).unwrap(), before);
}

fn damaged_in_the_middle(dir: &Path) {
    let lines = [
        r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#,
        r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"one","timestamp":1}}"#,
        r#"{"type":"message","id":"a2","parentId":"a1","timest#### damaged ####"#,
        r#"{"type":"message","id":"a3","parentId":"a2","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"user","content":"three","timestamp":3}}"#,
        r#"{"type":"message","id":"a4","parentId":"a3","timestamp":"2025-01-01T00:00:04.000Z","message":{"role":"user","content":"four","timestamp":4}}"#,
    ];
    std::fs::write(dir.join("s.jsonl"), format!("{}\n", lines.join("\n"))).unwrap();
}

fn repaired_copy(dir: &Path) -> String {
    listing(dir)
        .into_iter()
        .find(|name| name.contains(".repaired-") && name.ends_with(".jsonl"))
        .expect("no repaired copy")
}

#[test]
fn a_repaired_copy_names_its_orphans_and_passes_check_once_reattached() {
    let dir = tempfile::tempdir().unwrap();
    damaged_in_the_middle(dir.path());
    let out = run(&["check", "s.jsonl", "--repair"], dir.path());
    assert!(out.starts_with("exit: 1\n"), "{out}");
    assert!(out.contains("(a3)") && out.contains("--reattach"), "{out}");
    let copy = repaired_copy(dir.path());
    let check = run(&["check", &copy], dir.path());
    assert!(check.starts_with("exit: 1\n") && check.contains("dangling-parent"), "{check}");

    let dir = tempfile::tempdir().unwrap();
    damaged_in_the_middle(dir.path());
    let out = run(&["check", "s.jsonl", "--repair", "--reattach"], dir.path());
    assert!(out.contains("passes `check`"), "{out}");
    let copy = repaired_copy(dir.path());
    let check = run(&["check", &copy], dir.path());
    assert!(check.starts_with("exit: 0\n"), "{check}");
    let text = std::fs::read_to_string(dir.path().join(&copy)).unwrap();
    assert!(text.contains(r#""id":"a3","parentId":"a1""#), "{text}");
}

#[test]
fn stale_temporary_files_of_a_killed_run_or_repair_are_removed_and_named() {
    let dir = session_dir();
    // Left by a `run -o out.jsonl` and a `check --repair` that were killed (no holder).
    let stale_run = dir.path().join(".out.jsonl.tmp-0badf00d");
    let stale_repair = dir.path().join(".s.repaired-20260101T000000Z.jsonl.tmp-0badf00d");
    std::fs::write(&stale_run, b"a full copy of the session").unwrap();
    std::fs::write(&stale_repair, b"a partial repaired copy").unwrap();
    // Held by a live process: never removed.
    let held = dir.path().join(".out.jsonl.tmp-1eaf1eaf");
    std::fs::write(&held, b"in use").unwrap();
    let mut holder = Command::new("flock").arg(&held).args(["sleep", "30"]).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let mut args = run_args(&["-o", "out.jsonl"]);
    args.extend_from_slice(&["--estimator", "pi"]);
    let out = run(&args, dir.path());
    holder.kill().unwrap();
    holder.wait().unwrap();
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert!(!stale_run.exists(), "{out}");
    assert!(held.exists(), "a temporary file in use was removed: {out}");
    assert!(out.contains(".out.jsonl.tmp-0badf00d") && out.contains("interrupted"), "{out}");
    let out = run(&["check", "s.jsonl", "--repair"], dir.path());
    assert!(!stale_repair.exists(), "{out}");
    assert!(out.contains(".s.repaired-20260101T000000Z.jsonl.tmp-0badf00d"), "{out}");
}

#[test]
fn run_output_onto_a_fifo_or_device_is_refused_even_with_force() {
    let dir = session_dir();
    let fifo = dir.path().join("out.fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let mut nodes = vec![("out.fifo", "FIFO")];
    // A character device (the null device's numbers) where this user may make one.
    let device = dir.path().join("out.dev");
    let made = Command::new("mknod")
        .arg(&device)
        .args(["c", "1", "3"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if made {
        nodes.push(("out.dev", "device"));
    }
    for (name, what) in nodes {
        let (code, out) = run_with_deadline(&run_args(&["-o", name, "--force"]), dir.path());
        assert_eq!(code, 2, "{out}");
        assert!(out.contains(what), "{out}");
        let kind = std::fs::symlink_metadata(dir.path().join(name)).unwrap().file_type();
        assert!(!kind.is_file(), "{name} was replaced by a regular file");
    }
    assert!(!listing(dir.path()).iter().any(|name| name.contains(".tmp-")));
}

#[test]
fn a_moved_torn_tail_is_never_called_unchanged() {
    let dir = session_dir();
    let file = dir.path().join("s.jsonl");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(br#"{"type":"message","id":"torn0001","parentId":"#);
    std::fs::write(&file, &bytes).unwrap();
    let (base_url, _connected) = silent_server();
    let mut args = provider_run_args(&base_url);
    args.extend(["--timeout".into(), "1".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = super::run_with_env(&args, dir.path(), &[("COMPACTION_TEST_KEY", "k-123456789")]);
    assert!(out.starts_with("exit: 1\n") || out.starts_with("exit: 2\n"), "{out}");
    assert!(out.contains("compaction failed"), "{out}");
    assert!(out.contains("beyond moving its interrupted last line"), "{out}");
    // `migrate` of a current file whose torn tail it moved does not say "unchanged" either.
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(br#"{"type":"message","id":"torn0002""#);
    std::fs::write(&file, &bytes).unwrap();
    let out = run(&["migrate", "s.jsonl"], dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert!(!out.contains("unchanged"), "{out}");
    assert!(out.contains("interrupted last line"), "{out}");
}

#[test]
fn check_reports_a_lost_kept_entry_and_malformed_pin_and_prune_entries_with_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    let header = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;
    let message = |id: &str, parent: &str| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"hi","timestamp":1}}}}"#
        )
    };
    let compaction = |id: &str, parent: &str, kept: &str| {
        format!(
            r#"{{"type":"compaction","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:02.000Z","summary":"S","firstKeptEntryId":"{kept}","tokensBefore":10}}"#
        )
    };
    let custom = |id: &str, parent: &str, kind: &str, data: &str| {
        format!(
            r#"{{"type":"custom","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:03.000Z","customType":"{kind}","data":{data}}}"#
        )
    };
    let lines = [
        header.to_owned(),
        message("m1", "null"),                                          // 2
        message("b1", "\"m1\""),                                        // 3: another branch
        message("m2", "\"m1\""),                                        // 4
        compaction("c1", "m2", "gone0001"),                             // 5: missing
        compaction("c2", "c1", "b1"),                                   // 6: off its path
        compaction("c3", "c2", "c3"),                                   // 7: retain-none (valid)
        compaction("c4", "c3", "m2"),                                   // 8: valid
        custom("p1", "c4", "compaction.pin", r#"{"txt":"x"}"#),         // 9
        custom("p2", "p1", "compaction.unpin", r#"{"pinIds":3}"#),      // 10
        custom("r1", "p2", "compaction.prune", r#"{"entries":"all"}"#), // 11
        custom("p3", "r1", "compaction.pin", r#"{"text":"keep it"}"#),  // 12: valid
    ];
    std::fs::write(dir.path().join("s.jsonl"), lines.join("\n") + "\n").unwrap();
    let out = run(&["check", "s.jsonl", "--json"], dir.path());
    assert!(out.starts_with("exit: 1\n"), "{out}");
    let json = super::stdout_json(&out);
    let mut found: Vec<(u64, String)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["line"].as_u64().unwrap(), d["kind"].as_str().unwrap().to_owned()))
        .collect();
    found.sort();
    let expected: Vec<(u64, String)> = [
        (5, "compaction-kept-missing"),
        (6, "compaction-kept-off-path"),
        (9, "malformed-pin"),
        (10, "malformed-pin"),
        (11, "malformed-prune"),
    ]
    .iter()
    .map(|(line, kind)| (*line, (*kind).to_owned()))
    .collect();
    assert_eq!(found, expected, "{out}");
}

#[test]
fn a_writing_command_refuses_while_the_branch_runs_through_a_line_it_cannot_read() {
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let source = std::fs::read_to_string(fixture("offline-coding.jsonl")).unwrap();
    let last_id = source
        .lines()
        .rev()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find_map(|value| value["id"].as_str().map(str::to_owned))
        .unwrap();
    let deep_line = format!(
        r#"{{"type":"message","id":"deep0001","parentId":"{last_id}","timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"nested","timestamp":1,"x":{deep}}}}}"#
    );
    let child = r#"{"type":"message","id":"kid00001","parentId":"deep0001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"after it","timestamp":2}}"#;
    for with_child in [false, true] {
        let dir = session_dir();
        let file = dir.path().join("s.jsonl");
        let mut text = std::fs::read_to_string(&file).unwrap();
        text.push_str(&deep_line);
        text.push('\n');
        if with_child {
            text.push_str(child);
            text.push('\n');
        }
        std::fs::write(&file, &text).unwrap();
        for args in [run_args(&["--estimator", "pi"]), vec!["pin", "s.jsonl", "--text", "x"]] {
            let out = run(&args, dir.path());
            assert!(out.starts_with("exit: 2\n"), "{out}");
            assert!(out.contains("refusing to write"), "{out}");
            assert_eq!(std::fs::read_to_string(&file).unwrap(), text, "{out}");
        }
    }
}

#[test]
fn a_half_written_last_line_is_moved_only_once_it_is_dead() {
    let torn = br#"{"type":"message","id":"live0001","parentId":"#;
    let setup = || {
        let dir = session_dir();
        let file = dir.path().join("s.jsonl");
        let mut bytes = std::fs::read(&file).unwrap();
        bytes.extend_from_slice(torn);
        std::fs::write(&file, &bytes).unwrap();
        (dir, file, bytes)
    };
    let sidecars = |dir: &Path| listing(dir).into_iter().filter(|n| n.contains(".torn-")).count();
    // Another program holds the file open for writing: refused, nothing moved.
    let (dir, file, bytes) = setup();
    let writer = std::fs::OpenOptions::new().append(true).open(&file).unwrap();
    let out = run(&["pin", "s.jsonl", "--text", "x"], dir.path());
    drop(writer);
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert!(out.contains("another program is writing") && out.contains("try again"), "{out}");
    assert_eq!(std::fs::read(&file).unwrap(), bytes);
    assert_eq!(sidecars(dir.path()), 0);
    // The line grows while the command waits out the grace period: refused.
    let (dir, file, _) = setup();
    let growing = file.clone();
    let finisher = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        let mut handle = std::fs::OpenOptions::new().append(true).open(&growing).unwrap();
        std::io::Write::write_all(&mut handle, br#""x","#).unwrap();
    });
    let out = run(&["pin", "s.jsonl", "--text", "x"], dir.path());
    finisher.join().unwrap();
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert!(out.contains("another program is writing"), "{out}");
    assert_eq!(sidecars(dir.path()), 0);
    // Quiet for the grace period and held by nobody: moved, with its age stated.
    let (dir, _file, _) = setup();
    let out = run(&["pin", "s.jsonl", "--text", "x"], dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert!(out.contains("had not changed for"), "{out}");
    assert_eq!(sidecars(dir.path()), 1);
}
