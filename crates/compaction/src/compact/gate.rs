//! The quality gate around the summarizer: a summary the gate rejects gets one retry told
//! what is missing, then a deterministic repair (or, with `strictQuality`, an error).
//!
//! Invariant: a summary that is still unusable after the retry (empty, a refusal, an echo of
//! the request, or cut off at the output limit) is never repaired into a Must Keep list and
//! never stored: the compaction fails with [`CompactError::Unusable`], or, with
//! `fallbackToOffline`, the offline summarizer writes the summary and the entry's
//! `details.quality.fallback` says so.

use compaction_core::plan::PlannedCompaction;
use compaction_core::quality::{
    Fallback, GateFacts, Problem, QualityReport, QualityStatus, check_summary, describe,
    length_floor_applies, repair, resolved_by_user_messages, retry_instructions,
};
use compaction_core::session::Session;

use tokio_util::sync::CancellationToken;

use crate::error::SummarizerError;
use crate::summarizer::SummaryUsage;

use super::chunks::Parts;
use super::{CompactError, CompactionProgress, Compactor};

impl Compactor<'_> {
    /// Summarizes and passes the result through the quality gate: one retry told what is
    /// missing, then a repair (or, with `strictQuality`, an error); an unusable summary is
    /// never repaired (see the module docs).
    /// `before` is the estimate of the context at `leaf`: the summary must leave it smaller
    /// (see [`Compactor::summary_room`]).
    pub(super) async fn summarize_gated(
        &self,
        (session, leaf, before): (&Session, Option<usize>, u64),
        planned: PlannedCompaction,
        instructions: Option<String>,
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<Gated, CompactError> {
        let mut must_keep = planned.preparation.must_keep(&self.redactor);
        // The entry appends its modified-files list after the summary (pi's
        // `<modified-files>`): a file that list holds is in what the model reads, whether
        // the summary names it again or not.
        let appended = planned.preparation.modified_files();
        must_keep.modified_files.retain(|path| !appended.contains(path));
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
        let checkpoint = planned.history_chunk_count() > 0;
        let facts =
            GateFacts { must_keep: &must_keep, pins: &pins, checkpoint, summarized_tokens: 0 };
        // The facts for `summary` of `planned`'s transcript: its tokens are counted (and the
        // transcript rendered, for a summarizer that did not read it) only when the length
        // floor can reject the summary; without it no floor is the same check.
        let facts_for = |planned: &PlannedCompaction, summary: &str| GateFacts {
            summarized_tokens: if length_floor_applies(summary, checkpoint) {
                planned
                    .history_chunks()
                    .iter()
                    .chain(planned.turn_prefix_chunks())
                    .map(|chunk| self.estimator.text_tokens(chunk))
                    .sum()
            } else {
                0
            },
            ..facts
        };
        let first = self
            .summarize_attempt(
                &planned,
                (instructions.as_deref(), None),
                (None, self.summary_room(&planned, before)),
                cancel,
                progress,
            )
            .await?;
        let section = planned.kept_user_messages.as_ref().map(|kept| kept.section.clone());
        let mut problems = first.problems(&facts_for(&planned, &first.text), section.as_deref());
        let mut gated = Gated {
            planned,
            summary: first.text,
            usage: first.usage,
            calls: first.calls,
            fallback_calls: 0,
            fallback_usage: SummaryUsage::default(),
            report: QualityReport {
                status: QualityStatus::Passed,
                attempts: 1,
                missing: Vec::new(),
                first_attempt_missing: Vec::new(),
                fallback: None,
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
                        (instructions.as_deref(), Some(&retry_text)),
                        (first.parts.as_ref(), self.summary_room(&replanned, before)),
                        cancel,
                        progress,
                    )
                    .await?;
                gated.report.first_attempt_missing = describe(&problems);
                gated.report.attempts = 2;
                gated.usage = gated.usage.add(&second.usage);
                gated.calls += second.calls;
                // Checked against the transcript of the first plan, as the first attempt was.
                problems =
                    second.problems(&facts_for(&gated.planned, &second.text), section.as_deref());
                gated.summary = second.text;
                gated.planned = replanned;
                if problems.is_empty() {
                    return Ok(gated);
                }
            }
        }
        gated.report.missing = describe(&problems);
        // A model's reply without the structure, or far too short, is no summary; a
        // deterministic summarizer's is the engine's own facts, repaired below.
        let follows = self.summarizer.follows_instructions();
        let fatal = |problem: &Problem| {
            if follows { problem.is_unusable() } else { problem.is_unreadable() }
        };
        if problems.iter().any(fatal) {
            if self.settings.fallback_to_offline && self.summarizer.follows_instructions() {
                return self
                    .offline_fallback(
                        (session, leaf, before),
                        instructions,
                        gated,
                        cancel,
                        progress,
                    )
                    .await;
            }
            return Err(CompactError::Unusable {
                summarizer: self.summarizer.label(),
                problems: gated.report.missing,
                attempts: gated.report.attempts,
                requests: gated.calls,
            });
        }
        if self.settings.strict_quality {
            return Err(CompactError::QualityRejected {
                missing: gated.report.missing,
                attempts: gated.report.attempts,
            });
        }
        let repaired = repair(&gated.summary, &problems, &facts);
        // `repair` refuses only unusable text, which returned above.
        gated.summary = repaired.unwrap_or_else(|| gated.summary.clone());
        gated.report.status = QualityStatus::Repaired;
        Ok(gated)
    }

    /// The offline summarizer's summary, through its own gate, after the configured
    /// summarizer's was unusable; the report names the fallback and why, and the usage and
    /// requests of the failed attempts are kept.
    async fn offline_fallback(
        &self,
        (session, leaf, before): (&Session, Option<usize>, u64),
        instructions: Option<String>,
        failed: Gated,
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<Gated, CompactError> {
        let offline = crate::offline::OfflineSummarizer;
        let fallback = Compactor {
            summarizer: &offline,
            settings: self.settings,
            context_window: self.context_window,
            estimator: self.estimator,
            redactor: self.redactor.clone(),
            extensions: self.extensions,
        };
        progress(CompactionProgress::Fallback {
            summarizer: offline_label(),
            reason: failed.report.missing.clone(),
        });
        let planned = fallback.plan(session, leaf, instructions.as_deref()).compaction?;
        let mut gated = Box::pin(fallback.summarize_gated(
            (session, leaf, before),
            planned,
            instructions,
            cancel,
            progress,
        ))
        .await?;
        gated.fallback_usage = gated.usage;
        gated.usage = failed.usage.add(&gated.usage);
        gated.fallback_calls = gated.calls;
        gated.calls += failed.calls;
        gated.report.fallback = Some(Fallback {
            summarizer: offline_label(),
            instead_of: self.summarizer.label(),
            requests: failed.calls,
            reason: failed.report.missing,
        });
        Ok(gated)
    }

    /// One summarization for the gate. A model that answered with nothing, or whose
    /// summary stayed cut off at the output limit, gave a summary the gate rejects (retry,
    /// then failure) like any other; other errors pass through. `earlier` is the previous
    /// attempt's parts (an unchanged turn prefix summary is reused); `room`, the most tokens
    /// the summary may take.
    async fn summarize_attempt(
        &self,
        planned: &PlannedCompaction,
        (instructions, retry): (Option<&str>, Option<&str>),
        (earlier, room): (Option<&Parts>, Option<u64>),
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<Attempt, SummarizerError> {
        let failed = |truncated, requests: u32| Attempt {
            text: String::new(),
            usage: SummaryUsage::default(),
            calls: requests as usize,
            truncated,
            parts: None,
        };
        let outcome = self
            .summarize_parts(planned, (instructions, retry), (earlier, room), cancel, progress)
            .await;
        match outcome {
            Ok(parts) => Ok(Attempt {
                text: parts.merged(),
                usage: parts.usage,
                calls: parts.calls,
                truncated: false,
                parts: Some(parts),
            }),
            Err(SummarizerError::EmptyOutput { attempts, .. }) => Ok(failed(false, attempts)),
            Err(SummarizerError::Truncated { attempts, .. }) => Ok(failed(true, attempts)),
            Err(other) => Err(other),
        }
    }
}

/// The label the offline summarizer goes by in reports.
fn offline_label() -> String {
    use crate::summarizer::Summarizer as _;
    crate::offline::OfflineSummarizer.label()
}

/// One summarization as the quality gate sees it.
struct Attempt {
    text: String,
    usage: SummaryUsage,
    /// Requests sent, retries included.
    calls: usize,
    /// The summarizer stopped at its output limit (even after asking with a larger one).
    truncated: bool,
    /// The summaries before they were joined (none when the summarizer failed).
    parts: Option<Parts>,
}

impl Attempt {
    /// What the summary lacks; a fact in the user's words that `kept_user_messages` (the
    /// section appended after it) quotes is not missing.
    fn problems(&self, facts: &GateFacts<'_>, kept_user_messages: Option<&str>) -> Vec<Problem> {
        let mut problems = check_summary(&self.text, self.truncated, facts);
        // With no text at all, a cut-off summary is reported as cut off, not as empty: the
        // retry is told to write a shorter summary.
        if self.truncated {
            problems.retain(|problem| !matches!(problem, Problem::Empty));
            if !problems.contains(&Problem::Truncated) {
                problems.insert(0, Problem::Truncated);
            }
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
    /// Calls of the fallback summarizer, included in `calls`.
    pub(super) fallback_calls: usize,
    /// Usage of the fallback summarizer, included in `usage`.
    pub(super) fallback_usage: SummaryUsage,
    pub(super) report: QualityReport,
}
