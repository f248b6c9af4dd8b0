//! Summarizer calls over transcript chunks: the history and the split turn's prefix run
//! concurrently, each chunk updating the running summary; a chunk the model finds too long
//! is halved (bounded), and a summary cut off at the output limit is asked for once more with
//! a larger budget.

use compaction_core::plan::PlannedCompaction;
use std::borrow::Cow;
use std::time::Duration;

use futures_util::future::try_join;
use tokio_util::sync::CancellationToken;

use crate::error::SummarizerError;
use crate::summarizer::{
    SummaryKind, SummaryProgress, SummaryRequest, SummaryUsage, render_user_prompt,
};
use compaction_core::budget::split_in_two;

use super::{CompactionProgress, Compactor};

impl Compactor<'_> {
    /// Runs every summarizer call of a plan and merges the results: the summary, the usage
    /// of every request and the number of requests sent (retries included).
    pub async fn summarize(
        &self,
        planned: &PlannedCompaction,
        instructions: Option<&str>,
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<(String, SummaryUsage, usize), SummarizerError> {
        let parts = self
            .summarize_parts(planned, (instructions, None), (None, None), cancel, progress)
            .await?;
        Ok((parts.merged(), parts.usage, parts.calls))
    }

    /// [`Compactor::summarize`] with `retry` (what a rejected summary lacked) added to the
    /// history summary's instructions, or to the turn prefix's when there is no history.
    ///
    /// With a summarizer that takes one request at a time ([`Summarizer::concurrency`] 1:
    /// local servers), the turn prefix is summarized first and the history after it, so a
    /// retry of the history (the quality gate's) follows a request with the same beginning
    /// and the server's prompt cache serves it. `earlier` is a previous run over the same
    /// plan: when the turn prefix's requests would be the same (same chunks, no retry text
    /// for them), its summary is reused instead of being asked for again. `room` is the
    /// most tokens the summary may take for the compaction to shrink the context
    /// ([`Compactor::summary_room`]).
    ///
    /// [`Summarizer::concurrency`]: crate::summarizer::Summarizer::concurrency
    pub(super) async fn summarize_parts(
        &self,
        planned: &PlannedCompaction,
        texts: (Option<&str>, Option<&str>),
        (earlier, room): (Option<&Parts>, Option<u64>),
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<Parts, SummarizerError> {
        // Never more than the summary model writes in one reply (a model with a 4,096-token
        // output limit rejects a request for more).
        let window = self.summarizer.context_window();
        let budget = self.summarizer.output_budget(self.settings.summary_output_tokens_for(window));
        let parts =
            self.summarize_within(planned, texts, earlier, budget, cancel, progress).await?;
        // A summarizer that keeps to its budget writes again within the room the compaction
        // has when its summary would leave the context larger than before (such a compaction
        // is refused): a shorter summary is kept over none. Its budget is counted in its own
        // units, which the estimator may count higher: what one try overshoots narrows the
        // next.
        let Some(room) = room.filter(|room| self.summarizer.shares_the_budget() && *room < budget)
        else {
            return Ok(parts);
        };
        let (mut parts, mut within) = (parts, room);
        let mut tokens = self.estimator.text_tokens(&parts.merged());
        for _ in 0..ROOM_TRIES {
            if tokens <= room || within == 0 {
                break;
            }
            let again =
                self.summarize_within(planned, texts, earlier, within, cancel, progress).await?;
            parts = Parts {
                usage: parts.usage.add(&again.usage),
                calls: parts.calls + again.calls,
                ..again
            };
            tokens = self.estimator.text_tokens(&parts.merged());
            within = within.saturating_sub(tokens.saturating_sub(room) + within / 16);
        }
        Ok(parts)
    }

    /// [`Compactor::summarize_parts`] with `budget` output tokens.
    async fn summarize_within(
        &self,
        planned: &PlannedCompaction,
        (instructions, retry): (Option<&str>, Option<&str>),
        earlier: Option<&Parts>,
        budget: u64,
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<Parts, SummarizerError> {
        let with_retry = match (instructions, retry) {
            (Some(given), Some(retry)) => Some(format!("{given}\n\n{retry}")),
            (None, Some(retry)) => Some(retry.to_owned()),
            (given, None) => given.map(str::to_owned),
        };
        // The retry's text goes to the history; to the turn prefix as well when the prefix's
        // own earlier summary was unusable (or there was none to look at).
        let prefix_failed =
            retry.is_some() && !earlier.is_some_and(|earlier| earlier.prefix_usable);
        let (history_instructions, prefix_instructions) = if planned.history_chunk_count() == 0 {
            (instructions, with_retry.as_deref())
        } else if prefix_failed {
            (with_retry.as_deref(), with_retry.as_deref())
        } else {
            (with_retry.as_deref(), instructions)
        };
        let preparation = &planned.preparation;
        let calls = planned.history_chunk_count() + planned.turn_prefix_chunk_count();
        // The pins go into one of the two summaries that are joined, so they appear once:
        // the history's, or the turn prefix's when only a split turn is summarized.
        let pins = planned.pin_texts();
        let (history_pins, prefix_pins): (&[String], &[String]) =
            if planned.history_chunk_count() == 0 { (&[], &pins) } else { (&pins, &[]) };
        let window = self.summarizer.context_window();
        // Calls are numbered in the order they are sent: the turn prefix first when the
        // requests go one at a time (see above), the history first otherwise.
        let sequential = self.summarizer.concurrency() <= 1;
        let (history_first_call, prefix_first_call) = if sequential {
            (planned.turn_prefix_chunk_count() + 1, 1)
        } else {
            (1, planned.history_chunk_count() + 1)
        };
        // A summarizer that keeps to its budget shares it between the two parts of a split
        // turn (a fifth for the prefix), less the line that joins them, so the entry fits.
        let (history_budget, prefix_budget) = match (
            self.summarizer.shares_the_budget(),
            planned.history_chunk_count() == 0,
            planned.turn_prefix_chunk_count() == 0,
        ) {
            (true, false, false) => {
                let prefix = (budget / 5).max(1);
                (budget.saturating_sub(prefix + JOINER_TOKENS).max(1), prefix)
            }
            (_, _, _) => (budget, budget),
        };
        // A summarizer that reads the messages alone is sent an empty transcript for each
        // call: the plan's transcripts are never rendered (nor redacted) for it.
        let unread = |count: usize| Cow::Owned(vec![String::new(); count]);
        let (history_chunks, prefix_chunks): (Cow<'_, [String]>, Cow<'_, [String]>) =
            if self.summarizer.reads_transcript() {
                (planned.history_chunks().into(), planned.turn_prefix_chunks().into())
            } else {
                (unread(planned.history_chunk_count()), unread(planned.turn_prefix_chunk_count()))
            };
        // What follows each part in the context, for a summarizer that reads what it
        // settles: the split turn's early part and the kept messages after the history.
        let history_after: Vec<compaction_core::AgentMessage> = preparation
            .turn_prefix_messages
            .iter()
            .chain(&preparation.kept_messages)
            .cloned()
            .collect();
        let history = ChunkJob {
            kind: SummaryKind::History,
            chunks: &history_chunks,
            messages: &preparation.messages_to_summarize,
            after: &history_after,
            previous_summary: preparation.previous_summary.clone(),
            instructions: history_instructions,
            pins: history_pins,
            replace_instructions: false,
            max_output_tokens: history_budget,
            first_call: history_first_call,
            calls,
            planned_window: window,
        };
        let prefix = ChunkJob {
            kind: SummaryKind::TurnPrefix,
            chunks: &prefix_chunks,
            messages: &preparation.turn_prefix_messages,
            after: &preparation.kept_messages,
            previous_summary: None,
            instructions: prefix_instructions,
            pins: prefix_pins,
            first_call: prefix_first_call,
            max_output_tokens: prefix_budget,
            ..history.clone()
        };
        let prefix_request = PrefixRequest {
            chunks: prefix_chunks.to_vec(),
            instructions: prefix_instructions.map(str::to_owned),
            pins: prefix_pins.to_vec(),
        };
        let reusable = earlier
            .filter(|earlier| earlier.prefix_usable && earlier.prefix_request == prefix_request)
            .map(|earlier| (earlier.prefix.clone(), SummaryUsage::default(), 0));
        let (history, prefix) = match reusable {
            Some(prefix) => (self.run_job(history, cancel, progress).await?, prefix),
            None if sequential => {
                let prefix = self.run_job(prefix, cancel, progress).await?;
                (self.run_job(history, cancel, progress).await?, prefix)
            }
            None => {
                try_join(
                    self.run_job(history, cancel, progress),
                    self.run_job(prefix, cancel, progress),
                )
                .await?
            }
        };
        let ((history, history_usage, history_calls), (prefix, prefix_usage, prefix_calls)) =
            (history, prefix);
        let prefix_usable = prefix.as_deref().is_none_or(is_usable);
        Ok(Parts {
            history,
            prefix,
            usage: history_usage.add(&prefix_usage),
            calls: history_calls + prefix_calls,
            prefix_request,
            prefix_usable,
        })
    }

    /// Splits messages into transcript chunks that fit this compactor's summarizer.
    pub fn chunk_transcript(
        &self,
        messages: &[compaction_core::AgentMessage],
        shape: compaction_core::plan::RequestShape<'_>,
    ) -> Result<Vec<String>, compaction_core::budget::NoRoomForTranscript> {
        compaction_core::plan::chunk_transcript(
            messages,
            &self.serialize_options(),
            self.summarizer.context_window(),
            self.estimator,
            shape,
        )
    }

    /// Summarizes chunks in order, each updating the running summary. Returns the summary,
    /// the usage summed over every call, and the number of calls made.
    ///
    /// Two answers count as failures of a call and are handled here for every summarizer:
    /// a chunk the model rejects as too long for its window is split in two and each half
    /// summarized in turn (at most [`MAX_OVERFLOW_SPLITS`] times in a row per chunk), and a
    /// summary cut off at the output limit is asked for once more with a larger budget
    /// that still fits the window, then fails with [`SummarizerError::Truncated`].
    pub async fn run_job(
        &self,
        job: ChunkJob<'_>,
        cancel: &CancellationToken,
        progress: &(dyn Fn(CompactionProgress) + Send + Sync),
    ) -> Result<(Option<String>, SummaryUsage, usize), SummarizerError> {
        let mut running = job.previous_summary.clone();
        let mut usage = SummaryUsage::default();
        let mut calls = 0;
        let max_output = u32::try_from(job.max_output_tokens).unwrap_or(u32::MAX);
        let forward = |p: SummaryProgress| progress(CompactionProgress::Summarizer(p));
        for (number, chunk) in job.chunks.iter().enumerate() {
            progress(CompactionProgress::Call {
                call: job.first_call + number,
                calls: job.calls,
                kind: job.kind,
            });
            // Every text that reaches the summarizer is redacted here (the transcript
            // chunks already are, by the serializer): the user's instructions, the pins and
            // the summary carried in, which may quote secrets from an earlier compaction.
            let redact = |text: &str| self.redactor.redact(text).into_owned();
            // Pieces still to summarize, in order, with how many splits made each.
            let mut pending: Vec<(&str, u32)> = vec![(chunk.as_str(), 0)];
            while let Some((piece, splits)) = pending.pop() {
                let mut request = SummaryRequest::new(job.kind, piece, max_output);
                request.language = self.settings.summary_language.clone();
                match (job.instructions, job.replace_instructions) {
                    (Some(instructions), true) => {
                        request.task_override = Some(redact(instructions));
                    }
                    (instructions, _) => request.instructions = instructions.map(redact),
                }
                request.pins = job.pins.iter().map(|pin| redact(pin)).collect();
                if number == 0 && splits == 0 {
                    request.messages = job.messages.to_vec();
                    request.after = job.after.to_vec();
                }
                request.previous_summary = running.as_deref().map(redact);
                let outcome = self.summarize_complete(request, cancel, &forward).await;
                let halves = match &outcome {
                    // The server named a window smaller than the one the plan was made
                    // for: the whole plan is made again for it (see `draft_at`), which
                    // halving pieces of the old plan would not do as well.
                    Err(SummarizerError::ContextOverflow { window: Some(window), .. })
                        if job.planned_window.is_some_and(|planned| *window < planned) =>
                    {
                        None
                    }
                    Err(SummarizerError::ContextOverflow { .. })
                        if splits < MAX_OVERFLOW_SPLITS =>
                    {
                        split_in_two(piece)
                    }
                    Ok(_) | Err(_) => None,
                };
                if let Some((first, second)) = halves {
                    calls += outcome.as_ref().err().map_or(0, |error| error.attempts()) as usize;
                    forward(SummaryProgress::Retrying {
                        attempt: 1,
                        delay: Duration::ZERO,
                        reason: "the request exceeded the model's context window; \
                                 summarizing the chunk in two halves"
                            .to_owned(),
                    });
                    // Popped from the end: the first half runs first.
                    pending.push((second, splits + 1));
                    pending.push((first, splits + 1));
                    continue;
                }
                let (response, call_usage, call_count) = outcome?;
                usage = usage.add(&call_usage);
                calls += call_count;
                // What comes back is redacted too before it is stored or carried into the
                // next call: the offline summarizer quotes requests and commands from the
                // messages, and a model may repeat a secret it recognised.
                running = Some(redact(&response.text));
            }
        }
        Ok((running, usage, calls))
    }

    /// One summarizer call that must end with a complete summary: a reply cut off at the
    /// output limit is asked for once more with a larger budget, when the summary model's
    /// window and output limit allow one. Returns the response, the usage of every request
    /// made and their number (each response says how many requests it took).
    async fn summarize_complete(
        &self,
        mut request: SummaryRequest,
        cancel: &CancellationToken,
        progress: &(dyn Fn(SummaryProgress) + Send + Sync),
    ) -> Result<(crate::summarizer::SummaryResponse, SummaryUsage, usize), SummarizerError> {
        let window_before = self.summarizer.context_window();
        let first = self.summarizer.summarize(&request, cancel, progress).await?;
        let first_requests = first.requests as usize;
        if !first.truncated {
            let usage = first.usage;
            return Ok((first, usage, first_requests));
        }
        // The server cut the reply at the room its window left (it said so by stopping short
        // of the limit): a larger limit cannot help, the plan is made again for that window.
        if let (Some(before), Some(now)) = (window_before, self.summarizer.context_window())
            && now < before
        {
            let window = self.summarizer.learned_window().unwrap_or(now);
            return Err(SummarizerError::ContextOverflow {
                message: format!(
                    "the server cut the reply short of its output limit of {} tokens, at the \
                     room its window of {window} tokens left",
                    request.max_output_tokens
                ),
                window: Some(window),
                attempts: first.requests,
                elapsed: Duration::ZERO,
            });
        }
        // A reply that echoes the request is no summary however long it may grow: the
        // quality gate rejects it as an echo, and a larger limit would only buy more echo.
        if compaction_core::quality::echo(&first.text).is_some() {
            let usage = first.usage;
            return Ok((first, usage, first_requests));
        }
        let limit = request.max_output_tokens;
        let larger = self.larger_output_budget(&request).filter(|&larger| larger > limit);
        let Some(larger) = larger else {
            return Err(SummarizerError::Truncated { max_output_tokens: limit, attempts: 1 });
        };
        progress(SummaryProgress::Retrying {
            attempt: 1,
            delay: Duration::ZERO,
            reason: format!(
                "the summary was cut off at the output limit of {limit} tokens; \
                 asking again with {larger}"
            ),
        });
        request.max_output_tokens = larger;
        let second = self.summarizer.summarize(&request, cancel, progress).await?;
        if second.truncated {
            return Err(SummarizerError::Truncated { max_output_tokens: larger, attempts: 2 });
        }
        let usage = first.usage.add(&second.usage);
        let requests = first_requests + second.requests as usize;
        Ok((second, usage, requests))
    }

    /// The output budget for asking again after a truncated summary: twice the budget, but
    /// no more than the summary model's output limit and what its window leaves after the
    /// request's input (estimated, with a tenth added for estimation error).
    fn larger_output_budget(&self, request: &SummaryRequest) -> Option<u32> {
        let doubled = u64::from(request.max_output_tokens).saturating_mul(2);
        let mut budget = self.summarizer.output_budget(doubled);
        if let Some(window) = self.summarizer.context_window() {
            let input = self.estimator.text_tokens(&request.system_prompt)
                + self.estimator.text_tokens(&render_user_prompt(request))
                + REQUEST_FRAMING_TOKENS;
            let room = window.saturating_sub(input + input / 10);
            budget = budget.min(room);
        }
        u32::try_from(budget).ok()
    }
}

/// How many times in a row one transcript chunk may be halved after the model rejected it
/// as too long for its window (so a chunk becomes at most 2^3 = 8 requests).
pub const MAX_OVERFLOW_SPLITS: u32 = 3;

/// Tokens counted for a request's message framing besides its texts.
pub(super) const REQUEST_FRAMING_TOKENS: u64 = 64;

/// A sequence of summarizer calls over the chunks of one transcript.
#[derive(Debug, Clone)]
pub struct ChunkJob<'a> {
    /// Which kind it is.
    pub kind: SummaryKind,
    /// Transcript chunks, in order.
    pub chunks: &'a [String],
    /// The structured messages behind the chunks (given to the first call).
    pub messages: &'a [compaction_core::AgentMessage],
    /// The messages that follow them in the context (given to the first call; see
    /// [`SummaryRequest::after`]).
    pub after: &'a [compaction_core::AgentMessage],
    /// The summary the first chunk updates.
    pub previous_summary: Option<String>,
    /// Custom instructions for the summary.
    pub instructions: Option<&'a str>,
    /// The pinned instructions every call carries, verbatim (the summary repeats them).
    pub pins: &'a [String],
    /// Use `instructions` as the task prompt instead of appending them.
    pub replace_instructions: bool,
    /// The output budget in tokens.
    pub max_output_tokens: u64,
    /// Number of the first call, for progress (from 1).
    pub first_call: usize,
    /// Calls in the whole operation, for progress.
    pub calls: usize,
    /// The summarizer's window the chunks were planned for (an overflow answer naming a
    /// smaller one ends the job, so the plan can be made again).
    pub planned_window: Option<u64>,
}

/// What the turn prefix's requests were made of (equal ones get equal answers to reuse).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PrefixRequest {
    chunks: Vec<String>,
    instructions: Option<String>,
    pins: Vec<String>,
}

/// The summaries of one run over a plan, before they are joined.
#[derive(Debug, Clone)]
pub(super) struct Parts {
    pub(super) history: Option<String>,
    pub(super) prefix: Option<String>,
    /// Usage of every request sent.
    pub(super) usage: SummaryUsage,
    /// Requests sent, retries included.
    pub(super) calls: usize,
    prefix_request: PrefixRequest,
    /// Whether the turn prefix's summary is usable on its own (not empty, a refusal or an
    /// echo): only then is it reused by a retry.
    prefix_usable: bool,
}

/// Whether `summary` is usable text at all (see [`Problem::is_unusable`]).
///
/// [`Problem::is_unusable`]: compaction_core::quality::Problem::is_unusable
fn is_usable(summary: &str) -> bool {
    let nothing = compaction_core::must_keep::MustKeep::default();
    let facts = compaction_core::quality::GateFacts {
        must_keep: &nothing,
        pins: &[],
        checkpoint: false,
        summarized_tokens: 0,
    };
    !compaction_core::quality::check_summary(summary, false, &facts)
        .iter()
        .any(compaction_core::quality::Problem::is_unusable)
}

impl Parts {
    /// The summary the entry stores: the history's and the turn prefix's, joined.
    pub(super) fn merged(&self) -> String {
        merge_summaries(self.history.as_deref(), self.prefix.as_deref())
    }
}

/// Tokens of the line [`merge_summaries`] puts between the two parts (characters / 4).
const JOINER_TOKENS: u64 = 20;

/// How many times a summarizer that keeps to its budget writes again to fit the room a
/// compaction has (see [`Compactor::summarize_parts`]).
const ROOM_TRIES: usize = 3;

/// Joins the history summary and the split turn's prefix summary.
pub fn merge_summaries(history: Option<&str>, prefix: Option<&str>) -> String {
    match (history.map(str::trim), prefix.map(str::trim)) {
        (Some(history), Some(prefix)) => format!(
            "{history}\n\n---\n\n**Earlier in the turn that is still in progress:**\n\n{prefix}"
        ),
        (Some(history), None) => history.to_owned(),
        (None, Some(prefix)) => {
            format!("**Earlier in the turn that is still in progress:**\n\n{prefix}")
        }
        (None, None) => String::new(),
    }
}
