//! What a user message asks and requires: its request, its rules in any language and
//! form, corrections and short answers.

use super::*;

/// The request a user message makes: its first one or two sentences, clipped. With
/// `without_rules`, sentences that state a rule are left out when others remain (the rules
/// are kept as constraints).
pub(in crate::offline) fn request_of(text: &str, without_rules: bool) -> Option<String> {
    let all = sentences(head(text, 8_000));
    let asks = without_rules
        && all.iter().any(|sentence| !is_acknowledgement(sentence) && !is_rule(sentence));
    // Whole sentences, in order, each while it fits: the user's short sentences carry the
    // settings and facts the work needs, so none is cut.
    let mut request = String::new();
    for sentence in all {
        if request.is_empty() && is_acknowledgement(&sentence) {
            continue;
        }
        if asks && is_rule(&sentence) {
            continue;
        }
        let fits = char_len(&request) + char_len(&sentence) < REQUEST_CHARS;
        if !request.is_empty() && !fits {
            continue;
        }
        if !request.is_empty() {
            request.push(' ');
        }
        request.push_str(&sentence);
    }
    if request.is_empty() {
        return None;
    }
    Some(verbatim_prefix(&request, REQUEST_CHARS))
}

/// The longest a request kept from a user message gets, in characters.
const REQUEST_CHARS: usize = 600;

/// A short opener such as "Great, thanks." that carries no request.
pub(in crate::offline) fn is_acknowledgement(sentence: &str) -> bool {
    const OPENERS: [&str; 10] = [
        "great",
        "thanks",
        "thank you",
        "ok",
        "okay",
        "nice",
        "perfect",
        "cool",
        "good",
        "awesome",
    ];
    let lower = sentence.to_lowercase();
    char_len(&lower) <= 30
        && OPENERS.iter().any(|opener| {
            lower.strip_prefix(opener).is_some_and(|rest| {
                rest.chars().all(|c| c.is_whitespace() || c.is_ascii_punctuation())
                    || rest.starts_with(", ")
            })
        })
}

pub(in crate::offline) const IMPERATIVE_STARTS: [&str; 25] = [
    "from now on",
    "going forward",
    "always ",
    "never ",
    "don't ",
    "dont ",
    "do not ",
    "use ",
    "make sure ",
    "prefer ",
    "must ",
    "avoid ",
    "keep ",
    "only ",
    "ensure ",
    "stick to ",
    "no ",
    "stop ",
    "remember ",
    "we must ",
    "you must ",
    "you should ",
    "we should ",
    "should ",
    "without ",
];

pub(in crate::offline) const IMPERATIVE_ANYWHERE: [&str; 29] = [
    " i prefer ",
    " i'd prefer ",
    " i would prefer ",
    " i would much prefer ",
    " so no ",
    " so don't ",
    " from now on",
    " going forward",
    " has to ",
    " have to ",
    " must ",
    " must not ",
    " never ",
    " always ",
    " don't ",
    " do not ",
    " make sure ",
    " needs to be ",
    " need to be ",
    " has to be ",
    " have to be ",
    " must be ",
    " should not ",
    " shouldn't ",
    " not allowed",
    " mustn't ",
    " mandatory",
    " required ",
    " priority",
];

/// Markers of a rule in languages written without spaces between words (Chinese,
/// Japanese) and in Korean, found anywhere in a sentence: must, never, always, do not,
/// forbidden, only.
pub(in crate::offline) const IMPERATIVE_CJK: [&str; 38] = [
    "不要",
    "必须",
    "必須",
    "务必",
    "務必",
    "总是",
    "總是",
    "始终",
    "始終",
    "永远",
    "永遠",
    "别",
    "別",
    "一定要",
    "请勿",
    "請勿",
    "禁止",
    "不能",
    "不许",
    "不准",
    "只能",
    "一律",
    "应该",
    "應該",
    "しないで",
    "必ず",
    "常に",
    "絶対",
    "してはいけない",
    "べき",
    "반드시",
    "하지 마",
    "금지",
    "항상",
    "절대",
    "마세요",
    "해야",
    "하지 않",
];

/// Markers of a rule in languages written with spaces (French, Spanish, German,
/// Portuguese, Italian), as whole words of the lower-cased sentence.
pub(in crate::offline) const IMPERATIVE_WORDS: [&str; 34] = [
    " toujours ",
    " jamais ",
    " il faut ",
    " ne pas ",
    " n'utilise ",
    " n'utilisez ",
    " doit ",
    " doivent ",
    " interdit ",
    " obligatoire ",
    " évite ",
    " évitez ",
    " pas de ",
    " siempre ",
    " nunca ",
    " no uses ",
    " hay que ",
    " debe ",
    " deben ",
    " tienes que ",
    " prohibido ",
    " immer ",
    " nie ",
    " niemals ",
    " bitte keine ",
    " keine ",
    " muss ",
    " müssen ",
    " darf ",
    " verboten ",
    " sempre ",
    " mai ",
    " non usare ",
    " não ",
];

/// Openers that join a sentence to the previous one and say nothing themselves.
const CONNECTIVES: [&str; 12] = [
    "please ",
    "also ",
    "and ",
    "but ",
    "plus ",
    "so ",
    "oh and ",
    "btw ",
    "btw, ",
    "ok, ",
    "okay, ",
    "and also ",
];

/// The lower-cased sentence without list markers and connectives.
fn bare_lower(sentence: &str) -> String {
    let lower = sentence.to_lowercase();
    let mut rest = lower.trim_start_matches(['-', '*', ' ']);
    while let Some(stripped) =
        CONNECTIVES.iter().find_map(|connective| rest.strip_prefix(connective))
    {
        rest = stripped.trim_start();
    }
    rest.to_owned()
}

/// The user's rules and preferences in the prose of a user message: imperative sentences
/// ("Never change the file format."), requirements ("It needs to be fully clean.") and
/// short preferences ("Type hints everywhere, please."). Questions are not rules, and a
/// bare "No," answers rather than rules.
pub(in crate::offline) fn constraints_of(prose: &str) -> Vec<String> {
    // A document the user pasted (a review, a spec: headings, tables) states its author's
    // requirements, not the user's rules; table rows and headings are never rules.
    if is_document(prose) {
        return Vec::new();
    }
    let own: Vec<&str> = prose
        .lines()
        .filter(|line| {
            let line = line.trim_start();
            !line.starts_with('|') && !is_heading(line)
        })
        .collect();
    sentences(head(&own.join("\n"), 8_000))
        .into_iter()
        .filter(|sentence| is_rule(sentence))
        .map(|sentence| verbatim_prefix(&sentence, 300))
        .collect()
}

/// Whether one sentence of a user message states a rule or a preference.
pub(in crate::offline) fn is_rule(sentence: &str) -> bool {
    if sentence.ends_with('?') || sentence.ends_with('？') {
        return false;
    }
    // What a tool printed (an error, a warning) is never the user's rule, whatever its
    // wording.
    if error_line(sentence)
        || log_level(sentence.trim_start()).is_some()
        || sentence.trim_start().to_lowercase().starts_with("warning")
    {
        return false;
    }
    let lower = bare_lower(sentence);
    if lower.starts_with("no,") || lower.starts_with("no.") || lower.starts_with("no!") {
        return false;
    }
    // "No fixes applied." reports; "No console logs." rules.
    if lower.starts_with("no ")
        && lower
            .split_whitespace()
            .any(|word| word.trim_end_matches(['.', '!', ',']).ends_with("ed"))
    {
        return false;
    }
    // "Should we …", "must I …": the verb before its subject asks; it rules nothing.
    let asks = ["should ", "must "].iter().any(|verb| {
        lower.strip_prefix(verb).is_some_and(|rest| {
            ["we ", "i ", "you ", "it ", "this ", "that ", "they "]
                .iter()
                .any(|subject| rest.starts_with(subject))
        })
    });
    if asks {
        return false;
    }
    let padded = format!(" {lower} ");
    let spaced = format!(" {} ", lower.replace(|c: char| ".,!?;:()\"".contains(c), " "));
    // "Stop making changes", "quit adding comments": an order to end a habit, wherever it
    // stands in the sentence.
    let stop_doing = spaced.split_whitespace().collect::<Vec<_>>().windows(2).any(|pair| {
        matches!(pair[0], "stop" | "quit") && pair[1].len() > 4 && pair[1].ends_with("ing")
    });
    let words = lower.split_whitespace().count();
    let short_preference = words <= 8
        && (lower.ends_with("please.") || lower.ends_with("please") || lower.ends_with("please!"));
    IMPERATIVE_STARTS.iter().any(|start| lower.starts_with(start))
        || IMPERATIVE_ANYWHERE.iter().any(|marker| padded.contains(marker))
        || IMPERATIVE_CJK.iter().any(|marker| sentence.contains(marker))
        || IMPERATIVE_WORDS.iter().any(|marker| spaced.contains(marker))
        || (spaced.contains(" ne ") && spaced.contains(" pas "))
        || short_preference
        || stop_doing
}

/// Sounds a message may open with before what it says ("hmm no, …", "oh wait, …").
const INTERJECTIONS: [&str; 12] =
    ["hmm", "hm", "hmmm", "um", "umm", "uh", "ugh", "oh", "ah", "erm", "meh", "well"];

/// Openings of a user message that correct what the assistant just did or proposed.
const CORRECTIONS: [&str; 38] = [
    "nah",
    "not quite",
    "wait",
    "no,",
    "no.",
    "no!",
    "nope",
    "stop",
    "hold on",
    "hang on",
    "that's wrong",
    "that is wrong",
    "that's not",
    "that is not",
    "that doesn't",
    "that does not",
    "thats not",
    "not like that",
    "undo",
    "revert",
    "don't do that",
    "do not do that",
    "actually, no",
    "this is wrong",
    // The same openings in the other languages users write to agents in.
    "non,",
    "non.",
    "non!",
    "non !",
    "pas ça",
    "c'est faux",
    "nein",
    "nö",
    "falsch",
    "não",
    "macché",
    // Korean words are spaced: "아니" alone, never "아니면" ("or else").
    "아니",
    "아니요",
    "아뇨",
];

/// Openings in scripts without spaces between words, so any text may follow them:
/// Chinese and Japanese.
const CORRECTIONS_CJK: [&str; 8] =
    ["不是", "不对", "不行", "错了", "いや", "いいえ", "違う", "ちがう"];

/// Whether a user message opens by correcting the assistant.
pub(in crate::offline) fn is_correction(prose: &str) -> bool {
    let lower = bare_lower(prose.trim());
    let mut lower = lower.as_str();
    // "hmm no, …", "oh wait, …": the interjection says nothing itself.
    while let Some(rest) = INTERJECTIONS.iter().find_map(|sound| {
        lower
            .strip_prefix(sound)
            .filter(|rest| rest.starts_with(|c: char| !c.is_alphanumeric()))
            .map(|rest| rest.trim_start_matches(|c: char| !c.is_alphanumeric()))
    }) {
        lower = rest;
    }
    CORRECTIONS.iter().any(|opening| {
        lower
            .strip_prefix(opening)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(|c: char| !c.is_alphanumeric()))
    }) || CORRECTIONS_CJK.iter().any(|opening| lower.starts_with(opening))
}

/// Whether `correction` quotes a code span that `statement` contains: the correction is
/// aimed at that statement (`no \`as any\``). Words alone are too weak a tie.
pub(in crate::offline) fn shares_a_term(statement: &str, correction: &str) -> bool {
    backticked(correction).iter().any(|span| char_len(span) > 1 && statement.contains(span))
}

/// Whether a user message is a short reply (one sentence or two, nothing pasted, not a
/// correction): after a question of the assistant, the answer to it.
pub(in crate::offline) fn is_short_answer(prose: &str, pasted: &[String]) -> bool {
    // Openings that ask for work, or ask a question of their own: a message opened so is
    // a new request, not the answer to the assistant's question.
    const REQUEST_OPENINGS: [&str; 37] = [
        "how ",
        "what ",
        "why ",
        "where ",
        "which ",
        "who ",
        "when ",
        "is there",
        "is it ",
        "are there",
        "do i ",
        "do we ",
        "do you ",
        "does ",
        "should ",
        "would ",
        "now ",
        "also ",
        "next",
        "then ",
        "add ",
        "fix ",
        "make ",
        "create ",
        "write ",
        "implement ",
        "change ",
        "move ",
        "rename ",
        "delete ",
        "remove ",
        "update ",
        "can you",
        "could you",
        "please ",
        "let's ",
        "lets ",
    ];
    let prose = prose.trim();
    let all = sentences(prose);
    let asks = all.iter().any(|sentence| {
        let lower = sentence.to_lowercase();
        let opened = ["yes", "no", "ok", "okay", "sure", "yep", "great", "nice", "thanks"]
            .iter()
            .find_map(|word| lower.strip_prefix(word).filter(|rest| rest.starts_with([',', ' '])))
            .map_or(lower.as_str(), |rest| rest.trim_start_matches([',', ' ']));
        REQUEST_OPENINGS.iter().any(|opening| opened.starts_with(opening))
    });
    pasted.is_empty()
        && !prose.is_empty()
        && char_len(prose) <= 120
        && !prose.contains('\n')
        && !prose.ends_with('?')
        && !is_correction(prose)
        && all.len() <= 2
        && !asks
}
