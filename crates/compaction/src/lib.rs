//! Session store, summarizers and orchestration for context compaction.
//!
//! The pure decisions live in `compaction-core`; this crate does the I/O around them: a
//! session store that never loses an entry, LLM providers and the offline summarizer, and
//! the one orchestration path every compaction and branch summary goes through.

#![warn(missing_docs)]

/// The pure core this crate builds on, re-exported so one dependency on `compaction` is
/// enough: `compaction::compaction_core::parse_session`, `…::settings::CompactionSettings`.
pub use compaction_core;

pub mod compact;
pub mod compactor;
pub mod disk;
pub mod error;
pub mod extension;
pub mod harness;
pub mod navigate;
pub mod offline;
pub mod pins;
pub mod provider;
pub mod prune;
pub mod reason;
pub mod restore;
pub mod settings;
pub mod setup;
pub mod store;
pub mod stores;
pub mod summarizer;
pub mod trust;

/// The README's Rust snippets, compiled as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
