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
        Self::with_bar(bar, output, terminal, &label, deadline)
    }

    /// Progress drawn by `bar` (a spinner on stderr, or one a test draws into). Every text
    /// the bar shows (the label, each message, the lines printed above it) goes through
    /// [`output::visible`](crate::output::visible), as everything else printed does: a
    /// model name or a server's reason holding ESC or a C1 CSI reaches the terminal
    /// escaped, never raw.
    fn with_bar(
        bar: ProgressBar,
        output: ProgressOutput,
        terminal: bool,
        label: &str,
        deadline: Duration,
    ) -> Self {
        if let Ok(style) = ProgressStyle::with_template(&template(deadline)) {
            bar.set_style(style);
        }
        bar.set_prefix(for_terminal(label));
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
                        self.bar.println(for_terminal(&format!("note: {text}")));
                    } else {
                        eprintln!("note: {text}");
                    }
                }
                self.bar.set_message(for_terminal(&text));
            }
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// `text` as the spinner may draw it: terminal controls escaped (see
/// [`output::visible`](crate::output::visible)); the bar draws what it is given as it is.
fn for_terminal(text: &str) -> String {
    crate::output::visible(text).into_owned()
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

    /// A terminal that records the text indicatif writes (cursor moves and line clearing
    /// are calls of their own, so the text is only what the bar draws).
    #[derive(Debug, Default, Clone)]
    struct Recorded(std::sync::Arc<std::sync::Mutex<String>>);

    impl indicatif::TermLike for Recorded {
        fn width(&self) -> u16 {
            200
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, text: &str) -> std::io::Result<()> {
            self.write_str(&format!("{text}\n"))
        }
        fn write_str(&self, text: &str) -> std::io::Result<()> {
            self.0.lock().map_err(|_| std::io::Error::other("poisoned"))?.push_str(text);
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The controls a hostile name or reply may carry: ESC (a CSI and an OSC), a C1 CSI
    /// (U+009B), a lone carriage return, a right-to-left override.
    const CONTROLS: &[(&str, char)] = &[
        ("\u{1b}[2J", '\u{1b}'),
        ("\u{1b}]0;title\u{7}", '\u{7}'),
        ("\u{9b}31m", '\u{9b}'),
        ("a\rb", '\r'),
        ("\u{202e}txt.exe", '\u{202e}'),
    ];

    /// The label (a model name), a lasting note (a fallback's reason, from a server) and
    /// the spinner's message each holding a control: what reaches the terminal holds none
    /// of them raw, and holds each escaped.
    #[test]
    fn spinner_text_reaches_the_terminal_with_its_controls_escaped() {
        for (control, raw) in CONTROLS {
            let terminal = Recorded::default();
            let bar = ProgressBar::with_draw_target(
                None,
                indicatif::ProgressDrawTarget::term_like(Box::new(terminal.clone())),
            );
            let label = format!("openai/model{control}");
            let progress = Progress::with_bar(
                bar,
                ProgressOutput::Human,
                true,
                &label,
                Duration::from_secs(180),
            );
            // A lasting event: a line above the bar, and the bar redrawn with its message.
            progress.update(CompactionProgress::Fallback {
                summarizer: "offline".to_owned(),
                reason: vec![format!("the server said {control}")],
            });
            progress.update(CompactionProgress::SummaryWindow { note: format!("n{control}") });
            assert!(!progress.bar.prefix().contains(*raw), "{control:?}");
            assert!(!progress.bar.message().contains(*raw), "{control:?}");
            progress.finish();
            let written = terminal.0.lock().unwrap().clone();
            assert!(written.contains("the server said"), "{control:?}: {written:?}");
            assert!(!written.contains(*raw), "{control:?} reached the terminal raw: {written:?}");
            let escaped = format!("\\u{:04x}", u32::from(*raw));
            assert!(written.contains(&escaped), "{control:?}: {written:?}");
        }
    }
}
