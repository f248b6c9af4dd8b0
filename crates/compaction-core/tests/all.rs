//! Integration tests of `compaction-core`, built as one test binary (see `suite/`).
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Test helpers outside `#[test]` functions may panic on bad fixtures.

mod suite;
