//! The byte scan: every byte costed through a table folded from the weights (indexed by the
//! class of the byte before it), 32 ASCII bytes at a time when no wide character is near;
//! kana, ideographs, Hangul, symbols and emoji decoded and looked up in tables built once
//! from the o200k vocabulary.

use std::sync::OnceLock;

use super::*;

#[inline(always)]
pub(super) fn is_decoded_lead(byte: u8) -> bool {
    (byte.wrapping_sub(0xE2) < 12) | (byte == 0xF0)
}

/// The class of a byte, as context for the byte after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Previous {
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
pub(super) const TABLE_SLOTS: usize = 2048;

/// Every [`Previous`] class, in discriminant order.
pub(super) const PREVIOUS_CLASSES: [Previous; 7] = [
    Previous::Lower,
    Previous::Upper,
    Previous::Digit,
    Previous::Space,
    Previous::Punctuation,
    Previous::Continuation,
    Previous::Other,
];

/// The row of the folded table for the byte after each byte: `previous_class(byte) * 256`.
pub(super) const ROW_AFTER: [u16; 256] = {
    let mut rows = [0u16; 256];
    let mut byte = 0;
    while byte < 256 {
        rows[byte] = previous_class(byte as u8) as u16 * 256;
        byte += 1;
    }
    rows
};

/// The row after a character [`scan`] decodes.
pub(super) const ROW_AFTER_DECODED: usize = Previous::Other as usize * 256;

pub(super) const fn previous_class(byte: u8) -> Previous {
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
pub(super) fn feature_of(previous: Previous, byte: u8) -> Option<Feature> {
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
pub(super) trait Sink {
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
pub(super) fn scan(bytes: &[u8], sink: &mut impl Sink) {
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
pub(super) const PAIR_FEATURE: [Feature; FEATURE_COUNT] = {
    let mut pair = [Feature::CjkPair; FEATURE_COUNT];
    pair[Feature::Hangul as usize] = Feature::HangulPair;
    pair[Feature::RareHangul as usize] = Feature::HangulPair;
    pair
};

/// Whether a block holds no lead byte of a three- or four-byte character (0xE0 and up, a
/// superset of the characters [`scan`] decodes): a few word operations per 8 bytes.
#[inline(always)]
pub(super) fn has_no_wide_lead(block: &[u8; 32]) -> bool {
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
pub(super) fn is_doubled_symbol(c: u32) -> bool {
    let index = c.wrapping_sub(SYMBOL_FIRST) as usize;
    DOUBLED_SYMBOLS.get(index / 64).is_some_and(|word| word >> (index % 64) & 1 == 1)
}

/// The 2-bit token count of `c` in a table packed as [`SYMBOL_TOKENS`] starting at `first`
/// (0 when `c` is outside the table).
pub(super) fn packed_tokens(table: &[u64], first: u32, c: u32) -> u64 {
    let index = c.wrapping_sub(first) as usize;
    table.get(index / 32).map_or(0, |word| word >> (index % 32 * 2) & 3)
}

/// Lookup tables for kana, ideographs and Hangul, built once from [`SINGLE_TOKEN_LETTERS`],
/// [`SINGLE_TOKEN_HANGUL`] and [`PAIR_TOKENS`].
pub(super) struct CjkTables {
    /// The feature of each character U+3000–U+DFFF when it completes no pair.
    class: Box<[Feature]>,
    /// [`PAIR_TOKENS`] hashed into buckets of one cache line each (0 marks an empty slot;
    /// no key is 0, both letters being at least U+3040).
    buckets: Box<[[u32; BUCKET_SLOTS]]>,
    /// Hash multiplier and shift chosen so that no bucket overflows.
    multiplier: u32,
    shift: u32,
}

pub(super) const BUCKET_SLOTS: usize = 16;
pub(super) const CLASS_FIRST: u32 = 0x3000;
pub(super) const CLASS_LAST: u32 = 0xDFFF;

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

pub(super) fn is_single_token(c: u32) -> bool {
    let bit = c.wrapping_sub(CJK_FIRST) as usize;
    SINGLE_TOKEN_LETTERS.get(bit / 64).is_some_and(|word| word >> (bit % 64) & 1 == 1)
}

pub(super) fn is_single_token_hangul(c: u32) -> bool {
    let bit = c.wrapping_sub(HANGUL_FIRST) as usize;
    SINGLE_TOKEN_HANGUL.get(bit / 64).is_some_and(|word| word >> (bit % 64) & 1 == 1)
}

pub(super) fn cjk_tables() -> &'static CjkTables {
    static TABLES: OnceLock<CjkTables> = OnceLock::new();
    TABLES.get_or_init(CjkTables::build)
}

/// Fixed-point scale of the folded table (weights in 1/65536 of a token).
pub(super) const SCALE: f64 = 65536.0;

pub(super) fn fixed_point(weight: f64) -> u32 {
    (weight.max(0.0) * SCALE).round() as u32
}

pub(super) struct Table {
    /// Weight of each byte after each previous class (`class * 256 + byte`), in 1/65536
    /// token.
    pub(super) bytes: [u32; TABLE_SLOTS],
    /// Weight of each feature, in 1/65536 token.
    pub(super) features: [u32; FEATURE_COUNT],
}

pub(super) fn table() -> &'static Table {
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
