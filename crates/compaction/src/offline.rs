//! The offline summarizer as a [`Summarizer`]: the default when no provider is configured.
//!
//! It needs no network and no key, answers deterministically, and reads the request's
//! structured messages (the transcript text is for models). Its window is unlimited, so
//! the orchestrator never splits its input.

use std::time::Duration;

use compaction_core::offline::{OfflineInput, OfflineKind, summarize_offline};
use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use crate::error::SummarizerError;
use crate::summarizer::{
    Summarizer, SummaryKind, SummaryProgress, SummaryRequest, SummaryResponse, SummaryUsage,
};

/// Writes structured checkpoints from the transcript itself, without a model.
#[derive(Debug, Clone, Copy, Default)]
pub struct OfflineSummarizer;

/// Characters per token assumed when turning the output budget into characters.
const CHARS_PER_TOKEN: usize = 4;

impl Summarizer for OfflineSummarizer {
    fn summarize<'a>(
        &'a self,
        request: &'a SummaryRequest,
        cancel: &'a CancellationToken,
        progress: &'a (dyn Fn(SummaryProgress) + Send + Sync),
    ) -> BoxFuture<'a, Result<SummaryResponse, SummarizerError>> {
        Box::pin(async move {
            if cancel.is_cancelled() {
                return Err(SummarizerError::Cancelled { attempts: 0, elapsed: Duration::ZERO });
            }
            let kind = match request.kind {
                SummaryKind::History => OfflineKind::History,
                SummaryKind::TurnPrefix => OfflineKind::TurnPrefix,
                SummaryKind::Branch => OfflineKind::Branch,
            };
            let max_tokens = usize::try_from(request.max_output_tokens).unwrap_or(usize::MAX);
            let text = summarize_offline(&OfflineInput {
                after: &request.after,
                kind,
                messages: &request.messages,
                previous_summary: request.previous_summary.as_deref(),
                instructions: request.instructions.as_deref(),
                pins: &request.pins,
                max_chars: max_tokens.saturating_mul(CHARS_PER_TOKEN),
            });
            let chars = text.chars().count();
            progress(SummaryProgress::Output { chars, estimated_tokens: chars.div_ceil(4) as u64 });
            Ok(SummaryResponse::new(text, SummaryUsage::default(), false))
        })
    }

    fn label(&self) -> String {
        "offline".to_owned()
    }

    fn reads_sample(&self) -> bool {
        false
    }

    fn reads_transcript(&self) -> bool {
        false
    }

    fn follows_instructions(&self) -> bool {
        false
    }

    fn shares_the_budget(&self) -> bool {
        true
    }
}
