//! The `heuristic` estimator: a script-aware byte model fitted to the o200k tokenizer.
//!
//! Each byte of UTF-8 text costs a fixed fraction of a token that depends on what kind of
//! byte it is and what kind of byte precedes it ([`Feature`]): a letter starting a word
//! costs more than one continuing it, an upper-case letter after a lower-case one marks a
//! camelCase split, runs of spaces (indentation) are cheaper than the first space, digits
//! are grouped (a number after a space costs more: o200k keeps that space a token of its
//! own, as in the line numbers of `cat -n` and grep output), a tab often merges with the
//! word after it, punctuation after punctuation (`"},{"`) often merges. Two-byte characters
//! are costed by their lead byte, which tells Latin-1 symbols (`°`, `±`) from letters and
//! the letters' script: Western European (`é`), Central European and Turkish (`ł`, `ş`:
//! o200k splits these languages into shorter pieces), Greek, Cyrillic, other alphabets; an
//! ASCII letter after a two-byte letter continues its word. Other three- and four-byte
//! characters cost a fixed amount each.
//!
//! **Characters looked up in the vocabulary.** For some characters what decides the count
//! is which tokens o200k has, which no byte class can tell; these characters are decoded and
//! looked up in tables derived from the o200k vocabulary (`heuristic/o200k_tables.rs`,
//! regenerated with
//! `cargo run --release -p compaction-core --example token_calibration -- --tables` and
//! checked against the vocabulary by `tests/o200k_tables.rs`):
//! - Kana and ideographs (U+3040–U+30FF, U+3400–U+9FFF): about 2 600 are single tokens (a
//!   rarer ideograph takes two or three byte tokens) and about 2 700 two-letter words are
//!   single tokens (`上下`, `文件`, `する`). Each letter is looked up: is it a single token,
//!   and does it form a two-letter token with the letter just before it (matched greedily
//!   from the left, as a pair consumes both letters).
//! - Hangul syllables (U+AC00–U+D7A3), the same way with their own weights: about 680 are
//!   single tokens and about 390 two-syllable words are (`파일`, `세션`); a generic
//!   three-byte cost overestimated Korean by about half.
//! - Symbols (U+2000–U+2BFF: dashes, quotes, arrows, math, box drawing, dingbats) and emoji
//!   (U+1F000–U+1FAFF) cost the number of tokens o200k gives each alone (one to three), and
//!   a symbol repeated in a run (`────`) costs little when o200k has a token for two of it.
//!
//! Text without three- or four-byte characters is recognised 32 bytes at a time and never
//! pays for the lookups.
//!
//! **Calibration.** The weights ([`WEIGHTS`]) are the weighted least-squares fit, minimising
//! the squared *relative* error per message, of the feature counts of every message of the
//! corpus in `crates/compaction-core/benches/corpus/` against its exact o200k count. The
//! fit is reproduced with
//! `cargo run --release -p compaction-core --example token_calibration -- --fit`, which
//! prints the weights to paste here; without `--fit` the example prints the error of the
//! current weights by language/kind, in-sample and held out (see BENCHMARKS.md).
//!
//! **Speed.** The byte weights are folded into a table indexed by (class of the previous
//! byte, byte), so counting ASCII is one table lookup and one add per byte with no branch;
//! a decoded kana or ideograph costs one class lookup and one hash probe, a symbol or emoji
//! one table lookup. BENCHMARKS.md has the throughput by language/kind.
//!
//! Invariant: [`HeuristicEstimator::text_tokens`] equals the rounded dot product of
//! [`features`] and [`WEIGHTS`] (up to fixed-point rounding), and is at least 1 for
//! non-empty text.
//!
//! Stages, one module each: `scan` (the byte scan and the lookups it makes) and the
//! vocabulary tables; the features, weights and the estimator are here.

use super::TokenEstimator;

#[rustfmt::skip]
mod o200k_tables;
mod scan;
#[cfg(test)]
mod tests;

pub use o200k_tables::{
    DOUBLED_SYMBOLS, EMOJI_TOKENS, PAIR_TOKENS, SINGLE_TOKEN_HANGUL, SINGLE_TOKEN_LETTERS,
    SYMBOL_TOKENS,
};

/// One kind of byte or character, in the context of what precedes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Feature {
    /// An ASCII letter that starts a word (previous byte not a letter).
    WordStart,
    /// A lower-case ASCII letter after a letter (ASCII or two-byte), or an upper-case one
    /// after upper-case.
    WordContinue,
    /// An upper-case ASCII letter after a lower-case one (a camelCase split).
    CamelSplit,
    /// A digit after a non-digit other than a space.
    DigitStart,
    /// A digit after a space: o200k never joins a space to the number after it, so the
    /// space is a token of its own (`     12\t` in `cat -n` output, `line 12`).
    DigitAfterSpace,
    /// A digit after a digit.
    DigitContinue,
    /// A space after a non-space.
    Space,
    /// A space after a space (indentation, alignment).
    SpaceRun,
    /// A line feed or carriage return.
    LineBreak,
    /// A tab.
    Tab,
    /// ASCII punctuation (or a control byte) after a non-punctuation byte.
    Punctuation,
    /// ASCII punctuation after punctuation.
    PunctuationRun,
    /// The lead byte of a Latin-1 symbol U+0080–U+00BF (`°`, `±`, `²`, `«`, `©`).
    Latin1Symbol,
    /// The lead byte of a Latin-1 letter U+00C0–U+00FF (`é`, `ü`, `ñ`: Western Europe).
    LatinLetter,
    /// The lead byte of a Latin Extended or IPA letter U+0100–U+036F (`ł`, `č`, `ş`: Central
    /// Europe, Turkish), languages o200k splits into shorter pieces.
    LatinExtended,
    /// The lead byte of a Greek letter U+0370–U+03FF.
    Greek,
    /// The lead byte of a Cyrillic letter U+0400–U+052F.
    Cyrillic,
    /// The lead byte of another two-byte letter U+0530–U+07FF (Armenian, Hebrew, Arabic…).
    OtherAlphabet,
    /// A kana (U+3040–U+30FF) that does not complete a two-letter token.
    Kana,
    /// An ideograph that is one o200k token and does not complete a two-letter token.
    CommonIdeograph,
    /// An ideograph that o200k splits into byte tokens.
    RareIdeograph,
    /// A kana or ideograph that forms a two-letter o200k token with the letter before it.
    CjkPair,
    /// A Hangul syllable (U+AC00–U+D7A3) that is one o200k token and does not complete a
    /// two-syllable token.
    Hangul,
    /// A Hangul syllable that o200k splits into byte tokens.
    RareHangul,
    /// A Hangul syllable that forms a two-syllable o200k token with the one before it.
    HangulPair,
    /// One of the o200k tokens a symbol (U+2000–U+2BFF: dashes, quotes, arrows, box
    /// drawing, dingbats) or an emoji (U+1F000–U+1FAFF) takes on its own.
    SymbolPiece,
    /// A symbol repeating the one just before it when o200k has a token for the two
    /// (`──`, `……`, `██`), instead of its [`Feature::SymbolPiece`]s: o200k merges such runs,
    /// often eight or more to a token.
    SymbolRepeat,
    /// The lead byte of another three-byte character (CJK and full-width punctuation,
    /// variation selectors, Hangul jamo).
    OtherThreeByte,
    /// The lead byte of another four-byte character (rare ideographs, math letters).
    FourByte,
}

/// How many [`Feature`]s there are.
pub const FEATURE_COUNT: usize = 29;

/// Every feature, in index order.
pub const FEATURES: [Feature; FEATURE_COUNT] = [
    Feature::WordStart,
    Feature::WordContinue,
    Feature::CamelSplit,
    Feature::DigitStart,
    Feature::DigitAfterSpace,
    Feature::DigitContinue,
    Feature::Space,
    Feature::SpaceRun,
    Feature::LineBreak,
    Feature::Tab,
    Feature::Punctuation,
    Feature::PunctuationRun,
    Feature::Latin1Symbol,
    Feature::LatinLetter,
    Feature::LatinExtended,
    Feature::Greek,
    Feature::Cyrillic,
    Feature::OtherAlphabet,
    Feature::Kana,
    Feature::CommonIdeograph,
    Feature::RareIdeograph,
    Feature::CjkPair,
    Feature::Hangul,
    Feature::RareHangul,
    Feature::HangulPair,
    Feature::SymbolPiece,
    Feature::SymbolRepeat,
    Feature::OtherThreeByte,
    Feature::FourByte,
];

/// Tokens per occurrence of each feature, fitted against o200k (see the module docs).
pub const WEIGHTS: [f64; FEATURE_COUNT] = [
    0.3832, // WordStart
    0.1228, // WordContinue
    0.3647, // CamelSplit
    0.9381, // DigitStart
    2.7048, // DigitAfterSpace
    0.2726, // DigitContinue
    0.2601, // Space
    0.0211, // SpaceRun
    0.8378, // LineBreak
    0.0364, // Tab
    0.6364, // Punctuation
    0.2152, // PunctuationRun
    0.1286, // Latin1Symbol
    0.7197, // LatinLetter
    1.6169, // LatinExtended
    0.3500, // Greek
    0.2472, // Cyrillic
    0.3295, // OtherAlphabet
    0.9312, // Kana
    0.9541, // CommonIdeograph
    1.8524, // RareIdeograph
    0.0000, // CjkPair
    0.6236, // Hangul
    2.7036, // RareHangul
    0.5795, // HangulPair
    0.9783, // SymbolPiece
    0.1633, // SymbolRepeat
    1.0797, // OtherThreeByte
    3.6823, // FourByte
];

/// The first and last Hangul syllables, looked up in [`SINGLE_TOKEN_HANGUL`] and
/// [`PAIR_TOKENS`].
pub const HANGUL_FIRST: u32 = 0xAC00;
/// See [`HANGUL_FIRST`].
pub const HANGUL_LAST: u32 = 0xD7A3;

/// The first code point of the CJK letters the tables cover (hiragana).
pub const CJK_FIRST: u32 = 0x3040;
/// The last code point of the CJK letters the tables cover (end of the unified ideographs).
pub const CJK_LAST: u32 = 0x9FFF;

/// The first and last code points of the symbols costed by [`SYMBOL_TOKENS`].
pub const SYMBOL_FIRST: u32 = 0x2000;
/// See [`SYMBOL_FIRST`].
pub const SYMBOL_LAST: u32 = 0x2BFF;
/// The first and last code points of the emoji costed by [`EMOJI_TOKENS`].
pub const EMOJI_FIRST: u32 = 0x1F000;
/// See [`EMOJI_FIRST`].
pub const EMOJI_LAST: u32 = 0x1FAFF;

/// Whether `c` is a kana (U+3040–U+30FF), a BMP ideograph (U+3400–U+9FFF) or a Hangul
/// syllable (U+AC00–U+D7A3): the letters the estimator looks up in [`SINGLE_TOKEN_LETTERS`],
/// [`SINGLE_TOKEN_HANGUL`] and [`PAIR_TOKENS`].
#[inline]
pub fn is_cjk_letter(c: u32) -> bool {
    is_kana(c) || is_ideograph(c) || is_hangul(c)
}

/// Whether `c` is a Hangul syllable (U+AC00–U+D7A3).
#[inline]
pub fn is_hangul(c: u32) -> bool {
    (HANGUL_FIRST..=HANGUL_LAST).contains(&c)
}

#[inline]
pub(super) fn is_kana(c: u32) -> bool {
    (0x3040..=0x30FF).contains(&c)
}

#[inline]
pub(super) fn is_ideograph(c: u32) -> bool {
    (0x3400..=CJK_LAST).contains(&c)
}

pub use scan::features;
use scan::{SCALE, Sink, TABLE_SLOTS, Table, scan, table};

/// The default estimator (see the module documentation).
#[derive(Debug, Clone, Copy, Default)]
pub struct HeuristicEstimator;

impl TokenEstimator for HeuristicEstimator {
    fn name(&self) -> &'static str {
        "heuristic"
    }

    fn text_tokens(&self, text: &str) -> u64 {
        struct Sum {
            table: &'static Table,
            sum: u64,
        }
        impl Sink for Sum {
            #[inline(always)]
            fn byte(&mut self, row: usize, byte: u8) {
                // The mask keeps the index provably in bounds (the table has 2048 slots).
                let slot = (row + usize::from(byte)) & (TABLE_SLOTS - 1);
                self.sum += u64::from(self.table.bytes[slot]);
            }
            #[inline(always)]
            fn character(&mut self, feature: Feature, count: u64) {
                self.sum += u64::from(self.table.features[feature as usize]) * count;
            }
        }
        if text.is_empty() {
            return 0;
        }
        let mut sum = Sum { table: table(), sum: 0 };
        scan(text.as_bytes(), &mut sum);
        ((sum.sum as f64 / SCALE).round() as u64).max(1)
    }
}
