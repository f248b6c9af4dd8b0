//! How a compaction fails: [`CompactError`], every variant leaving the session file as it
//! was, and the deadline message shared with branch summaries.

use compaction_core::plan::PlanError;
use compaction_core::plural::plural;
use compaction_core::prepare::NothingToCompact;
use compaction_core::session::UnknownEntryId;
use std::time::Duration;

use crate::error::SummarizerError;
use crate::extension::ExtensionWarning;
use crate::store::StoreError;

/// Why a compaction did not happen. The session file is unchanged in every case.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompactError {
    /// There is nothing to compact (not a failure: callers usually exit 0).
    #[error("nothing to compact: {0}")]
    Nothing(#[from] NothingToCompact),
    /// Pruning would save less than `prune.minimumSavings` (not a failure).
    #[error(
        "nothing worth pruning: the old tool outputs would save {saved} tokens, less than \
         the {minimum} a prune needs (prune.minimumSavings)"
    )]
    NothingToPrune {
        /// Tokens the prune saves.
        saved: u64,
        /// The smallest saving worth a prune.
        minimum: u64,
    },
    /// An extension cancelled the compaction (not a failure: callers usually exit 0).
    #[error("compaction cancelled by extension `{extension}`: {reason}")]
    Cancelled {
        /// Why, in words for the user.
        reason: String,
        /// The name of the extension.
        extension: String,
        /// Extensions that failed and were skipped.
        warnings: Vec<ExtensionWarning>,
    },
    /// The summary model's window cannot hold a request.
    #[error(transparent)]
    NoRoom(#[from] compaction_core::budget::NoRoomForTranscript),
    /// The leaf asked for does not exist.
    #[error(transparent)]
    UnknownLeaf(#[from] UnknownEntryId),
    /// A summarizer call failed (after its own retries).
    #[error("summarizing failed: {0}")]
    Summarizer(#[from] SummarizerError),
    /// The summary would not make the context smaller. When pins are active, the message
    /// names them, largest first, with the tokens each adds to the summary: every summary
    /// carries each pin whole, so a large pin is what most often makes a compaction grow.
    #[error("{}", NotReducingText { before: *.before, after: *.after, pins })]
    NotReducing {
        /// Context tokens before.
        before: u64,
        /// Estimated context tokens after.
        after: u64,
        /// The active pins and the tokens each adds to the summary, largest first.
        pins: Vec<compaction_core::plan::PinSize>,
    },
    /// The compaction did not finish within its deadline (`timeoutSeconds`); the
    /// summarizer requests under way were abandoned and nothing was written.
    #[error("{}", DeadlineText("the compaction", *.limit))]
    TimedOut {
        /// The deadline that expired.
        limit: Duration,
    },
    /// The store could not append the entry.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Another program wrote to the session while it was being compacted, in a way the
    /// compaction cannot follow; nothing was written. Running the compaction again helps.
    #[error(
        "session {path} changed while it was being compacted: {reason}; nothing was written, \
         run the compaction again"
    )]
    Changed {
        /// The session file (or other file) concerned.
        path: std::path::PathBuf,
        /// Why, in words for the user.
        reason: String,
    },
    /// The summarizer's reply was unusable twice (empty, a refusal, an echo of the request,
    /// cut off at the output limit, without the checkpoint's structure, far too short) and
    /// `fallbackToOffline` is off. Nothing was written: such a reply is never repaired into
    /// a summary.
    #[error(
        "{summarizer} gave no usable summary in {} ({} sent): {}; nothing was written, the \
         session is unchanged. To compact anyway, set `\"fallbackToOffline\": true` under \
         `compaction` in the settings (COMPACTION_FALLBACK_TO_OFFLINE=true) so the offline \
         summarizer writes it, run with --offline, or use a summary model that follows \
         instructions",
        plural(*attempts, "attempt"),
        plural(*requests, "request"),
        problems.join("; ")
    )]
    Unusable {
        /// The summarizer's label (`openai/MODEL`).
        summarizer: String,
        /// What was wrong with the last summary.
        problems: Vec<String>,
        /// Summaries asked for (1, or 2 after the gate's retry).
        attempts: u32,
        /// Requests sent, retries included.
        requests: usize,
    },
    /// The summary model's server rejected a request as too large for its window, and the
    /// window it runs may be smaller than the one configured.
    #[error(
        "{error}. The summary model's window may be smaller than the {planned} tokens the \
         requests were planned for{}: set `summaryContextWindow` (--summary-context-window) \
         to the window the server runs (or `contextWindow` when the summary model is the chat \
         model); llama.cpp sets it with --ctx-size (llama-cpp-python --n_ctx), Ollama with \
         num_ctx",
        match server { Some(tokens) => format!(" (the server says {tokens})"), None => String::new() }
    )]
    WindowTooSmall {
        /// The overflow the server answered.
        error: SummarizerError,
        /// The window the requests were planned for.
        planned: u64,
        /// The window the server named, when it did.
        server: Option<u64>,
    },
    /// The quality gate rejected the summary twice and `strictQuality` is on.
    #[error(
        "the summary was rejected {}: {}",
        plural(*attempts, "time"),
        missing.join("; ")
    )]
    QualityRejected {
        /// What the last summary lacked.
        missing: Vec<String>,
        /// Summarizer attempts made.
        attempts: u32,
    },
}

/// Says that a compaction would grow the context, naming the pins it carries (at most
/// five, largest first) and what to change.
pub(crate) struct NotReducingText<'a> {
    pub(crate) before: u64,
    pub(crate) after: u64,
    pub(crate) pins: &'a [compaction_core::plan::PinSize],
}

impl std::fmt::Display for NotReducingText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "compaction refused: the context would grow from {} to about {} tokens (the \
             summary plus the kept messages{})",
            self.before,
            self.after,
            if self.pins.is_empty() { "" } else { " and the pins message" }
        )?;
        if self.pins.is_empty() {
            return f
                .write_str("; lower keepRecentTokens, maxSummaryTokens or keepUserMessagesTokens");
        }
        let total: u64 = self.pins.iter().map(|pin| pin.tokens).sum();
        write!(
            f,
            "; every pin is carried whole in the summary and again in the pins message after \
             it, {total} tokens of {} each time: {}; unpin or \
             shorten the largest (`compaction unpin FILE {}`), or lower keepRecentTokens, \
             maxSummaryTokens or keepUserMessagesTokens",
            plural(self.pins.len() as u64, "pin"),
            compaction_core::plan::PinSize::named(self.pins),
            self.pins[0].id
        )
    }
}

/// Says which deadline expired and how to change it.
pub(crate) struct DeadlineText(pub(crate) &'static str, pub(crate) Duration);

impl std::fmt::Display for DeadlineText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} did not finish within its deadline of {} s; raise it with the \
             `timeoutSeconds` setting or `--timeout SECONDS`",
            self.0,
            self.1.as_secs()
        )
    }
}

impl From<PlanError> for CompactError {
    fn from(error: PlanError) -> Self {
        match error {
            PlanError::NothingToCompact(nothing) => CompactError::Nothing(nothing),
            PlanError::NoRoom(no_room) => CompactError::NoRoom(no_room),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compaction_core::plan::PinSize;

    #[test]
    fn a_refusal_to_grow_names_the_pins_largest_first_and_how_to_unpin() {
        let pin = |id: &str, tokens| PinSize { id: id.into(), tokens };
        let plain = CompactError::NotReducing { before: 10, after: 12, pins: vec![] }.to_string();
        assert!(
            plain.ends_with("lower keepRecentTokens, maxSummaryTokens or keepUserMessagesTokens")
        );
        assert!(!plain.contains("pin"), "{plain}");
        let pins: Vec<PinSize> = (0..7).map(|i| pin(&format!("p{i}"), 100 - i)).collect();
        let named = CompactError::NotReducing { before: 10, after: 900, pins }.to_string();
        assert!(named.contains(": p0 (100 tokens), p1 (99 tokens)"), "{named}");
        assert!(named.contains("and 2 more") && !named.contains("p5 ("), "{named}");
        assert!(named.contains("`compaction unpin FILE p0`"), "{named}");
    }

    #[test]
    fn a_refusal_keeps_pin_ids_made_of_digits_through_the_redaction_it_is_printed_with() {
        // One id in about forty is all digits; after the word "pin" it read as a PIN code.
        let pins = vec![
            PinSize { id: "96682203".into(), tokens: 1200 },
            PinSize { id: "12345678".into(), tokens: 90 },
        ];
        let named = CompactError::NotReducing { before: 10, after: 900, pins }.to_string();
        let redactor = compaction_core::serialize::Redactor::default();
        assert_eq!(redactor.redact(&named), named);
    }
}
