//! Session store, summarizers, orchestration and agent harness for context compaction.
//!
//! This crate does the I/O around `compaction-core`: it reads settings and sessions from
//! disk and talks to models. Decisions stay in the core; this crate gathers their inputs.

pub mod settings;
