//! Automatic compaction: when the trigger fires and the guard allows, one compaction through
//! [`Compactor::run`] (the files it modified restored after it), events for every step, and
//! the one place the harness builds its compactor.

use compaction_core::serialize::Redactor;
use compaction_core::settings::CompactionSettings;
use compaction_core::tokens::TokenEstimator;

pub use crate::compact::CompactionReason;
use crate::compact::{CompactError, CompactOutcome, CompactRequest, Compactor};
use crate::error::SummarizerError;
use crate::extension::{ExtensionWarning, Extensions};
use crate::summarizer::Summarizer;

use super::*;

impl CompactingSession {
    /// One automatic compaction when the trigger fires and the guard allows it. Returns
    /// whether a compaction was written.
    pub(super) async fn auto_compact(
        &mut self,
        reason: CompactionReason,
    ) -> Result<bool, HarnessError> {
        if !self.should_compact() {
            return Ok(false);
        }
        if self.guard.stalled {
            self.emit(HarnessEvent::CompactionSkipped {
                reason: "automatic compaction is paused: the last one did not get below the \
                         trigger"
                    .to_owned(),
            });
            return Ok(false);
        }
        if self.guard.consecutive_failures >= self.harness.max_consecutive_failures
            && self.guard.failed_generation == self.guard.generation
        {
            self.emit(HarnessEvent::CompactionSkipped {
                reason: format!(
                    "{} automatic compactions failed in a row; waiting for the context to change",
                    self.guard.consecutive_failures
                ),
            });
            return Ok(false);
        }
        match self.compact_for(reason, None).await {
            Ok(_) => {
                self.guard.consecutive_failures = 0;
                if self.should_compact() {
                    self.guard.stalled = true;
                    return Err(HarnessError::CompactionIneffective {
                        tokens: self.context_tokens(),
                        limit: self.trigger_limit(),
                        window: self.model.context_window,
                        keep_recent_tokens: self.settings.keep_recent_tokens,
                    });
                }
                Ok(true)
            }
            Err(HarnessError::Aborted) => Err(HarnessError::Aborted),
            Err(HarnessError::Compact(
                CompactError::Nothing(_) | CompactError::NothingToPrune { .. },
            )) => Ok(false),
            Err(HarnessError::Compact(CompactError::NotReducing { before, after, .. })) => {
                self.guard.stalled = true;
                Err(HarnessError::CompactionIneffective {
                    tokens: after.max(before),
                    limit: self.trigger_limit(),
                    window: self.model.context_window,
                    keep_recent_tokens: self.settings.keep_recent_tokens,
                })
            }
            Err(
                HarnessError::Compact(_)
                | HarnessError::Store(_)
                | HarnessError::Navigate(_)
                | HarnessError::Pin(_)
                | HarnessError::CompactionIneffective { .. }
                | HarnessError::ContextOverflow { .. }
                | HarnessError::Terminal(_)
                | HarnessError::Message(_)
                | HarnessError::Model(_),
            ) => {
                self.guard.consecutive_failures += 1;
                self.guard.failed_generation = self.guard.generation;
                Ok(false)
            }
        }
    }

    /// Re-reads the compaction's most recently modified files into the context, within the
    /// budgets and the room left below the trigger. A failure to append is reported as an
    /// event and leaves the compaction in place.
    fn restore_files(&mut self, compaction_id: &str) {
        let limits = crate::restore::RestoreLimits::from_settings(&self.settings);
        if limits.files == 0 {
            return;
        }
        let room = self.trigger_limit().saturating_sub(self.context_tokens().saturating_add(1));
        let restored = crate::restore::restore_files(
            &mut self.store,
            compaction_id,
            limits,
            Some(room),
            self.estimator.as_ref(),
            &self.redactor,
        );
        match restored {
            Ok(outcome) => {
                if let Some(entry) = &outcome.entry {
                    self.leaf = self.store.session().index_of(&entry.id);
                    self.guard.generation += 1;
                }
                if !outcome.restored.is_empty() || !outcome.skipped.is_empty() {
                    self.emit(HarnessEvent::FilesRestored(outcome));
                }
            }
            Err(error) => self.emit(HarnessEvent::CompactionSkipped {
                reason: format!("restoring recently modified files failed: {error}"),
            }),
        }
    }

    /// The smallest context size at which the trigger fires (reserve or ratio rule).
    fn trigger_limit(&self) -> u64 {
        let window = self.model.context_window;
        let reserve = window.saturating_sub(self.settings.reserve_tokens);
        let ratio = (window as f64 * self.settings.threshold).ceil() as u64;
        reserve.saturating_add(1).min(ratio)
    }

    /// Runs [`Compactor::run`] at the harness's leaf, with events and the abort handle.
    pub(super) async fn compact_for(
        &mut self,
        reason: CompactionReason,
        instructions: Option<&str>,
    ) -> Result<CompactOutcome, HarnessError> {
        self.emit(HarnessEvent::CompactionStarted { reason, tokens: self.context_tokens() });
        let request = CompactRequest {
            leaf: self.leaf_id().map(str::to_owned),
            instructions: instructions.map(str::to_owned),
            reason,
            strategy: None,
        };
        let cancel = self.abort.start();
        let compactor = compactor(
            self.summarizer.as_ref(),
            &self.settings,
            &self.model,
            self.estimator.as_ref(),
            &self.redactor,
            &self.extensions,
        );
        let result = compactor.run(&mut self.store, &request, &cancel, &|_| {}).await;
        self.abort.finish();
        if let Ok(CompactOutcome { pruned: Some(pruned), .. }) = &result {
            self.emit(HarnessEvent::Pruned(PrunedEvent {
                entry: pruned.entry.clone(),
                entry_ids: pruned.plan.candidates.iter().map(|c| c.id.clone()).collect(),
                tokens_before: pruned.tokens_before,
                tokens_after: pruned.tokens_after,
            }));
        }
        let reported = match &result {
            Ok(outcome) => Ok(CompactedEvent {
                entry: outcome.entry.clone(),
                tokens_before: outcome.tokens_before,
                tokens_after: outcome.tokens_after,
                quality: outcome.quality.clone(),
            }),
            Err(error) => Err(error.to_string()),
        };
        self.emit(HarnessEvent::CompactionFinished { reason, result: reported });
        self.emit_warnings(match &result {
            Ok(outcome) => &outcome.warnings,
            Err(CompactError::Cancelled { warnings, .. }) => warnings,
            Err(_) => &[],
        });
        match result {
            Ok(outcome) => {
                self.leaf = self.store.session().index_of(&outcome.entry.id);
                self.guard.generation += 1;
                if outcome.entry.kind.as_compaction().is_some() {
                    self.restore_files(&outcome.entry.id);
                }
                Ok(outcome)
            }
            Err(CompactError::Summarizer(SummarizerError::Cancelled { .. })) => {
                Err(HarnessError::Aborted)
            }
            Err(error) => Err(error.into()),
        }
    }

    pub(super) fn emit(&self, event: HarnessEvent) {
        // No subscriber is not an error.
        let _ = self.events.send(event);
    }

    /// Reports the extension warnings of a finished compaction or navigation.
    pub(super) fn emit_warnings(&self, warnings: &[ExtensionWarning]) {
        for warning in warnings {
            self.emit(HarnessEvent::ExtensionWarning(warning.clone()));
        }
    }
}

/// The one place the harness builds its [`Compactor`] (a function over the fields, so the
/// store stays mutably borrowable): every harness compaction and branch summary runs the
/// session's extensions.
pub(super) fn compactor<'a>(
    summarizer: &'a dyn Summarizer,
    settings: &'a CompactionSettings,
    model: &ChatModel,
    estimator: &'a dyn TokenEstimator,
    redactor: &Redactor,
    extensions: &'a Extensions,
) -> Compactor<'a> {
    Compactor {
        summarizer,
        settings,
        context_window: model.context_window,
        estimator,
        redactor: redactor.clone(),
        extensions,
    }
}
