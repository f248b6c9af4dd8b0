//! Probe files: the questions about a session and the strings that answer them.
//!
//! Invariant: a probe file that loads has only known categories, and every probe expects
//! something or forbids something; anything else is an error naming the file and the probe.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::super::CommandError;

/// The probe categories, in report order.
pub(super) const CATEGORIES: [&str; 5] =
    ["artifact", "constraint", "recall", "continuation", "decision"];

/// A probe file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProbeFile {
    /// The session, relative to the probe file.
    pub(super) session: PathBuf,
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
    /// Every one of these must occur in the context after compaction.
    #[serde(default)]
    pub(super) expect: Vec<String>,
    /// Statements the last summary must not make.
    #[serde(default)]
    pub(super) absent: Vec<Absent>,
}

/// A statement the last summary must not make: no line of it (within `sections`, when
/// given) contains every string of `text`. Kept messages are not searched: they are the
/// session's own words, stale ones included.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Absent {
    /// Strings that must not all occur on one line.
    pub(super) text: Vec<String>,
    /// Headings (`Key Decisions`, `Blocked`) or tags (`modified-files`) whose lines are
    /// searched; a heading's lines run to the next heading of the same or a higher level.
    /// Empty: the whole summary.
    #[serde(default)]
    pub(super) sections: Vec<String>,
}

pub(super) fn read_probe_file(path: &Path) -> anyhow::Result<ProbeFile> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CommandError::io(format!("cannot read {}", path.display()), e))?;
    let file: ProbeFile = serde_json::from_str(&text).map_err(|e| {
        CommandError::usage(format!("{}:{}: not a probe file: {e}", path.display(), e.line()))
    })?;
    for (index, probe) in file.probes.iter().enumerate() {
        if !CATEGORIES.contains(&probe.category.as_str()) {
            return Err(CommandError::usage(format!(
                "{}: probe {} has category `{}`; expected one of {}",
                path.display(),
                index + 1,
                probe.category,
                CATEGORIES.join(", ")
            )));
        }
        let expects = probe.expect.iter().any(|text| !text.trim().is_empty());
        if !expects && probe.absent.is_empty() {
            return Err(CommandError::usage(format!(
                "{}: probe {} expects nothing",
                path.display(),
                index + 1
            )));
        }
        if probe.absent.iter().any(|rule| rule.text.iter().all(|text| text.trim().is_empty())) {
            return Err(CommandError::usage(format!(
                "{}: probe {} has an `absent` rule without text",
                path.display(),
                index + 1
            )));
        }
    }
    Ok(file)
}
