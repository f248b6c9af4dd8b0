//! Integration tests of `compaction-core`, built as one test binary (see `suite/`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
