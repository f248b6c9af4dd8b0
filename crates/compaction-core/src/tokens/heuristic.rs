//! The `heuristic` estimator: a script-aware byte model fitted to the o200k tokenizer.
//!
//! Each byte of UTF-8 text costs a fixed fraction of a token that depends on what kind of
//! byte it is and what kind of byte precedes it ([`Feature`]): a letter starting a word
//! costs more than one continuing it, an upper-case letter after a lower-case one marks a
//! camelCase split, runs of spaces (indentation) are cheaper than the first space, digits
//! are grouped, punctuation after punctuation (`"},{"`) often merges. Non-ASCII text is
//! costed by the lead byte of each character, which tells the script apart: two-byte
//! characters (accented Latin, Greek, Cyrillic, Arabic, Hebrew), kana and CJK punctuation
//! (U+3000–U+3FFF), CJK ideographs (U+4000–U+9FFF), other three-byte characters (symbols,
//! Hangul, full-width forms) and four-byte characters (emoji and rare ideographs).
//!
//! **Calibration.** The weights ([`WEIGHTS`]) are the weighted least-squares fit, minimising
//! the squared *relative* error per message, of the feature counts of every message of the
//! corpus in `crates/compaction-core/benches/corpus/` against its exact o200k count. The
//! fit is reproduced with
//! `cargo run --release -p compaction-core --example token_calibration -- --fit`, which
//! prints the weights to paste here; without `--fit` the example prints the error of the
//! current weights by language/kind (see BENCHMARKS.md).
//!
//! **Speed.** The weights are folded into a table indexed by (class of the previous byte,
//! byte), so counting is one table lookup and one add per byte with no branch.
//!
//! Invariant: [`HeuristicEstimator::text_tokens`] equals the rounded dot product of
//! [`features`] and [`WEIGHTS`] (up to fixed-point rounding), and is at least 1 for
//! non-empty text.

use std::sync::OnceLock;

use super::TokenEstimator;

/// One kind of byte, in the context of the byte before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum Feature {
    /// An ASCII letter that starts a word (previous byte not a letter).
    WordStart,
    /// A lower-case ASCII letter after a letter, or an upper-case one after upper-case.
    WordContinue,
    /// An upper-case ASCII letter after a lower-case one (a camelCase split).
    CamelSplit,
    /// A digit after a non-digit.
    DigitStart,
    /// A digit after a digit.
    DigitContinue,
    /// A space after a non-space.
    Space,
    /// A space after a space (indentation, alignment).
    SpaceRun,
    /// A line feed, carriage return or tab.
    LineBreak,
    /// ASCII punctuation (or a control byte) after a non-punctuation byte.
    Punctuation,
    /// ASCII punctuation after punctuation.
    PunctuationRun,
    /// The lead byte of a two-byte character (accented Latin, Greek, Cyrillic, Arabic…).
    TwoByte,
    /// The lead byte of U+3000–U+3FFF (kana, CJK punctuation).
    Kana,
    /// The lead byte of U+4000–U+9FFF (CJK ideographs).
    Ideograph,
    /// The lead byte of another three-byte character (symbols, Hangul, full-width forms).
    OtherThreeByte,
    /// The lead byte of a four-byte character (emoji, rare ideographs).
    FourByte,
}

/// How many [`Feature`]s there are.
pub const FEATURE_COUNT: usize = 15;

/// Every feature, in index order.
pub const FEATURES: [Feature; FEATURE_COUNT] = [
    Feature::WordStart,
    Feature::WordContinue,
    Feature::CamelSplit,
    Feature::DigitStart,
    Feature::DigitContinue,
    Feature::Space,
    Feature::SpaceRun,
    Feature::LineBreak,
    Feature::Punctuation,
    Feature::PunctuationRun,
    Feature::TwoByte,
    Feature::Kana,
    Feature::Ideograph,
    Feature::OtherThreeByte,
    Feature::FourByte,
];

/// Tokens per occurrence of each feature, fitted against o200k (see the module docs).
pub const WEIGHTS: [f64; FEATURE_COUNT] = [
    0.6268, // WordStart
    0.0393, // WordContinue
    0.7779, // CamelSplit
    2.0358, // DigitStart
    0.1940, // DigitContinue
    0.2842, // Space
    0.0018, // SpaceRun
    0.9548, // LineBreak
    0.6675, // Punctuation
    0.2333, // PunctuationRun
    0.3399, // TwoByte
    0.7642, // Kana
    0.6929, // Ideograph
    1.3242, // OtherThreeByte
    1.8840, // FourByte
];

/// The class of a byte, as context for the byte after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Previous {
    Lower,
    Upper,
    Digit,
    Space,
    Punctuation,
    Other,
}

/// Slots of the folded table: 6 previous classes × 256 bytes, rounded up to a power of two.
const TABLE_SLOTS: usize = 2048;

fn previous_class(byte: u8) -> Previous {
    match byte {
        b'a'..=b'z' => Previous::Lower,
        b'A'..=b'Z' => Previous::Upper,
        b'0'..=b'9' => Previous::Digit,
        b' ' => Previous::Space,
        b'\n' | b'\r' | b'\t' => Previous::Other,
        0..=0x7F => Previous::Punctuation,
        0x80..=0xFF => Previous::Other,
    }
}

/// The feature a byte adds after a byte of class `previous` (`None`: costs nothing).
fn feature_of(previous: Previous, byte: u8) -> Option<Feature> {
    let letter_before = matches!(previous, Previous::Lower | Previous::Upper);
    Some(match byte {
        b'a'..=b'z' if letter_before => Feature::WordContinue,
        b'A'..=b'Z' if previous == Previous::Upper => Feature::WordContinue,
        b'A'..=b'Z' if previous == Previous::Lower => Feature::CamelSplit,
        b'a'..=b'z' | b'A'..=b'Z' => Feature::WordStart,
        b'0'..=b'9' if previous == Previous::Digit => Feature::DigitContinue,
        b'0'..=b'9' => Feature::DigitStart,
        b' ' if previous == Previous::Space => Feature::SpaceRun,
        b' ' => Feature::Space,
        b'\n' | b'\r' | b'\t' => Feature::LineBreak,
        0..=0x7F if previous == Previous::Punctuation => Feature::PunctuationRun,
        0..=0x7F => Feature::Punctuation,
        0x80..=0xBF => return None,
        0xC0..=0xDF => Feature::TwoByte,
        0xE3 => Feature::Kana,
        0xE4..=0xE9 => Feature::Ideograph,
        0xE0..=0xE2 | 0xEA..=0xEF => Feature::OtherThreeByte,
        0xF0..=0xFF => Feature::FourByte,
    })
}

/// Counts every [`Feature`] in `text` (the input of the calibration fit).
pub fn features(text: &str) -> [u64; FEATURE_COUNT] {
    let mut counts = [0u64; FEATURE_COUNT];
    let mut previous = Previous::Other;
    for &byte in text.as_bytes() {
        if let Some(feature) = feature_of(previous, byte) {
            counts[feature as usize] += 1;
        }
        previous = previous_class(byte);
    }
    counts
}

/// Fixed-point scale of the folded table (weights in 1/65536 of a token).
const SCALE: f64 = 65536.0;

struct Table {
    /// `previous_class(byte) as usize * 256`, so the weight index is one add away.
    row_of: [u16; 256],
    /// Weight of each byte after each previous class, in 1/65536 token.
    weights: [u32; TABLE_SLOTS],
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut row_of = [0u16; 256];
        let mut weights = [0u32; TABLE_SLOTS];
        for byte in 0..=255u8 {
            row_of[byte as usize] = (previous_class(byte) as u16) * 256;
        }
        let previous = [
            Previous::Lower,
            Previous::Upper,
            Previous::Digit,
            Previous::Space,
            Previous::Punctuation,
            Previous::Other,
        ];
        for class in previous {
            for byte in 0..=255u8 {
                let weight =
                    feature_of(class, byte).map(|feature| WEIGHTS[feature as usize]).unwrap_or(0.0);
                weights[class as usize * 256 + byte as usize] =
                    (weight.max(0.0) * SCALE).round() as u32;
            }
        }
        Table { row_of, weights }
    })
}

/// The default estimator (see the module documentation).
#[derive(Debug, Clone, Copy, Default)]
pub struct HeuristicEstimator;

impl TokenEstimator for HeuristicEstimator {
    fn name(&self) -> &'static str {
        "heuristic"
    }

    fn text_tokens(&self, text: &str) -> u64 {
        let bytes = text.as_bytes();
        if bytes.is_empty() {
            return 0;
        }
        let table = table();
        let mut sum = 0u64;
        let mut row = usize::from(table.row_of[usize::from(b'\n')]);
        for &byte in bytes {
            // The mask keeps the index provably in bounds (the table has 2048 slots).
            sum += u64::from(table.weights[(row + usize::from(byte)) & (TABLE_SLOTS - 1)]);
            row = usize::from(table.row_of[usize::from(byte)]);
        }
        ((sum as f64 / SCALE).round() as u64).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dot(text: &str) -> f64 {
        features(text).iter().zip(WEIGHTS).map(|(&count, weight)| count as f64 * weight).sum()
    }

    #[test]
    fn table_agrees_with_the_feature_model() {
        for text in [
            "Hello world, this is a test.",
            "fn main() {\n    let x = 42;\n}",
            r#"{"key": [1, 2, 3], "nested": {"a": "b"}}"#,
            "上下文压缩的目标很简单",
            "コンテキスト圧縮",
            "😀🎉 ok 👨‍👩‍👧‍👦",
            "camelCaseIdentifier HTTPServer",
        ] {
            let expected = dot(text).round().max(1.0) as u64;
            assert_eq!(HeuristicEstimator.text_tokens(text), expected, "{text}");
        }
    }

    #[test]
    fn features_classify_bytes() {
        let counts = features("ab Cd  12\n日ア😀é");
        let get = |feature: Feature| counts[feature as usize];
        assert_eq!(get(Feature::WordStart), 2); // a, C
        assert_eq!(get(Feature::WordContinue), 2); // b, d
        assert_eq!(get(Feature::Space), 2);
        assert_eq!(get(Feature::SpaceRun), 1);
        assert_eq!(get(Feature::DigitStart), 1);
        assert_eq!(get(Feature::DigitContinue), 1);
        assert_eq!(get(Feature::LineBreak), 1);
        assert_eq!(get(Feature::Ideograph), 1);
        assert_eq!(get(Feature::Kana), 1);
        assert_eq!(get(Feature::FourByte), 1);
        assert_eq!(get(Feature::TwoByte), 1);
        assert_eq!(get(Feature::CamelSplit), 0);
        assert_eq!(features("aB")[Feature::CamelSplit as usize], 1);
    }

    #[test]
    fn cjk_costs_more_per_char_than_latin() {
        let estimator = HeuristicEstimator;
        assert_eq!(estimator.text_tokens(""), 0);
        assert_eq!(estimator.text_tokens(" "), 1);
        // 40 ideographs cost far more than 40 Latin letters in words.
        let cjk = "上下文压缩的目标很简单".repeat(4);
        let latin = "word ".repeat(8);
        assert!(estimator.text_tokens(&cjk) > 2 * estimator.text_tokens(&latin));
    }
}
