//! Why a compaction runs: [`CompactionReason`], told to extensions, recorded by the harness
//! and shared by the orchestration ([`crate::compact`]), the prune stage ([`crate::prune`])
//! and the extension protocol ([`crate::extension`]), none of which it depends on.

/// Why a compaction runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CompactionReason {
    /// Asked for by the user (`compaction run`, `/compact`).
    #[default]
    Manual,
    /// The trigger fired before a model call.
    Threshold,
    /// The model rejected a request as too long.
    Overflow,
}

impl CompactionReason {
    /// The name extensions and logs see: `manual`, `threshold` or `overflow`.
    pub fn as_str(self) -> &'static str {
        match self {
            CompactionReason::Manual => "manual",
            CompactionReason::Threshold => "threshold",
            CompactionReason::Overflow => "overflow",
        }
    }
}
