//! Round 19: what the tool itself adds around a session's text, attacked by class.
//!
//! - `facts`: the facts a summary must keep (the user's constraints in their words, the
//!   latest request, the last failure and its error line), which the quality gate checks a
//!   summary against, repairs a summary with (its Must Keep section), reports (`quality:
//!   repaired …`, `details.quality`) and `plan` lists, with a secret of a known family in
//!   the fact; through `run` (text, in place), `run -o OUT --json` and `plan`.
//! - `search`: what `search` prints of an entry the context no longer shows (its snippet,
//!   cut around the match), with a secret near the match, a character whose lowercase has
//!   another length, and a match at either edge of the window; text and `--json`.
//!
//! Instances are numbered in the order generated; instance `i` is in the test part when
//! `i % 3 == 2`, else in the dev part (fixed before any fix). Each suite prints its counts
//! and fails with the dev part's misses in full, the test part's by number only
//! (`ROUND19_SHOW_TEST=1` prints them in full). `ROUND19_COMPACTION_BIN` runs a suite
//! against another build.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use crate::child::{Ran, run_until};
use crate::tally::Tally;

mod facts;
mod search;

/// Runs the binary in `cwd` with `HOME` and `TMPDIR` under `home`, a clean settings
/// environment and a deadline (exit -2 when it was still running then).
pub(crate) fn run_in(cwd: &Path, home: &Path, args: &[&str]) -> Ran {
    let tmp = home.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let binary = std::env::var_os("ROUND19_COMPACTION_BIN")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_compaction").into());
    let mut command = Command::new(binary);
    command
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env("TMPDIR", &tmp)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("COMPACTION_TRANSCRIPTS");
    run_until(&mut command, Duration::from_secs(60))
}

/// A small deterministic generator (SplitMix64): the same instances on every run.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `n` characters drawn from `alphabet`.
    pub(crate) fn chars(&mut self, n: usize, alphabet: &str) -> String {
        let alphabet: Vec<char> = alphabet.chars().collect();
        (0..n).map(|_| alphabet[(self.next() % alphabet.len() as u64) as usize]).collect()
    }
}

pub(crate) const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_DIGITS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const DIGITS: &str = "0123456789";
pub(crate) const URL_SAFE: &str =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// A made-up secret of a well-known family: the fixed prefix the family is known by and the
/// random part that makes it this secret (the part a leak is looked for).
pub(crate) struct Secret {
    pub(crate) family: &'static str,
    pub(crate) prefix: String,
    pub(crate) body: String,
}

impl Secret {
    pub(crate) fn value(&self) -> String {
        format!("{}{}", self.prefix, self.body)
    }

    /// Whether `text` shows this secret, whole or in part: any 12 characters in a row of
    /// its random part (the part no redaction marker or prose holds by chance), in any case
    /// (a lowercased copy shows it too).
    pub(crate) fn shown_in(&self, text: &str) -> bool {
        let text = text.to_lowercase();
        let body: Vec<char> = self.body.to_lowercase().chars().collect();
        let width = body.len().min(12);
        body.windows(width).any(|run| text.contains(&run.iter().collect::<String>()))
    }
}

/// The families every suite plants, each a format the built-in redaction names (GitHub,
/// AWS, Slack, Stripe, Anthropic, Google, OpenAI, a JSON Web Token).
pub(crate) const FAMILIES: [&str; 8] =
    ["github", "aws", "slack", "stripe", "anthropic", "google", "openai", "jwt"];

pub(crate) fn secret(family: &'static str, rng: &mut Rng) -> Secret {
    let (prefix, body) = match family {
        "github" => ("ghp_".to_owned(), rng.chars(36, ALNUM)),
        "aws" => ("AKIA".to_owned(), rng.chars(16, UPPER_DIGITS)),
        "slack" => (
            "xoxb-".to_owned(),
            format!("{}-{}-{}", rng.chars(11, DIGITS), rng.chars(12, DIGITS), rng.chars(24, ALNUM)),
        ),
        "stripe" => ("sk_live_".to_owned(), rng.chars(24, ALNUM)),
        "anthropic" => ("sk-ant-api03-".to_owned(), format!("{}AA", rng.chars(93, URL_SAFE))),
        "google" => ("AIza".to_owned(), rng.chars(35, URL_SAFE)),
        "openai" => ("sk-proj-".to_owned(), rng.chars(48, URL_SAFE)),
        _ => (
            // {"alg":"HS256","typ":"JWT"} and a payload, base64url, then a signature.
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.".to_owned(),
            format!(
                "eyJzdWIiOiI{}IiwiaWF0IjoxNzAwMDAwMDAwfQ.{}",
                rng.chars(10, ALNUM),
                rng.chars(43, URL_SAFE)
            ),
        ),
    };
    Secret { family, prefix, body }
}

/// Dev and test tallies of one class: instance `i` is in the test part when `i % 3 == 2`
/// (`ROUND19_SHOW_TEST` prints its misses in full).
fn split_tally() -> Tally {
    Tally::split(2, "ROUND19_SHOW_TEST")
}

/// A session file's lines: the header, then `messages` chained one under the other
/// (`e0001`, `e0002`, …), then `extra` lines as given.
fn session_text(messages: &[serde_json::Value], extra: &[serde_json::Value]) -> String {
    let mut lines = vec![serde_json::json!({"type": "session", "version": 3, "id": "round19",
        "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/work"})];
    let mut parent: Option<String> = None;
    for message in messages {
        let id = format!("e{:04}", lines.len());
        lines.push(serde_json::json!({"type": "message", "id": id, "parentId": parent,
            "timestamp": "2026-01-01T00:00:01.000Z", "message": message}));
        parent = Some(id);
    }
    lines.extend(extra.iter().cloned());
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// A user message of a session these suites (and round 20's) write.
pub(crate) fn user(text: &str) -> Value {
    serde_json::json!({"role": "user", "content": text, "timestamp": 1})
}

pub(crate) fn assistant(text: &str) -> Value {
    serde_json::json!({"role": "assistant", "content": [{"type": "text", "text": text}],
        "timestamp": 1})
}

/// Ordinary turns, long enough that the session is worth compacting.
pub(crate) fn turns(from: usize, to: usize) -> Vec<Value> {
    let mut messages = Vec::new();
    for turn in from..to {
        messages.push(user(&format!(
            "Step {turn}: {}",
            "please go on with the migration of the billing module and keep me posted ".repeat(8)
        )));
        messages.push(assistant(&format!(
            "Step {turn} done. {}",
            "I moved another part of the billing module and the tests still pass ".repeat(8)
        )));
    }
    messages
}
