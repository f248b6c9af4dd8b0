//! The heuristic estimator's lookup tables are exactly what the o200k vocabulary gives.
#![cfg(feature = "exact-tokenizers")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../benches/o200k_tables.rs"]
mod o200k_tables;

use compaction_core::tokens::heuristic::{
    DOUBLED_SYMBOLS, EMOJI_TOKENS, PAIR_TOKENS, SINGLE_TOKEN_LETTERS, SYMBOL_TOKENS,
};

#[test]
fn committed_tables_match_the_o200k_vocabulary() {
    let derived = o200k_tables::derive();
    assert_eq!(derived.single, SINGLE_TOKEN_LETTERS, "single-token letters differ; regenerate");
    assert_eq!(derived.pairs, PAIR_TOKENS, "pair tokens differ; regenerate");
    assert_eq!(derived.symbols, SYMBOL_TOKENS, "symbol costs differ; regenerate");
    assert_eq!(derived.emoji, EMOJI_TOKENS, "emoji costs differ; regenerate");
    assert_eq!(derived.doubled, DOUBLED_SYMBOLS, "doubled symbols differ; regenerate");
    // The file is exactly what the generator writes (nobody edited it by hand).
    let committed = include_str!("../src/tokens/heuristic/o200k_tables.rs");
    assert_eq!(committed, o200k_tables::render(&derived));
}

#[test]
fn tables_are_plausible() {
    // About 2 600 kana and ideographs are single tokens and about 2 700 pairs are tokens;
    // a vocabulary or derivation change that empties a table would make the estimator
    // silently worse while the tables still matched the derivation.
    let single: u32 = SINGLE_TOKEN_LETTERS.iter().map(|word| word.count_ones()).sum();
    assert!((2000..4000).contains(&single), "{single}");
    assert!((2000..4000).contains(&PAIR_TOKENS.len()), "{}", PAIR_TOKENS.len());
    // Every symbol and emoji costs 1 to 3 tokens: no 2-bit field is 0.
    for (name, table, count) in
        [("symbols", &SYMBOL_TOKENS[..], 0xC00), ("emoji", &EMOJI_TOKENS[..], 0xB00)]
    {
        for index in 0..count {
            let tokens = table[index / 32] >> (index % 32 * 2) & 3;
            assert!(tokens >= 1, "{name} {index:#x}");
        }
    }
}
