//! Compaction settings: the values, their defaults, layering and validation (no I/O).
//!
//! [`CompactionSettings`] holds every knob with its default in one place
//! ([`CompactionSettings::default`]). Settings arrive in layers ([`SettingsPatch`]), each
//! from one [`SettingSource`] (a settings file, the environment, command-line flags); a
//! later layer overrides the keys it sets. Keys are pi's camelCase names; files read the
//! `compaction` object of pi's `settings.json`. Reading files and the environment is the
//! job of `compaction::settings`.
//!
//! Small windows: pi's default budgets (reserve 16384, keep 20000 tokens) are sized for
//! windows of 128k tokens and more. Each token budget left at its default
//! ([`WINDOW_SCALED_KEYS`]) is capped at a quarter of the context window of the model in use
//! (the user's verbatim messages at a sixteenth, [`window_share`];
//! [`ResolvedSettings::fit_to_window`]); a budget set explicitly is never changed, and one
//! that does not fit is reported, together with every other one that does not, in a single
//! [`SettingsError::BudgetsExceedWindow`] with values that would work.
//!
//! Invariant: every error names the source and the key that caused it; a
//! [`ResolvedSettings`] has passed [`ResolvedSettings::validate`].
//!
//! Stages, one module each: `source` (where a value came from, errors), `keys` (names,
//! environment variables, unknown-key warnings), `patch` (one layer, parsed) and `resolve`
//! (the layers merged, fitted to the window, validated); the values and their defaults are
//! here.

mod keys;
mod overrides;
mod patch;
mod resolve;
mod source;
#[cfg(test)]
mod tests;

pub use keys::{
    OTHER_COMPACTION_KEYS, OTHER_COMPACTION_VARIABLES, SETTING_KEYS, SettingsWarning,
    WINDOW_SCALED_KEYS, env_var_name, unknown_keys, unknown_variables, window_share,
};
pub use overrides::OVERRIDE_FIELDS;
pub use patch::SettingsPatch;
pub use resolve::ResolvedSettings;
pub use source::{BudgetConflict, SettingSource, SettingsError};

use serde::{Deserialize, Serialize};

use crate::tokens::DEFAULT_ESTIMATOR;

/// Every compaction setting. Serialized with pi's camelCase keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CompactionSettings {
    /// Whether automatic compaction runs at all (pi: `true`).
    pub enabled: bool,
    /// Tokens kept free for the model's reply; compaction fires when the context exceeds
    /// window − reserve (pi: 16384).
    pub reserve_tokens: u64,
    /// Tokens of the most recent messages kept verbatim after a compaction (pi: 20000).
    pub keep_recent_tokens: u64,
    /// Tokens of the user's own messages from the summarized region kept word for word in
    /// the summary, newest first, in a "User messages (verbatim)" section (2048, at most a
    /// sixteenth of the window when left at the default; 0 turns it off; see
    /// [`crate::user_messages`]). The section is carried and re-budgeted by every later
    /// compaction and counts against the context window like the summary itself.
    pub keep_user_messages_tokens: u64,
    /// Fraction of the window at which compaction fires, in (0, 1] (0.75).
    pub threshold: f64,
    /// User turns always kept verbatim, whatever their size (2).
    pub min_turns_to_keep: u64,
    /// Output budget of a compaction summary, in tokens (8192; never more than 80% of
    /// `reserve_tokens`, as pi 1.6 caps its own summary).
    pub max_summary_tokens: u64,
    /// Output budget of a branch summary, in tokens (2048).
    pub branch_max_summary_tokens: u64,
    /// Model that writes summaries; `None` uses the session's model.
    pub summary_model: Option<String>,
    /// Keep the system prompt out of the summarized region (true).
    pub preserve_system_prompt: bool,
    /// Keep tool definitions out of the summarized region (true).
    pub preserve_tools: bool,
    /// How many of the most recently modified files are re-read from disk into the context
    /// after a compaction (5; 0 turns restoring off).
    pub preserve_recent_files: u64,
    /// Token estimator name: `heuristic`, `pi`, `o200k` or `cl100k` (`heuristic`).
    pub estimator: String,
    /// Language summaries are written in; `None` follows the conversation.
    pub summary_language: Option<String>,
    /// Characters of each tool result the summarizer sees (2000, pi's own cut-off: enough
    /// for an error message or the head of a file listing, while a long session's tool
    /// output cannot crowd out the conversation in the summary request).
    pub tool_result_max_chars: u64,
    /// Compact once the context holds this many messages; `None` turns the rule off
    /// (counting messages says little about size in coding sessions).
    pub max_messages: Option<u64>,
    /// Context window in tokens, overriding the model table; `None` uses the table.
    pub context_window: Option<u64>,
    /// How `run` and the harness reduce the context: `summarize`, `prune` or `hybrid`
    /// (`hybrid`: prune first, summarize only when that is not enough).
    pub strategy: crate::prune::Strategy,
    /// The prune rules (see [`crate::prune::PruneSettings`] for each key and default).
    pub prune: crate::prune::PruneSettings,
    /// The summary model's context window in tokens, when it is not the chat model; `None`
    /// uses the chat model's window (`contextWindow` included) when the summary model is the
    /// chat model, else the model table.
    pub summary_context_window: Option<u64>,
    /// Longest time one compaction or branch summary may take, in seconds, before it gives
    /// up and leaves the session file unchanged (180).
    pub timeout_seconds: u64,
    /// A summary the quality gate rejects twice fails the compaction (the file stays
    /// unchanged) instead of getting a Must Keep section appended (false).
    pub strict_quality: bool,
    /// Summarizer requests in flight at once; `None` chooses by server: 1 for a server on
    /// this machine or any server other than the OpenAI and Anthropic APIs (local servers
    /// run one request at a time, and a second one cuts the first or loses the prompt
    /// cache), 2 otherwise.
    pub summary_concurrency: Option<u64>,
    /// A summary that is empty, a refusal, an echo of the prompt or cut off, twice, is
    /// replaced by the offline summarizer's (the entry records the fallback) instead of
    /// failing the compaction (false).
    pub fallback_to_offline: bool,
    /// Tokens of one restored file's content at most; a longer file is cut (5000).
    pub restore_file_tokens: u64,
    /// Tokens of all restored files together at most (20000).
    pub restore_total_tokens: u64,
    /// Budgets for one model, by `provider/modelId` (pi 1.6): `reserveTokens` and
    /// `keepRecentTokens`, each falling back on its own to the ordinary setting (see
    /// [`ResolvedSettings::apply_model_override`]).
    pub model_overrides: serde_json::Map<String, serde_json::Value>,
}

impl CompactionSettings {
    /// The output budget of a compaction summary request: `maxSummaryTokens`, and never more
    /// than 80% of `reserveTokens` (pi 1.6's cap: the reply must fit in the room the reserve
    /// keeps free).
    pub fn summary_output_tokens(&self) -> u64 {
        self.max_summary_tokens.min(self.reserve_tokens.saturating_mul(4) / 5).max(1)
    }

    /// [`CompactionSettings::summary_output_tokens`] for a summary model whose window is
    /// `summary_window`: never more than a quarter of it, so a request that carries a
    /// running summary of that size and asks for another still leaves half the window for
    /// the transcript and the prompt. Whatever told the window (the settings, a flag, the
    /// server's answer), an 8,192-token window compacts with the default budgets.
    pub fn summary_output_tokens_for(&self, summary_window: Option<u64>) -> u64 {
        let output = self.summary_output_tokens();
        summary_window.map_or(output, |window| output.min(window / 4).max(1))
    }

    /// `branchMaxSummaryTokens` for a summary model whose window is `summary_window`: at
    /// most a quarter of it, as [`CompactionSettings::summary_output_tokens_for`].
    pub fn branch_output_tokens_for(&self, summary_window: Option<u64>) -> u64 {
        let output = self.branch_max_summary_tokens.max(1);
        summary_window.map_or(output, |window| output.min(window / 4).max(1))
    }
}

impl Default for CompactionSettings {
    fn default() -> Self {
        CompactionSettings {
            enabled: true,
            reserve_tokens: 16384,
            keep_recent_tokens: 20000,
            keep_user_messages_tokens: 2048,
            threshold: 0.75,
            min_turns_to_keep: 2,
            max_summary_tokens: 8192,
            branch_max_summary_tokens: 2048,
            summary_model: None,
            preserve_system_prompt: true,
            preserve_tools: true,
            preserve_recent_files: 5,
            estimator: DEFAULT_ESTIMATOR.to_owned(),
            summary_language: None,
            tool_result_max_chars: 2000,
            max_messages: None,
            context_window: None,
            strategy: crate::prune::Strategy::Hybrid,
            prune: crate::prune::PruneSettings::default(),
            summary_context_window: None,
            timeout_seconds: 180,
            strict_quality: false,
            summary_concurrency: None,
            fallback_to_offline: false,
            restore_file_tokens: 5000,
            restore_total_tokens: 20000,
            model_overrides: serde_json::Map::new(),
        }
    }
}
