//! Facts read from tool output: the words of an output that can identify something,
//! remembered so that a later step that uses one keeps the line it came from.

use super::*;

impl Digest {
    /// Remembers the distinctive words of a command's output with their line (see
    /// [`distinctive_words`]), at most [`OUTPUT_WORDS`] in all.
    pub(in super::super) fn note_output_words<'l>(
        &mut self,
        command: &str,
        lines: impl Iterator<Item = &'l str>,
    ) {
        for line in lines.take(200) {
            let line = line.trim();
            if line.is_empty() || exit_code_of(line).is_some() {
                continue;
            }
            for word in distinctive_words(line) {
                if self.output_words.len() >= OUTPUT_WORDS {
                    return;
                }
                let fact = format!(
                    "{} printed {}",
                    code(&command_shown(command, 100)),
                    code(&clip(line, 160))
                );
                self.output_words.insert(word.to_owned(), fact);
            }
        }
    }

    /// A later step's text (the assistant's words, a command) that uses a word an earlier
    /// output printed keeps that output line.
    pub(in super::super) fn note_used_facts(&mut self, text: &str) {
        if self.output_words.is_empty() {
            return;
        }
        let used: Vec<String> = distinctive_words(head(text, 16_000))
            .filter_map(|word| self.output_words.get(word).cloned())
            .collect();
        for fact in used {
            self.used_facts.retain(|known| known != &fact);
            self.used_facts.push(fact);
        }
        let excess = self.used_facts.len().saturating_sub(USED_FACTS);
        self.used_facts.drain(..excess);
    }
}

/// Output words remembered in one digest.
const OUTPUT_WORDS: usize = 4_000;
/// Output lines kept because later steps used them.
const USED_FACTS: usize = 8;

/// The words of a line that can identify something: at least three characters holding a
/// digit (`4417209`, `migrate-7f9c2`, `18.3.1`, `f3a9c1b2e7d4`), not a bare small number.
fn distinctive_words(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| c.is_whitespace() || ",;()[]{}<>\"'`=|".contains(c))
        .map(|word| word.trim_matches(|c: char| matches!(c, '.' | ':' | '/' | '^' | '~' | '#')))
        .filter(|word| {
            let digits = word.chars().filter(char::is_ascii_digit).count();
            char_len(word) >= 3
                && char_len(word) <= 64
                && digits > 0
                && !(digits == char_len(word) && digits < 3)
                && word.chars().all(|c| c.is_alphanumeric() || "-_./:@+".contains(c))
                // A time of day or a date says when, not what.
                && !word.contains(':')
        })
}
