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

use std::sync::OnceLock;

use super::TokenEstimator;

#[rustfmt::skip]
mod o200k_tables;

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
pub fn is_cjk_letter(c: u32) -> bool {
    is_kana(c) || is_ideograph(c) || is_hangul(c)
}

/// Whether `c` is a Hangul syllable (U+AC00–U+D7A3).
pub fn is_hangul(c: u32) -> bool {
    (HANGUL_FIRST..=HANGUL_LAST).contains(&c)
}

fn is_kana(c: u32) -> bool {
    (0x3040..=0x30FF).contains(&c)
}

fn is_ideograph(c: u32) -> bool {
    (0x3400..=CJK_LAST).contains(&c)
}

/// Lead bytes of the characters [`scan`] decodes: U+2000–U+DFFF and U+10000–U+3FFFF.
#[inline(always)]
fn is_decoded_lead(byte: u8) -> bool {
    (byte.wrapping_sub(0xE2) < 12) | (byte == 0xF0)
}

/// The class of a byte, as context for the byte after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Previous {
    Lower,
    Upper,
    Digit,
    Space,
    Punctuation,
    /// A UTF-8 continuation byte, the end of a two-byte letter as far as the next byte is
    /// concerned (the characters [`scan`] decodes set [`Previous::Other`] instead).
    Continuation,
    Other,
}

/// Slots of the folded table: 7 previous classes × 256 bytes, rounded up to a power of two.
const TABLE_SLOTS: usize = 2048;

/// Every [`Previous`] class, in discriminant order.
const PREVIOUS_CLASSES: [Previous; 7] = [
    Previous::Lower,
    Previous::Upper,
    Previous::Digit,
    Previous::Space,
    Previous::Punctuation,
    Previous::Continuation,
    Previous::Other,
];

/// The row of the folded table for the byte after each byte: `previous_class(byte) * 256`.
const ROW_AFTER: [u16; 256] = {
    let mut rows = [0u16; 256];
    let mut byte = 0;
    while byte < 256 {
        rows[byte] = previous_class(byte as u8) as u16 * 256;
        byte += 1;
    }
    rows
};

/// The row after a character [`scan`] decodes.
const ROW_AFTER_DECODED: usize = Previous::Other as usize * 256;

const fn previous_class(byte: u8) -> Previous {
    match byte {
        b'a'..=b'z' => Previous::Lower,
        b'A'..=b'Z' => Previous::Upper,
        b'0'..=b'9' => Previous::Digit,
        b' ' => Previous::Space,
        b'\n' | b'\r' | b'\t' => Previous::Other,
        0..=0x7F => Previous::Punctuation,
        0x80..=0xBF => Previous::Continuation,
        0xC0..=0xFF => Previous::Other,
    }
}

/// The feature a byte adds after a byte of class `previous` (`None`: costs nothing here;
/// continuation bytes, and the lead bytes of the characters [`scan`] decodes).
fn feature_of(previous: Previous, byte: u8) -> Option<Feature> {
    let letter_before =
        matches!(previous, Previous::Lower | Previous::Upper | Previous::Continuation);
    Some(match byte {
        b'a'..=b'z' if letter_before => Feature::WordContinue,
        b'A'..=b'Z' if previous == Previous::Upper => Feature::WordContinue,
        b'A'..=b'Z' if previous == Previous::Lower => Feature::CamelSplit,
        b'a'..=b'z' | b'A'..=b'Z' => Feature::WordStart,
        b'0'..=b'9' if previous == Previous::Digit => Feature::DigitContinue,
        b'0'..=b'9' if previous == Previous::Space => Feature::DigitAfterSpace,
        b'0'..=b'9' => Feature::DigitStart,
        b' ' if previous == Previous::Space => Feature::SpaceRun,
        b' ' => Feature::Space,
        b'\t' => Feature::Tab,
        b'\n' | b'\r' => Feature::LineBreak,
        0..=0x7F if previous == Previous::Punctuation => Feature::PunctuationRun,
        0..=0x7F => Feature::Punctuation,
        0x80..=0xBF | 0xE2..=0xED | 0xF0 => return None,
        0xC2 => Feature::Latin1Symbol,
        0xC3 => Feature::LatinLetter,
        0xC4..=0xCD => Feature::LatinExtended,
        0xCE | 0xCF => Feature::Greek,
        0xD0..=0xD4 => Feature::Cyrillic,
        0xC0 | 0xC1 | 0xD5..=0xDF => Feature::OtherAlphabet,
        0xE0 | 0xE1 | 0xEE | 0xEF => Feature::OtherThreeByte,
        0xF1..=0xFF => Feature::FourByte,
    })
}

/// Counts every [`Feature`] in `text` (the input of the calibration fit).
pub fn features(text: &str) -> [u64; FEATURE_COUNT] {
    struct Counts([u64; FEATURE_COUNT]);
    impl Sink for Counts {
        fn byte(&mut self, row: usize, byte: u8) {
            let previous = PREVIOUS_CLASSES.get(row / 256).copied().unwrap_or(Previous::Other);
            if let Some(feature) = feature_of(previous, byte) {
                self.0[feature as usize] += 1;
            }
        }
        fn character(&mut self, feature: Feature, count: u64) {
            self.0[feature as usize] += count;
        }
    }
    let mut counts = Counts([0; FEATURE_COUNT]);
    scan(text.as_bytes(), &mut counts);
    counts.0
}

/// What [`scan`] reports to.
trait Sink {
    /// A byte that is not part of a decoded character; `row` is the class of the byte
    /// before it, times 256 (a row of the folded table).
    fn byte(&mut self, row: usize, byte: u8);
    /// `count` times `feature`, for one decoded character.
    fn character(&mut self, feature: Feature, count: u64);
}

/// Walks UTF-8 `bytes` once. Characters U+2000–U+DFFF and U+10000–U+3FFFF are decoded and
/// go to [`Sink::character`] with their feature; every other byte goes to [`Sink::byte`].
///
/// Text is taken in blocks of 32 bytes; a block without three- or four-byte characters (a
/// few word operations tell) is handed over byte by byte with no further test, so ASCII and
/// two-byte scripts pay one check per block.
///
/// CJK pairs are matched greedily from the left: a letter completes a pair when it and the
/// letter just before it form a token and that letter did not itself complete one. Whether
/// two letters form a token does not depend on earlier matches, so the lookups of successive
/// letters overlap and only a flag carries from one letter to the next.
fn scan(bytes: &[u8], sink: &mut impl Sink) {
    const BLOCK: usize = 32;
    let tables = cjk_tables();
    let mut row = ROW_AFTER_DECODED;
    // The kana or ideograph just before (0: none), and whether it completed a pair.
    let mut letter = 0u32;
    let mut letter_paired = false;
    // The symbol or emoji just before (0: none).
    let mut symbol = 0u32;
    let mut at = 0;
    while at < bytes.len() {
        let block =
            bytes.get(at..at + BLOCK).and_then(|block| <&[u8; BLOCK]>::try_from(block).ok());
        if let Some(block) = block.filter(|block| has_no_wide_lead(block)) {
            for &byte in block {
                sink.byte(row, byte);
                row = usize::from(ROW_AFTER[usize::from(byte)]);
            }
            letter = 0;
            symbol = 0;
            at += BLOCK;
            continue;
        }
        let end = bytes.len().min(at + BLOCK);
        // A character may end past the block; the next block starts after it.
        while at < end {
            let Some(&lead) = bytes.get(at) else { break };
            if !is_decoded_lead(lead) {
                sink.byte(row, lead);
                row = usize::from(ROW_AFTER[usize::from(lead)]);
                letter = 0;
                symbol = 0;
                at += 1;
                continue;
            }
            row = ROW_AFTER_DECODED;
            let start = at;
            let continuation =
                |offset: usize| u32::from(bytes.get(start + offset).unwrap_or(&0) & 0x3F);
            let (c, pieces) = if lead == 0xF0 {
                at += 4;
                // Lead byte F0 leaves the plane bits at 0: U+10000–U+3FFFF.
                let c = continuation(1) << 12 | continuation(2) << 6 | continuation(3);
                (c, packed_tokens(&EMOJI_TOKENS, EMOJI_FIRST, c))
            } else {
                at += 3;
                let c = u32::from(lead & 0x0F) << 12 | continuation(1) << 6 | continuation(2);
                let pieces =
                    if lead == 0xE2 { packed_tokens(&SYMBOL_TOKENS, SYMBOL_FIRST, c) } else { 0 };
                (c, pieces)
            };
            if lead == 0xF0 || lead == 0xE2 {
                match pieces {
                    0 => sink.character(Feature::FourByte, 1),
                    _ if c == symbol && is_doubled_symbol(c) => {
                        sink.character(Feature::SymbolRepeat, 1)
                    }
                    _ => sink.character(Feature::SymbolPiece, pieces),
                }
                letter = 0;
                symbol = c;
                continue;
            }
            symbol = 0;
            let class = tables.class_of(c);
            let paired = (letter != 0) & tables.is_pair(letter << 16 | c) & !letter_paired;
            // The pair feature of the letter's script (a table load, not a branch).
            let pair = PAIR_FEATURE[class as usize];
            sink.character(if paired { pair } else { class }, 1);
            letter = if class == Feature::OtherThreeByte { 0 } else { c };
            letter_paired = paired;
        }
    }
}

/// The feature of a letter of each class that completes a two-letter token: Hangul pairs
/// have their own weight, kana and ideograph pairs share [`Feature::CjkPair`].
const PAIR_FEATURE: [Feature; FEATURE_COUNT] = {
    let mut pair = [Feature::CjkPair; FEATURE_COUNT];
    pair[Feature::Hangul as usize] = Feature::HangulPair;
    pair[Feature::RareHangul as usize] = Feature::HangulPair;
    pair
};

/// Whether a block holds no lead byte of a three- or four-byte character (0xE0 and up, a
/// superset of the characters [`scan`] decodes): a few word operations per 8 bytes.
#[inline(always)]
fn has_no_wide_lead(block: &[u8; 32]) -> bool {
    let word = |offset: usize| {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(block.get(offset..offset + 8).unwrap_or(&[0; 8]));
        let word = u64::from_ne_bytes(bytes);
        // Bit 7 of each byte ends up set when its bits 7, 6 and 5 all are (the shifts move
        // each byte's bits 6 and 5 up to bit 7 of the same byte).
        word & word << 1 & word << 2
    };
    (word(0) | word(8) | word(16) | word(24)) & 0x8080_8080_8080_8080 == 0
}

/// Whether two `c` in a row are one o200k token ([`DOUBLED_SYMBOLS`]).
fn is_doubled_symbol(c: u32) -> bool {
    let index = c.wrapping_sub(SYMBOL_FIRST) as usize;
    DOUBLED_SYMBOLS.get(index / 64).is_some_and(|word| word >> (index % 64) & 1 == 1)
}

/// The 2-bit token count of `c` in a table packed as [`SYMBOL_TOKENS`] starting at `first`
/// (0 when `c` is outside the table).
fn packed_tokens(table: &[u64], first: u32, c: u32) -> u64 {
    let index = c.wrapping_sub(first) as usize;
    table.get(index / 32).map_or(0, |word| word >> (index % 32 * 2) & 3)
}

/// Lookup tables for kana, ideographs and Hangul, built once from [`SINGLE_TOKEN_LETTERS`],
/// [`SINGLE_TOKEN_HANGUL`] and [`PAIR_TOKENS`].
struct CjkTables {
    /// The feature of each character U+3000–U+DFFF when it completes no pair.
    class: Box<[Feature]>,
    /// [`PAIR_TOKENS`] hashed into buckets of one cache line each (0 marks an empty slot;
    /// no key is 0, both letters being at least U+3040).
    buckets: Box<[[u32; BUCKET_SLOTS]]>,
    /// Hash multiplier and shift chosen so that no bucket overflows.
    multiplier: u32,
    shift: u32,
}

const BUCKET_SLOTS: usize = 16;
const CLASS_FIRST: u32 = 0x3000;
const CLASS_LAST: u32 = 0xDFFF;

impl CjkTables {
    #[inline]
    fn class_of(&self, c: u32) -> Feature {
        let index = c.wrapping_sub(CLASS_FIRST) as usize;
        self.class.get(index).copied().unwrap_or(Feature::OtherThreeByte)
    }

    fn bucket(&self, key: u32) -> usize {
        (key.wrapping_mul(self.multiplier) >> self.shift) as usize
    }

    /// Whether `first << 16 | second` is a two-letter token: one cache line, compared
    /// without branches.
    #[inline]
    fn is_pair(&self, key: u32) -> bool {
        self.buckets
            .get(self.bucket(key))
            .is_some_and(|bucket| bucket.iter().fold(false, |hit, &slot| hit | (slot == key)))
    }

    fn build() -> Self {
        let class = (CLASS_FIRST..=CLASS_LAST)
            .map(|c| {
                if is_hangul(c) {
                    if is_single_token_hangul(c) { Feature::Hangul } else { Feature::RareHangul }
                } else if is_kana(c) {
                    Feature::Kana
                } else if !is_ideograph(c) {
                    Feature::OtherThreeByte
                } else if is_single_token(c) {
                    Feature::CommonIdeograph
                } else {
                    Feature::RareIdeograph
                }
            })
            .collect();
        // 512 buckets of 16 hold the ~2 700 pairs at a third of capacity. Try a few
        // multipliers per size until no bucket overflows, doubling the buckets as needed
        // (the first try succeeds for the committed tables; the tables are constants, so
        // this does the same on every run, and the tests run it).
        let mut multiplier = 0x9E37_79B1u32;
        for shift in (15..=23).rev() {
            for _ in 0..4 {
                let mut buckets = vec![[0u32; BUCKET_SLOTS]; 1 << (32 - shift)].into_boxed_slice();
                let fits = PAIR_TOKENS.iter().all(|&key| {
                    let bucket = (key.wrapping_mul(multiplier) >> shift) as usize;
                    let free =
                        buckets.get_mut(bucket).and_then(|b| b.iter_mut().find(|s| **s == 0));
                    free.map(|slot| *slot = key).is_some()
                });
                if fits {
                    return CjkTables { class, buckets, multiplier, shift };
                }
                multiplier = multiplier.wrapping_add(0x6A09_E668) | 1;
            }
        }
        // Unreachable in practice; without pairs the estimate is still sound, only coarser
        // (and the unit tests, which expect pairs, fail).
        CjkTables { class, buckets: Box::new([]), multiplier, shift: 31 }
    }
}

fn is_single_token(c: u32) -> bool {
    let bit = c.wrapping_sub(CJK_FIRST) as usize;
    SINGLE_TOKEN_LETTERS.get(bit / 64).is_some_and(|word| word >> (bit % 64) & 1 == 1)
}

fn is_single_token_hangul(c: u32) -> bool {
    let bit = c.wrapping_sub(HANGUL_FIRST) as usize;
    SINGLE_TOKEN_HANGUL.get(bit / 64).is_some_and(|word| word >> (bit % 64) & 1 == 1)
}

fn cjk_tables() -> &'static CjkTables {
    static TABLES: OnceLock<CjkTables> = OnceLock::new();
    TABLES.get_or_init(CjkTables::build)
}

/// Fixed-point scale of the folded table (weights in 1/65536 of a token).
const SCALE: f64 = 65536.0;

fn fixed_point(weight: f64) -> u32 {
    (weight.max(0.0) * SCALE).round() as u32
}

struct Table {
    /// Weight of each byte after each previous class (`class * 256 + byte`), in 1/65536
    /// token.
    bytes: [u32; TABLE_SLOTS],
    /// Weight of each feature, in 1/65536 token.
    features: [u32; FEATURE_COUNT],
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut bytes = [0u32; TABLE_SLOTS];
        for class in PREVIOUS_CLASSES {
            for byte in 0..=255u8 {
                let weight =
                    feature_of(class, byte).map(|feature| WEIGHTS[feature as usize]).unwrap_or(0.0);
                bytes[class as usize * 256 + byte as usize] = fixed_point(weight);
            }
        }
        Table { bytes, features: WEIGHTS.map(fixed_point) }
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
            "──── → für привет 21°C 𠮷野家 ⌘K",
            "한국어 문장입니다. 파일을 읽었어요\n    12\tfn main() {}",
        ] {
            let expected = dot(text).round().max(1.0) as u64;
            assert_eq!(HeuristicEstimator.text_tokens(text), expected, "{text}");
        }
    }

    proptest::proptest! {
        /// Whatever the mix of scripts and wherever the 32-byte blocks fall, the estimate is
        /// the feature model's (the fast path and the calibration count the same things).
        #[test]
        fn estimate_is_the_feature_model_on_mixed_text(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "word ", "camelCase", "  ", "\n", "1234", "{\"a\":1},", "上下", "文件",
                    "する", "饕", "。", "，", "─", "→", "🎉", "👍🏽", "𠮷", "für ", "привет",
                    "°", "é", "한국어",
                ]),
                0..80,
            )
        ) {
            let text: String = pieces.concat();
            let tokens = HeuristicEstimator.text_tokens(&text) as f64;
            let model = dot(&text);
            // Fixed-point weights are within 2^-17 of the real ones.
            let slack = 0.5 + text.len() as f64 / 65536.0;
            proptest::prop_assert!(
                text.is_empty() || (tokens - model.max(1.0)).abs() <= slack,
                "{text:?}: {tokens} vs {model}"
            );
        }
    }

    #[test]
    fn features_classify_bytes() {
        let counts = features("ab Cd  12\n日ア𠮷é");
        let get = |feature: Feature| counts[feature as usize];
        assert_eq!(get(Feature::WordStart), 2); // a, C
        assert_eq!(get(Feature::WordContinue), 2); // b, d
        assert_eq!(get(Feature::Space), 2);
        assert_eq!(get(Feature::SpaceRun), 1);
        assert_eq!(get(Feature::DigitAfterSpace), 1); // 1, after a space
        assert_eq!(get(Feature::DigitContinue), 1);
        assert_eq!(features("v1\t")[Feature::DigitStart as usize], 1);
        assert_eq!(features("v1\t")[Feature::Tab as usize], 1);
        assert_eq!(get(Feature::LineBreak), 1);
        assert_eq!(get(Feature::CommonIdeograph), 1);
        assert_eq!(get(Feature::Kana), 1);
        assert_eq!(get(Feature::FourByte), 1); // 𠮷, outside the emoji table
        assert_eq!(get(Feature::LatinLetter), 1); // é
        assert_eq!(get(Feature::CamelSplit), 0);
        assert_eq!(features("aB")[Feature::CamelSplit as usize], 1);
    }

    #[test]
    fn two_byte_letters_count_by_script_and_continue_words() {
        let count = |text: &str, feature: Feature| features(text)[feature as usize];
        // In "für", ü continues the word and r continues it after ü.
        assert_eq!(count("für", Feature::WordStart), 1);
        assert_eq!(count("für", Feature::LatinLetter), 1);
        assert_eq!(count("für", Feature::WordContinue), 1);
        // Each script by its lead byte.
        assert_eq!(count("привет", Feature::Cyrillic), 6);
        assert_eq!(count("łódź", Feature::LatinExtended), 2);
        assert_eq!(count("łódź", Feature::LatinLetter), 1);
        assert_eq!(count("λόγος", Feature::Greek), 5);
        assert_eq!(count("שלום", Feature::OtherAlphabet), 4);
        // Latin-1 symbols are not letters.
        assert_eq!(count("21°C", Feature::Latin1Symbol), 1);
        assert_eq!(count("21°C", Feature::WordStart), 1);
    }

    #[test]
    fn symbols_and_emoji_cost_their_o200k_pieces() {
        let count = |text: &str, feature: Feature| features(text)[feature as usize];
        let pieces = |c: u32| {
            if c >= EMOJI_FIRST {
                packed_tokens(&EMOJI_TOKENS, EMOJI_FIRST, c)
            } else {
                packed_tokens(&SYMBOL_TOKENS, SYMBOL_FIRST, c)
            }
        };
        assert!((1..=3).contains(&pieces(0x2192)));
        assert_eq!(count("→", Feature::SymbolPiece), pieces(0x2192));
        assert_eq!(count("🎉", Feature::SymbolPiece), pieces(0x1F389));
        assert_eq!(count("🎉", Feature::FourByte), 0);
        // ── is one token, so a run of ─ costs its pieces once and a repeat after that.
        assert!(is_doubled_symbol(0x2500));
        assert_eq!(count("────", Feature::SymbolPiece), pieces(0x2500));
        assert_eq!(count("────", Feature::SymbolRepeat), 3);
        // →→ is not one token: each arrow costs its pieces.
        assert!(!is_doubled_symbol(0x2192));
        assert_eq!(count("→→", Feature::SymbolPiece), 2 * pieces(0x2192));
        assert_eq!(count("→→", Feature::SymbolRepeat), 0);
        // A space between two symbols breaks the run.
        assert_eq!(count("─ ─", Feature::SymbolRepeat), 0);
    }

    #[test]
    fn cjk_letters_are_classed_by_the_o200k_vocabulary() {
        let count = |text: &str, feature: Feature| features(text)[feature as usize];
        // 上 and 下 are single tokens, and 上下 is one token: the second letter is a pair.
        assert_eq!(count("上", Feature::CommonIdeograph), 1);
        assert_eq!(count("上下", Feature::CommonIdeograph), 1);
        assert_eq!(count("上下", Feature::CjkPair), 1);
        // Pairs are matched greedily from the left and consume both letters: in 上下上下,
        // (上下) (上下) are two pairs, not three overlapping ones.
        assert_eq!(count("上下上下", Feature::CjkPair), 2);
        // Only adjacent letters pair: a space or punctuation between them breaks the pair.
        assert_eq!(count("上 下", Feature::CjkPair), 0);
        assert_eq!(count("上，下", Feature::CjkPair), 0);
        assert_eq!(count("上，下", Feature::OtherThreeByte), 1);
        // 饕 and 餮 are not tokens of their own (o200k splits them into bytes).
        assert_eq!(count("饕餮", Feature::RareIdeograph), 2);
        // Kana pair too (する is one token); CJK punctuation is not a letter.
        assert_eq!(count("する", Feature::Kana), 1);
        assert_eq!(count("する", Feature::CjkPair), 1);
        assert_eq!(count("。", Feature::OtherThreeByte), 1);
        assert_eq!(count("。", Feature::Kana), 0);
    }

    #[test]
    fn hangul_syllables_are_classed_by_the_o200k_vocabulary() {
        let count = |text: &str, feature: Feature| features(text)[feature as usize];
        let syllables = |text: &str| {
            count(text, Feature::Hangul)
                + count(text, Feature::RareHangul)
                + count(text, Feature::HangulPair)
        };
        // Every syllable is one of the three, never the generic three-byte class.
        assert_eq!(syllables("한국어 문장입니다"), 8);
        assert_eq!(count("한국어 문장입니다", Feature::OtherThreeByte), 0);
        // Each syllable by the table: single tokens and split ones.
        for c in ['다', '는', '을'] {
            let text = c.to_string();
            let expected = if is_single_token_hangul(u32::from(c)) {
                Feature::Hangul
            } else {
                Feature::RareHangul
            };
            assert_eq!(count(&text, expected), 1, "{c}");
        }
        // A two-syllable token: the second syllable completes a pair, matched greedily.
        let (first, second) = PAIR_TOKENS
            .iter()
            .map(|key| (key >> 16, key & 0xFFFF))
            .find(|&(first, second)| is_hangul(first) && is_hangul(second) && first != second)
            .unwrap();
        let pair: String = [first, second].iter().map(|&c| char::from_u32(c).unwrap()).collect();
        assert_eq!(count(&pair, Feature::HangulPair), 1, "{pair}");
        assert_eq!(count(&format!("{pair} {pair}"), Feature::HangulPair), 2);
        // Jamo (U+3131–U+318E) are not syllables.
        assert_eq!(syllables("ㅋㅋ"), 0);
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
