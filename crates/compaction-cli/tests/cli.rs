//! The `compaction` binary as users see it: stdout, stderr and exit codes, snapshotted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "cli/store_paths.rs"]
mod store_paths;

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

/// Runs the binary with its stdout a pipe whose reading end is already closed, as
/// `compaction … | head -1` leaves it once `head` has exited.
fn run_into_closed_pipe(args: &[&str], cwd: &Path) -> std::process::Output {
    let home = tempfile::tempdir().unwrap();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", home.path())
        .env_remove("PI_CODING_AGENT_DIR")
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap()
}

#[test]
fn closed_stdout_exits_quietly_for_every_command() {
    let dir = fixtures_dir();
    for args in [
        &["tokens", "offline-coding.jsonl"][..],
        &["tokens", "offline-coding.jsonl", "--json"],
        &["stats", "branching.jsonl"],
        &["stats", "branching.jsonl", "--json"],
        &["tree", "branching.jsonl"],
        &["tree", "branching.jsonl", "--json"],
        &["check", "small-linear.jsonl", "--json"],
        &["plan", "offline-coding.jsonl", "--keep-recent", "500"],
        &["plan", "offline-coding.jsonl", "--json"],
        &["context", "offline-coding.jsonl"],
        &["context", "offline-coding.jsonl", "--json"],
        &["leaves", "branch-two.jsonl"],
        &["leaves", "branch-two.jsonl", "--json"],
        &["--help"],
    ] {
        let output = run_into_closed_pipe(args, &dir);
        assert_eq!(
            (output.status.code(), String::from_utf8_lossy(&output.stderr).as_ref()),
            (Some(0), ""),
            "{args:?}"
        );
    }
}

/// The stdout of a rendered run, parsed as JSON.
fn stdout_json(out: &str) -> serde_json::Value {
    let stdout = out.split("--- stdout\n").nth(1).unwrap().split("--- stderr").next().unwrap();
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn json_errors_go_to_stdout_with_kind_and_the_same_exit_code() {
    let dir = fixtures_dir();
    let missing = run(&["stats", "no-such-file.jsonl", "--json"], &dir);
    assert!(missing.starts_with("exit: 2\n"), "{missing}");
    assert!(missing.ends_with("--- stderr\n"), "nothing on stderr: {missing}");
    let json = stdout_json(&missing);
    assert_eq!(json["error"]["kind"], "io", "{json}");
    assert!(json["error"]["message"].as_str().unwrap().contains("no-such-file.jsonl"), "{json}");

    let leaf = run(&["context", "small-linear.jsonl", "--leaf", "ffffffff", "--json"], &dir);
    assert!(leaf.starts_with("exit: 2\n"), "{leaf}");
    assert_eq!(stdout_json(&leaf)["error"]["kind"], "usage");
    let leaf =
        run(&["context", "small-linear.jsonl", "--leaf", "ffffffff", "--format", "json"], &dir);
    assert_eq!(stdout_json(&leaf)["error"]["kind"], "usage");

    let flag = run(&["plan", "small-linear.jsonl", "--json", "--no-such-flag"], &dir);
    assert!(flag.starts_with("exit: 2\n"), "{flag}");
    let json = stdout_json(&flag);
    assert_eq!(json["error"]["kind"], "usage");
    assert!(json["error"]["message"].as_str().unwrap().contains("--no-such-flag"), "{json}");

    let settings = run(&["plan", "small-linear.jsonl", "--json", "--estimator", "words"], &dir);
    assert!(settings.starts_with("exit: 2\n"), "{settings}");
    assert_eq!(stdout_json(&settings)["error"]["kind"], "settings");

    // Without --json, errors stay text on stderr.
    let text = run(&["stats", "no-such-file.jsonl"], &dir);
    assert!(text.contains("--- stdout\n--- stderr\nerror: "), "{text}");
}

#[test]
fn provider_errors_in_json_have_kind_provider() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("offline-coding.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let out =
        run(&["run", "s.jsonl", "--provider", "openai", "--model", "gpt-4o", "--json"], dir.path());
    assert!(out.starts_with("exit: 2\n"), "{out}");
    let json = stdout_json(&out);
    assert_eq!(json["error"]["kind"], "provider", "{json}");
    assert!(json["error"]["message"].as_str().unwrap().contains("OPENAI_API_KEY"), "{json}");
}

#[test]
fn migrate_and_context_accept_json() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("small-linear.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let out = run(&["migrate", "s.jsonl", "--json"], dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert_eq!(stdout_json(&out)["migrated"], false);
    let out = run(&["context", "s.jsonl", "--json"], dir.path());
    assert!(stdout_json(&out).is_array(), "{out}");
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name)
}

#[test]
fn prune_appends_one_custom_entry_and_the_context_shows_placeholders() {
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
    let added = std::str::from_utf8(&after[before.len()..]).unwrap();
    assert_eq!(added.lines().count(), 1);
    let entry: serde_json::Value = serde_json::from_str(added.trim_end()).unwrap();
    assert_eq!(entry["type"], "custom");
    assert_eq!(entry["customType"], "compaction.prune");
    let first = entry["data"]["entries"][0]["id"].as_str().unwrap().to_owned();

    let context = run(&["context", "s.jsonl"], dir.path());
    assert!(context.contains("[output pruned: "), "{context}");
    assert!(context.contains(&format!("recall entry {first}")), "{context}");
    // Pruning again right away finds nothing worth it.
    let again = run_with_env(&["prune", "s.jsonl"], dir.path(), &rules);
    assert!(again.starts_with("exit: 0\n") && again.contains("nothing"), "{again}");
    assert_eq!(std::fs::read(&file).unwrap(), after);
}

#[test]
fn small_window_scales_default_budgets_and_says_where_the_window_came_from() {
    let dir = fixtures_dir();
    let out = run(
        &[
            "plan",
            "offline-coding.jsonl",
            "--model",
            "llama3.2:3b",
            "--context-window",
            "8192",
            "--json",
        ],
        &dir,
    );
    assert!(out.starts_with("exit: 0\n"), "{out}");
    let json = stdout_json(&out);
    assert_eq!(json["contextWindow"], 8192);
    assert_eq!(json["contextWindowSource"]["kind"], "flag");
    assert_eq!(json["windowScaledSettings"]["reserveTokens"], 2048);
    assert_eq!(json["windowScaledSettings"]["keepRecentTokens"], 2048);
    assert_eq!(json["compactable"], true, "{json}");

    let table = run(&["plan", "offline-coding.jsonl", "--model", "qwen2.5-coder:7b"], &dir);
    assert!(
        table.contains("window: 32768 tokens, from the model table (`qwen2.5-coder:7b` is a `qwen2-5-coder` model)"),
        "{table}"
    );
    let unknown = run(&["stats", "offline-coding.jsonl", "--json"], &dir);
    assert_eq!(stdout_json(&unknown)["contextWindowSource"]["kind"], "model-table");
    let unknown = run(&["plan", "offline-coding.jsonl", "--model", "my-local:1b"], &dir);
    assert!(
        unknown.contains("window: 128000 tokens, from the default for models not in the table (`my-local:1b`); pass --context-window"),
        "{unknown}"
    );
}

#[test]
fn budgets_that_do_not_fit_are_named_in_one_error_with_working_flags() {
    let out = run(
        &[
            "plan",
            "offline-coding.jsonl",
            "--model",
            "llama3.2:3b",
            "--context-window",
            "8192",
            "--reserve",
            "9000",
            "--keep-recent",
            "10000",
        ],
        &fixtures_dir(),
    );
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert_eq!(out.matches("error:").count(), 1, "{out}");
    for part in [
        "`reserveTokens` = 9000",
        "`keepRecentTokens` = 10000",
        "--reserve 2048 --keep-recent 2048",
    ] {
        assert!(out.contains(part), "{part}: {out}");
    }
}

const SCHEMA_CHECK: &str = r#"
import json, sys, jsonschema
failures = []
for schema_path, expect_valid, text in json.load(sys.stdin):
    schema = json.load(open(schema_path))
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(json.loads(text))]
    if expect_valid == bool(errors):
        failures.append((schema_path, expect_valid, text[:300], errors[:3]))
if failures:
    sys.exit(repr(failures))
"#;

/// The stdout of a rendered run.
fn stdout_of(out: &str) -> String {
    out.split("--- stdout\n").nth(1).unwrap().split("--- stderr").next().unwrap().to_owned()
}

/// Real `--json` output of every command, and of errors, validated against the schemas in
/// `docs/json/` (with python3's `jsonschema`, as the extension protocol's schema is tested);
/// altered copies that break a schema must be rejected, so the schemas are not vacuous.
#[test]
fn json_output_of_every_command_matches_its_schema() {
    let has_jsonschema = Command::new("python3")
        .args(["-c", "import jsonschema"])
        .output()
        .is_ok_and(|output| output.status.success());
    if !has_jsonschema {
        println!("skipped: python3 with the jsonschema module is not available");
        return;
    }
    let fixtures = fixtures_dir();
    let dir = tempfile::tempdir().unwrap();
    for name in ["offline-coding.jsonl", "branch-two.jsonl", "v1-legacy.jsonl"] {
        std::fs::copy(fixture(name), dir.path().join(name)).unwrap();
    }
    std::fs::write(dir.path().join("text.txt"), "plain text, not a session\n").unwrap();
    let tmp = dir.path();
    let eval_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/eval");
    let cases: Vec<(&str, &[&str], &Path)> = vec![
        ("stats", &["stats", "small-linear.jsonl", "--json"], &fixtures),
        ("stats", &["stats", "damaged.jsonl", "--json", "--context-window", "8192"], &fixtures),
        ("context", &["context", "small-linear.jsonl", "--json"], &fixtures),
        ("tree", &["tree", "branching.jsonl", "--json"], &fixtures),
        ("check", &["check", "damaged.jsonl", "--json"], &fixtures),
        ("leaves", &["leaves", "branch-two.jsonl", "--json"], &fixtures),
        ("tokens", &["tokens", "small-linear.jsonl", "--json"], &fixtures),
        ("tokens", &["tokens", "text.txt", "--json"], tmp),
        ("plan", &["plan", "offline-coding.jsonl", "--keep-recent", "500", "--json"], &fixtures),
        ("plan", &["plan", "small-linear.jsonl", "--json"], &fixtures),
        (
            "plan",
            &[
                "plan",
                "offline-coding.jsonl",
                "--keep-recent",
                "500",
                "--keep-user-messages",
                "300",
                "--json",
            ],
            &fixtures,
        ),
        ("migrate", &["migrate", "v1-legacy.jsonl", "--json"], tmp),
        ("migrate", &["migrate", "v1-legacy.jsonl", "--json"], tmp),
        (
            "branch",
            &["branch", "branch-two.jsonl", "--from", "6dee93a9", "--to", "e80776cc", "--json"],
            &fixtures,
        ),
        (
            "branch",
            &["branch", "branch-two.jsonl", "--to", "e80776cc", "--summarize", "--json"],
            tmp,
        ),
        (
            "run",
            &[
                "run",
                "offline-coding.jsonl",
                "--json",
                "--extension",
                r#"cat >/dev/null; echo '{"action":"cancel","reason":"r"}'"#,
            ],
            tmp,
        ),
        (
            "summarize",
            &["summarize", "offline-coding.jsonl", "--keep-recent", "500", "--json"],
            tmp,
        ),
        (
            "summarize",
            &[
                "summarize",
                "branch-two.jsonl",
                "--branch-from",
                "6dee93a9",
                "--branch-to",
                "e80776cc",
                "--json",
            ],
            tmp,
        ),
        ("summarize", &["summarize", "branch-two.jsonl", "--branch-to", "6dee93a9", "--json"], tmp),
        ("undo", &["undo", "offline-coding.jsonl", "--json"], tmp),
        ("run", &["run", "offline-coding.jsonl", "--keep-recent", "500", "--json"], tmp),
        ("run", &["run", "offline-coding.jsonl", "--keep-recent", "500", "--json"], tmp),
        ("dropped", &["dropped", "offline-coding.jsonl", "--json"], tmp),
        ("search", &["search", "offline-coding.jsonl", "parser", "--json"], tmp),
        ("recall", &["recall", "offline-coding.jsonl", "5e550003", "--json"], tmp),
        ("undo", &["undo", "offline-coding.jsonl", "--dry-run", "--json"], tmp),
        ("undo", &["undo", "offline-coding.jsonl", "--json"], tmp),
        ("config", &["config", "--json", "--keep-recent", "500"], tmp),
        ("pin", &["pin", "branch-two.jsonl", "--text", "Keep the API stable.", "--json"], tmp),
        ("pin", &["pin", "branch-two.jsonl", "--entry", "e80776cc", "--json"], tmp),
        ("unpin", &["unpin", "branch-two.jsonl", "e80776cc", "--json"], tmp),
        ("eval", &["eval", "small-linear.probes.json", "--compactions", "1", "--json"], &eval_dir),
        ("prune", &["prune", "offline-coding.jsonl", "--dry-run", "--json"], tmp),
        ("prune", &["prune", "offline-coding.jsonl", "--json"], tmp),
        ("error", &["stats", "no-such-file.jsonl", "--json"], &fixtures),
        ("error", &["plan", "small-linear.jsonl", "--json", "--bogus"], &fixtures),
        ("error", &["plan", "small-linear.jsonl", "--json", "--reserve", "999999"], &fixtures),
    ];
    let schema = |name: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../docs/json")
            .join(format!("{name}.schema.json"))
            .display()
            .to_string()
    };
    let mut checks: Vec<(String, bool, String)> = Vec::new();
    for (name, args, cwd) in &cases {
        let out = run(args, cwd);
        let stdout = stdout_of(&out);
        let value: serde_json::Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"));
        assert_eq!(value.get("error").is_some(), *name == "error", "{args:?}: {out}");
        checks.push((schema(name), true, stdout));
    }
    // Broken copies: a required field missing, a wrong type, an unknown error kind.
    let stats: serde_json::Value = serde_json::from_str(&checks[0].2).unwrap();
    let mut missing = stats.clone();
    missing.as_object_mut().unwrap().remove("contextWindow");
    checks.push((schema("stats"), false, missing.to_string()));
    let mut wrong = stats.clone();
    wrong["triggerReasons"] = serde_json::json!("none");
    checks.push((schema("stats"), false, wrong.to_string()));
    let mut no_severity: serde_json::Value = serde_json::from_str(&checks[4].2).unwrap();
    no_severity["diagnostics"][0].as_object_mut().unwrap().remove("severity");
    checks.push((schema("check"), false, no_severity.to_string()));
    checks.push((schema("error"), false, r#"{"error":{"kind":"oops","message":"m"}}"#.to_owned()));
    let mut kept: serde_json::Value = serde_json::from_str(&checks[10].2).unwrap();
    assert_eq!(kept["keptUserMessages"]["messages"], 2, "{kept}");
    kept["keptUserMessages"]["tokens"] = serde_json::json!("many");
    checks.push((schema("plan"), false, kept.to_string()));
    let mut child = Command::new("python3")
        .args(["-c", SCHEMA_CHECK])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(serde_json::to_string(&checks).unwrap().as_bytes()).unwrap();
    }
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
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

/// A provider that accepts the connection and never answers: `run` gives up at the
/// `--timeout` deadline (not after minutes of idle timeouts and retries), says which
/// deadline expired and how to change it, and leaves the session byte-identical.
#[test]
fn run_against_a_silent_server_ends_at_the_timeout_deadline() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("offline-coding.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let before = std::fs::read(dir.path().join("s.jsonl")).unwrap();
    // Bound but never accepted: the kernel completes the handshake, nothing ever answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}/v1", silent.local_addr().unwrap());
    let started = std::time::Instant::now();
    let out = run(
        &[
            "run",
            "s.jsonl",
            "--provider",
            "openai",
            "--model",
            "local",
            "--base-url",
            &base_url,
            "--keep-recent",
            "500",
            "--min-turns",
            "0",
            "--timeout",
            "1",
        ],
        dir.path(),
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "{:?}", started.elapsed());
    assert!(out.starts_with("exit: 1\n"), "{out}");
    assert!(out.contains("deadline of 1 s") && out.contains("--timeout"), "{out}");
    assert!(out.contains("the session file was not changed"), "{out}");
    assert_eq!(std::fs::read(dir.path().join("s.jsonl")).unwrap(), before);
    drop(silent);
}

#[test]
fn config_shows_every_setting_with_its_source_and_warns_on_unknown_names() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".pi")).unwrap();
    let project = dir.path().join(".pi/settings.json");
    std::fs::write(&project, r#"{"compaction":{"thresold":0.5,"reserveTokens":1000}}"#).unwrap();
    let env = [("COMPACTION_MAX_MESSAGES", "50"), ("COMPACTION_KEEP_RECNT", "3")];
    let out = run_with_env(&["config", "--estimator", "pi"], dir.path(), &env);
    assert!(out.starts_with("exit: 0\n"), "{out}");
    let line = |key: &str| {
        out.lines().find(|l| l.starts_with(&format!("{key} "))).unwrap_or_default().to_owned()
    };
    assert!(line("reserveTokens").ends_with(&project.display().to_string()), "{out}");
    assert!(line("threshold").ends_with("default"), "{out}");
    assert!(line("maxMessages").ends_with("env COMPACTION_MAX_MESSAGES"), "{out}");
    assert!(line("estimator").ends_with("flag --estimator"), "{out}");
    assert!(
        out.contains("unknown setting `compaction.thresold` (did you mean `threshold`?)"),
        "{out}"
    );
    assert!(
        out.contains(
            "unknown environment variable COMPACTION_KEEP_RECNT (did you mean \
             `COMPACTION_KEEP_RECENT_TOKENS`?)"
        ),
        "{out}"
    );
    let json = stdout_json(&run_with_env(&["config", "--json"], dir.path(), &env));
    let settings = json["settings"].as_array().unwrap();
    let find = |key: &str| settings.iter().find(|s| s["key"] == key).unwrap().clone();
    assert_eq!(find("reserveTokens")["value"], 1000);
    assert_eq!(find("reserveTokens")["source"]["path"], project.display().to_string());
    assert_eq!(find("maxMessages")["source"]["variable"], "COMPACTION_MAX_MESSAGES");
    assert_eq!(json["warnings"].as_array().unwrap().len(), 2, "{json}");
}

#[test]
fn settings_errors_name_their_source() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("small-linear.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let out =
        run_with_env(&["stats", "s.jsonl"], dir.path(), &[("COMPACTION_RESERVE_TOKENS", "-1")]);
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert!(
        out.contains(
            "error: COMPACTION_RESERVE_TOKENS: `reserveTokens`: expected a non-negative integer"
        ),
        "{out}"
    );
    std::fs::create_dir_all(dir.path().join(".pi")).unwrap();
    std::fs::write(dir.path().join(".pi/settings.json"), r#"{"compaction":{"threshold":2}}"#)
        .unwrap();
    let out = run(&["stats", "s.jsonl"], dir.path());
    assert!(out.contains(".pi/settings.json: `threshold`: must be in (0, 1]"), "{out}");
}

/// A one-shot HTTP server on 127.0.0.1 that answers every request with `status` and a JSON
/// error body naming the model it was asked for; returns its base URL and the request bodies.
fn error_server(status: u16) -> (String, std::sync::mpsc::Receiver<String>) {
    use std::io::{BufRead as _, BufReader, Read as _, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
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
            let body = String::from_utf8_lossy(&body).into_owned();
            let model = serde_json::from_str::<serde_json::Value>(&body)
                .ok()
                .and_then(|v| v["model"].as_str().map(str::to_owned))
                .unwrap_or_default();
            let _ = sender.send(body);
            let answer = format!(r#"{{"error":{{"message":"model '{model}' not found"}}}}"#);
            let _ = write!(
                stream,
                "HTTP/1.1 {status} Error\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                answer.len()
            );
        }
    });
    (url, receiver)
}

#[test]
fn provider_without_model_refuses_the_sessions_model_of_another_provider() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("offline-coding.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let (url, requests) = error_server(404);
    let out = run(
        &["run", "s.jsonl", "--provider", "openai", "--base-url", &url, "--keep-recent", "500"],
        dir.path(),
    );
    assert!(out.starts_with("exit: 2\n"), "{out}");
    for part in [
        "no model for --provider openai",
        "`claude-sonnet-4-5`",
        "provider anthropic",
        "--model ID",
    ] {
        assert!(out.contains(part), "{part}: {out}");
    }
    assert!(requests.try_recv().is_err(), "nothing is sent without a model");
}

#[test]
fn provider_errors_name_the_model_and_its_origin_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("offline-coding.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let before = std::fs::read(dir.path().join("s.jsonl")).unwrap();
    let (url, requests) = error_server(404);
    let args = [
        "run",
        "s.jsonl",
        "--provider",
        "openai",
        "--model",
        "qwen2.5:7b",
        "--base-url",
        &url,
        "--keep-recent",
        "500",
        "--quiet",
    ];
    let out = run(&args, dir.path());
    assert!(out.starts_with("exit: 1\n"), "{out}");
    let body: serde_json::Value = serde_json::from_str(&requests.recv().unwrap()).unwrap();
    assert_eq!(body["model"], "qwen2.5:7b");
    assert_eq!(out.matches("not found").count(), 1, "the cause is printed once: {out}");
    assert!(
        out.contains("note: provider openai at http://127.0.0.1:")
            && out.contains("model `qwen2.5:7b` (from --model; change it with --model)"),
        "{out}"
    );
    assert_eq!(std::fs::read(dir.path().join("s.jsonl")).unwrap(), before);
    let json = stdout_json(&run(&[&args[..], &["--json"]].concat(), dir.path()));
    assert_eq!(json["error"]["kind"], "provider");
    assert!(json["error"]["hint"].as_str().unwrap().contains("`qwen2.5:7b`"), "{json}");
}

#[test]
fn missing_key_says_that_a_local_server_needs_none() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("offline-coding.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let out = run(&["run", "s.jsonl", "--provider", "openai", "--model", "gpt-4o"], dir.path());
    assert!(out.starts_with("exit: 2\n"), "{out}");
    for part in [
        "OPENAI_API_KEY",
        "--api-key-env",
        "needs no key",
        "--base-url",
        "model `gpt-4o` (from --model",
    ] {
        assert!(out.contains(part), "{part}: {out}");
    }
}

#[test]
fn pi_models_json_gives_the_window_of_a_local_model() {
    let agent = tempfile::tempdir().unwrap();
    std::fs::write(
        agent.path().join("models.json"),
        r#"{"providers":{"ollama":{"baseUrl":"http://localhost:11434/v1","api":"openai-completions","models":[{"id":"qwen2.5-coder:7b","contextWindow":16384}]}}}"#,
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(["plan", "offline-coding.jsonl", "--model", "qwen2.5-coder:7b", "--json"])
        .current_dir(fixtures_dir())
        .env("PI_CODING_AGENT_DIR", agent.path())
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["contextWindow"], 16384, "{json}");
    assert_eq!(json["contextWindowSource"]["kind"], "pi-models", "{json}");
    // --context-window still wins.
    let output = Command::new(env!("CARGO_BIN_EXE_compaction"))
        .args(["plan", "offline-coding.jsonl", "--model", "qwen2.5-coder:7b"])
        .args(["--context-window", "8192", "--json"])
        .current_dir(fixtures_dir())
        .env("PI_CODING_AGENT_DIR", agent.path())
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["contextWindowSource"]["kind"], "flag", "{json}");
}

#[test]
fn a_bad_flag_value_names_the_flag() {
    let out = run(&["plan", "small-linear.jsonl", "--estimator", "words"], &fixtures_dir());
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert!(out.contains("error: --estimator: `estimator`: unknown estimator `words`"), "{out}");
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

/// The last line of a session file as JSON.
fn last_entry(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
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
