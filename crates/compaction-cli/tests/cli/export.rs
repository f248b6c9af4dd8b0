//! `compaction export`: where the transcript goes, what it refuses, and that a refusal
//! changes no file.

use super::*;

/// A compacted copy of the offline fixture in `dir`, as `s.jsonl`.
fn compacted(dir: &Path) -> PathBuf {
    std::fs::copy(fixture("offline-coding.jsonl"), dir.join("s.jsonl")).unwrap();
    let out = run(&["run", "s.jsonl", "--keep-recent", "500"], dir);
    assert!(out.starts_with("exit: 0\n"), "{out}");
    dir.join("s.jsonl")
}

fn json_of(out: &str) -> serde_json::Value {
    let stdout = out.split("--- stdout\n").nth(1).unwrap().split("--- stderr\n").next().unwrap();
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn claude_code_session_goes_into_the_projects_folder_of_its_cwd() {
    let dir = tempfile::tempdir().unwrap();
    compacted(dir.path());
    let config = dir.path().join("claude config");
    let out = run_with_env(
        &["export", "s.jsonl", "--format", "claude-code", "--cwd", "/srv/my app/café🚀", "--json"],
        dir.path(),
        &[("CLAUDE_CONFIG_DIR", config.to_str().unwrap())],
    );
    assert!(out.starts_with("exit: 0\n"), "{out}");
    let report = json_of(&out);
    let id = report["sessionId"].as_str().unwrap();
    // Each UTF-16 code unit that is not an ASCII letter or digit becomes `-`, as in Claude Code.
    let expected = config.join("projects/-srv-my-app-caf---").join(format!("{id}.jsonl"));
    assert_eq!(report["output"], expected.display().to_string());
    assert_eq!(report["resume"], format!("claude --resume {id}"));
    assert_eq!(report["summary"], true);
    let text = std::fs::read_to_string(&expected).unwrap();
    assert!(text.lines().next().unwrap().contains("compact_boundary"), "{text}");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(&expected).unwrap().permissions(),
    );
    assert_eq!(mode & 0o777, 0o600, "the transcript is readable by its owner only");
}

#[test]
fn codex_rollout_goes_into_the_dated_sessions_folder() {
    let dir = tempfile::tempdir().unwrap();
    compacted(dir.path());
    let home = dir.path().join("codex");
    let out = run_with_env(
        &["export", "s.jsonl", "--format", "codex", "--json"],
        dir.path(),
        &[("CODEX_HOME", home.to_str().unwrap())],
    );
    assert!(out.starts_with("exit: 0\n"), "{out}");
    let report = json_of(&out);
    let id = report["sessionId"].as_str().unwrap();
    let output = PathBuf::from(report["output"].as_str().unwrap());
    let relative = output.strip_prefix(home.join("sessions")).unwrap();
    let parts: Vec<String> =
        relative.iter().map(|part| part.to_string_lossy().into_owned()).collect();
    assert_eq!(parts.len(), 4, "{relative:?}");
    let name = &parts[3];
    assert!(name.starts_with(&format!("rollout-{}-{}-{}T", parts[0], parts[1], parts[2])));
    assert!(name.ends_with(&format!("-{id}.jsonl")), "{name}");
    // The session header's cwd is the default.
    let first: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&output).unwrap().lines().next().unwrap())
            .unwrap();
    assert_eq!(first["type"], "session_meta");
    assert!(!first["payload"]["cwd"].as_str().unwrap().is_empty());
}

#[test]
fn an_existing_output_is_refused_and_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let session = compacted(dir.path());
    let before_session = std::fs::read(&session).unwrap();
    std::fs::write(dir.path().join("out.jsonl"), "mine\n").unwrap();
    let out = run(&["export", "s.jsonl", "--format", "codex", "-o", "out.jsonl"], dir.path());
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert!(out.contains("out.jsonl: exists; add --force to replace it"), "{out}");
    assert_eq!(std::fs::read_to_string(dir.path().join("out.jsonl")).unwrap(), "mine\n");
    assert_eq!(std::fs::read(&session).unwrap(), before_session);
    let names: Vec<_> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "no temporary file is left: {names:?}");
    let forced =
        run(&["export", "s.jsonl", "--format", "codex", "-o", "out.jsonl", "--force"], dir.path());
    assert!(forced.starts_with("exit: 0\n"), "{forced}");
    assert!(
        std::fs::read_to_string(dir.path().join("out.jsonl")).unwrap().contains("session_meta")
    );
    assert_eq!(std::fs::read(&session).unwrap(), before_session, "the session is never changed");
}

#[test]
fn a_session_without_a_cwd_asks_for_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.jsonl"),
        concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z"}"#,
            "\n",
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#,
            "\n",
        ),
    )
    .unwrap();
    let out = run(&["export", "s.jsonl", "--format", "claude-code", "-o", "o.jsonl"], dir.path());
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert!(out.contains("names no project directory (`cwd`); pass --cwd DIR"), "{out}");
    assert!(!dir.path().join("o.jsonl").exists());
}
