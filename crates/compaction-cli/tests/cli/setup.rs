//! Setting up: budgets that follow a small window, settings and their sources, and provider
//! errors that name the model, where it came from, and what to change.

use std::process::Command;

use super::*;

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
    use std::io::{BufReader, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (_, body) = super::read_http_request(&mut reader);
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
    // The server is asked for its window first (`/props`, `/v1/models`, `/api/show`): the
    // completion request is the one with messages.
    let body = std::iter::from_fn(|| requests.try_recv().ok())
        .filter_map(|body| serde_json::from_str::<serde_json::Value>(&body).ok())
        .find(|body| body.get("messages").is_some())
        .unwrap();
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
    assert!(out.contains("invalid value 'words' for '--estimator <NAME>'"), "{out}");
    assert!(out.contains("[possible values: heuristic, pi"), "{out}");
}

/// `branch --max-summary-tokens` bounds the branch summary (`branchMaxSummaryTokens`): the
/// request carries that output limit, not the default.
#[test]
fn branch_max_summary_tokens_reaches_the_branch_summary_request() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("offline-coding.jsonl"), dir.path().join("s.jsonl")).unwrap();
    let text = std::fs::read_to_string(dir.path().join("s.jsonl")).unwrap();
    // An early message: the rest of the path is the branch that is summarized.
    let target = text
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|entry| entry["type"] == "message")
        .nth(1)
        .and_then(|entry| entry["id"].as_str().map(str::to_owned))
        .unwrap();
    let (url, requests) = error_server(500);
    let args = [
        "branch",
        "s.jsonl",
        "--to",
        &target,
        "--summarize",
        "--provider",
        "openai",
        "--model",
        "qwen2.5:7b",
        "--base-url",
        &url,
        "--max-summary-tokens",
        "321",
        "--quiet",
    ];
    let out = run(&args, dir.path());
    assert!(out.starts_with("exit: 1\n"), "{out}");
    let bodies: Vec<serde_json::Value> = std::iter::from_fn(|| requests.try_recv().ok())
        .filter_map(|body| serde_json::from_str(&body).ok())
        .filter(|body: &serde_json::Value| body.get("messages").is_some())
        .collect();
    assert!(!bodies.is_empty(), "no summary request: {out}");
    assert!(bodies.iter().all(|body| body["max_tokens"] == 321), "{bodies:?}");
}

/// A project directory holding a session and a `.pi/settings.json` whose extension leaves a
/// marker file when it runs; returns (dir, marker path).
fn project_with_extension() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("offline-coding.jsonl"), dir.path().join("s.jsonl")).unwrap();
    std::fs::create_dir_all(dir.path().join(".pi")).unwrap();
    let marker = dir.path().join("extension-ran");
    let script = format!("touch '{}'; cat >/dev/null; echo '{{}}'", marker.display());
    let settings = serde_json::json!({"compaction": {"extensions": [
        {"name": "cloned-repo-hook", "command": "sh", "args": ["-c", script]}
    ]}});
    std::fs::write(dir.path().join(".pi/settings.json"), settings.to_string()).unwrap();
    (dir, marker)
}

pub const RUN_ARGS: [&str; 10] = [
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

#[test]
fn a_projects_own_extension_never_runs_without_trust() {
    let (dir, marker) = project_with_extension();
    let out = run(&RUN_ARGS, dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert!(!marker.exists(), "the project's extension ran without trust: {out}");
    assert!(out.contains("cloned-repo-hook") && out.contains("not trusted"), "{out}");
    assert!(out.contains("--trust-project"), "{out}");
    // `config` names it, its file, and that it does not run.
    let json = stdout_json(&run(&["config", "--json"], dir.path()));
    assert_eq!(json["project"]["trusted"], false, "{json}");
    assert_eq!(json["extensions"][0]["name"], "cloned-repo-hook", "{json}");
    assert_eq!(json["extensions"][0]["scope"], "project", "{json}");
    assert_eq!(json["extensions"][0]["runs"], false, "{json}");
    let human = run(&["config"], dir.path());
    assert!(human.contains("not run: the project is not trusted"), "{human}");
}

#[test]
fn a_projects_own_extension_runs_when_trusted_by_flag_or_global_setting() {
    let (dir, marker) = project_with_extension();
    let mut args = RUN_ARGS.to_vec();
    args.push("--trust-project");
    let out = run(&args, dir.path());
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert!(marker.exists(), "--trust-project did not run it: {out}");

    let (dir, marker) = project_with_extension();
    let agent = tempfile::tempdir().unwrap();
    let global = serde_json::json!({"compaction": {"trustedProjects": [dir.path()]}});
    std::fs::write(agent.path().join("settings.json"), global.to_string()).unwrap();
    let with_global = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_compaction"))
            .args(args)
            .current_dir(dir.path())
            .env("PI_CODING_AGENT_DIR", agent.path())
            .output()
            .unwrap();
        format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    };
    let json = stdout_json(&with_global(&["config", "--json"]));
    assert_eq!(json["project"]["trusted"], true, "{json}");
    assert_eq!(json["extensions"][0]["runs"], true, "{json}");
    assert!(json["warnings"].as_array().unwrap().is_empty(), "{json}");
    let out = with_global(&RUN_ARGS);
    assert!(out.starts_with("exit: 0\n"), "{out}");
    assert!(marker.exists(), "trustedProjects did not run it: {out}");
}

#[test]
fn a_settings_file_that_is_a_fifo_is_refused_without_hanging() {
    for global in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(fixture("small-linear.jsonl"), dir.path().join("s.jsonl")).unwrap();
        let agent = tempfile::tempdir().unwrap();
        let fifo = if global {
            agent.path().join("settings.json")
        } else {
            std::fs::create_dir_all(dir.path().join(".pi")).unwrap();
            dir.path().join(".pi/settings.json")
        };
        let status = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(status.success());
        let agent_dir = agent.path().to_string_lossy().into_owned();
        let started = std::time::Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_compaction"))
            .args(["stats", "s.jsonl"])
            .current_dir(dir.path())
            .env("PI_CODING_AGENT_DIR", &agent_dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > std::time::Duration::from_secs(10) {
                child.kill().unwrap();
                panic!("hung on a FIFO settings file (global: {global})");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert_eq!(status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("not a regular file"), "{stderr}");
    }
}
