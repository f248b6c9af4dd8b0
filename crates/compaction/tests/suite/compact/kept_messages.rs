//! The offline summarizer reads what the kept messages settle: the orchestrator gives the
//! first call of each part the messages that follow it in the context.

use std::sync::Mutex;

use compaction::error::SummarizerError;
use compaction::offline::OfflineSummarizer;
use compaction::summarizer::{
    Summarizer, SummaryKind, SummaryProgress, SummaryRequest, SummaryResponse,
};
use compaction_core::AgentMessage;
use compaction_core::context::build_context;
use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use super::{compact, open, session_copy};

/// A request's kind, its messages and the messages after them.
type Seen = (SummaryKind, Vec<AgentMessage>, Vec<AgentMessage>);

/// The offline summarizer, recording each request it answers.
#[derive(Default)]
struct Recording {
    seen: Mutex<Vec<Seen>>,
}

impl Summarizer for Recording {
    fn summarize<'a>(
        &'a self,
        request: &'a SummaryRequest,
        cancel: &'a CancellationToken,
        progress: &'a (dyn Fn(SummaryProgress) + Send + Sync),
    ) -> BoxFuture<'a, Result<SummaryResponse, SummarizerError>> {
        self.seen.lock().unwrap().push((
            request.kind,
            request.messages.clone(),
            request.after.clone(),
        ));
        OfflineSummarizer.summarize(request, cancel, progress)
    }

    fn label(&self) -> String {
        "recording".to_owned()
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

#[tokio::test]
async fn the_history_is_summarized_with_the_kept_messages_after_it() {
    let (_dir, path) = session_copy();
    let recording = Recording::default();
    compact(&path, &recording, &CancellationToken::new()).await.unwrap();
    let session = open(&path).into_session();
    let context = build_context(&session, session.leaf());
    let messages = context.agent_messages(&session);
    assert!(matches!(messages[0], AgentMessage::CompactionSummary(_)));
    let kept = &messages[1..];
    assert!(!kept.is_empty());
    let seen = recording.seen.lock().unwrap();
    let (_, summarized, after) =
        seen.iter().find(|(kind, _, _)| *kind == SummaryKind::History).expect("a history request");
    // What follows the history in the context: a split turn's early part, then the kept
    // messages, which end it.
    assert!(after.len() >= kept.len());
    assert_eq!(&after[after.len() - kept.len()..], kept);
    // Read after the summarized messages, never as part of them.
    assert!(!summarized.is_empty());
    assert!(kept.iter().all(|message| !summarized.contains(message)));
}
