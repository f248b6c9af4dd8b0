//! What the first line says about a file: a pi session, a damaged one, or none at all.
//!
//! Invariant: a file is a pi session only when its first line is a session header, or a
//! damaged line that still names itself one (`"session"` inside an unreadable first line, or
//! a `"type":"session"` object with an invalid field). Anything else — an empty file, or a
//! first line that is another JSON value or unrelated text — is not a session: it is neither
//! read as one nor written to, and no repair invents a header for it.

use std::path::Path;

use compaction_core::{DiagnosticKind, Session};

use super::error::StoreError;

/// Refuses a file that is not a pi session at all.
pub(crate) fn refuse_non_session(session: &Session, path: &Path) -> Result<(), StoreError> {
    if session.header().is_some() {
        return Ok(());
    }
    let not_a_session =
        |detail: String| StoreError::NotASession { path: path.to_path_buf(), detail };
    let header_problem = session.diagnostics().iter().find(|diagnostic| {
        matches!(diagnostic.kind, DiagnosticKind::MissingHeader | DiagnosticKind::InvalidHeader)
    });
    let Some(problem) = header_problem else {
        return Ok(());
    };
    if problem.line == 0 {
        return Err(not_a_session("the file is empty".to_owned()));
    }
    let names_itself = problem.kind == DiagnosticKind::InvalidHeader
        && session
            .malformed()
            .iter()
            .find(|malformed| malformed.line == 1)
            .and_then(|malformed| malformed.bytes.as_deref())
            .is_some_and(|bytes| contains(bytes, b"\"session\""));
    if names_itself {
        return Ok(());
    }
    Err(not_a_session(format!(
        "line 1 is not a session header (`{}`)",
        first_line_preview(session)
    )))
}

/// Refuses a file the store must not write to: not a session, a damaged header, or a format
/// version newer than this crate's.
pub(crate) fn refuse_unwritable(session: &Session, path: &Path) -> Result<(), StoreError> {
    refuse_non_session(session, path)?;
    if session.header().is_none() {
        let problem = session.diagnostics().iter().find(|diagnostic| {
            matches!(diagnostic.kind, DiagnosticKind::MissingHeader | DiagnosticKind::InvalidHeader)
        });
        return Err(StoreError::UnreadableHeader {
            path: path.to_path_buf(),
            line: problem.map_or(1, |diagnostic| diagnostic.line.max(1)),
            detail: problem.map_or_else(
                || "no session header".to_owned(),
                |diagnostic| diagnostic.message.clone(),
            ),
        });
    }
    if session.line_style().bom {
        return Err(StoreError::ByteOrderMark { path: path.to_path_buf() });
    }
    if is_newer_version(session) {
        return Err(StoreError::UnsupportedVersion {
            path: path.to_path_buf(),
            version: session.source_version(),
            known: compaction_core::entry::CURRENT_VERSION,
        });
    }
    Ok(())
}

/// Whether the header declares a format version newer than this crate knows.
pub(crate) fn is_newer_version(session: &Session) -> bool {
    session.header().is_some() && session.source_version() > compaction_core::entry::CURRENT_VERSION
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}

/// The start of line 1, for messages (the first entry's text when it parsed as one).
fn first_line_preview(session: &Session) -> String {
    let raw = session
        .malformed()
        .iter()
        .find(|malformed| malformed.line == 1)
        .and_then(|malformed| malformed.bytes.as_deref())
        .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
        .or_else(|| {
            session.entries().first().filter(|entry| entry.line == 1).map(|e| e.raw().to_owned())
        })
        .unwrap_or_default();
    // Redacted before it is cut, so a secret on the line is found whole: a file taken for a
    // session by mistake (`.env`) must not show its first secret in the error.
    let head: String = raw.chars().take(4096).collect();
    let redacted = compaction_core::serialize::Redactor::default().redact(&head).into_owned();
    let mut preview: String = redacted.chars().take(60).collect();
    if preview.len() < redacted.len() || head.len() < raw.len() {
        preview.push('…');
    }
    preview
}
