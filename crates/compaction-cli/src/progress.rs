//! Progress on stderr and Ctrl-C handling for the commands that call a summarizer.
//!
//! Invariant: from the moment a summarizer-calling command starts its work, Ctrl-C (SIGINT)
//! cancels it instead of killing the process, so the spinner is cleared and the session is
//! left as the store guarantees; the program then exits 130.

use std::future::Future;
use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use compaction::compact::CompactionProgress;
use compaction::summarizer::SummaryProgress;
use indicatif::{ProgressBar, ProgressStyle};
use tokio_util::sync::CancellationToken;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether Ctrl-C cancelled a command's work.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Runs `work` on a runtime; Ctrl-C cancels the token it is given (the handler is installed
/// before `work` starts, so an interrupt never kills the process halfway).
pub fn block_on_cancellable<F, T>(work: impl FnOnce(CancellationToken) -> F) -> anyhow::Result<T>
where
    F: Future<Output = T>,
{
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let cancel = CancellationToken::new();
    runtime.block_on(async {
        let mut signal = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
        let watcher = cancel.clone();
        let interrupt = tokio::spawn(async move {
            if signal.recv().await.is_some() {
                INTERRUPTED.store(true, Ordering::SeqCst);
                watcher.cancel();
            }
        });
        let result = work(cancel).await;
        interrupt.abort();
        Ok(result)
    })
}

/// A spinner on stderr with elapsed time against the deadline and streamed output tokens
/// (hidden when stderr is not a terminal, with `--quiet` or `--json`).
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A spinner labelled `label` for work that gives up after `deadline`.
    pub fn new(enabled: bool, label: String, deadline: Duration) -> Self {
        let enabled = enabled && std::io::stderr().is_terminal();
        let bar = if enabled { ProgressBar::new_spinner() } else { ProgressBar::hidden() };
        if let Ok(style) = ProgressStyle::with_template(&template(deadline)) {
            bar.set_style(style);
        }
        bar.set_prefix(label);
        bar.set_message("planning");
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress { bar }
    }

    pub fn update(&self, event: CompactionProgress) {
        let text = match event {
            CompactionProgress::Call { call, calls, kind } => {
                format!("summarizing ({kind:?}, call {call}/{calls})")
            }
            CompactionProgress::Summarizer(SummaryProgress::Output {
                estimated_tokens, ..
            }) => {
                format!("receiving summary: ~{estimated_tokens} tokens")
            }
            CompactionProgress::Summarizer(SummaryProgress::Retrying {
                attempt,
                delay,
                reason,
            }) => {
                format!(
                    "attempt {attempt} failed ({reason}); retrying in {:.1}s",
                    delay.as_secs_f64()
                )
            }
            CompactionProgress::Summarizer(_) => "waiting for the summarizer".to_owned(),
            CompactionProgress::QualityRetry { missing } => {
                format!("summary rejected ({}); writing it again", missing.join("; "))
            }
            CompactionProgress::Fallback { summarizer, reason } => {
                format!("no usable summary ({}); {summarizer} writes it", reason.join("; "))
            }
            CompactionProgress::BudgetCapped { max_summary_tokens } => format!(
                "summary budget capped to {max_summary_tokens} tokens for the server's window"
            ),
            CompactionProgress::SummaryWindow { note } => format!("summary window: {note}"),
            CompactionProgress::WindowLearned { window, planned } => format!(
                "the server's window is {window} tokens, not {planned}; planning again for it"
            ),
            CompactionProgress::Deadline { limit, configured, reason } => {
                if let Ok(style) = ProgressStyle::with_template(&template(limit)) {
                    self.bar.set_style(style);
                }
                format!(
                    "deadline raised from {}s to {}s ({reason})",
                    configured.as_secs(),
                    limit.as_secs()
                )
            }
        };
        self.bar.set_message(text);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The progress line: spinner, label, message, and elapsed time of the deadline, e.g.
/// `⠋ openai/gpt-4o · summarizing (History, call 1/2) · 12s of 180s deadline`.
fn template(deadline: Duration) -> String {
    format!("{{spinner}} {{prefix}} · {{msg}} · {{elapsed}} of {}s deadline", deadline.as_secs())
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_line_shows_the_deadline() {
        let line = template(Duration::from_secs(180));
        assert!(ProgressStyle::with_template(&line).is_ok());
        assert_eq!(line, "{spinner} {prefix} · {msg} · {elapsed} of 180s deadline");
    }
}
