//! Probe files: the questions about a session and the strings that answer them.
//!
//! A probe file names its session in one of two ways: `session`, a pi session relative to
//! the probe file, or `transcript`, a raw transcript relative to the transcripts root
//! (see `corpus`), converted as `compaction import` or `compaction migrate` would. `turns`
//! keeps only the user turns `[first, end)` of the converted session.
//!
//! Invariant: a probe file that loads has only known categories, every probe expects
//! something or forbids something, and every probe of a `transcript` file names its
//! subject; anything else is an error naming the file and the probe.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::super::CommandError;

/// The probe categories, in report order.
pub(super) const CATEGORIES: [&str; 7] =
    ["artifact", "constraint", "recall", "continuation", "decision", "error", "open"];

/// Probe files are small; anything larger is not one.
const MAX_PROBE_FILE_BYTES: u64 = 4 << 20;

/// A probe file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProbeFile {
    /// A pi session, relative to the probe file.
    #[serde(default)]
    pub(super) session: Option<PathBuf>,
    /// A raw transcript, relative to the transcripts root.
    #[serde(default)]
    pub(super) transcript: Option<String>,
    /// User turns `[first, end)` kept, in file order; all when absent.
    #[serde(default)]
    pub(super) turns: Option<[usize; 2]>,
    /// What the session is (shown in reports).
    #[serde(default)]
    pub(super) description: Option<String>,
    pub(super) probes: Vec<Probe>,
}

/// One question about the session.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Probe {
    pub(super) category: String,
    pub(super) question: String,
    /// Strings naming what the probe is about: an expected string counts only in an item
    /// (a summary line, a paragraph of a kept message) that also holds one of them. Empty
    /// (allowed for `session` files only): an expected string counts anywhere.
    #[serde(default)]
    pub(super) subject: Vec<String>,
    /// Every one of these must occur in the context after compaction.
    #[serde(default)]
    pub(super) expect: Vec<String>,
    /// Statements the last summary and the pins must not make.
    #[serde(default)]
    pub(super) absent: Vec<Absent>,
}

/// A statement the last summary (and the pinned instructions) must not make: no line of
/// it (within `sections`, when given) contains every string of `text`. Kept messages are
/// not searched: they are the session's own words, stale ones included.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Absent {
    /// Strings that must not all occur on one line.
    pub(super) text: Vec<String>,
    /// Headings (`Key Decisions`, `Blocked`) or tags (`modified-files`) whose lines are
    /// searched, `pins` for the pinned instructions; a heading's lines run to the next
    /// heading of the same or a higher level. Empty: the whole summary and the pins.
    #[serde(default)]
    pub(super) sections: Vec<String>,
}

pub(super) fn read_probe_file(path: &Path) -> anyhow::Result<ProbeFile> {
    let text = super::corpus::read_bounded(path, MAX_PROBE_FILE_BYTES)?;
    let file: ProbeFile = serde_json::from_str(&text).map_err(|e| {
        CommandError::usage(format!("{}:{}: not a probe file: {e}", path.display(), e.line()))
    })?;
    let problem = |what: String| CommandError::usage(format!("{}: {what}", path.display()));
    match (&file.session, &file.transcript) {
        (Some(_), Some(_)) => {
            return Err(problem("names both `session` and `transcript`; keep one".into()));
        }
        (None, None) => return Err(problem("names no `session` and no `transcript`".into())),
        _ => {}
    }
    if let Some([first, end]) = file.turns
        && first >= end
    {
        return Err(problem(format!("`turns` [{first}, {end}] keeps no user turn")));
    }
    for (index, probe) in file.probes.iter().enumerate() {
        let number = index + 1;
        if !CATEGORIES.contains(&probe.category.as_str()) {
            return Err(problem(format!(
                "probe {number} has category `{}`; expected one of {}",
                probe.category,
                CATEGORIES.join(", ")
            )));
        }
        let expects = probe.expect.iter().any(|text| !text.trim().is_empty());
        if !expects && probe.absent.is_empty() {
            return Err(problem(format!("probe {number} expects nothing")));
        }
        if probe.absent.iter().any(|rule| rule.text.iter().all(|text| text.trim().is_empty())) {
            return Err(problem(format!("probe {number} has an `absent` rule without text")));
        }
        let named = probe.subject.iter().any(|text| !text.trim().is_empty());
        if file.transcript.is_some() && !named {
            return Err(problem(format!("probe {number} names no `subject`")));
        }
    }
    Ok(file)
}
