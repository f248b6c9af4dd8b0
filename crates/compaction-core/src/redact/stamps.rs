//! Chat logs: the stamp and the speaker a chat client writes before each message
//! (`[3/12/26 2:15 PM] Alex: …`, `2026-03-12 14:03:05 <lee> …`, `#ops | 14:03 | omar: …`,
//! `— jo (12:02): …`), or on a line of their own above it (`Tom Berg, 10:42 AM`). When a
//! question names a secret (`db password pls`) and the answer is the next message,
//! `nearby.rs` reads the answer's words past them rather than counting them as words.
//!
//! Invariant: a stamp is a time `h:mm` (seconds, AM/PM allowed) after at most three short
//! tokens (a date, a channel, a speaker's name); what is skipped ends at the speaker's mark (`:`, `>`, `)`,
//! `|`) right after it, never further.

use std::sync::OnceLock;

use regex::Regex;

use super::structure::regex;

/// How far into `line` its message starts when the line opens with a chat stamp and a
/// speaker: `Some(line.len())` when the line holds nothing else (a header above the message).
pub(super) fn message_start(line: &str) -> Option<usize> {
    static STAMP: OnceLock<Option<Regex>> = OnceLock::new();
    let stamp = regex(
        &STAMP,
        r"^(?:\S{1,12}[ \t]+){0,3}?[\[(<]?\d{1,2}:\d{2}(?::\d{2})?(?:[ \t]?[AaPp]\.?[Mm]\.?)?[\])>]?,?(?:[ \t]*[|—–-]?[ \t]*(?:<[^<>\s]{1,24}>|[\w.'-]{1,24}(?:[ \t][\w.'-]{1,24})?:)(?:[ \t]|$))?[ \t]*",
    )?;
    let found = stamp.find(line)?;
    Some(found.end())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rest(line: &str) -> Option<&str> {
        message_start(line).map(|at| &line[at..])
    }

    #[test]
    fn the_message_starts_after_a_stamp_and_a_speaker() {
        assert_eq!(
            rest("[3/12/26 2:15 PM] Alex: Thunder.pebble.4781"),
            Some("Thunder.pebble.4781")
        );
        assert_eq!(
            rest("2026-03-12 14:03:05 <lee> Harvest-copper-2815"),
            Some("Harvest-copper-2815")
        );
        assert_eq!(rest("#ops | 14:03 | omar: Winter-falcon-5937"), Some("Winter-falcon-5937"));
        assert_eq!(rest("Tom Berg, 10:42 AM"), Some(""));
        assert_eq!(rest("[09:15] raj: x"), Some("x"));
        // No time near the start: no stamp.
        assert_eq!(rest("the meeting moved to 10:30 tomorrow, see the notes"), None);
        assert_eq!(rest("Thunder.pebble.4781"), None);
    }
}
