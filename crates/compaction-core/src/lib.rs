//! Pure, synchronous core of context compaction for pi-format agent sessions.
//!
//! This crate reads pi's session JSONL format losslessly, indexes the session tree,
//! rebuilds the context a model sees, estimates tokens, decides when and where to cut,
//! and prepares everything a summarizer needs. It does no I/O: callers hand it bytes and
//! get plain data back, which keeps every decision testable and every dry run exact.
//!
//! ```
//! let text = concat!(
//!     r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/"}"#, "\n",
//!     r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"hi"}}"#, "\n",
//! );
//! let session = compaction_core::parse_session(text.as_bytes());
//! assert!(session.diagnostics().is_empty());
//! let context = compaction_core::context::build_context(&session, session.leaf());
//! assert_eq!(context.items.len(), 1);
//! ```

#![warn(missing_docs)]

pub mod branch;
pub mod budget;
pub mod context;
pub mod cut;
pub mod diagnostic;
pub mod entry;
pub mod export;
pub mod files;
pub mod grade;
pub mod import;
pub mod integrity;
pub mod ledger;
pub mod message;
pub mod migrate;
pub mod models;
pub mod must_keep;
pub mod offline;
pub mod parse;
pub mod pins;
pub mod plan;
pub mod plural;
pub mod prepare;
pub mod prompts;
pub mod prune;
pub mod quality;
pub mod recall;
pub mod redact;
pub mod restore;
pub mod serialize;
pub mod session;
pub mod settings;
pub mod tokens;
pub mod trigger;
pub mod usage_totals;
pub mod user_messages;

pub use diagnostic::{Diagnostic, DiagnosticKind, Severity};
pub use entry::{Entry, EntryKind, Header};
pub use message::AgentMessage;
pub use parse::{ParseOptions, SessionParser, parse_session, parse_session_with};
pub use session::Session;
pub use settings::CompactionSettings;
pub use tokens::{ContextTokens, TokenEstimator, context_tokens, estimator_by_name};
pub use trigger::{TriggerDecision, TriggerReason, should_compact};
