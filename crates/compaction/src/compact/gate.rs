//! The quality gate around the summarizer: a summary the gate rejects gets one retry told
//! what is missing, then a deterministic repair (or, with `strictQuality`, an error).

use compaction_core::plan::PlannedCompaction;
use compaction_core::quality::{
    GateFacts, Problem, QualityReport, QualityStatus, check_summary, describe, repair,
    resolved_by_user_messages, retry_instructions,
};
use compaction_core::session::Session;

use tokio_util::sync::CancellationToken;

use crate::error::SummarizerError;
use crate::summarizer::SummaryUsage;

use super::{CompactError, CompactionProgress, Compactor};

impl Compactor<'_> {
    /// Summarizes and passes the result through the quality gate: one retry told what is
    /// missing, then a repair (or, with `strictQuality`, an error).
    pub(super) async fn summarize_gated(
        &self,
        session: &Session,
        leaf: Option<usize>,
        planned: PlannedCompaction,
        instructions: Option<String>,
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<Gated, CompactError> {
        let must_keep = planned.preparation.must_keep();
        // Every summarizer is given the pins redacted (see `run_job`): a pin holding a
        // secret is checked, and repaired, as the summarizer saw it. The context still shows
        // the pin itself after the summary.
        let pins: Vec<compaction_core::pins::Pin> = planned
            .pins
            .iter()
            .map(|pin| compaction_core::pins::Pin {
                text: self.redactor.redact(&pin.text).into_owned(),
                ..pin.clone()
            })
            .collect();
        let facts = GateFacts {
            must_keep: &must_keep,
            pins: &pins,
            checkpoint: !planned.history_chunks.is_empty(),
        };
        let first = self
            .summarize_attempt(&planned, instructions.as_deref(), None, cancel, progress)
            .await?;
        let section = planned.kept_user_messages.as_ref().map(|kept| kept.section.clone());
        let mut problems = first.problems(&facts, section.as_deref());
        let mut gated = Gated {
            planned,
            summary: first.text,
            usage: first.usage,
            calls: first.calls,
            report: QualityReport {
                status: QualityStatus::Passed,
                attempts: 1,
                missing: Vec::new(),
                first_attempt_missing: Vec::new(),
            },
        };
        if problems.is_empty() {
            return Ok(gated);
        }
        if self.summarizer.follows_instructions() {
            let retry_text = retry_instructions(&problems);
            let retry = match instructions.as_deref() {
                Some(given) => format!("{given}\n\n{retry_text}"),
                None => retry_text.clone(),
            };
            // The added instructions take room in the requests: plan again. When they do
            // not fit, there is no retry and the repair follows.
            if let Ok(replanned) = self.plan(session, leaf, Some(&retry)).compaction {
                progress(CompactionProgress::QualityRetry { missing: describe(&problems) });
                let second = self
                    .summarize_attempt(
                        &replanned,
                        instructions.as_deref(),
                        Some(&retry_text),
                        cancel,
                        progress,
                    )
                    .await?;
                gated.report.first_attempt_missing = describe(&problems);
                gated.report.attempts = 2;
                gated.usage = gated.usage.add(&second.usage);
                gated.calls += second.calls;
                problems = second.problems(&facts, section.as_deref());
                gated.summary = second.text;
                gated.planned = replanned;
                if problems.is_empty() {
                    return Ok(gated);
                }
            }
        }
        gated.report.missing = describe(&problems);
        if self.settings.strict_quality {
            return Err(CompactError::QualityRejected {
                missing: gated.report.missing,
                attempts: gated.report.attempts,
            });
        }
        gated.summary = repair(&gated.summary, &problems, &facts);
        gated.report.status = QualityStatus::Repaired;
        Ok(gated)
    }

    /// One summarization for the gate. A model that answered with nothing, or whose
    /// summary stayed cut off at the output limit, gave a summary the gate rejects (retry,
    /// then repair) like any other; other errors pass through.
    async fn summarize_attempt(
        &self,
        planned: &PlannedCompaction,
        instructions: Option<&str>,
        retry: Option<&str>,
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<Attempt, SummarizerError> {
        let calls = planned.history_chunks.len() + planned.turn_prefix_chunks.len();
        let failed = |truncated| Attempt {
            text: String::new(),
            usage: SummaryUsage::default(),
            calls,
            truncated,
        };
        match self.summarize_with_retry(planned, instructions, retry, cancel, progress).await {
            Ok((text, usage, calls)) => Ok(Attempt { text, usage, calls, truncated: false }),
            Err(SummarizerError::EmptyOutput { .. }) => Ok(failed(false)),
            Err(SummarizerError::Truncated { .. }) => Ok(failed(true)),
            Err(other) => Err(other),
        }
    }
}

/// One summarization as the quality gate sees it.
struct Attempt {
    text: String,
    usage: SummaryUsage,
    calls: usize,
    /// The summarizer stopped at its output limit (even after asking with a larger one).
    truncated: bool,
}

impl Attempt {
    /// What the summary lacks; a fact in the user's words that `kept_user_messages` (the
    /// section appended after it) quotes is not missing.
    fn problems(&self, facts: &GateFacts<'_>, kept_user_messages: Option<&str>) -> Vec<Problem> {
        let mut problems = check_summary(&self.text, self.truncated, facts);
        // With no text at all, a cut-off summary is reported as both.
        if self.truncated && !problems.contains(&Problem::Truncated) {
            problems.push(Problem::Truncated);
        }
        match kept_user_messages {
            Some(section) => resolved_by_user_messages(problems, section, facts),
            None => problems,
        }
    }
}

/// A summary that went through the quality gate, with the plan it was written for.
pub(super) struct Gated {
    pub(super) planned: PlannedCompaction,
    pub(super) summary: String,
    pub(super) usage: SummaryUsage,
    pub(super) calls: usize,
    pub(super) report: QualityReport,
}
