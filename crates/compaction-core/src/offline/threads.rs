//! Fix threads: what the assistant found wrong in answer to a report, and the files it
//! changed for it, kept with the report.
//!
//! A user reports an error (pasted) or a request, and the assistant's answer to it comes in
//! steps: a first remark, reads, then a sentence that states a cause, then edits. The report
//! alone says nothing of what was done, and the cause alone (among the decisions) or the
//! edit alone (in Done) does not say which report it answers. So each report carries a
//! [`Fix`]: the first sentence of its turn that states a cause (see [`cause_of`]) and the
//! files the turn changed. A message that says the problem persists ("same error", "还是一样")
//! continues the thread: its turn's cause replaces the one found before, which was wrong.
//!
//! Invariants: a cause is one sentence of an assistant text, whole, at most [`CAUSE_CHARS`]
//! characters, stated (not a question, not a condition, not a plan); files are the paths of
//! successful edits and writes, each once, at most [`FILES`] of them (the first).

use super::digest::Digest;
use super::extract::is_conditional;
use super::text::{char_len, code, head, one_line, sentences};

/// The longest cause kept.
const CAUSE_CHARS: usize = 260;
/// Files named per fix.
const FILES: usize = 4;

/// What a report's turn found wrong and changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Fix {
    pub(super) cause: Option<String>,
    /// A cause found before the user said the problem persists.
    pub(super) earlier_cause: Option<String>,
    pub(super) files: Vec<String>,
    /// The user said the problem persists after the cause was found: the next cause
    /// replaces it.
    retry: bool,
}

impl Fix {
    /// The words after a report: "cause: …; changed `a`, `b`", or only the files, or
    /// nothing.
    pub(super) fn told(&self) -> Option<String> {
        let files = (!self.files.is_empty()).then(|| {
            let named: Vec<String> = self.files.iter().map(|path| code(path)).collect();
            format!("changed {}", named.join(", "))
        });
        let cause = self.cause.as_ref().map(|cause| match &self.earlier_cause {
            Some(earlier) => format!("cause: {cause} (first thought: {earlier})"),
            None => format!("cause: {cause}"),
        });
        let parts: Vec<String> = cause.into_iter().chain(files).collect();
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// Which reports the current turn answers: indices of `Digest::requests` and of
/// `Digest::user_errors`.
#[derive(Debug, Clone, Default)]
pub(super) struct Thread {
    requests: Vec<usize>,
    errors: Vec<usize>,
    /// The turn goes on answering the request the previous summary ended on.
    carried: bool,
}

/// Openings and phrases of a sentence that states why something went wrong, in the
/// languages users write in. A sentence holding one states a cause.
const CAUSE_PHRASES: [&str; 59] = [
    "the problem is",
    "the problem was",
    "the issue is",
    "the issue was",
    "the bug is",
    "the bug was",
    "the cause is",
    "the cause was",
    "the real cause",
    "the actual cause",
    "the actual problem",
    "the real problem",
    "root cause",
    "caused by",
    "is because",
    "was because",
    "happens because",
    "happened because",
    "fails because",
    "failed because",
    "the reason is",
    "the reason was",
    "due to",
    "turned out",
    "turns out",
    "comes from",
    "came from",
    "the culprit",
    // Spanish, Portuguese, Italian
    "el problema",
    "la causa",
    "se debe a",
    "debido a",
    "es porque",
    "ocurre porque",
    "pasa porque",
    "falla porque",
    "o problema",
    "il problema",
    // French
    "le problème",
    "la cause",
    "à cause d",
    "dû à",
    "due à",
    "vient de",
    "venait de",
    "vient du",
    "venait du",
    "c'est parce que",
    "parce que le",
    "parce que la",
    // German, Dutch
    "die ursache",
    "das problem",
    "liegt daran",
    "lag daran",
    "het probleem",
    // Chinese, Japanese, Korean
    "原因",
    "问题在于",
    "때문",
    "원인",
];

/// Words that state a cause on their own in a sentence of these languages (no spaces to
/// delimit a phrase): Chinese "because", Korean "the problem is".
const CAUSE_WORDS: [&str; 5] = ["因为", "由于", "문제는", "問題は", "のせいで"];

/// The first sentence of `text` that states a cause: it holds a cause phrase, is not a
/// question or a condition, and is not a plan ("I'll check whether the cause is …").
pub(super) fn cause_of(text: &str) -> Option<String> {
    sentences(head(text, 8_000)).into_iter().find_map(|sentence| {
        let lower = sentence.to_lowercase();
        let stated = CAUSE_PHRASES.iter().any(|phrase| holds_phrase(&lower, phrase))
            || CAUSE_WORDS.iter().any(|word| lower.contains(word));
        let plan = ["i'll ", "i will ", "let me ", "let's ", "maybe ", "perhaps "]
            .iter()
            .any(|opening| lower.trim_start().starts_with(opening));
        let fits = (6..=CAUSE_CHARS).contains(&char_len(&sentence));
        (stated
            && fits
            && !plan
            && !sentence.trim_end().ends_with(['?', '？'])
            && !is_conditional(&lower))
        .then(|| one_line(&sentence).replace("**", ""))
    })
}

/// Whether `lower` holds `phrase` starting at a word's start (`redis because` does not
/// hold `is because`); phrases of scripts without spaces match anywhere.
fn holds_phrase(lower: &str, phrase: &str) -> bool {
    if !phrase.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return lower.contains(phrase);
    }
    lower
        .match_indices(phrase)
        .any(|(at, _)| !lower[..at].chars().next_back().is_some_and(char::is_alphanumeric))
}

/// Whether a user message says the problem it follows persists: short, and saying "same",
/// "still" or "again" of an error, in the languages users write in.
pub(super) fn persists(prose: &str) -> bool {
    const SAYS: [&str; 30] = [
        "same error",
        "same issue",
        "same problem",
        "same thing",
        "still",
        "not fixed",
        "didn't work",
        "did not work",
        "doesn't work",
        "no change",
        "mismo error",
        "sigue",
        "todavía",
        "même erreur",
        "toujours",
        "immer noch",
        "weiterhin",
        "gleiche fehler",
        "gleichen fehler",
        "还是",
        "依然",
        "仍然",
        "一样",
        "まだ",
        "同じ",
        "相変わらず",
        "여전히",
        "아직",
        "같은 에러",
        "똑같",
    ];
    let lower = prose.to_lowercase();
    let short = lower.split_whitespace().count() <= 14 && char_len(&lower) <= 120;
    short && SAYS.iter().any(|says| lower.contains(says))
}

impl Digest {
    /// Whether a user message saying `prose` goes on with the reports before it rather than
    /// making a request: it says the problem persists, and there is a report to go on with
    /// (of this turn, or the one the messages before these ended on).
    pub(super) fn continues_thread(&self, prose: &str) -> bool {
        persists(prose) && (self.thread_is_open() || self.before_first_turn())
    }

    fn thread_is_open(&self) -> bool {
        !(self.thread.requests.is_empty() && self.thread.errors.is_empty()) || self.thread.carried
    }

    /// No user message of these messages yet, and they follow others (a previous summary,
    /// or the summarized part they come after).
    fn before_first_turn(&self) -> bool {
        self.user_turns == 0 && (self.previous.is_some() || self.continues)
    }

    /// A user message opened a turn: it answers `request` (an index of `requests`) and the
    /// errors `errors` (indices of `user_errors`). When it `persist`s (see
    /// [`Digest::continues_thread`]), the turn goes on answering the reports before it,
    /// and the cause they have is a first thought the next one replaces.
    pub(super) fn open_thread(
        &mut self,
        request: Option<usize>,
        errors: Vec<usize>,
        persist: bool,
    ) {
        if persist {
            let carried = self.before_first_turn();
            for fix in self.thread_fixes() {
                fix.retry = fix.cause.is_some();
            }
            self.thread.requests.extend(request);
            self.thread.errors.extend(errors);
            self.thread.carried |= carried;
        } else {
            self.thread =
                Thread { requests: request.into_iter().collect(), errors, carried: false };
        }
        let (requests, errors) = (self.requests.len(), self.user_errors.len());
        self.request_fixes.resize(requests, Fix::default());
        self.user_error_fixes.resize(errors, Fix::default());
    }

    /// An assistant text of the turn: its first cause, when the turn has none yet (or the
    /// user said the one found did not hold), is the cause of the turn's reports.
    pub(super) fn note_cause(&mut self, text: &str) {
        let Some(cause) = cause_of(text) else { return };
        for fix in self.thread_fixes() {
            if fix.cause.is_none() || fix.retry {
                if fix.retry {
                    fix.earlier_cause = fix.cause.take();
                    fix.retry = false;
                }
                fix.cause = Some(cause.clone());
            }
        }
    }

    /// A successful edit or write of `path` in the turn.
    pub(super) fn note_fixed_file(&mut self, path: &str) {
        for fix in self.thread_fixes() {
            if fix.files.len() < FILES && !fix.files.iter().any(|known| known == path) {
                fix.files.push(path.to_owned());
            }
        }
    }

    /// The error at `at` of `user_errors` was pasted again: it moves to the end, and the
    /// cause found for it did not hold.
    pub(super) fn error_pasted_again(&mut self, at: usize) {
        self.user_error_fixes.resize(self.user_errors.len(), Fix::default());
        let mut fix = self.user_error_fixes.remove(at);
        fix.retry = fix.cause.is_some();
        self.user_error_fixes.push(fix);
        self.thread.errors.retain(|index| *index != at);
        for index in &mut self.thread.errors {
            if *index > at {
                *index -= 1;
            }
        }
    }

    fn thread_fixes(&mut self) -> Vec<&mut Fix> {
        let (requests, errors) = (self.requests.len(), self.user_errors.len());
        self.request_fixes.resize(requests, Fix::default());
        self.user_error_fixes.resize(errors, Fix::default());
        // Before the first user message of these messages, the turn is the one the previous
        // summary ended on.
        let carried = self.thread.carried || self.before_first_turn();
        let Digest { thread, request_fixes, user_error_fixes, carried_fix, .. } = self;
        let carried = carried.then_some(carried_fix);
        request_fixes
            .iter_mut()
            .enumerate()
            .filter(|(index, _)| thread.requests.contains(index))
            .chain(
                user_error_fixes
                    .iter_mut()
                    .enumerate()
                    .filter(|(index, _)| thread.errors.contains(index)),
            )
            .map(|(_, fix)| fix)
            .chain(carried)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_cause_is_a_stated_sentence_with_a_cause_phrase() {
        let text = "The `vite.config.ts` file sets `define` on line 12. The problem is that \
                    `@iarna/toml` expects Node's `global`. I'll add a shim.";
        assert_eq!(
            cause_of(text).as_deref(),
            Some("The problem is that `@iarna/toml` expects Node's `global`.")
        );
        assert_eq!(
            cause_of("原因は `VITE_API_URL` が空になっていることです。").as_deref(),
            Some("原因は `VITE_API_URL` が空になっていることです。")
        );
        for not_a_cause in [
            "Is the problem that the port is taken?",
            "I'll check whether the cause is the cache.",
            "If the problem is the cache, clearing it helps.",
            "The endpoint returns the version from the build info.",
        ] {
            assert_eq!(cause_of(not_a_cause), None, "{not_a_cause}");
        }
    }

    #[test]
    fn a_short_message_saying_the_problem_persists_continues_the_thread() {
        for says in [
            "Same error as before.",
            "still broken",
            "还是一样的错误。",
            "여전히 같은 에러가 나요.",
        ] {
            assert!(persists(says), "{says}");
        }
        for new in [
            "Now add a docstring to the helper.",
            "The export still needs a header row, a footer with totals, the date in ISO format and the company logo at the top left.",
        ] {
            assert!(!persists(new), "{new}");
        }
    }

    #[test]
    fn a_fix_tells_its_cause_and_files_and_a_retry_keeps_the_first_thought() {
        let mut digest =
            Digest { requests: vec!["The page is blank.".into()], ..Digest::default() };
        digest.open_thread(Some(0), Vec::new(), false);
        digest.note_cause("The cause is a stale cache.");
        digest.note_fixed_file("src/a.ts");
        digest.note_fixed_file("src/a.ts");
        assert_eq!(
            digest.request_fixes[0].told().as_deref(),
            Some("cause: The cause is a stale cache.; changed `src/a.ts`")
        );
        digest.requests.push("Same error.".into());
        digest.open_thread(Some(1), Vec::new(), true);
        digest.note_cause("The real cause is the redirect dropping the cookie.");
        assert_eq!(
            digest.request_fixes[0].told().as_deref(),
            Some(
                "cause: The real cause is the redirect dropping the cookie. (first thought: The cause is a stale cache.); changed `src/a.ts`"
            )
        );
        digest.requests.push("Add a footer.".into());
        digest.open_thread(Some(2), Vec::new(), false);
        digest.note_cause("The problem was the footer's width.");
        assert!(digest.request_fixes[0].told().is_some_and(|told| !told.contains("footer")));
    }
}
