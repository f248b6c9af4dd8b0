//! The dry run of a compaction: what would be cut, summarized and sent, without doing it.
//!
//! `plan_compaction` joins the pieces: context tokens and the trigger decision, the
//! preparation, and the summarizer requests' transcripts split to fit the summary model's
//! window. `compaction plan` prints it and `compaction run` executes exactly it, so a plan
//! is what a run does. Invariant: every transcript chunk fits the summary model's window
//! together with the prompt, the carried summary and the output allowance.

use crate::budget::{NoRoomForTranscript, SummarizerBudget, chunk_blocks};
use crate::context::{SessionContext, build_context};
use crate::pins::{Pin, active_pins};
use crate::prepare::{
    CompactionPreparation, NothingToCompact, PrepareOptions, prepare_from_context,
};
use crate::prompts::{self, PromptTask};
use std::sync::OnceLock;

use crate::serialize::{Redactor, SerializeOptions, serialize_message, shows_a_block};
use crate::session::Session;
use crate::settings::CompactionSettings;
use crate::tokens::{ContextTokens, TokenEstimator, context_tokens};
use crate::trigger::{TriggerDecision, should_compact};
use crate::user_messages::{KeptUserMessages, keep_user_messages, user_message_texts};

/// What a plan is computed with.
pub struct PlanInputs<'a> {
    /// The resolved compaction settings.
    pub settings: &'a CompactionSettings,
    /// The chat model's context window (trigger and kept-part limits).
    pub context_window: u64,
    /// The summary model's context window; `None` when the summarizer has no window
    /// (the offline summarizer), so transcripts are not split.
    pub summary_window: Option<u64>,
    /// Counts the tokens of messages and transcripts.
    pub estimator: &'a dyn TokenEstimator,
    /// How transcripts are rendered (truncation, redaction).
    pub serialize: &'a SerializeOptions,
    /// Custom instructions (they take room in every request).
    pub instructions: Option<&'a str>,
}

impl std::fmt::Debug for PlanInputs<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlanInputs")
            .field("context_window", &self.context_window)
            .field("summary_window", &self.summary_window)
            .field("estimator", &self.estimator.name())
            .finish_non_exhaustive()
    }
}

/// The transcript chunks of one part of a plan (the history, or the split turn's prefix).
///
/// Split to fit a summary model's window, they are made with the plan (splitting is
/// planning). Without a window a part is one chunk, the whole transcript, or none when no
/// message shows a block; the plan then only counts it, and the transcript is rendered
/// (and redacted) the first time it is read: a summarizer that reads the messages alone
/// (the offline one) never pays for it.
#[derive(Clone)]
struct Chunks {
    count: usize,
    texts: OnceLock<Vec<String>>,
}

impl Chunks {
    /// Chunks already made.
    fn made(texts: Vec<String>) -> Self {
        Chunks { count: texts.len(), texts: OnceLock::from(texts) }
    }

    /// The unsplit transcript of `messages`, counted now and rendered when read.
    fn unsplit(messages: &[crate::message::AgentMessage], serialize: &SerializeOptions) -> Self {
        let shows = messages.iter().any(|message| shows_a_block(message, serialize));
        Chunks { count: usize::from(shows), texts: OnceLock::new() }
    }

    /// The chunks; an unsplit transcript is rendered from `messages` on the first read.
    fn texts(
        &self,
        messages: &[crate::message::AgentMessage],
        serialize: &SerializeOptions,
    ) -> &[String] {
        self.texts.get_or_init(|| {
            let texts = unsplit_transcript(messages, serialize);
            debug_assert_eq!(texts.len(), self.count, "a counted transcript renders as counted");
            texts
        })
    }
}

/// How a plan renders its transcripts when they are read. The redactor's configured
/// values are secrets: they are never shown, not even by `Debug`.
#[derive(Clone)]
struct Renderer(SerializeOptions);

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer")
            .field("tool_result_max_chars", &self.0.tool_result_max_chars)
            .finish_non_exhaustive()
    }
}

/// A compaction ready to run.
#[derive(Clone)]
pub struct PlannedCompaction {
    /// What to summarize and where the cut is.
    pub preparation: CompactionPreparation,
    /// Transcript chunks of the history, in order; each updates the running summary.
    history_chunks: Chunks,
    /// Transcript chunks of the split turn's prefix (none when the turn is not split).
    turn_prefix_chunks: Chunks,
    /// Renders the chunks that are made when read.
    renderer: Renderer,
    /// The verbatim user messages appended to the summary within `keepUserMessagesTokens`
    /// alone; `None` when the setting is 0 or no message fits. The section a compaction
    /// writes also takes the room its summary leaves of the output budget
    /// ([`PlannedCompaction::user_messages_after`]), so it holds at least these.
    pub kept_user_messages: Option<KeptUserMessages>,
    /// The summary's output budget the plan was made for (`maxSummaryTokens`, at most a
    /// quarter of the summary model's window).
    pub summary_budget: u64,
    /// `keepUserMessagesTokens`, at most a quarter of the tokens the compaction replaces:
    /// room for the user's words on top of the summary's budget.
    pub user_messages_budget: u64,
    /// Upper bound of the context after compaction: kept messages, the summary's budget,
    /// the verbatim user messages and the pins twice: the summary's pinned section (which
    /// every summary carries whole on top of what it summarizes,
    /// [`crate::pins::pinned_section`]) and the pins message after the summary.
    pub estimated_tokens_after: u64,
    /// The pins active at the leaf, oldest first: every request carries their texts, and
    /// the summary must hold them verbatim.
    pub pins: Vec<Pin>,
}

impl std::fmt::Debug for PlannedCompaction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlannedCompaction")
            .field("preparation", &self.preparation)
            .field("history_chunks", &self.history_chunks())
            .field("turn_prefix_chunks", &self.turn_prefix_chunks())
            .field("kept_user_messages", &self.kept_user_messages)
            .field("summary_budget", &self.summary_budget)
            .field("user_messages_budget", &self.user_messages_budget)
            .field("estimated_tokens_after", &self.estimated_tokens_after)
            .field("pins", &self.pins)
            .finish_non_exhaustive()
    }
}

/// Two plans are equal when they would send and store the same: the chunks are compared as
/// the texts they are (rendered if they were not yet), not by when they were made.
impl PartialEq for PlannedCompaction {
    fn eq(&self, other: &Self) -> bool {
        let PlannedCompaction {
            preparation,
            history_chunks: _,
            turn_prefix_chunks: _,
            renderer: _,
            kept_user_messages,
            summary_budget,
            user_messages_budget,
            estimated_tokens_after,
            pins,
        } = self;
        *preparation == other.preparation
            && *kept_user_messages == other.kept_user_messages
            && *summary_budget == other.summary_budget
            && *user_messages_budget == other.user_messages_budget
            && *estimated_tokens_after == other.estimated_tokens_after
            && *pins == other.pins
            && self.history_chunks() == other.history_chunks()
            && self.turn_prefix_chunks() == other.turn_prefix_chunks()
    }
}

impl PlannedCompaction {
    /// Transcript chunks of the history, in order; each updates the running summary.
    /// Redacted; rendered on the first read when the plan did not need them (no window).
    pub fn history_chunks(&self) -> &[String] {
        self.history_chunks.texts(&self.preparation.messages_to_summarize, &self.renderer.0)
    }

    /// Transcript chunks of the split turn's prefix (empty when the turn is not split),
    /// rendered like [`PlannedCompaction::history_chunks`].
    pub fn turn_prefix_chunks(&self) -> &[String] {
        self.turn_prefix_chunks.texts(&self.preparation.turn_prefix_messages, &self.renderer.0)
    }

    /// How many chunks [`PlannedCompaction::history_chunks`] holds, without rendering them.
    pub fn history_chunk_count(&self) -> usize {
        self.history_chunks.count
    }

    /// How many chunks [`PlannedCompaction::turn_prefix_chunks`] holds, without rendering
    /// them.
    pub fn turn_prefix_chunk_count(&self) -> usize {
        self.turn_prefix_chunks.count
    }

    /// The verbatim user messages for `summary`, the summary as it will be stored without
    /// them (with its file lists): within `keepUserMessagesTokens` plus the room `summary`
    /// leaves of the output budget. A summary is a paraphrase; where it is short, the
    /// budget it was given holds the user's latest words instead of staying empty. The
    /// stored summary with the section stays within both budgets together, counted by
    /// `estimator` and by pi's own chars/4 estimate alike (pi measures the context it
    /// rebuilds with the latter).
    ///
    /// `growth` caps the whole section: how many tokens the summary may still grow while
    /// the context still shrinks (a compaction that does not reduce the context is refused,
    /// and the user's words are not worth that; in a short region the summary alone may
    /// leave less than `keepUserMessagesTokens`).
    pub fn user_messages_after(
        &self,
        summary: &str,
        growth: u64,
        estimator: &dyn TokenEstimator,
        redactor: &Redactor,
    ) -> Option<KeptUserMessages> {
        // The blank line that joins the section to the summary.
        const JOIN_TOKENS: u64 = 1;
        let estimator = Stricter(estimator);
        let estimator = &estimator;
        let spare = self.summary_budget.saturating_sub(estimator.text_tokens(summary));
        let budget =
            self.user_messages_budget.saturating_add(spare).min(growth).saturating_sub(JOIN_TOKENS);
        if budget == self.user_messages_budget {
            return self.kept_user_messages.clone();
        }
        let region = user_message_texts(
            self.preparation
                .messages_to_summarize
                .iter()
                .chain(&self.preparation.turn_prefix_messages),
        );
        keep_user_messages(
            &self.preparation.previous_user_messages,
            &region,
            budget,
            estimator,
            redactor,
        )
        .or_else(|| {
            // More room than the plan's section keeps at least its messages; less keeps
            // only what fits, or nothing.
            (budget > self.user_messages_budget).then(|| self.kept_user_messages.clone()).flatten()
        })
    }

    /// Summarizer calls the run will make.
    pub fn summarizer_calls(&self) -> usize {
        self.history_chunk_count().max(1) + self.turn_prefix_chunk_count()
    }

    /// The texts of the active pins, verbatim, oldest first.
    pub fn pin_texts(&self) -> Vec<String> {
        self.pins.iter().map(|pin| pin.text.clone()).collect()
    }

    /// The active pins' ids with the tokens each adds to the summary's pinned section,
    /// largest first (ties oldest first): what to name when a compaction would not shrink
    /// the context.
    pub fn pin_sizes(&self, estimator: &dyn TokenEstimator) -> Vec<PinSize> {
        pin_sizes(&self.pins, estimator)
    }
}

/// A pin and the tokens it adds to a summary (its `<pinned-instruction>` element).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinSize {
    /// Id of the `compaction.pin` entry.
    pub id: String,
    /// Tokens of its element in the pinned section.
    pub tokens: u64,
}

impl PinSize {
    /// How messages name the largest of `pins` (given largest first): `ID (N tokens), …`,
    /// at most five, then `and K more`. The ids stand alone: right after the word "pin" an
    /// id of digits alone reads as a PIN code to the redaction every printed message goes
    /// through, and would be hidden.
    pub fn named(pins: &[PinSize]) -> String {
        const SHOWN: usize = 5;
        let named: Vec<String> = pins
            .iter()
            .take(SHOWN)
            .map(|pin| format!("{} ({} tokens)", pin.id, pin.tokens))
            .collect();
        let more = pins.len().saturating_sub(SHOWN);
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        format!("{}{more}", named.join(", "))
    }
}

/// `pins`' sizes, largest first (see [`PlannedCompaction::pin_sizes`]).
pub fn pin_sizes(pins: &[Pin], estimator: &dyn TokenEstimator) -> Vec<PinSize> {
    let mut sizes: Vec<PinSize> = pins
        .iter()
        .map(|pin| {
            let mut element = String::new();
            crate::pins::push_pinned_element(&mut element, &pin.text);
            PinSize { id: pin.id.clone(), tokens: estimator.text_tokens(&element) }
        })
        .collect();
    sizes.sort_by_key(|size| std::cmp::Reverse(size.tokens));
    sizes
}

/// Why a plan cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// The session has nothing to compact at this leaf.
    #[error(transparent)]
    NothingToCompact(#[from] NothingToCompact),
    /// The summary model's window cannot hold a request.
    #[error(transparent)]
    NoRoom(#[from] NoRoomForTranscript),
}

/// A dry run at one leaf.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionPlan {
    /// The context at the leaf, as it is now.
    pub context: SessionContext,
    /// The context's tokens and how they were counted.
    pub context_tokens: ContextTokens,
    /// The chat model's context window used for the decision.
    pub context_window: u64,
    /// Whether compaction is due, and why.
    pub trigger: TriggerDecision,
    /// The compaction to run, or why none can run.
    pub compaction: Result<PlannedCompaction, PlanError>,
}

/// The larger of an estimator's count and pi's chars/4 count: a budget kept by this count
/// is kept by both.
struct Stricter<'a>(&'a dyn TokenEstimator);

impl TokenEstimator for Stricter<'_> {
    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn text_tokens(&self, text: &str) -> u64 {
        self.0.text_tokens(text).max(crate::tokens::PiEstimator.text_tokens(text))
    }
}

/// The room of the verbatim user messages section: `keepUserMessagesTokens`, and never more
/// than a quarter of the `summarized_tokens` the compaction replaces. The section repeats
/// words of what it summarizes; in a short region it would otherwise make the context larger
/// than the messages it replaces, while a long one always has room for the whole setting.
fn user_messages_budget(setting: u64, summarized_tokens: u64) -> u64 {
    setting.min(summarized_tokens / 4)
}

/// Plans a compaction of the path ending at `leaf`.
pub fn plan_compaction(
    session: &Session,
    leaf: Option<usize>,
    inputs: &PlanInputs<'_>,
) -> CompactionPlan {
    let context = build_context(session, leaf);
    let tokens = context_tokens(session, &context, inputs.estimator);
    let trigger = should_compact(
        tokens.tokens,
        context.items.len() as u64,
        inputs.context_window,
        inputs.settings,
    );
    let settings = inputs.settings;
    let options = PrepareOptions {
        keep_recent_tokens: settings.keep_recent_tokens,
        reserve_tokens: settings.reserve_tokens,
        min_turns_to_keep: usize::try_from(settings.min_turns_to_keep).unwrap_or(usize::MAX),
        max_summary_tokens: settings.summary_output_tokens(),
        keep_user_messages_tokens: settings.keep_user_messages_tokens,
        context_window: inputs.context_window,
    };
    let estimate =
        |message: &crate::message::AgentMessage| inputs.estimator.message_tokens(message);
    // The file lists leave redacted (stored, appended after the summary, checked by the
    // gate, printed), like every other text of the session: redacted once, here.
    let compaction = prepare_from_context(session, &context, options, &estimate, tokens.tokens)
        .map_err(PlanError::from)
        .map(|mut preparation| {
            preparation.file_operations =
                preparation.file_operations.redacted(&inputs.serialize.redactor);
            preparation
        })
        .and_then(|preparation| split_requests(preparation, active_pins(session, leaf), inputs));
    CompactionPlan {
        context,
        context_tokens: tokens,
        context_window: inputs.context_window,
        trigger,
        compaction,
    }
}

/// The parts of one summarizer request besides its transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestShape<'a> {
    /// The task prompt the request carries.
    pub task: PromptTask,
    /// The user's instructions, sent with every request.
    pub instructions: Option<&'a str>,
    /// The texts of the pinned instructions, sent with every request.
    pub pins: &'a [String],
    /// Output tokens reserved for the summary.
    pub max_output_tokens: u64,
    /// Tokens of the summary carried into the request (previous or running summary).
    pub carried_summary_tokens: u64,
}

/// Serializes `messages` and splits the transcript into chunks that each fit the summary
/// model's window with the rest of the request; one chunk when there is no window.
pub fn chunk_transcript(
    messages: &[crate::message::AgentMessage],
    serialize: &SerializeOptions,
    summary_window: Option<u64>,
    estimator: &dyn TokenEstimator,
    shape: RequestShape<'_>,
) -> Result<Vec<String>, NoRoomForTranscript> {
    let Some(window) = summary_window else {
        return Ok(unsplit_transcript(messages, serialize));
    };
    let blocks = transcript_blocks(messages, serialize);
    let prompt_tokens = estimator.text_tokens(prompts::SYSTEM_PROMPT)
        + estimator.text_tokens(prompts::task_prompt(shape.task))
        + shape.instructions.map_or(0, |text| estimator.text_tokens(text))
        + prompts::pins_instruction(shape.pins).map_or(0, |text| estimator.text_tokens(&text))
        // Delimiters, language line and message framing.
        + 64;
    chunk_blocks(
        &blocks,
        SummarizerBudget {
            context_window: window,
            prompt_tokens,
            max_output_tokens: shape.max_output_tokens,
            carried_summary_tokens: shape.carried_summary_tokens,
        },
        &|text: &str| estimator.text_tokens(text),
    )
}

/// The blocks of `messages`' transcript that show (see [`serialize_message`]).
fn transcript_blocks(
    messages: &[crate::message::AgentMessage],
    serialize: &SerializeOptions,
) -> Vec<String> {
    messages
        .iter()
        .map(|message| serialize_message(message, serialize))
        .filter(|block| !block.is_empty())
        .collect()
}

/// The transcript of `messages` as one chunk, or none when no block shows.
fn unsplit_transcript(
    messages: &[crate::message::AgentMessage],
    serialize: &SerializeOptions,
) -> Vec<String> {
    let blocks = transcript_blocks(messages, serialize);
    if blocks.is_empty() { Vec::new() } else { vec![blocks.join("\n\n")] }
}

fn split_requests(
    preparation: CompactionPreparation,
    pins: Vec<Pin>,
    inputs: &PlanInputs<'_>,
) -> Result<PlannedCompaction, PlanError> {
    let pin_texts: Vec<String> = pins.iter().map(|pin| pin.text.clone()).collect();
    let estimator = inputs.estimator;
    let max_output = inputs.settings.summary_output_tokens_for(inputs.summary_window);
    let previous_tokens =
        preparation.previous_summary.as_deref().map_or(0, |s| estimator.text_tokens(s));
    let chunk = |messages: &[crate::message::AgentMessage], task: PromptTask, carried: u64| {
        if inputs.summary_window.is_none() {
            return Ok(Chunks::unsplit(messages, inputs.serialize));
        }
        let shape = RequestShape {
            task,
            instructions: inputs.instructions,
            pins: &pin_texts,
            max_output_tokens: max_output,
            carried_summary_tokens: carried,
        };
        chunk_transcript(messages, inputs.serialize, inputs.summary_window, estimator, shape)
            .map(Chunks::made)
    };
    // Every history chunk after the first carries the running summary, which is at most
    // the output budget; the first carries the previous compaction's summary.
    let carried = previous_tokens.max(max_output);
    let history_chunks = chunk(&preparation.messages_to_summarize, PromptTask::Update, carried)?;
    let turn_prefix_chunks =
        chunk(&preparation.turn_prefix_messages, PromptTask::TurnPrefix, max_output)?;
    let region = user_message_texts(
        preparation.messages_to_summarize.iter().chain(&preparation.turn_prefix_messages),
    );
    let user_messages_budget = user_messages_budget(
        inputs.settings.keep_user_messages_tokens,
        preparation.tokens_before.saturating_sub(preparation.kept_tokens),
    );
    let kept_user_messages = keep_user_messages(
        &preparation.previous_user_messages,
        &region,
        user_messages_budget,
        estimator,
        &inputs.serialize.redactor,
    );
    let pinned_tokens = crate::pins::pinned_section(&pin_texts).map_or(0, |section| {
        estimator.text_tokens(&section)
            + estimator.text_tokens(&crate::pins::pins_message_text(&pins))
    });
    let estimated_tokens_after = preparation
        .kept_tokens
        .saturating_add(max_output)
        .saturating_add(kept_user_messages.as_ref().map_or(0, |k| k.tokens))
        .saturating_add(pinned_tokens);
    Ok(PlannedCompaction {
        preparation,
        history_chunks,
        turn_prefix_chunks,
        renderer: Renderer(inputs.serialize.clone()),
        kept_user_messages,
        summary_budget: max_output,
        user_messages_budget,
        estimated_tokens_after,
        pins,
    })
}
