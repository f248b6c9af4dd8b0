//! Classifiers of one piece of text: what a user message asks and requires, what an
//! assistant text decides and plans (command outputs are read in `scan`).
//!
//! Invariant: each extractor reads only the text it is given and returns sentences or
//! lines copied from it (clipped), never invented wording.

pub(super) use super::origin::*;
use super::scan::*;
use super::text::*;

/// The request a user message makes: its first one or two sentences, clipped. With
/// `without_rules`, sentences that state a rule are left out when others remain (the rules
/// are kept as constraints).
pub(super) fn request_of(text: &str, without_rules: bool) -> Option<String> {
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
pub(super) fn is_acknowledgement(sentence: &str) -> bool {
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

pub(super) const IMPERATIVE_STARTS: [&str; 25] = [
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

pub(super) const IMPERATIVE_ANYWHERE: [&str; 29] = [
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
pub(super) const IMPERATIVE_CJK: [&str; 38] = [
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
pub(super) const IMPERATIVE_WORDS: [&str; 34] = [
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
pub(super) fn constraints_of(prose: &str) -> Vec<String> {
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
pub(super) fn is_rule(sentence: &str) -> bool {
    if sentence.ends_with('?') || sentence.ends_with('？') {
        return false;
    }
    // What a tool printed (an error, a warning) is never the user's rule, whatever its
    // wording.
    if error_line(sentence) || sentence.trim_start().to_lowercase().starts_with("warning") {
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
const CORRECTIONS: [&str; 24] = [
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
];

/// Whether a user message opens by correcting the assistant.
pub(super) fn is_correction(prose: &str) -> bool {
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
    })
}

/// Whether `correction` quotes a code span that `statement` contains: the correction is
/// aimed at that statement (`no \`as any\``). Words alone are too weak a tie.
pub(super) fn shares_a_term(statement: &str, correction: &str) -> bool {
    backticked(correction).iter().any(|span| char_len(span) > 1 && statement.contains(span))
}

/// Whether a user message is a short reply (one sentence or two, nothing pasted, not a
/// correction): after a question of the assistant, the answer to it.
pub(super) fn is_short_answer(prose: &str, pasted: &[String]) -> bool {
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

/// Whether the message is a slash command (`/mode`, `/model sonnet`), not a request.
pub(crate) fn is_slash_command(text: &str) -> bool {
    let text = text.trim();
    let Some(rest) = text.strip_prefix('/') else { return false };
    let name: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
    !text.contains('\n')
        && !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_:".contains(c))
}

/// Whether a line of a user message looks pasted from a terminal, a log or a browser
/// console rather than written: error and stack lines, indented code, JSON.
fn looks_pasted(line: &str) -> bool {
    let trimmed = line.trim();
    let lower = trimmed.to_lowercase();
    line.starts_with("  ")
        || line.starts_with('\t')
        || error_line(trimmed)
        || lower.starts_with("at ")
        || lower.starts_with("file \"")
        || trimmed.starts_with('{')
        || trimmed.starts_with('[')
        || trimmed.starts_with('>')
        || trimmed.starts_with('$')
        || trimmed.contains("\":")
        || trimmed.contains("\\n")
}

/// The text of a message whose every line is quoted (`> …`) and reads as prose, without
/// the quote marks; `None` for any other message (one with a line of its own, or a quoted
/// program echo such as npm's `> app@1.0.0 build`).
fn unquoted_message(text: &str) -> Option<String> {
    let lines: Vec<&str> = head(text.trim(), 16_000).lines().collect();
    let quoted = |line: &&str| line.trim().is_empty() || line.trim_start().starts_with('>');
    if lines.is_empty() || !lines.iter().all(quoted) {
        return None;
    }
    let body: Vec<&str> = lines
        .iter()
        .map(|line| line.trim_start().trim_start_matches('>').trim_start_matches(['>', ' ']))
        .collect();
    let words: Vec<&str> = body.iter().flat_map(|line| line.split_whitespace()).collect();
    let wordy = words
        .iter()
        .filter(|word| word.chars().filter(|c| c.is_alphabetic()).count() * 2 > word.len())
        .count();
    let echo = body.iter().any(|line| {
        line.split_whitespace().next().is_some_and(|first| first.contains('@'))
            && line.split_whitespace().count() <= 3
    });
    if words.len() < 8 || wordy * 4 < words.len() * 3 || echo {
        return None;
    }
    // A quote is often wrapped by hand: a line that does not open a list item goes on the
    // sentence of the line before.
    let mut out = String::new();
    for line in body {
        let item =
            line.starts_with(['-', '*', '+']) || line.starts_with(|c: char| c.is_ascii_digit());
        if !out.is_empty() {
            let joins = !line.is_empty() && !item && !out.ends_with('\n');
            out.push(if joins { ' ' } else { '\n' });
        }
        out.push_str(line);
    }
    Some(out)
}

/// Splits a user message into what the user wrote and what they pasted: code fences, and
/// paragraphs at least half of whose lines look pasted. Returns the written prose (the
/// paragraphs joined by blank lines) and the pasted lines.
pub(super) fn split_user_text(text: &str) -> (String, Vec<String>) {
    // A message written wholly as a quote block is the user's words passed on (a handoff
    // note, a ticket): read without its quote marks. A quote beside the user's own prose
    // stays what it quotes.
    let unquoted = unquoted_message(text);
    let text = unquoted.as_deref().unwrap_or(text);
    let mut prose: Vec<String> = Vec::new();
    let mut pasted: Vec<String> = Vec::new();
    let mut paragraph: Vec<&str> = Vec::new();
    let mut in_fence = false;
    let flush = |paragraph: &mut Vec<&str>, prose: &mut Vec<String>, pasted: &mut Vec<String>| {
        if paragraph.is_empty() {
            return;
        }
        // One line on its own needs strong evidence: indentation alone is not enough.
        let looks = if paragraph.len() == 1 {
            usize::from(looks_pasted(paragraph[0].trim_start()))
        } else {
            paragraph.iter().filter(|line| looks_pasted(line)).count()
        };
        if looks * 2 >= paragraph.len() && looks > 0 {
            pasted.extend(paragraph.iter().map(|line| (*line).to_owned()));
        } else {
            prose.push(paragraph.join("\n"));
        }
        paragraph.clear();
    };
    for line in head(text.trim(), 16_000).lines() {
        if line.trim_start().starts_with("```") {
            flush(&mut paragraph, &mut prose, &mut pasted);
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            pasted.push(line.to_owned());
            continue;
        }
        if line.trim().is_empty() {
            flush(&mut paragraph, &mut prose, &mut pasted);
            continue;
        }
        paragraph.push(line);
    }
    flush(&mut paragraph, &mut prose, &mut pasted);
    (prose.join("\n\n"), pasted)
}

pub(super) const DECISION_MARKERS: [&str; 14] = [
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

pub(super) const PLAN_STARTS: [&str; 13] = [
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
pub(super) fn decisions_of(text: &str) -> Vec<String> {
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
pub(super) fn diagnosis_of(text: &str) -> Option<String> {
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
/// items of numbered lists.
pub(super) fn plan_of(text: &str) -> Vec<String> {
    let text = head(text, 16_000);
    let mut out = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && digits < 3 {
            let rest = &trimmed[digits..];
            if let Some(item) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
                out.push(clip(item.trim(), 200));
            }
        }
    }
    for sentence in sentences(text) {
        let lower = sentence.to_lowercase();
        let first_digits = lower.chars().take_while(char::is_ascii_digit).count();
        if first_digits > 0 {
            continue;
        }
        if PLAN_STARTS.iter().any(|start| lower.starts_with(start)) {
            out.push(clip(&sentence, 200));
        }
    }
    out
}

/// What an assistant text answers, in its own sentences: up to two whole sentences that
/// carry something exact (a number, a code span, a bold term) or a decision, else its first
/// statement of four words or more; never a lead-in ("Let me …", "Now …:") or a question.
pub(super) fn key_reply(text: &str) -> Option<String> {
    const LEAD_INS: [&str; 8] =
        ["let me ", "now ", "i'll ", "i will ", "first", "ok", "great", "perfect"];
    let all = sentences(head(text, 6_000));
    let usable = |sentence: &&String| {
        let lower = sentence.to_lowercase();
        !sentence.ends_with([':', '?', '？'])
            && sentence.split_whitespace().count() >= 4
            && char_len(sentence) <= 240
            && !LEAD_INS.iter().any(|lead| lower.starts_with(lead))
            && !sentence.trim_start().starts_with(['|', '#'])
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
pub(super) fn is_conditional(lower: &str) -> bool {
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
pub(super) fn replaced_phrases(text: &str, from_user: bool) -> Vec<String> {
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
