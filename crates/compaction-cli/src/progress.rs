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

/// How progress is shown on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressOutput {
    /// Nothing (`--quiet`).
    Quiet,
    /// For people: a spinner on a terminal, with the events that matter (a raised deadline,
    /// retries, a learned window, a fallback) also printed as lines that stay; on anything
    /// else (a pipe, a log file), those events as plain lines.
    Human,
    /// `--json`: every event but streamed output as one JSON object per line (stdout keeps
    /// the command's one JSON document).
    Json,
}

impl ProgressOutput {
    /// The output for a command's `--quiet` and `--json` flags.
    pub fn of(quiet: bool, json: bool) -> Self {
        if quiet {
            ProgressOutput::Quiet
        } else if json {
            ProgressOutput::Json
        } else {
            ProgressOutput::Human
        }
    }
}

/// Progress on stderr (see [`ProgressOutput`]): a spinner with elapsed time against the
/// deadline and streamed output tokens on a terminal; lines that survive without one.
pub struct Progress {
    bar: ProgressBar,
    output: ProgressOutput,
    terminal: bool,
}

impl Progress {
    /// Progress labelled `label` for work that gives up after `deadline`.
    pub fn new(output: ProgressOutput, label: String, deadline: Duration) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let spinner = output == ProgressOutput::Human && terminal;
        let bar = if spinner { ProgressBar::new_spinner() } else { ProgressBar::hidden() };
        if let Ok(style) = ProgressStyle::with_template(&template(deadline)) {
            bar.set_style(style);
        }
        bar.set_prefix(label);
        bar.set_message("planning");
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress { bar, output, terminal }
    }

    pub fn update(&self, event: CompactionProgress) {
        if let CompactionProgress::Deadline { limit, .. } = &event
            && let Ok(style) = ProgressStyle::with_template(&template(*limit))
        {
            self.bar.set_style(style);
        }
        match self.output {
            ProgressOutput::Quiet => {}
            ProgressOutput::Json => {
                if let Some(line) = json_event(&event) {
                    eprintln!("{line}");
                }
            }
            ProgressOutput::Human => {
                let text = describe(&event);
                if lasting(&event) {
                    if self.terminal {
                        self.bar.println(format!("note: {text}"));
                    } else {
                        eprintln!("note: {text}");
                    }
                }
                self.bar.set_message(text);
            }
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The events worth a line of their own: what changes the run's course or its limits.
fn lasting(event: &CompactionProgress) -> bool {
    match event {
        CompactionProgress::Summarizer(SummaryProgress::Retrying { .. })
        | CompactionProgress::QualityRetry { .. }
        | CompactionProgress::Fallback { .. }
        | CompactionProgress::BudgetCapped { .. }
        | CompactionProgress::SummaryWindow { .. }
        | CompactionProgress::WindowLearned { .. }
        | CompactionProgress::Deadline { .. } => true,
        CompactionProgress::Call { .. } | CompactionProgress::Summarizer(_) => false,
        // An event a later version adds is shown.
        #[allow(unreachable_patterns)]
        _ => true,
    }
}

/// An event in words.
fn describe(event: &CompactionProgress) -> String {
    match event {
        CompactionProgress::Call { call, calls, kind } => {
            format!("summarizing ({kind:?}, call {call}/{calls})")
        }
        CompactionProgress::Summarizer(SummaryProgress::Output { estimated_tokens, .. }) => {
            format!("receiving summary: ~{estimated_tokens} tokens")
        }
        CompactionProgress::Summarizer(SummaryProgress::Retrying { attempt, delay, reason }) => {
            format!("attempt {attempt} failed ({reason}); retrying in {:.1}s", delay.as_secs_f64())
        }
        CompactionProgress::Summarizer(_) => "waiting for the summarizer".to_owned(),
        CompactionProgress::QualityRetry { missing } => {
            format!("summary rejected ({}); writing it again", missing.join("; "))
        }
        CompactionProgress::Fallback { summarizer, reason } => format!(
            "no usable summary ({}); falling back: the {summarizer} summarizer writes it",
            reason.join("; ")
        ),
        CompactionProgress::BudgetCapped { max_summary_tokens } => {
            format!("summary budget capped to {max_summary_tokens} tokens for the server's window")
        }
        CompactionProgress::SummaryWindow { note } => format!("summary window: {note}"),
        CompactionProgress::WindowLearned { window, planned } => {
            format!("the server's window is {window} tokens, not {planned}; planning again for it")
        }
        CompactionProgress::Deadline { limit, configured, reason } => format!(
            "deadline raised from {}s to {}s ({reason})",
            configured.as_secs(),
            limit.as_secs()
        ),
        #[allow(unreachable_patterns)]
        _ => "working".to_owned(),
    }
}

/// An event as one JSON line (`{"event": …}`); streamed output is left out.
fn json_event(event: &CompactionProgress) -> Option<String> {
    use serde_json::json;
    let value = match event {
        CompactionProgress::Call { call, calls, kind } => {
            json!({"event": "call", "call": call, "calls": calls, "kind": format!("{kind:?}")})
        }
        CompactionProgress::Summarizer(SummaryProgress::Retrying { attempt, delay, reason }) => {
            json!({"event": "retry", "attempt": attempt, "delaySeconds": delay.as_secs_f64(), "reason": reason})
        }
        CompactionProgress::Summarizer(_) => return None,
        CompactionProgress::QualityRetry { missing } => {
            json!({"event": "qualityRetry", "missing": missing})
        }
        CompactionProgress::Fallback { summarizer, reason } => {
            json!({"event": "fallback", "summarizer": summarizer, "reason": reason})
        }
        CompactionProgress::BudgetCapped { max_summary_tokens } => {
            json!({"event": "budgetCapped", "maxSummaryTokens": max_summary_tokens})
        }
        CompactionProgress::SummaryWindow { note } => {
            json!({"event": "summaryWindow", "note": note})
        }
        CompactionProgress::WindowLearned { window, planned } => {
            json!({"event": "windowLearned", "window": window, "planned": planned})
        }
        CompactionProgress::Deadline { limit, configured, reason } => json!({
            "event": "deadlineRaised",
            "limitSeconds": limit.as_secs(),
            "configuredSeconds": configured.as_secs(),
            "reason": reason
        }),
        #[allow(unreachable_patterns)]
        _ => json!({"event": "other", "text": describe(event)}),
    };
    Some(value.to_string())
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
