//! The class "what `search` prints of an entry the context no longer shows": a hit is the
//! entry's text cut to a window around the first match. Each instance plants one secret of
//! a known family in a message a compaction summarized (a user message or a tool result),
//! with the word searched for (`KeyRotation`, searched as `keyrotation`) placed so that:
//!
//! - `whole`: the secret stands right after the word;
//! - `cut-at-start`: the secret ends 60 characters before the word (the window's start, 80
//!   characters before the match, falls inside a secret of 20 characters or more);
//! - `cut-at-end`: the secret starts 60 characters after the word;
//! - `fold-before` / `fold-after`: a character whose lowercase is of another length in
//!   UTF-8 (`İ`, the Kelvin sign, the Ohm sign) opens or ends the text;
//! - `inside`: the query is 10 characters of the secret itself.
//!
//! × `search` in text and `--json`. The oracle: the hit is printed (the entry's id), no 12
//! characters in a row of the secret's random part are printed, and the word searched for
//! is shown as the session has it (`KeyRotation`, not a lowercased copy).
//!
//! `cargo test -p compaction-cli --test cli hostile_round19::search -- --nocapture`

use serde_json::{Value, json};

use super::{FAMILIES, Rng, Secret, run_in, secret, session_text, split_tally};

const SHAPES: [&str; 6] =
    ["whole", "cut-at-start", "cut-at-end", "fold-before", "fold-after", "inside"];

/// Characters whose lowercase has another length in UTF-8: `İ` (2 bytes, lowercase 3),
/// the Kelvin sign (3, lowercase `k` 1), the Ohm sign (3, lowercase `ω` 2).
const FOLDS: [char; 3] = ['\u{130}', '\u{212a}', '\u{2126}'];

const WORD: &str = "KeyRotation";

/// Filler of `n` characters, no secret and no searched word in it.
fn filler(n: usize) -> String {
    "the release notes say more ".chars().cycle().take(n).collect()
}

/// The text planted and the query searched for.
fn planted(shape: &str, secret: &Secret, fold: char) -> (String, String) {
    let value = secret.value();
    let query = WORD.to_lowercase();
    match shape {
        "whole" => (format!("Start the {WORD} now: the token is {value} for the deploy."), query),
        "cut-at-start" => {
            (format!("Old token {value} {} {WORD} is planned for Friday.", filler(58)), query)
        }
        "cut-at-end" => {
            (format!("Plan the {WORD} {} then use {value} for the deploy.", filler(58)), query)
        }
        "fold-before" => {
            (format!("{fold}stanbul office: {WORD} with the token {value} today."), query)
        }
        "fold-after" => {
            (format!("Do the {WORD} with the token {value} at the {fold}stanbul office."), query)
        }
        _ => {
            let body: Vec<char> = secret.body.chars().collect();
            let middle = body.len() / 2 - 5;
            (
                format!("Start the {WORD} now: the token is {value} for the deploy."),
                body[middle..middle + 10].iter().collect(),
            )
        }
    }
}

/// The session: the planted text in a user message or a tool result, summarized by a
/// compaction that keeps from the next message.
fn session(holder: &str, text: &str) -> String {
    let mut messages =
        vec![json!({"role": "user", "content": "Set up the deploy.", "timestamp": 1})];
    if holder == "user" {
        messages.push(json!({"role": "user", "content": text, "timestamp": 1}));
    } else {
        messages.push(json!({"role": "assistant", "content": [{"type": "toolCall", "id": "c1",
            "name": "read", "arguments": {"path": "NOTES.md"}}], "timestamp": 1}));
        messages.push(json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read",
            "content": [{"type": "text", "text": text}], "isError": false, "timestamp": 1}));
    }
    messages.push(json!({"role": "user", "content": "Next.", "timestamp": 1}));
    let kept = format!("e{:04}", messages.len());
    let compaction = json!({"type": "compaction", "id": "c0000001", "parentId": kept,
        "timestamp": "2026-01-01T00:00:02.000Z", "summary": "## Goal\n- Deploy.",
        "firstKeptEntryId": kept, "tokensBefore": 100});
    let last: Value = json!({"type": "message", "id": "last", "parentId": "c0000001",
        "timestamp": "2026-01-01T00:00:03.000Z",
        "message": {"role": "user", "content": "Go on.", "timestamp": 1}});
    session_text(&messages, &[compaction, last])
}

/// What `search` prints of the hidden entry; `None` when it holds.
fn attack(
    json_output: bool,
    holder: &str,
    shape: &str,
    secret: &Secret,
    fold: char,
) -> Option<String> {
    let work = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let (text, query) = planted(shape, secret, fold);
    std::fs::write(work.path().join("session.jsonl"), session(holder, &text)).unwrap();
    let mut args = vec!["search", "session.jsonl", query.as_str()];
    if json_output {
        args.push("--json");
    }
    let ran = run_in(work.path(), home.path(), &args);
    if ran.code != 0 {
        return Some(format!("exit {}: {}", ran.code, ran.stderr.trim()));
    }
    let holder_id = if holder == "user" { "e0002" } else { "e0003" };
    let mut misses = Vec::new();
    if !ran.stdout.contains(holder_id) {
        misses.push(format!("no hit for {holder_id}"));
    }
    if secret.shown_in(&ran.stdout) || secret.shown_in(&ran.stderr) {
        misses.push("the secret is printed".to_owned());
    }
    if shape != "inside" && !ran.stdout.contains(WORD) {
        misses.push(format!("{WORD} is not shown as written"));
    }
    (!misses.is_empty()).then(|| format!("{}; stdout: {}", misses.join(", "), ran.stdout.trim()))
}

#[test]
fn a_search_hit_shows_the_text_as_written_and_never_a_secret() {
    let mut rng = Rng(1919);
    let mut tally = split_tally();
    let mut index = 0;
    // Families innermost: every mode, holder and shape has instances in both parts.
    for json_output in [false, true] {
        for holder in ["user", "tool result"] {
            for shape in SHAPES {
                for (number, family) in FAMILIES.into_iter().enumerate() {
                    let secret = secret(family, &mut rng);
                    let fold = FOLDS[number % FOLDS.len()];
                    let mode = if json_output { "--json" } else { "text" };
                    let miss = attack(json_output, holder, shape, &secret, fold)
                        .map(|miss| format!("{family} in a {holder}, {shape}, {mode}: {miss}"));
                    tally.count(index, miss);
                    index += 1;
                }
            }
        }
    }
    tally.report("search hits");
}
