//! The `compaction` binary as users see it: stdout, stderr and exit codes, snapshotted;
//! `cli/` holds the tests of output for scripts (`json`), setup (`setup`), the commands over
//! the history (`history`) and the files the writing commands are given (`store_paths`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "cli/child.rs"]
mod child;
#[path = "cli/corpus.rs"]
mod corpus;
#[path = "cli/export.rs"]
mod export;
#[path = "cli/history.rs"]
mod history;
#[path = "cli/hostile_data/mod.rs"]
mod hostile_data;
#[path = "cli/hostile_eval.rs"]
mod hostile_eval;
#[path = "cli/hostile_files.rs"]
mod hostile_files;
#[path = "cli/hostile_json.rs"]
mod hostile_json;
#[path = "cli/hostile_live_writers.rs"]
mod hostile_live_writers;
#[path = "cli/hostile_numbers.rs"]
mod hostile_numbers;
#[path = "cli/hostile_odd_numbers.rs"]
mod hostile_odd_numbers;
#[path = "cli/hostile_round11/mod.rs"]
mod hostile_round11;
#[path = "cli/hostile_round19/mod.rs"]
mod hostile_round19;
#[path = "cli/hostile_round20/mod.rs"]
mod hostile_round20;
#[path = "cli/hostile_round21/mod.rs"]
mod hostile_round21;
#[path = "cli/hostile_round22/mod.rs"]
mod hostile_round22;
#[path = "cli/hostile_servers.rs"]
mod hostile_servers;
#[path = "cli/hostile_writes/mod.rs"]
mod hostile_writes;
#[path = "cli/import.rs"]
mod import;
#[path = "cli/import_real.rs"]
mod import_real;
#[path = "cli/json.rs"]
mod json;
#[path = "cli/limits.rs"]
mod limits;
#[path = "cli/local_server.rs"]
mod local_server;
#[path = "cli/manuals.rs"]
mod manuals;
#[path = "cli/setup.rs"]
pub mod setup;
#[path = "cli/store_paths.rs"]
mod store_paths;
#[path = "cli/stores.rs"]
mod stores;
#[path = "cli/tally.rs"]
mod tally;
#[path = "cli/terminal_controls.rs"]
mod terminal_controls;
#[path = "cli/terminal_secrets.rs"]
mod terminal_secrets;
#[path = "cli/text.rs"]
mod text;
#[path = "cli/trust_paths.rs"]
mod trust_paths;
#[path = "cli/usage_errors.rs"]
mod usage_errors;
#[path = "cli/workers/mod.rs"]
mod workers;

/// One HTTP/1.1 request read from a test server's connection: its request line (method and
/// path) and its body (as long as its `content-length` says).
fn read_http_request(reader: &mut impl std::io::BufRead) -> (String, String) {
    let mut first = String::new();
    let _ = reader.read_line(&mut first);
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    (first, String::from_utf8_lossy(&body).into_owned())
}

/// Runs the binary in `cwd` with a home of its own, no stdin, and no agent folder or API key
/// from the environment: what a user's first run there sees.
fn isolated_output(args: &[&str], cwd: &Path) -> std::process::Output {
    let home = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", home.path())
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../compaction-core/tests/fixtures").join(name)
}

/// Runs the binary in the fixture directory (so paths print short) with a clean
/// settings environment, and renders exit code, stdout and stderr for a snapshot.
fn run(args: &[&str], cwd: &Path) -> String {
    run_with_env(args, cwd, &[])
}

/// [`run`] with extra environment variables.
fn run_with_env(args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> String {
    let home = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir(cwd)
        .env("HOME", home.path())
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("COMPACTION_TRANSCRIPTS")
        .output()
        .unwrap();
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn fixtures_dir() -> PathBuf {
    fixture("")
}

#[test]
fn stats_json() {
    insta::assert_snapshot!(run(&["stats", "small-linear.jsonl", "--json"], &fixtures_dir()));
}

#[test]
fn stats_human() {
    insta::assert_snapshot!(run(&["stats", "branching.jsonl"], &fixtures_dir()));
}

#[test]
fn check_reports_problems_with_lines_and_exit_1() {
    insta::assert_snapshot!(run(&["check", "damaged.jsonl"], &fixtures_dir()));
}

#[test]
fn check_clean_file_exits_0() {
    let out = run(&["check", "small-linear.jsonl"], &fixtures_dir());
    assert!(out.starts_with("exit: 0\n"), "{out}");
}

#[test]
fn missing_file_exits_2() {
    let out = run(&["stats", "no-such-file.jsonl"], &fixtures_dir());
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert!(out.contains("no-such-file.jsonl"), "{out}");
}

#[test]
fn unknown_leaf_is_an_error_not_a_fallback() {
    let out = run(&["context", "small-linear.jsonl", "--leaf", "ffffffff"], &fixtures_dir());
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert!(out.contains("no entry with id `ffffffff`"), "{out}");
}

#[test]
fn tree_of_a_branching_session() {
    insta::assert_snapshot!(run(&["tree", "branching.jsonl"], &fixtures_dir()));
}

#[test]
fn context_text() {
    insta::assert_snapshot!(run(&["context", "offline-coding.jsonl"], &fixtures_dir()));
}

#[test]
fn plan_json_with_pi_estimator() {
    insta::assert_snapshot!(run(
        &[
            "plan",
            "offline-coding.jsonl",
            "--estimator",
            "pi",
            "--min-turns",
            "0",
            "--keep-recent",
            "500",
            "--json"
        ],
        &fixtures_dir()
    ));
}

#[test]
fn plan_human_lists_the_must_keep_facts() {
    let out = run(
        &["plan", "offline-coding.jsonl", "--min-turns", "0", "--keep-recent", "500"],
        &fixtures_dir(),
    );
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert!(
        out.contains("\nmust keep:\n  latest request: Great, thanks. Now add support"),
        "{out}"
    );
    assert!(
        out.contains("\n  constraint: Don't change the public signature of `parse_expr`.\n"),
        "{out}"
    );
}

#[test]
fn plan_nothing_to_compact_exits_0() {
    let out = run(&["plan", "small-linear.jsonl", "--json"], &fixtures_dir());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert!(out.contains("\"compactable\": false"), "{out}");
}

#[test]
fn run_offline_then_context_and_stats() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("offline-coding.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let args = [
        "run",
        "s.jsonl",
        "--estimator",
        "pi",
        "--min-turns",
        "0",
        "--keep-recent",
        "500",
        "--context-window",
        "20000",
    ];
    let out = run(&args, dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert!(out.contains("appended compaction"), "{out}");
    insta::assert_snapshot!(
        out.lines().filter(|l| !l.contains("appended compaction")).collect::<Vec<_>>().join("\n")
    );
    let context = run(&["context", "s.jsonl"], dir.path());
    assert!(context.contains("<summary>\n## Goal"), "{context}");
    let stats = run(
        &["stats", "s.jsonl", "--json", "--estimator", "pi", "--context-window", "32000"],
        dir.path(),
    );
    let json: serde_json::Value = serde_json::from_str(
        stats.split("--- stdout\n").nth(1).unwrap().split("--- stderr").next().unwrap(),
    )
    .unwrap();
    assert_eq!(json["contextRoles"]["compactionSummary"], 1);
    assert_eq!(json["shouldCompact"], false, "{json}");
    // Nothing left to compact right after compacting.
    let again = run(&args, dir.path());
    assert!(again.starts_with("exit: 0\n") && again.contains("nothing to compact"), "{again}");
}

#[test]
fn run_output_leaves_the_original_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let original = dir.path().join("s.jsonl");
    std::fs::copy(fixture("offline-coding.jsonl"), &original).unwrap();
    let before = std::fs::read(&original).unwrap();
    let out = run(
        &["run", "s.jsonl", "-o", "out.jsonl", "--keep-recent", "500", "--min-turns", "0"],
        dir.path(),
    );
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert_eq!(std::fs::read(&original).unwrap(), before);
    assert!(std::fs::read(dir.path().join("out.jsonl")).unwrap().len() > before.len());
}

#[test]
fn run_with_provider_and_no_key_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("offline-coding.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let before = std::fs::read(dir.path().join("s.jsonl")).unwrap();
    let out = run(&["run", "s.jsonl", "--provider", "openai", "--model", "gpt-4o"], dir.path());
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert!(out.contains("OPENAI_API_KEY"), "{out}");
    assert_eq!(std::fs::read(dir.path().join("s.jsonl")).unwrap(), before);
}

#[test]
fn branch_dry_run_json() {
    insta::assert_snapshot!(run(
        &[
            "branch",
            "branch-two.jsonl",
            "--from",
            "6dee93a9",
            "--to",
            "e80776cc",
            "--estimator",
            "pi",
            "--dry-run",
            "--json"
        ],
        &fixtures_dir()
    ));
}

#[test]
fn branch_summarize_appends_under_the_target() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("branch-two.jsonl"), dir.path().join("b.jsonl")).unwrap();
    let out = run(
        &["branch", "b.jsonl", "--from", "6dee93a9", "--to", "e80776cc", "--summarize", "--json"],
        dir.path(),
    );
    assert!(out.starts_with("exit: 0\n"), "{out}");
    let json: serde_json::Value = serde_json::from_str(
        out.split("--- stdout\n").nth(1).unwrap().split("--- stderr").next().unwrap(),
    )
    .unwrap();
    assert_eq!(json["parentId"], "e80776cc");
    assert_eq!(json["fromId"], "6dee93a9");
    let context = run(&["context", "b.jsonl"], dir.path());
    assert!(context.contains("Work done on another branch"), "{context}");
    let check = run(&["check", "b.jsonl"], dir.path());
    assert!(check.starts_with("exit: 0\n"), "{check}");
}

#[test]
fn leaves_lists_every_tip() {
    insta::assert_snapshot!(run(&["leaves", "branch-two.jsonl"], &fixtures_dir()));
}

#[test]
fn help_lists_the_commands() {
    insta::assert_snapshot!(run(&["--help"], &fixtures_dir()));
}

#[test]
fn extension_cancel_exits_0_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("offline-coding.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let before = std::fs::read(dir.path().join("s.jsonl")).unwrap();
    let out = run(
        &[
            "run",
            "s.jsonl",
            "--keep-recent",
            "500",
            "--json",
            "--extension",
            r#"cat >/dev/null; echo '{"action":"cancel","reason":"frozen for review"}'"#,
        ],
        dir.path(),
    );
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert!(out.contains("\"cancelled\": true") && out.contains("frozen for review"), "{out}");
    assert_eq!(std::fs::read(dir.path().join("s.jsonl")).unwrap(), before);
}

#[test]
fn extension_replacement_is_reported_and_written_from_hook() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("offline-coding.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let out = run(
        &[
            "run",
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
    assert!(out.contains("\"fromHook\": true"), "{out}");
    let tree = run(&["tree", "s.jsonl"], dir.path());
    assert!(tree.contains("[compaction by extension]"), "{tree}");
}

#[test]
fn version_names_the_git_revision() {
    let out = run(&["--version"], &fixtures_dir());
    let line = out.lines().nth(2).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    assert!(line.starts_with(&format!("compaction {version}")), "{out}");
    // Built from a git checkout, the short commit and its date follow the version.
    let in_git = Command::new("git")
        .args(["rev-parse", "--git-dir"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .is_ok_and(|o| o.status.success());
    if !in_git {
        eprintln!("skipped the revision check: the sources are not a git checkout");
        return;
    }
    let stamp = line.trim_start_matches(&format!("compaction {version}")).trim();
    let inner = stamp.strip_prefix('(').and_then(|s| s.strip_suffix(')')).expect(&out);
    let (commit, date) = inner.split_once(' ').expect(&out);
    assert!(commit.len() >= 7 && commit.chars().all(|c| c.is_ascii_hexdigit()), "{out}");
    assert!(date.starts_with("20") && date.len() >= 10, "{out}");
}

#[test]
fn bash_completions_load_in_bash() {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(["completions", "bash"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let script = dir.path().join("compaction.bash");
    std::fs::write(&script, &output.stdout).unwrap();
    // Source the script, then ask the completion function for the subcommands after `compaction p`.
    let probe = format!(
        "source {}; COMP_WORDS=(compaction p); COMP_CWORD=1; COMP_LINE='compaction p'; COMP_POINT=12; \
         _compaction compaction p compaction; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display()
    );
    let Ok(bash) = Command::new("bash").args(["--norc", "--noprofile", "-c", &probe]).output()
    else {
        eprintln!("skipped: bash is not installed");
        return;
    };
    let words = String::from_utf8_lossy(&bash.stdout);
    assert!(bash.status.success(), "{}", String::from_utf8_lossy(&bash.stderr));
    assert!(words.lines().any(|w| w == "plan"), "{words}");
}

#[test]
fn man_page_names_every_command() {
    let output = Command::new(env!("CARGO_BIN_EXE_compaction")).arg("man").output().unwrap();
    assert!(output.status.success());
    let page = String::from_utf8(output.stdout).unwrap();
    assert!(page.starts_with(".ie") || page.contains(".TH compaction 1"), "{page}");
    for command in ["stats", "context", "plan", "run", "branch", "migrate", "completions"] {
        assert!(page.contains(command), "man page lacks {command}");
    }
}

/// The stdout of a rendered run, parsed as JSON.
fn stdout_json(out: &str) -> serde_json::Value {
    let stdout = out.split("--- stdout\n").nth(1).unwrap().split("--- stderr").next().unwrap();
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// The stdout of a rendered run.
fn stdout_of(out: &str) -> String {
    out.split("--- stdout\n").nth(1).unwrap().split("--- stderr").next().unwrap().to_owned()
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name)
}

/// The last line of a session file as JSON.
fn last_entry(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

#[test]
fn import_claude_code_transcript_then_check() {
    let dir = tempfile::tempdir().unwrap();
    let transcripts = fixture("import");
    std::fs::copy(transcripts.join("claude-code.jsonl"), dir.path().join("claude-code.jsonl"))
        .unwrap();
    insta::assert_snapshot!(run(&["import", "claude-code.jsonl"], dir.path()));
    let check = run(&["check", "claude-code.pi.jsonl"], dir.path());
    assert!(check.starts_with("exit: 0\n"), "{check}");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(dir.path().join("claude-code.pi.jsonl")).unwrap().permissions(),
    );
    assert_eq!(mode & 0o777, 0o600, "an imported session is readable by its owner only");
    let again = run(&["import", "claude-code.jsonl"], dir.path());
    assert!(again.starts_with("exit: 2\n"), "an existing output is not replaced: {again}");
    assert!(again.contains("add --force"), "{again}");
}

#[test]
fn import_codex_rollout_into_a_named_output() {
    let dir = tempfile::tempdir().unwrap();
    let transcripts = fixture("import");
    std::fs::copy(transcripts.join("codex-rollout.jsonl"), dir.path().join("rollout.jsonl"))
        .unwrap();
    let out = run(&["import", "rollout.jsonl", "-o", "shop.jsonl"], dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert!(out.contains("codex transcript"), "{out}");
    assert!(out.contains("shell → apply_patch ×1"), "{out}");
    let check = run(&["check", "shop.jsonl"], dir.path());
    assert!(check.starts_with("exit: 0\n"), "{check}");
}

#[test]
fn import_of_a_file_that_is_no_transcript_names_it() {
    let out = run(&["import", "small-linear.jsonl", "-o", "/dev/null"], &fixtures_dir());
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert!(out.contains("small-linear.jsonl: not a Claude Code transcript"), "{out}");
}
