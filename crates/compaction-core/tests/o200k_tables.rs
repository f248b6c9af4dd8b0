//! The heuristic estimator's lookup tables are exactly what the o200k vocabulary gives.
#![cfg(feature = "exact-tokenizers")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../benches/o200k_tables.rs"]
mod o200k_tables;

use compaction_core::tokens::heuristic::{
    DOUBLED_SYMBOLS, EMOJI_TOKENS, PAIR_TOKENS, SINGLE_TOKEN_HANGUL, SINGLE_TOKEN_LETTERS,
    SYMBOL_TOKENS,
};

#[test]
fn committed_tables_match_the_o200k_vocabulary() {
    let derived = o200k_tables::derive();
    assert_eq!(derived.single, SINGLE_TOKEN_LETTERS, "single-token letters differ; regenerate");
    assert_eq!(derived.hangul, SINGLE_TOKEN_HANGUL, "single-token Hangul differs; regenerate");
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
    // About 680 Hangul syllables are single tokens (and about 390 of the pairs are Hangul).
    let hangul: u32 = SINGLE_TOKEN_HANGUL.iter().map(|word| word.count_ones()).sum();
    assert!((400..2000).contains(&hangul), "{hangul}");
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

#[path = "../benches/corpus.rs"]
mod corpus;

/// The nearest-rank 95th percentile of |error|.
fn p95_abs(mut errors: Vec<f64>) -> f64 {
    errors.iter_mut().for_each(|error| *error = error.abs());
    errors.sort_by(f64::total_cmp);
    let rank = ((0.95 * errors.len() as f64).ceil() as usize).clamp(1, errors.len());
    errors[rank - 1]
}

/// The heuristic's per-message error against o200k stays within 15% (p95) on every kind of
/// the corpus the estimator is held to: prose, code, JSON, CJK, emoji, Korean (o200k has
/// tokens for common Hangul syllables and syllable pairs, which the estimator looks up) and
/// source code with line numbers as `cat -n` and pi's grep tool show it.
#[test]
fn heuristic_stays_within_15_percent_of_o200k_per_kind() {
    use compaction_core::tokens::estimator_by_name;
    let heuristic = estimator_by_name("heuristic").unwrap();
    let exact = estimator_by_name("o200k").unwrap();
    let held_to = [
        "english",
        "rust",
        "typescript",
        "python",
        "json",
        "rust-lines",
        "ts-lines",
        "py-lines",
        "chinese",
        "japanese",
        "korean",
        "emoji",
    ];
    let messages = corpus::messages();
    for kind in held_to {
        let errors: Vec<f64> = messages
            .iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, text)| {
                let truth = exact.text_tokens(text) as f64;
                (heuristic.text_tokens(text) as f64 - truth) / truth
            })
            .collect();
        assert!(errors.len() >= 8, "{kind}: {} messages", errors.len());
        let p95 = p95_abs(errors);
        assert!(p95 <= 0.15, "{kind}: p95 |error| {:.1}%", p95 * 100.0);
    }
}
