//! What the gate did ([`QualityReport`], [`QualityStatus`]), as recorded in the entry's
//! `details.quality`.

use serde::Serialize;

use super::*;

/// What the gate did, as recorded in the compaction entry's `details.quality`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QualityReport {
    /// `passed` (the summarizer's summary passed, possibly after the retry) or `repaired`
    /// (a Must Keep section was added).
    pub status: QualityStatus,
    /// Summarizer attempts: 1, or 2 after a retry.
    pub attempts: u32,
    /// What the last attempt's summary lacked (empty when it passed).
    pub missing: Vec<String>,
    /// What the first attempt's summary lacked, when a retry was made.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub first_attempt_missing: Vec<String>,
    /// The summary is another summarizer's, because the configured one's was unusable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<Fallback>,
}

/// A summary written by a fallback summarizer, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fallback {
    /// The summarizer that wrote the summary (`offline`).
    pub summarizer: String,
    /// The summarizer whose summary was unusable (`openai/MODEL`).
    pub instead_of: String,
    /// What was wrong with its last summary.
    pub reason: Vec<String>,
    /// Requests the unusable summarizer's server received before the fallback.
    pub requests: usize,
}

/// The gate's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum QualityStatus {
    /// The summary passed every check.
    Passed,
    /// The summary failed the checks twice; a Must Keep section was appended.
    Repaired,
}

impl QualityStatus {
    /// `passed` or `repaired`.
    pub fn as_str(self) -> &'static str {
        match self {
            QualityStatus::Passed => "passed",
            QualityStatus::Repaired => "repaired",
        }
    }
}

/// Problems as the strings recorded in `details.quality.missing`.
pub fn describe(problems: &[Problem]) -> Vec<String> {
    problems.iter().map(ToString::to_string).collect()
}
