//! Output for scripts: a closed pipe ends a command quietly, `--json` is accepted everywhere,
//! errors are JSON on stdout with the same exit code, and every command's JSON matches its
//! schema in `docs/json/`.

use std::path::Path;
use std::process::Command;

use super::*;

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

    // A flag with enumerated values is checked by the parser: a usage error.
    let flag = run(&["plan", "small-linear.jsonl", "--json", "--estimator", "words"], &dir);
    assert!(flag.starts_with("exit: 2\n"), "{flag}");
    assert_eq!(stdout_json(&flag)["error"]["kind"], "usage");
    let settings = run_with_env(
        &["plan", "small-linear.jsonl", "--json"],
        &dir,
        &[("COMPACTION_ESTIMATOR", "words")],
    );
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
    let transcripts =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../compaction-core/tests/fixtures/import");
    for name in ["claude-code.jsonl", "codex-rollout.jsonl"] {
        std::fs::copy(transcripts.join(name), dir.path().join(name)).unwrap();
    }
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
        ("import", &["import", "claude-code.jsonl", "--json"], tmp),
        ("import", &["import", "codex-rollout.jsonl", "--json"], tmp),
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
        (
            "export",
            &["export", "offline-coding.jsonl", "--format", "codex", "-o", "x.jsonl", "--json"],
            tmp,
        ),
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
    let import_index = cases.iter().position(|(name, _, _)| *name == "import").unwrap();
    let mut no_check: serde_json::Value = serde_json::from_str(&checks[import_index].2).unwrap();
    no_check.as_object_mut().unwrap().remove("check");
    checks.push((schema("import"), false, no_check.to_string()));
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

/// `plan --json` and `stats --json` with pi's estimator give what pi 1.6 computes, at every
/// entry of a session real pi 1.6 wrote (an overflow recovery with omitted attempts).
#[test]
fn plan_and_stats_json_equal_pi_1_6_at_every_leaf_of_an_overflow_recovery() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("pi16/overflow-recovery.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let expected: serde_json::Value = serde_json::from_slice(
        &std::fs::read(fixture("pi16/expected/overflow-recovery.k200.json")).unwrap(),
    )
    .unwrap();
    let mut plans = 0;
    for case in expected["leaves"].as_array().unwrap() {
        let leaf = case["leaf"].as_str().unwrap();
        let plan = stdout_json(&run(
            &[
                "plan",
                "s.jsonl",
                "--leaf",
                leaf,
                "--estimator",
                "pi",
                "--min-turns",
                "0",
                "--keep-recent",
                "200",
                "--json",
            ],
            dir.path(),
        ));
        let stats = stdout_json(&run(
            &["stats", "s.jsonl", "--leaf", leaf, "--estimator", "pi", "--json"],
            dir.path(),
        ));
        assert_eq!(stats["contextTokens"], case["contextTokens"], "{leaf}");
        match case["plan"].as_object() {
            None => assert_ne!(plan["compactable"], true, "{leaf}: {plan}"),
            Some(pi) => {
                plans += 1;
                assert_eq!(plan["firstKeptEntryId"], pi["firstKeptEntryId"], "{leaf}");
                assert_eq!(plan["isSplitTurn"], pi["isSplitTurn"], "{leaf}");
                assert_eq!(plan["summarizeEntryIds"], pi["messagesToSummarize"], "{leaf}");
                assert_eq!(plan["turnPrefixEntryIds"], pi["turnPrefixMessages"], "{leaf}");
                assert_eq!(plan["tokensBefore"], pi["tokensBefore"], "{leaf}");
            }
        }
    }
    assert!(plans >= 5, "only {plans} leaves with a plan");
}
