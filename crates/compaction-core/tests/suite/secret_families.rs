//! Redaction measured on the generated secret corpus (`compaction_testdata::secrets`): made-up
//! secrets of many families, each planted in several shapes, split by family into a dev part
//! (the rules were written against it) and a test part (held out). Two channels are measured
//! here in the core: what a summarizer is sent (each sample rendered as a transcript block)
//! and what `import` writes (Claude Code and Codex transcripts holding every sample).
//!
//! `cargo test -p compaction-core --test all secret_families -- --nocapture` prints the
//! figures; misses of the dev part are listed, misses of the test part only with
//! `COMPACTION_SHOW_TEST_MISSES=1` (they are not for writing rules against).

use compaction_core::AgentMessage;
use compaction_core::import::import;
use compaction_core::serialize::{Redactor, SerializeOptions, serialize_message};
use compaction_testdata::secrets::{
    Plant, Sample, claude_transcript, codex_transcript, corpus, report_parts, strings_of,
};
use serde_json::json;

/// The least share of samples redacted in each channel, dev and test parts. The goal is 0.99
/// for both; these floors are what the rules reach now (RELIABILITY.md), so that a change
/// that loses ground fails.
const REQUIRED: [f64; 2] = [0.93, 0.91];

/// The message a sample is sent in: a user message, a tool result, a tool call.
fn message(sample: &Sample, index: usize) -> AgentMessage {
    let value = match &sample.plant {
        Plant::Text(text) if index.is_multiple_of(2) => json!({"role": "user", "content": text}),
        Plant::Text(text) => json!({"role": "toolResult", "toolCallId": "1", "toolName": "bash",
            "content": [{"type": "text", "text": text}], "isError": false}),
        Plant::Arguments(arguments) => json!({"role": "assistant", "content": [
            {"type": "toolCall", "id": "1", "name": "mcp_ops_call", "arguments": arguments}]}),
        Plant::Image(data) => json!({"role": "toolResult", "toolCallId": "1", "toolName": "read",
            "content": [{"type": "image", "data": data, "mimeType": "image/png"}], "isError": false}),
    };
    serde_json::from_value(value).unwrap()
}

/// One channel's figures for one part.
struct Tally {
    caught: usize,
    total: usize,
    missed: Vec<String>,
}

fn tally<'a>(samples: impl Iterator<Item = (&'a Sample, bool)>) -> Tally {
    let mut tally = Tally { caught: 0, total: 0, missed: Vec::new() };
    for (sample, leaked) in samples {
        tally.total += 1;
        if leaked {
            tally.missed.push(format!("{} [{}]: {}", sample.family, sample.shape, sample.text()));
        } else {
            tally.caught += 1;
        }
    }
    tally
}

/// Prints both parts of a channel and returns the parts below their [`REQUIRED`] floor.
#[must_use]
fn report(channel: &str, results: &[(&Sample, bool)]) -> Vec<String> {
    let show_test = std::env::var_os("COMPACTION_SHOW_TEST_MISSES").is_some();
    let mut failures = Vec::new();
    for (part, is_test) in [("dev", false), ("test", true)] {
        let tally = tally(results.iter().filter(|(s, _)| s.test == is_test).copied());
        let rate = tally.caught as f64 / tally.total.max(1) as f64;
        eprintln!(
            "{channel}, {part}: {}/{} samples redacted ({:.2}%)",
            tally.caught,
            tally.total,
            rate * 100.0
        );
        if !is_test || show_test {
            for miss in &tally.missed {
                eprintln!("  missed {miss}");
            }
        }
        if rate < REQUIRED[usize::from(is_test)] {
            failures.push(format!("{channel}, {part}: {:.2}%", rate * 100.0));
        }
    }
    for part in report_parts() {
        let tally = tally(results.iter().filter(|(s, _)| part.holds(s)).copied());
        eprintln!("{channel}, {}: {}/{} samples redacted", part.name, tally.caught, tally.total);
    }
    failures
}

#[test]
fn secrets_sent_to_a_summarizer_are_redacted() {
    let samples = corpus();
    let options =
        SerializeOptions { tool_result_max_chars: 1_000_000, redactor: Redactor::default() };
    let results: Vec<(&Sample, bool)> = samples
        .iter()
        .enumerate()
        .map(|(index, sample)| {
            let sent = serialize_message(&message(sample, index), &options);
            (sample, sample.leaks_into(&sent))
        })
        .collect();
    let failures = report("sent (transcript blocks)", &results);
    assert!(failures.is_empty(), "below {REQUIRED:?}: {failures:?}");
}

#[test]
fn secrets_in_imported_transcripts_are_redacted() {
    let samples = corpus();
    type Transcript = fn(&[&Sample]) -> String;
    let formats: [(&str, Transcript); 2] =
        [("Claude Code import", claude_transcript), ("Codex import", codex_transcript)];
    // Both formats are measured before either is judged.
    let mut failures = Vec::new();
    for (name, transcript) in formats {
        // Each sample in a transcript of its own, so that a leak is found in its own output.
        let results: Vec<(&Sample, bool)> = samples
            .iter()
            .map(|sample| {
                let imported = import(&transcript(&[sample]), None, &Redactor::default()).unwrap();
                // What the file holds, as a reader sees its strings (JSON escapes undone).
                let mut written = imported.session.clone();
                for line in imported.session.lines() {
                    written.push_str(&strings_of(&serde_json::from_str(line).unwrap()));
                }
                (sample, sample.leaks_into(&written))
            })
            .collect();
        failures.extend(report(name, &results));
    }
    assert!(failures.is_empty(), "below {REQUIRED:?}: {failures:?}");
}

/// Ordinary lines that look a little like secrets (format strings, license names, code that
/// reads a password, ids, digests, flags of common tools): none may change.
#[test]
fn ordinary_lines_are_left_alone() {
    let path = super::fixtures_dir().join("secrets/ordinary-lines.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let redactor = Redactor::default();
    let changed: Vec<String> = text
        .lines()
        .filter(|line| redactor.redact(line) != *line)
        .map(|line| format!("{line}\n  → {}", redactor.redact(line)))
        .collect();
    assert!(text.lines().count() >= 50);
    assert!(changed.is_empty(), "changed:\n{}", changed.join("\n"));
}
