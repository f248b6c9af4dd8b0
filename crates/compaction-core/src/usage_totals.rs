//! What a session spent, summed as pi 1.6's session statistics sum it.
//!
//! Every entry of the file counts, on every branch and whether or not a compaction took it
//! out of the context (it was billed): assistant replies' `usage`, tool results that carry
//! one, `usage` entries (cache warming, …) and the `usage` of compaction and branch-summary
//! entries. Invariant: only the `usage` object of a line is read, never its content.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::entry::EntryKind;
use crate::session::Session;

/// Token and cost totals of a session.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageTotals {
    /// Input tokens not read from a prompt cache.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens read from a prompt cache.
    pub cache_read: u64,
    /// Input tokens written to a prompt cache.
    pub cache_write: u64,
    /// All of the above.
    pub total: u64,
    /// The summed `cost.total` (US dollars as the provider or pi priced them).
    pub cost: f64,
    /// A sum passed the largest number a count holds (`u64::MAX`): it stopped there, so
    /// the totals are lower bounds (no honest session gets there; a hand-edited one can).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub saturated: bool,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct UsageLine {
    #[serde(default)]
    input: f64,
    #[serde(default)]
    output: f64,
    #[serde(default)]
    cache_read: f64,
    #[serde(default)]
    cache_write: f64,
    #[serde(default)]
    cost: Option<Value>,
}

#[derive(Deserialize)]
struct MessageUsage {
    #[serde(default)]
    usage: Option<UsageLine>,
}

#[derive(Deserialize)]
struct EntryUsage {
    #[serde(default)]
    usage: Option<UsageLine>,
    #[serde(default)]
    message: Option<MessageUsage>,
}

fn count(value: f64) -> u64 {
    if value.is_finite() && value > 0.0 { value.round() as u64 } else { 0 }
}

impl UsageTotals {
    fn add(&mut self, usage: &UsageLine) {
        let mut saturated = false;
        let mut sum = |total: u64, value: u64| {
            total.checked_add(value).unwrap_or_else(|| {
                saturated = true;
                u64::MAX
            })
        };
        self.input = sum(self.input, count(usage.input));
        self.output = sum(self.output, count(usage.output));
        self.cache_read = sum(self.cache_read, count(usage.cache_read));
        self.cache_write = sum(self.cache_write, count(usage.cache_write));
        let partial = sum(self.input, self.output);
        let partial = sum(partial, self.cache_read);
        self.total = sum(partial, self.cache_write);
        self.saturated |= saturated;
        self.cost += usage
            .cost
            .as_ref()
            .and_then(|cost| cost.get("total").and_then(Value::as_f64).or_else(|| cost.as_f64()))
            .filter(|cost| cost.is_finite())
            .unwrap_or(0.0);
    }
}

/// The totals of every entry of `session` (see the module documentation).
pub fn session_usage_totals(session: &Session) -> UsageTotals {
    let mut totals = UsageTotals::default();
    for entry in session.entries() {
        // Whether the usage sits in the `message` (replies, tool results) or on the entry.
        let in_message = match &entry.kind {
            EntryKind::Message { role } if role == "assistant" || role == "toolResult" => true,
            EntryKind::Usage { .. } | EntryKind::Compaction(_) | EntryKind::BranchSummary(_) => {
                false
            }
            EntryKind::Message { .. }
            | EntryKind::ThinkingLevelChange { .. }
            | EntryKind::ModelChange { .. }
            | EntryKind::Custom { .. }
            | EntryKind::CustomMessage { .. }
            | EntryKind::Label { .. }
            | EntryKind::SessionInfo { .. }
            | EntryKind::ContextEdit { .. }
            | EntryKind::Unknown { .. } => continue,
        };
        let Ok(line) = crate::entry::from_json_text::<EntryUsage>(entry.raw()) else { continue };
        let usage =
            if in_message { line.message.and_then(|message| message.usage) } else { line.usage };
        if let Some(usage) = usage {
            totals.add(&usage);
        }
    }
    totals
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sums_stop_at_the_largest_count_instead_of_wrapping() {
        let mut totals = UsageTotals::default();
        let huge = UsageLine { input: 1.5e19, output: 1.0, ..UsageLine::default() };
        totals.add(&huge);
        assert!(!totals.saturated, "{totals:?}");
        totals.add(&huge);
        assert_eq!(totals.input, u64::MAX);
        assert_eq!(totals.total, u64::MAX);
        assert_eq!(totals.output, 2);
        assert!(totals.saturated);
        // Values past u64 in one line (as f64) are clamped by the cast, never negative.
        let mut one = UsageTotals::default();
        one.add(&UsageLine { input: 1e30, ..UsageLine::default() });
        assert_eq!(one.input, u64::MAX);
    }

    #[test]
    fn every_billed_usage_counts_cache_warming_and_summaries_included() {
        let usage = |input: u64, cost: f64| {
            json!({"input":input,"output":1,"cacheRead":2,"cacheWrite":0,"totalTokens":input+3,
                "cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":cost}})
        };
        let lines = [
            json!({"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}),
            json!({"type":"message","id":"a","parentId":null,"timestamp":"t",
                "message":{"role":"user","content":"q"}}),
            json!({"type":"message","id":"b","parentId":"a","timestamp":"t",
                "message":{"role":"assistant","content":[],"usage":usage(10, 0.5)}}),
            json!({"type":"usage","id":"w","parentId":"b","timestamp":"t","kind":"cache_warm",
                "provider":"p","model":"m","usage":usage(20, 0.25)}),
            json!({"type":"compaction","id":"k","parentId":"w","timestamp":"t","summary":"S",
                "firstKeptEntryId":"k","tokensBefore":1,"usage":usage(30, 0.0)}),
            // Another branch counts too: it was billed.
            json!({"type":"message","id":"c","parentId":"a","timestamp":"t",
                "message":{"role":"assistant","content":[],"usage":usage(40, 1.0)}}),
        ];
        let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
        let session = crate::parse_session(text.as_bytes());
        let totals = session_usage_totals(&session);
        assert_eq!((totals.input, totals.output, totals.cache_read), (100, 4, 8));
        assert_eq!(totals.total, 112);
        assert!((totals.cost - 1.75).abs() < 1e-9, "{}", totals.cost);
    }
}
