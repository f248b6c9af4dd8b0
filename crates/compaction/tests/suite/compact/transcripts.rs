//! What a summarizer is sent depends on what it reads: one that reads the transcript is
//! sent the plan's redacted chunks, one that reads the structured messages alone
//! ([`Summarizer::reads_transcript`] false, the offline summarizer) an empty transcript, so
//! the transcript is never rendered for it; both write the same summary from the messages.

use std::sync::Mutex;

use compaction::compact::{CompactRequest, Compactor};
use compaction::extension::Extensions;
use compaction::offline::OfflineSummarizer;
use compaction::summarizer::{Summarizer, SummaryProgress, SummaryRequest, SummaryResponse};
use compaction_core::serialize::Redactor;
use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use super::{WINDOW, estimator, open, session_copy, settings};

/// The offline summarizer, saying whether it reads the transcript, recording each request's
/// transcript and how many messages came with it.
struct Recording {
    reads: bool,
    seen: Mutex<Vec<(String, usize)>>,
}

impl Summarizer for Recording {
    fn summarize<'a>(
        &'a self,
        request: &'a SummaryRequest,
        cancel: &'a CancellationToken,
        progress: &'a (dyn Fn(SummaryProgress) + Send + Sync),
    ) -> BoxFuture<'a, Result<SummaryResponse, compaction::error::SummarizerError>> {
        self.seen.lock().unwrap().push((request.transcript.clone(), request.messages.len()));
        OfflineSummarizer.summarize(request, cancel, progress)
    }

    fn label(&self) -> String {
        "recording".into()
    }

    fn reads_transcript(&self) -> bool {
        self.reads
    }

    fn follows_instructions(&self) -> bool {
        false
    }
}

#[tokio::test]
async fn only_a_summarizer_that_reads_the_transcript_is_sent_one() {
    let settings = settings();
    let estimator = estimator();
    let mut summaries = Vec::new();
    for reads in [true, false] {
        let (_dir, path) = session_copy();
        let summarizer = Recording { reads, seen: Mutex::new(Vec::new()) };
        let compactor = Compactor {
            summarizer: &summarizer,
            settings: &settings,
            context_window: WINDOW,
            estimator: estimator.as_ref(),
            redactor: Redactor::default(),
            extensions: &Extensions::new(),
        };
        let mut store = open(&path);
        let planned = compactor.plan(store.session(), store.session().leaf(), None).compaction;
        let planned = planned.unwrap();
        let chunks: Vec<String> =
            planned.history_chunks().iter().chain(planned.turn_prefix_chunks()).cloned().collect();
        assert!(!chunks.is_empty() && chunks.iter().all(|chunk| !chunk.is_empty()));
        let outcome = compactor
            .run(&mut store, &CompactRequest::default(), &CancellationToken::new(), &|_| {})
            .await
            .unwrap();
        let seen = summarizer.seen.into_inner().unwrap();
        let transcripts: Vec<String> = seen.iter().map(|(text, _)| text.clone()).collect();
        assert_eq!(seen.len(), planned.summarizer_calls(), "reads {reads}");
        assert!(seen.iter().all(|(_, messages)| *messages > 0), "reads {reads}: {seen:?}");
        if reads {
            // Sequential or not, each chunk once.
            let mut sent = transcripts.clone();
            let mut planned_chunks = chunks.clone();
            sent.sort();
            planned_chunks.sort();
            assert_eq!(sent, planned_chunks);
        } else {
            assert!(transcripts.iter().all(String::is_empty), "{transcripts:?}");
        }
        summaries.push(outcome.entry.kind.as_compaction().unwrap().summary.clone());
    }
    assert_eq!(summaries[0], summaries[1], "the summary is written from the messages");
}
