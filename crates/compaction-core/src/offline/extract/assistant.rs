//! What an assistant text decides, diagnoses and plans, its key reply, and the phrases a
//! change of mind replaces.

use super::*;

pub(in crate::offline) const DECISION_MARKERS: [&str; 14] = [
    "the fix is",
    "the problem is",
    "the issue is",
    "the cause is",
    "root cause",
    "the bug is",
    "instead of",
    "decided",
    "i chose",
    "going with",
    "rather than",
    "i'll use",
    "we'll use",
    "because",
];

pub(in crate::offline) const PLAN_STARTS: [&str; 13] = [
    "i'll ",
    "i will ",
    "let me ",
    "next,",
    "next ",
    "then ",
    "now i",
    "after that",
    "finally,",
    "i need to ",
    "we need to ",
    "i'm going to ",
    "the next step",
];

/// Openings of a sentence that only make sense after the one before it.
const REFERS_BACK: [&str; 7] =
    ["the fix is", "the fix:", "so ", "this means", "that's why", "which ", "the solution is"];

/// Sentences of an assistant text that state a decision or a diagnosis. Adjacent ones are
/// one item, and a sentence that refers back ("The fix is …", "So …") keeps the sentence
/// before it, so the item says what was wrong as well as what was done.
pub(in crate::offline) fn decisions_of(text: &str) -> Vec<String> {
    let all = sentences(head(text, 16_000));
    let marked: Vec<bool> = all
        .iter()
        .map(|sentence| {
            let lower = sentence.to_lowercase();
            DECISION_MARKERS.iter().any(|marker| lower.contains(marker))
        })
        .collect();
    let mut out: Vec<String> = Vec::new();
    let mut previous_taken = false;
    for (index, sentence) in all.iter().enumerate() {
        if !marked[index] {
            previous_taken = false;
            continue;
        }
        let lower = sentence.to_lowercase();
        let refers_back = REFERS_BACK.iter().any(|opening| lower.starts_with(opening));
        match out.last_mut() {
            Some(last) if previous_taken && char_len(last) + char_len(sentence) < 300 => {
                last.push(' ');
                last.push_str(sentence);
            }
            Some(_) | None if refers_back && index > 0 && !previous_taken => {
                out.push(format!("{} {sentence}", all[index - 1]));
            }
            Some(_) | None => out.push(sentence.clone()),
        }
        previous_taken = true;
    }
    out.into_iter().map(|decision| clip(&decision, 300)).collect()
}

/// What an assistant found and what it does about it, when a text says both in a row:
/// "`setQuantity` stores whatever it gets. I'll clamp it at zero." The finding must be a
/// statement of at least four words, not a question, a lead-in, a remark about its own
/// progress ("I see the issue.") or a plan itself; the action must change something, not
/// look ("I'll check …").
pub(in crate::offline) fn diagnosis_of(text: &str) -> Option<String> {
    const ACTIONS: [&str; 5] = ["i'll ", "i will ", "i'm going to ", "we'll ", "we will "];
    const LOOKING: [&str; 10] =
        ["run", "check", "verify", "look", "read", "test", "see", "inspect", "search", "start"];
    const NOT_FINDINGS: [&str; 22] = [
        "let me ",
        "now ",
        "first",
        "ok",
        "okay",
        "understood",
        "i see",
        "i understand",
        "i can see",
        "i have",
        "i've",
        "i now",
        "i found the",
        "looking",
        "based on",
        "great",
        "perfect",
        "good",
        "got it",
        "alright",
        "sure",
        "all ",
    ];
    let all = sentences(head(text, 4_000));
    all.windows(2).find_map(|pair| {
        let (finding, action) = (&pair[0], &pair[1]);
        let finding_lower = finding.to_lowercase();
        let action_lower = action.to_lowercase();
        let acts = ACTIONS.iter().any(|start| {
            action_lower.strip_prefix(start).is_some_and(|rest| {
                !LOOKING.iter().any(|verb| rest.split_whitespace().next() == Some(verb))
            })
        });
        let finds = finding.split_whitespace().count() >= 4
            && !finding.ends_with([':', '?'])
            && !NOT_FINDINGS.iter().any(|start| finding_lower.starts_with(start))
            && !PLAN_STARTS.iter().any(|start| finding_lower.starts_with(start));
        (acts && finds).then(|| clip(&format!("{finding} {action}"), 300))
    })
}

/// Plan statements of an assistant text: "I'll…", "Let me…", "Next, …" sentences and the
/// items of numbered lists that say what is still to do; apart, the items of the lists
/// that report.
///
/// A reply that goes on to act (its turn does not end) lists the steps it is about to take.
/// A reply that ends the turn mostly lists what was done ("Summary of the changes: 1. Fixed
/// …"), or what it found: there a list is a plan only when what introduces it looks ahead
/// (see [`looks_ahead`]). Each list's lead-in is the last line above its first item that is
/// not an item, a continuation of one, or blank.
pub(in crate::offline) fn plan_of(text: &str, ends_turn: bool) -> Lists {
    let text = head(text, 16_000);
    let mut out = Vec::new();
    let mut reported = Vec::new();
    let mut lead: &str = "";
    // The lines that introduce a list: the list says what they announce.
    let mut leads: Vec<&str> = Vec::new();
    let mut in_list = false;
    let mut list_is_plan = true;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
        let rest = &trimmed[digits..];
        let item = (digits > 0 && digits < 3)
            .then(|| rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")))
            .flatten();
        match item {
            Some(item) => {
                if !in_list {
                    in_list = true;
                    list_is_plan = !ends_turn || looks_ahead(lead);
                    leads.push(lead);
                }
                match list_is_plan {
                    true => out.push(clip(item.trim(), 200)),
                    false => reported.push(clip(item.trim(), 200)),
                }
            }
            // A blank line, an indented line or a sub-bullet goes on with the list.
            None if trimmed.is_empty() => {}
            None if in_list
                && (line.starts_with([' ', '\t']) || trimmed.starts_with(['-', '*'])) => {}
            None => {
                in_list = false;
                lead = trimmed;
            }
        }
    }
    for sentence in sentences(text) {
        let lower = sentence.to_lowercase();
        let first_digits = lower.chars().take_while(char::is_ascii_digit).count();
        if first_digits > 0 || leads.iter().any(|lead| one_line(lead) == one_line(&sentence)) {
            continue;
        }
        if PLAN_STARTS.iter().any(|start| lower.starts_with(start)) {
            out.push(clip(&sentence, 200));
        }
    }
    Lists { plan: out, reported }
}

/// The numbered lists of an assistant text, by what they say (see [`plan_of`]).
#[derive(Debug, Default, PartialEq, Eq)]
pub(in crate::offline) struct Lists {
    /// What is still to do: the items of the lists that plan, and the plan sentences.
    pub(in crate::offline) plan: Vec<String>,
    /// The items of the lists a reply that ends the turn gives as done or found.
    pub(in crate::offline) reported: Vec<String>,
}

/// Whether the line that introduces a list looks ahead: it names the steps or the plan,
/// what comes next or is left to do, proposes or recommends, or speaks in the future ("Next
/// steps:", "Here's my plan:", "What remains:", "I suggest:", "I will:"). A line that
/// reports ("Summary of the changes:", "Here's what I did:", "## Changes") or a list with
/// no lead-in does not. The words are those of the languages the users of this tool write
/// in, each a way of saying "next", "left", "plan", "step", "suggest" or "will".
fn looks_ahead(lead: &str) -> bool {
    const AHEAD: [&str; 81] = [
        // English
        "next",
        "plan",
        "step",
        "todo",
        "to do",
        "to-do",
        "remain",
        "left",
        "still",
        "pending",
        "will ",
        "'ll ",
        "going to",
        "should",
        "could",
        "would",
        "suggest",
        "recommend",
        "propose",
        "follow-up",
        "follow up",
        "need to",
        "later",
        // Chinese
        "接下来",
        "下一步",
        "后续",
        "計劃",
        "计划",
        "待办",
        "还需",
        "还要",
        "需要",
        "建议",
        "步骤",
        // Japanese
        "次に",
        "次の",
        "今後",
        "予定",
        "残り",
        "必要",
        "提案",
        "推奨",
        "おすすめ",
        "手順",
        "ステップ",
        "これから",
        // Korean
        "다음 작업",
        "다음으로",
        "남은",
        "예정",
        "계획",
        "필요",
        "제안",
        "추천",
        "할 일",
        "단계",
        // Spanish and Portuguese
        "próxim",
        "siguiente",
        "pendiente",
        "falta",
        "queda",
        "paso",
        "sugiero",
        "recomiendo",
        "voy a",
        "passos",
        // French
        "prochain",
        "ensuite",
        "reste",
        "à faire",
        "étape",
        "je vais",
        "suggère",
        "propose",
        // German
        "nächst",
        "schritt",
        "offen",
        "noch ",
        "werde",
        "vorschlag",
        "empfehle",
    ];
    let lower = lead.to_lowercase();
    AHEAD.iter().any(|word| lower.contains(word))
}

/// What an assistant text answers, in its own sentences: up to two whole sentences that
/// carry something exact (a number, a code span, a bold term) or a decision, else its first
/// statement. A statement has four words or more (or eight wide characters: Han, Kana and
/// Hangul sentences have few spaces), and is never a lead-in ("Let me …", "Now …:"), a
/// question, or a parenthesis after one ("(e.g., 50ms, 100ms)").
pub(in crate::offline) fn key_reply(text: &str) -> Option<String> {
    const LEAD_INS: [&str; 8] =
        ["let me ", "now ", "i'll ", "i will ", "first", "ok", "great", "perfect"];
    let all = sentences(head(text, 6_000));
    let usable = |sentence: &&String| {
        let lower = sentence.to_lowercase();
        let wide = sentence.chars().filter(|c| is_wide(*c)).count();
        !sentence.ends_with([':', '?', '？'])
            && (sentence.split_whitespace().count() >= 4 || wide >= 8)
            && char_len(sentence) <= 240
            && !LEAD_INS.iter().any(|lead| lower.starts_with(lead))
            && !sentence.trim_start().starts_with(['|', '#', '(', '（'])
    };
    let exact = |sentence: &&String| {
        let lower = sentence.to_lowercase();
        sentence.chars().any(|c| c.is_ascii_digit())
            || sentence.contains('`')
            || sentence.contains("**")
            || DECISION_MARKERS.iter().any(|marker| lower.contains(marker))
    };
    let mut chosen: Vec<&String> = Vec::new();
    for sentence in all.iter().filter(usable).filter(exact) {
        let length: usize = chosen.iter().map(|s| char_len(s) + 1).sum();
        if chosen.len() == 2 || length + char_len(sentence) > 280 {
            break;
        }
        chosen.push(sentence);
    }
    if chosen.is_empty() {
        chosen.extend(all.iter().find(usable));
    }
    let reply = one_line(&chosen.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" "));
    let reply = reply.replace("**", "");
    (!reply.is_empty()).then_some(reply)
}

/// Whether a (lower-cased) sentence states a condition ("if …", "unless …", "si …",
/// "wenn …", "如果", "만약", "もし"): what it says holds only then, not now.
pub(in crate::offline) fn is_conditional(lower: &str) -> bool {
    const OPENINGS: [&str; 8] =
        ["if ", "unless ", "in case ", "si ", "wenn ", "falls ", "cuando ", "quand "];
    const ANYWHERE: [&str; 9] =
        [" if ", " unless ", " in case ", ", si ", " wenn ", " falls ", "如果", "만약", "もし"];
    OPENINGS.iter().any(|opening| lower.trim_start().starts_with(opening))
        || ANYWHERE.iter().any(|marker| lower.contains(marker))
}

/// The words a sentence says are replaced: what follows "instead of", "rather than", "no
/// longer", ", not" (and "au lieu de", "plutôt que", "en lugar de", "en vez de", "statt",
/// "而不是"), or what precedes "대신" and "ではなく", up to three words (up to a "with",
/// "by", "for" that names what replaces it), without articles and code marks. The user's
/// own words also replace with an imperative: "replace X", "don't use X", "stop using X"
/// ("remplace", "plus de", "ya no uses", "nada de", "ersetze", "kein", "不用", "别用", "X
/// 말고"); an assistant saying "I'll replace it with …" describes its plan. A phrase of
/// function words only ("it", "this") names nothing.
pub(in crate::offline) fn replaced_phrases(text: &str, from_user: bool) -> Vec<String> {
    const AFTER: [&str; 11] = [
        "instead of ",
        "rather than ",
        "no longer ",
        ", not ",
        "au lieu de ",
        "plutôt que ",
        "en lugar de ",
        "en vez de ",
        " statt ",
        "anstatt ",
        "而不是",
    ];
    const USER_ONLY: [&str; 13] = [
        "replace ",
        "don't use ",
        "stop using ",
        "plus de ",
        "remplace ",
        "ya no uses ",
        "nada de ",
        "kein ",
        "keine ",
        "ersetze ",
        "不用",
        "别用",
        "不要用",
    ];
    const BEFORE: [&str; 3] = [" 대신", " 말고", "ではなく"];
    const NAMES_NOTHING: [&str; 12] = [
        "it",
        "this",
        "that",
        "these",
        "those",
        "them",
        "one",
        "ones",
        "all",
        "everything",
        "using",
        "use",
    ];
    // Words after the replaced phrase that name what replaces it, or end the clause.
    const UNTIL: [&str; 12] = [
        " with ", " by ", " for ", " par ", " pour ", " durch ", " für ", " mehr", " anymore",
        " por ", " para ", "了",
    ];
    const ARTICLES: [&str; 8] = ["the", "a", "an", "le", "la", "les", "el", "der"];
    let mut out = Vec::new();
    for sentence in sentences(head(text, 8_000)) {
        let lower = sentence.to_lowercase();
        // "If this turns out to be a barrier, you can stop using nix" replaces nothing now.
        if is_conditional(&lower) {
            continue;
        }
        let mut push = |words: Vec<&str>| {
            let words: Vec<&str> = words
                .into_iter()
                .map(|word| {
                    word.trim_matches(|c: char| !c.is_alphanumeric() && !"._-%".contains(c))
                })
                .filter(|word| !word.is_empty() && !ARTICLES.contains(word))
                .collect();
            let phrase = words.join(" ");
            let names_something = words.iter().any(|word| !NAMES_NOTHING.contains(word));
            if char_len(&phrase) >= 2 && names_something && !out.contains(&phrase) {
                out.push(phrase);
            }
        };
        let user_only: &[&str] = if from_user { &USER_ONLY } else { &[] };
        for marker in AFTER.iter().chain(user_only) {
            if let Some((_, rest)) = lower.split_once(marker) {
                let mut clause = rest
                    .split([',', '.', ';', ':', '(', ')', '!', '?', '，', '。'])
                    .next()
                    .unwrap_or("");
                for until in UNTIL {
                    if let Some((before, _)) = clause.split_once(until) {
                        clause = before;
                    }
                }
                let words: Vec<&str> = clause.split_whitespace().take(3).collect();
                // A Chinese marker: the clause up to "了" or the sentence's end.
                if marker.chars().all(|c| !c.is_ascii()) {
                    push(vec![clause.trim()]);
                } else {
                    push(words);
                }
            }
        }
        for marker in BEFORE {
            if let Some((before, _)) = lower.split_once(marker.trim_start()) {
                let words: Vec<&str> = before.split_whitespace().rev().take(1).collect();
                push(words);
            }
        }
    }
    out
}
