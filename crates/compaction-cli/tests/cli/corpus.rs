//! `compaction eval` over transcripts: the corpus root, the dev/test split, conversion and
//! what cannot be imported, on a small corpus made here; then the whole real-transcript
//! corpus when its folder is present.

use super::*;

/// A transcripts root with a Claude Code transcript in the dev part, a Codex rollout and an
/// unreadable transcript in the test part, and a probe file for each.
fn small_corpus(dir: &Path) -> (PathBuf, PathBuf) {
    let root = dir.join("transcripts");
    let probes = dir.join("probes");
    let imports =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../compaction-core/tests/fixtures/import");
    for folder in ["claude-code", "codex", "other"] {
        std::fs::create_dir_all(root.join(folder)).unwrap();
        std::fs::create_dir_all(probes.join(folder)).unwrap();
    }
    std::fs::copy(imports.join("claude-code.jsonl"), root.join("claude-code/ledger.jsonl"))
        .unwrap();
    std::fs::copy(imports.join("codex-rollout.jsonl"), root.join("codex/rollout.jsonl")).unwrap();
    std::fs::write(root.join("other/chat.jsonl"), "{\"role\":\"user\",\"message\":{}}\n").unwrap();
    // sha256("a:b") starts with 0x67 (dev), sha256("a:d") with 0x22 (test).
    let sources = serde_json::json!({"files": [
        {"file": "claude-code/ledger.jsonl", "repository": "a", "path": "b"},
        {"file": "codex/rollout.jsonl", "repository": "a", "path": "d"},
        {"file": "other/chat.jsonl", "repository": "a", "path": "d"},
    ]});
    std::fs::write(root.join("SOURCES.json"), sources.to_string()).unwrap();
    let probe = |transcript: &str, subject: &str, expect: &str| {
        serde_json::json!({"transcript": transcript, "probes": [
            {"category": "recall", "question": "q", "subject": [subject], "expect": [expect]},
            {"category": "open", "question": "q2", "subject": [subject], "expect": ["never said"]},
        ]})
        .to_string()
    };
    std::fs::write(
        probes.join("claude-code/ledger.probes.json"),
        probe("claude-code/ledger.jsonl", "CSV importer", "semicolons"),
    )
    .unwrap();
    std::fs::write(
        probes.join("codex/rollout.probes.json"),
        probe("codex/rollout.jsonl", "x", "y"),
    )
    .unwrap();
    std::fs::write(probes.join("other/chat.probes.json"), probe("other/chat.jsonl", "x", "y"))
        .unwrap();
    (root, probes)
}

#[test]
fn eval_runs_transcripts_by_part_and_reports_what_it_cannot_import() {
    let dir = tempfile::tempdir().unwrap();
    let (root, probes) = small_corpus(dir.path());
    let root = root.display().to_string();
    let args = ["eval", "probes", "--transcripts", &root, "--compactions", "1", "--json"];
    let report = stdout_json(&run(&args, dir.path()));
    let files = report["files"].as_array().unwrap();
    let parts: Vec<(&str, &str)> = files
        .iter()
        .map(|f| (f["transcript"].as_str().unwrap(), f["part"].as_str().unwrap()))
        .collect();
    assert_eq!(
        parts,
        [
            ("claude-code/ledger.jsonl", "dev"),
            ("codex/rollout.jsonl", "test"),
            ("other/chat.jsonl", "test")
        ]
    );
    // The Claude Code transcript was imported and graded: its first user message names the
    // subject and the answer in one paragraph; nothing says the second probe's string.
    let graded = &files[0]["runs"][0]["probes"];
    assert_eq!(graded[0]["outcome"], "answered", "{report}");
    assert_eq!(graded[1]["outcome"], "missed", "{report}");
    // The unreadable transcript is reported with the importer's reason, its probes apart.
    let reason = files[2]["notImportable"].as_str().unwrap();
    assert!(reason.starts_with("compaction import: "), "{reason}");
    assert_eq!(files[2]["runs"], serde_json::json!([]));
    assert_eq!(
        report["notImportable"],
        serde_json::json!([{"part": "test", "files": 1, "probes": 2}])
    );
    let totals: Vec<(&str, u64)> = report["totals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["part"].as_str().unwrap(), t["all"]["total"].as_u64().unwrap()))
        .collect();
    assert_eq!(totals, [("dev", 2), ("test", 2)]);

    // --part keeps one part; the text report says what it left out and what it could not
    // import.
    let text = run(
        &["eval", "probes", "--transcripts", &root, "--compactions", "1", "--part", "test"],
        dir.path(),
    );
    assert!(text.starts_with("exit: 0\n"), "{text}");
    assert!(!text.contains("ledger"), "{text}");
    assert!(text.contains("not importable: compaction import: "), "{text}");
    assert!(text.contains("1 probe files outside --part test were not run"), "{text}");

    // A transcript without a SOURCES.json row has no part: an error naming it.
    std::fs::write(root.clone() + "/SOURCES.json", r#"{"files": []}"#).unwrap();
    let out = run(&["eval", "probes/codex", "--transcripts", &root], dir.path());
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert!(out.contains("codex/rollout.jsonl: no row in"), "{out}");
    drop(probes);
}

#[test]
fn eval_cuts_user_turns_and_names_a_missing_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let (root, probes) = small_corpus(dir.path());
    let file = probes.join("claude-code/ledger.probes.json");
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    // Only the second user turn on: the first request (and its answer) is cut away.
    value["turns"] = serde_json::json!([1, 9]);
    std::fs::write(&file, value.to_string()).unwrap();
    let root_arg = root.display().to_string();
    let args =
        ["eval", "probes/claude-code", "--transcripts", &root_arg, "--compactions", "1", "--json"];
    let report = stdout_json(&run(&args, dir.path()));
    assert_eq!(report["files"][0]["turns"], serde_json::json!([1, 9]));
    assert_eq!(report["files"][0]["runs"][0]["probes"][0]["outcome"], "missed", "{report}");
    // Without --transcripts, the environment or a ../shared/transcripts: the places looked at.
    let out = run(&["eval", "probes/claude-code"], dir.path());
    assert!(out.starts_with("exit: 2\n"), "{out}");
    assert!(out.contains("no transcripts folder: give --transcripts DIR"), "{out}");
}

/// The real-transcript corpus: `COMPACTION_TRANSCRIPTS`, else `shared/transcripts` beside the
/// repository or one of its parent folders (the rule `compaction eval` follows).
fn real_transcripts() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("COMPACTION_TRANSCRIPTS").filter(|dir| !dir.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().ok()?;
    repository
        .ancestors()
        .filter_map(Path::parent)
        .map(|dir| dir.join("shared").join("transcripts"))
        .find(|dir| dir.is_dir())
}

/// Every probe file of `examples/real`, sorted.
fn real_probe_files() -> Vec<PathBuf> {
    let root = example("real");
    let mut out = Vec::new();
    for agent in std::fs::read_dir(&root).unwrap() {
        let agent = agent.unwrap().path();
        if !agent.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&agent).unwrap() {
            let file = file.unwrap().path();
            if file.to_string_lossy().ends_with(".probes.json") {
                out.push(file);
            }
        }
    }
    out.sort();
    out
}

/// The whole pipeline on every transcript of the real corpus, one compaction each (debug
/// build; the files run in parallel): each transcript (Claude Code, Codex, pi, Cursor,
/// Antigravity) imports (or migrates), is compacted at least once, and every probe gets an
/// outcome. No score floor: the figures are in BENCHMARKS.md.
#[test]
fn eval_runs_every_transcript_of_the_real_corpus() {
    let Some(root) = real_transcripts() else {
        println!(
            "skipped: no real-transcript corpus (set COMPACTION_TRANSCRIPTS or place it at \
             ../shared/transcripts beside the repository)"
        );
        return;
    };
    let files = real_probe_files();
    assert!(files.len() >= 30, "{files:?}");
    let root_arg = root.display().to_string();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let outputs = std::sync::Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(4);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(file) = files.get(index) else { break };
                    let path = file.display().to_string();
                    let args =
                        ["eval", &path, "--transcripts", &root_arg, "--compactions", "1", "--json"];
                    let out = run(&args, &example("real"));
                    outputs.lock().unwrap().push((path, out));
                }
            });
        }
    });
    let mut parts = std::collections::BTreeMap::<String, usize>::new();
    let mut notes = Vec::new();
    for (path, out) in outputs.into_inner().unwrap() {
        assert!(out.starts_with("exit: 0\n"), "{path}: {out}");
        let report = stdout_json(&out);
        let file = &report["files"][0];
        let transcript = file["transcript"].as_str().unwrap();
        *parts.entry(file["part"].as_str().unwrap().to_owned()).or_default() += 1;
        if let Some(reason) = file["notImportable"].as_str() {
            panic!("{transcript}: every transcript of the corpus must import: {reason}");
        }
        let run = &file["runs"][0];
        assert!(run["compactionsMade"].as_u64().unwrap() >= 1, "{transcript}: {run}");
        assert!(!run["summary"].as_str().unwrap_or_default().is_empty(), "{transcript}");
        let graded = run["probes"].as_array().unwrap();
        assert_eq!(graded.len() as u64, file["probeCount"].as_u64().unwrap(), "{transcript}");
        for probe in graded {
            let outcome = probe["outcome"].as_str().unwrap();
            assert!(
                ["answered", "partial", "missed", "contradicted"].contains(&outcome),
                "{transcript}: {probe}"
            );
        }
        let tokens = run["summaryTokens"].as_u64().unwrap_or(0);
        let budget = run["maxSummaryTokens"].as_u64().unwrap();
        if tokens > budget {
            notes.push(format!("{transcript}: a summary of {tokens} tokens, over its {budget}"));
        }
    }
    // The fixed split keeps at least a third of the corpus in the test part.
    let (test, all) = (parts.get("test").copied().unwrap_or(0), parts.values().sum::<usize>());
    assert!(test * 3 >= all, "{parts:?}");
    for note in notes {
        println!("note: {note}");
    }
}
