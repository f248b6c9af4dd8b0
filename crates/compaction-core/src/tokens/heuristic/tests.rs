use super::scan::{is_doubled_symbol, is_single_token_hangul, packed_tokens};
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
