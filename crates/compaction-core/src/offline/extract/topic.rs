//! Whether a sentence speaks of what was asked: the two share a term. A reply sentence
//! that names what the request names answers it; one that names only other things (a test
//! count said in passing, a cache it cleared) is about something else.
//!
//! Terms, by script: in spaced scripts, words of four letters or more that are not
//! function words, matched whole or by a common start of five letters ("limit",
//! "limiting"); in Hangul, words of two syllables or more matched by their first two (the
//! particle after a noun varies: "재시도는", "재시도를"); in Han and Kana, pairs of adjacent
//! characters that are not both kana (kana pairs are inflections and particles: "ます",
//! "しま"), and no pair of Chinese function words ("还是", "可以").

/// Words of spaced scripts that name nothing a request is about.
const FUNCTION_WORDS: [&str; 64] = [
    "this", "that", "these", "those", "there", "their", "then", "than", "with", "from", "into",
    "onto", "have", "what", "which", "when", "where", "while", "should", "would", "could", "does",
    "done", "will", "just", "also", "only", "some", "your", "yours", "about", "make", "need",
    "want", "please", "like", "still", "each", "every", "other", "more", "most", "para", "como",
    "este", "esta", "pero", "donde", "cuando", "porque", "pour", "dans", "avec", "mais", "sont",
    "nous", "vous", "eine", "einer", "nicht", "wird", "werden", "soll", "sind",
];

/// Pairs of Han characters that are function words, not topics.
const HAN_FUNCTION_PAIRS: [&str; 16] = [
    "还是", "可以", "这个", "那个", "我们", "你们", "什么", "怎么", "是否", "没有", "应该", "需要",
    "一下", "现在", "已经", "如何",
];

/// One term of a text.
#[derive(Debug, PartialEq)]
enum Term {
    /// A word of a spaced script, lower-cased.
    Word(String),
    /// A Hangul word's first two syllables.
    Hangul(String),
    /// Two adjacent Han or Kana characters.
    Pair(String),
}

/// Whether a character is of a script written without spaces between words, or with
/// syllable blocks (Han, Kana, Hangul): a sentence of them has few spaces.
pub(in crate::offline) fn is_wide(c: char) -> bool {
    is_hangul(c) || is_han_or_kana(c)
}

fn is_hangul(c: char) -> bool {
    matches!(c, '\u{AC00}'..='\u{D7A3}')
}

fn is_kana(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30FF}')
}

fn is_han_or_kana(c: char) -> bool {
    is_kana(c) || matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}')
}

fn terms(text: &str) -> Vec<Term> {
    let mut out = Vec::new();
    let lower = text.to_lowercase();
    for word in lower.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-')) {
        let word = word.trim_matches('-');
        if word.chars().any(is_hangul) {
            let syllables: String = word.chars().filter(|c| is_hangul(*c)).take(2).collect();
            if syllables.chars().count() == 2 {
                out.push(Term::Hangul(syllables));
            }
            continue;
        }
        if word.chars().any(is_han_or_kana) {
            let chars: Vec<char> = word.chars().collect();
            for pair in chars.windows(2) {
                let both_kana = is_kana(pair[0]) && is_kana(pair[1]);
                let pair: String = pair.iter().collect();
                if pair.chars().all(is_han_or_kana)
                    && !both_kana
                    && !HAN_FUNCTION_PAIRS.contains(&pair.as_str())
                {
                    out.push(Term::Pair(pair));
                }
            }
            continue;
        }
        let letters = word.chars().filter(|c| c.is_alphabetic()).count();
        if letters >= 4 && !FUNCTION_WORDS.contains(&word) {
            out.push(Term::Word(word.to_owned()));
        }
    }
    out
}

fn same_term(a: &Term, b: &Term) -> bool {
    match (a, b) {
        (Term::Word(a), Term::Word(b)) => {
            let start = |w: &str| w.chars().take(5).collect::<String>();
            a == b || (a.chars().count() >= 5 && b.chars().count() >= 5 && start(a) == start(b))
        }
        (Term::Hangul(a), Term::Hangul(b)) | (Term::Pair(a), Term::Pair(b)) => a == b,
        _ => false,
    }
}

/// Whether `sentence` names something `asked` names.
pub(in crate::offline) fn speaks_of(sentence: &str, asked: &str) -> bool {
    let asked = terms(asked);
    terms(sentence).iter().any(|term| asked.iter().any(|known| same_term(term, known)))
}

#[cfg(test)]
mod tests {
    use super::speaks_of;

    #[test]
    fn a_sentence_speaks_of_a_request_when_they_share_a_term_in_any_script() {
        let asked = "mm. You know what, let's worry about resource limiting later.";
        assert!(speaks_of("Understood; we'll defer resource limiting for now.", asked));
        assert!(!speaks_of("(e.g., 50ms, 100ms, 250ms)", asked));
        // Function words are no tie.
        assert!(!speaks_of("What should this be about?", "What about this one?"));
        // Hangul: the particle after the noun varies.
        assert!(speaks_of("재시도를 세 번까지 합니다.", "재시도는 몇 번까지 하나요?"));
        assert!(!speaks_of("테스트가 모두 통과했습니다.", "재시도는 몇 번까지 하나요?"));
        // Han and Kana: pairs, not inflections or function words.
        assert!(speaks_of("日志按天切分。", "日志是按天切分还是按大小切分？"));
        assert!(!speaks_of("共 56 个测试全部通过。", "日志是按天切分还是按大小切分？"));
        assert!(!speaks_of("ビルドは終わりました。", "設定しますか？"));
        assert!(!speaks_of("我们现在可以。", "还是可以吗"));
    }
}
