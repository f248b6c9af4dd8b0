//! What the harness is configured with: the chat model ([`ChatModel`]) and its own
//! settings ([`HarnessSettings`]: the loop guard and the backoff).

/// The chat model the agent talks to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatModel {
    /// Provider name recorded in `model_change` entries and assistant messages.
    pub provider: String,
    /// The model id.
    pub model_id: String,
    /// The model's context window in tokens.
    pub context_window: u64,
}

impl ChatModel {
    /// A model whose window is `window` when given, else the model table's (or the default).
    pub fn new(
        provider: impl Into<String>,
        model_id: impl Into<String>,
        window: Option<u64>,
    ) -> Self {
        let model_id = model_id.into();
        let context_window = compaction_core::models::context_window(Some(&model_id), window);
        Self { provider: provider.into(), model_id, context_window }
    }
}

/// Harness knobs besides the compaction settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HarnessSettings {
    /// Failed automatic compactions in a row after which the harness waits for the context
    /// to change before trying again (3).
    pub max_consecutive_failures: u32,
    /// Capacity of the event channel; slow subscribers miss the oldest events (64).
    pub event_capacity: usize,
    /// The most characters one `recall` or `search` tool call returns (8000); a longer
    /// original is paged with `offset`.
    pub history_tool_max_chars: usize,
}

impl Default for HarnessSettings {
    fn default() -> Self {
        Self { max_consecutive_failures: 3, event_capacity: 64, history_tool_max_chars: 8000 }
    }
}
