//! Integration tests of `compaction-core`, built as one test binary (see `suite/`).

mod suite;
