//! The embedded summarizer used when no model provider is configured.
//!
//! It runs without network access and gives the same bytes for the same input; all of its
//! logic lives in [`compaction_core::offline`], so this type only gives the library a named
//! summarizer to wire beside the provider-backed ones.

pub use compaction_core::offline::{OfflineInput, OfflineKind};

/// Summarizes transcripts from their own content, without a model.
#[derive(Debug, Clone, Copy, Default)]
pub struct OfflineSummarizer;

impl OfflineSummarizer {
    /// The structured checkpoint of `input.messages`, at most `input.max_chars` characters.
    pub fn summarize(&self, input: &OfflineInput) -> String {
        compaction_core::offline::summarize_offline(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compaction_core::AgentMessage;

    #[test]
    fn delegates_to_the_core_summarizer() {
        let messages =
            [AgentMessage::user_text("Fix the flaky test in src/net.rs. Never retry forever.")];
        let input = OfflineInput {
            kind: OfflineKind::History,
            messages: &messages,
            previous_summary: None,
            instructions: None,
            max_chars: 4_000,
        };
        let summary = OfflineSummarizer.summarize(&input);
        assert_eq!(summary, compaction_core::offline::summarize_offline(&input));
        assert!(summary.contains("Fix the flaky test in src/net.rs."), "{summary}");
        assert!(summary.contains("- Never retry forever."), "{summary}");
    }
}
