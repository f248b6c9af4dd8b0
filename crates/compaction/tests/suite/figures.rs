//! Before/after figures of a prune and of a compaction are one measure on both sides: the
//! estimate of the context at the leaf before and at the new leaf after (a recorded usage
//! measured another context, so it is reported apart and never compared). For a prune,
//! the after is never above the before.
//!
//! Instances: generated sessions whose recorded usages are removed, shrunk, kept or grown
//! (so usage is below, near or above the estimate), and every real transcript of the shared
//! corpus (imported when it is a Claude Code or Codex transcript). Each belongs to the dev or
//! the test part by a fixed rule: a generated session by its seed (`seed % 3 == 0` is test),
//! a real transcript by the first byte of sha256("repository:path") (below 0x60 is test).

use std::path::{Path, PathBuf};

use compaction::compact::{CompactOutcome, CompactRequest, Compactor};
use compaction::extension::Extensions;
use compaction::offline::OfflineSummarizer;
use compaction::store::{OpenOptions, SessionStore};
use compaction_core::context::build_context;
use compaction_core::prune::{PruneSettings, Strategy};
use compaction_core::serialize::Redactor;
use compaction_core::settings::CompactionSettings;
use compaction_core::tokens::{
    TokenEstimator, context_tokens, estimate_context_tokens, estimator_by_name,
};
use compaction_testdata::{GenerateOptions, generate_session};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Part {
    Dev,
    Test,
}

struct Instance {
    name: String,
    part: Part,
    text: String,
    /// Whether a summary is also run (the generated sessions; the real ones are pruned only,
    /// to keep the test's time down).
    summarize: bool,
}

/// How recorded usages relate to the estimate in a generated session.
const USAGE_SCALES: [Option<f64>; 4] = [None, Some(0.25), Some(1.0), Some(4.0)];

/// Multiplies every assistant usage by `scale`, or removes it (`None`).
fn with_usage_scaled(text: &str, scale: Option<f64>) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut value: Value = serde_json::from_str(line).unwrap();
        if let Some(message) = value.get_mut("message").and_then(Value::as_object_mut)
            && message.get("role").and_then(Value::as_str) == Some("assistant")
        {
            match scale {
                None => {
                    message.remove("usage");
                }
                Some(scale) => {
                    if let Some(usage) = message.get_mut("usage").and_then(Value::as_object_mut) {
                        for key in ["input", "output", "cacheRead", "cacheWrite", "totalTokens"] {
                            if let Some(number) = usage.get(key).and_then(Value::as_u64) {
                                let scaled = (number as f64 * scale).round() as u64;
                                usage.insert(key.into(), Value::from(scaled));
                            }
                        }
                    }
                }
            }
        }
        out.push_str(&value.to_string());
        out.push('\n');
    }
    out
}

fn generated() -> Vec<Instance> {
    let mut instances = Vec::new();
    for seed in 1..=6u64 {
        let options = GenerateOptions {
            seed,
            entries: 140,
            branches: seed % 2 == 0,
            compactions: seed % 4 < 2,
            average_entry_bytes: 1800,
            compaction_threshold_tokens: 40_000,
            event_scale: 1.0,
            pi16: seed % 3 != 1,
        };
        let text = generate_session(&options);
        for scale in USAGE_SCALES {
            instances.push(Instance {
                name: format!("generated seed {seed}, usage ×{scale:?}"),
                part: if seed % 3 == 0 { Part::Test } else { Part::Dev },
                text: with_usage_scaled(&text, scale),
                summarize: true,
            });
        }
    }
    instances
}

/// The shared transcript corpus: `COMPACTION_TRANSCRIPTS`, or `../shared/transcripts` from
/// the repository root.
fn corpus() -> Option<PathBuf> {
    let path = match std::env::var_os("COMPACTION_TRANSCRIPTS") {
        Some(path) => PathBuf::from(path),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/transcripts"),
    };
    path.join("SOURCES.json").is_file().then_some(path)
}

fn real() -> Vec<Instance> {
    let Some(root) = corpus() else {
        eprintln!(
            "skipping the real transcripts: no ../shared/transcripts beside the repository \
             (set COMPACTION_TRANSCRIPTS)"
        );
        return Vec::new();
    };
    let sources: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("SOURCES.json")).unwrap()).unwrap();
    let mut instances = Vec::new();
    for row in sources["files"].as_array().unwrap() {
        let field = |key: &str| row[key].as_str().unwrap().to_owned();
        let key = format!("{}:{}", field("repository"), field("path"));
        let part = if Sha256::digest(key.as_bytes())[0] < 0x60 { Part::Test } else { Part::Dev };
        let file = field("file");
        let raw = std::fs::read_to_string(root.join(&file)).unwrap();
        let text = match compaction_core::import::import(&raw, None, &Redactor::default()) {
            Ok(imported) => imported.session,
            // Not a Claude Code or Codex transcript: a pi session as it is.
            Err(_) if raw.starts_with("{\"type\":\"session\"") => raw,
            Err(error) => {
                eprintln!(
                    "skipping {file}: neither a transcript to import nor a pi session ({error})"
                );
                continue;
            }
        };
        instances.push(Instance { name: file, part, text, summarize: false });
    }
    instances
}

fn settings() -> CompactionSettings {
    CompactionSettings {
        keep_recent_tokens: 4000,
        prune: PruneSettings {
            protect_recent_tokens: 2000,
            minimum_savings: 1,
            ..PruneSettings::default()
        },
        ..CompactionSettings::default()
    }
}

/// The estimate of the context at the file's leaf, and the recorded usage there.
fn measured(path: &Path, estimator: &dyn TokenEstimator) -> (u64, Option<u64>) {
    let session = SessionStore::open(path, OpenOptions::for_reading()).unwrap().0.into_session();
    let context = build_context(&session, session.leaf());
    let pi = context_tokens(&session, &context, estimator);
    (
        estimate_context_tokens(&session, &context, estimator),
        pi.usage_entry_id.is_some().then_some(pi.usage_tokens),
    )
}

/// What the old reporting showed as "before": pi's usage-based count.
fn pi_count(path: &Path, estimator: &dyn TokenEstimator) -> u64 {
    let session = SessionStore::open(path, OpenOptions::for_reading()).unwrap().0.into_session();
    let context = build_context(&session, session.leaf());
    context_tokens(&session, &context, estimator).tokens
}

async fn run(path: &Path, strategy: Strategy) -> Option<CompactOutcome> {
    let settings = settings();
    let estimator = estimator_by_name("heuristic").unwrap();
    let extensions = Extensions::new();
    let compactor = Compactor {
        summarizer: &OfflineSummarizer,
        settings: &settings,
        context_window: 200_000,
        estimator: estimator.as_ref(),
        redactor: Redactor::default(),
        extensions: &extensions,
    };
    let mut store = SessionStore::open(path, OpenOptions::for_writing()).ok()?.0;
    let request = CompactRequest { strategy: Some(strategy), ..CompactRequest::default() };
    compactor.run(&mut store, &request, &CancellationToken::new(), &|_| {}).await.ok()
}

#[derive(Default, Debug)]
struct Tally {
    instances: usize,
    pruned: usize,
    /// Prunes whose old figures (pi's count before, estimate after) read as a rise.
    old_rise: usize,
    summarized: usize,
}

#[tokio::test]
async fn prune_and_compaction_figures_are_one_measure_and_a_prune_never_grows() {
    let estimator = estimator_by_name("heuristic").unwrap();
    let estimator = estimator.as_ref();
    let mut instances = generated();
    instances.extend(real());
    let mut tallies = [Tally::default(), Tally::default()];
    let dir = tempfile::tempdir().unwrap();
    for instance in &instances {
        let tally = &mut tallies[usize::from(instance.part == Part::Test)];
        tally.instances += 1;
        let name = &instance.name;
        let path = dir.path().join("prune.jsonl");
        std::fs::write(&path, &instance.text).unwrap();
        let (before, recorded) = measured(&path, estimator);
        let old_before = pi_count(&path, estimator);
        if let Some(outcome) = run(&path, Strategy::Prune).await {
            let pruned = outcome.pruned.as_ref().expect("the prune strategy prunes");
            let (after, _) = measured(&path, estimator);
            assert_eq!(pruned.tokens_before, before, "{name}: before is the estimate");
            assert_eq!(pruned.tokens_after, after, "{name}: after is the estimate");
            assert_eq!(pruned.recorded_usage, recorded, "{name}: the usage stands apart");
            assert_eq!(
                pruned.plan.tokens_after(),
                after,
                "{name}: the dry run's after is the written one"
            );
            assert!(after <= before, "{name}: a prune grew the context {before} → {after}");
            assert_eq!((outcome.tokens_before, outcome.tokens_after), (before, after), "{name}");
            tally.pruned += 1;
            tally.old_rise += usize::from(after > old_before);
        }
        if !instance.summarize {
            continue;
        }
        let path = dir.path().join("summarize.jsonl");
        std::fs::write(&path, &instance.text).unwrap();
        if let Some(outcome) = run(&path, Strategy::Summarize).await {
            let (after, _) = measured(&path, estimator);
            assert_eq!(outcome.tokens_before, before, "{name}: before is the estimate");
            assert_eq!(outcome.tokens_after, after, "{name}: after is the estimate");
            assert_eq!(outcome.recorded_usage, recorded, "{name}");
            tally.summarized += 1;
        }
    }
    eprintln!("dev:  {:?}\ntest: {:?}", tallies[0], tallies[1]);
    for tally in &tallies {
        assert!(tally.pruned > 0, "every part has pruned instances: {tallies:?}");
        assert!(
            tally.summarized > 0 || tally.instances == 0,
            "every part has summarized instances: {tallies:?}"
        );
    }
}
