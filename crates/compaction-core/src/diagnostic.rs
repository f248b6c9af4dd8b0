//! Problems found while reading a session file, each tied to a line.
//!
//! A diagnostic never hides data: the line it names is either a usable entry or is kept
//! verbatim as a [`crate::session::MalformedLine`].

use serde::Serialize;

/// What kind of problem a line has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// The line is not valid JSON (or not valid UTF-8).
    MalformedJson,
    /// The line is JSON but not a usable entry (missing `id`, wrong field types, …).
    InvalidEntry,
    /// The JSON nests deeper than the parser's limit.
    TooDeep,
    /// The line is longer than the configured maximum.
    LineTooLong,
    /// The file has no session header on line 1.
    MissingHeader,
    /// Line 1 is a session header that cannot be read.
    InvalidHeader,
    /// The file starts with a UTF-8 byte order mark (accepted).
    Bom,
    /// Lines end in CRLF (accepted).
    Crlf,
    /// The last line has no newline and is not valid JSON: an interrupted write.
    TornLastLine,
    /// The last line is a complete entry without its newline (accepted; the store adds one).
    MissingFinalNewline,
    /// A blank line (ignored).
    BlankLine,
    /// Two entries share an id; the later one wins, as in pi.
    DuplicateId,
    /// `parentId` names no entry; the entry is treated as a root.
    DanglingParent,
    /// Following `parentId` loops; the link that closes the loop is ignored.
    ParentCycle,
    /// An entry type this version does not know (kept, left out of the context).
    UnknownEntryType,
    /// The file was written in an older format and was migrated in memory.
    Migrated,
    /// The line is not valid UTF-8; it was read with U+FFFD replacement characters, as pi
    /// reads it, and its bytes in the file are kept as they are.
    InvalidUtf8,
    /// A compaction's `firstKeptEntryId` names no entry: what it kept cannot be found.
    CompactionKeptMissing,
    /// A compaction's `firstKeptEntryId` names an entry that is not on the compaction's own
    /// path (another branch, or after it).
    CompactionKeptOffPath,
    /// A `compaction.pin` or `compaction.unpin` entry whose `data` is not a pin (it is
    /// ignored).
    MalformedPin,
    /// A `compaction.prune` entry whose `data` is not a prune record (it is ignored).
    MalformedPrune,
    /// An older-format line holds several records written without a newline between them
    /// (each is read as its own entry).
    JoinedRecords,
    /// A `message` entry whose message cannot be read as its role's message (a field of the
    /// wrong type): it is kept, and the context shows it as an unknown message, as it is.
    UnreadableMessage,
}

impl DiagnosticKind {
    /// How serious the problem is.
    pub fn severity(self) -> Severity {
        match self {
            DiagnosticKind::MalformedJson
            | DiagnosticKind::InvalidEntry
            | DiagnosticKind::TooDeep
            | DiagnosticKind::LineTooLong
            | DiagnosticKind::MissingHeader
            | DiagnosticKind::InvalidHeader
            | DiagnosticKind::TornLastLine
            | DiagnosticKind::ParentCycle => Severity::Error,
            DiagnosticKind::DuplicateId
            | DiagnosticKind::DanglingParent
            | DiagnosticKind::InvalidUtf8
            | DiagnosticKind::CompactionKeptMissing
            | DiagnosticKind::CompactionKeptOffPath
            | DiagnosticKind::MalformedPin
            | DiagnosticKind::MalformedPrune
            | DiagnosticKind::JoinedRecords
            | DiagnosticKind::UnreadableMessage => Severity::Warning,
            DiagnosticKind::Bom
            | DiagnosticKind::Crlf
            | DiagnosticKind::MissingFinalNewline
            | DiagnosticKind::BlankLine
            | DiagnosticKind::UnknownEntryType
            | DiagnosticKind::Migrated => Severity::Info,
        }
    }

    /// The kebab-case name used in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            DiagnosticKind::MalformedJson => "malformed-json",
            DiagnosticKind::InvalidEntry => "invalid-entry",
            DiagnosticKind::TooDeep => "too-deep",
            DiagnosticKind::LineTooLong => "line-too-long",
            DiagnosticKind::MissingHeader => "missing-header",
            DiagnosticKind::InvalidHeader => "invalid-header",
            DiagnosticKind::Bom => "bom",
            DiagnosticKind::Crlf => "crlf",
            DiagnosticKind::TornLastLine => "torn-last-line",
            DiagnosticKind::MissingFinalNewline => "missing-final-newline",
            DiagnosticKind::BlankLine => "blank-line",
            DiagnosticKind::DuplicateId => "duplicate-id",
            DiagnosticKind::DanglingParent => "dangling-parent",
            DiagnosticKind::ParentCycle => "parent-cycle",
            DiagnosticKind::UnknownEntryType => "unknown-entry-type",
            DiagnosticKind::Migrated => "migrated",
            DiagnosticKind::InvalidUtf8 => "invalid-utf8",
            DiagnosticKind::CompactionKeptMissing => "compaction-kept-missing",
            DiagnosticKind::CompactionKeptOffPath => "compaction-kept-off-path",
            DiagnosticKind::MalformedPin => "malformed-pin",
            DiagnosticKind::MalformedPrune => "malformed-prune",
            DiagnosticKind::JoinedRecords => "joined-records",
            DiagnosticKind::UnreadableMessage => "unreadable-message",
        }
    }
}

/// How serious a diagnostic is. `check` fails on warnings and errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; nothing is wrong (e.g. a migrated file).
    Info,
    /// Something was skipped or repaired on the fly; the session is still usable.
    Warning,
    /// Part of the session cannot be used as written.
    Error,
}

/// One problem, on one line (1-based; the header is line 1; 0 for the file as a whole).
///
/// Serialized as `{"line", "severity", "kind", "message"}`: the severity is written out so
/// that JSON readers need not know which kinds are errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The 1-based line the problem is on (0: the file as a whole).
    pub line: usize,
    /// What kind of problem it is.
    pub kind: DiagnosticKind,
    /// A sentence for the user.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic on `line`.
    pub fn new(line: usize, kind: DiagnosticKind, message: impl Into<String>) -> Self {
        Diagnostic { line, kind, message: message.into() }
    }

    /// How serious the problem is (decided by its kind).
    pub fn severity(&self) -> Severity {
        self.kind.severity()
    }
}

impl Serialize for Diagnostic {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Shape<'a> {
            line: usize,
            severity: Severity,
            kind: DiagnosticKind,
            message: &'a str,
        }
        Shape {
            line: self.line,
            severity: self.severity(),
            kind: self.kind,
            message: &self.message,
        }
        .serialize(serializer)
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let severity = match self.severity() {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(f, "line {}: {severity}[{}]: {}", self.line, self.kind.name(), self.message)
    }
}
