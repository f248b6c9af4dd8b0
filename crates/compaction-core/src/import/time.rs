//! Times written into a session: each one a UTC time of the calendar, or not written.
//!
//! pi 1.6 reads an entry's `timestamp` with `new Date(…)` and a message's `timestamp` as
//! milliseconds. A transcript may hold a time no calendar has (month 13, `25:61`, year 0,
//! year 99999, `+25:00`), one with no zone, or one in another form. Every time an entry is
//! given passes through [`checked`]:
//! - a time of RFC 3339's form (`YYYY-MM-DDTHH:MM:SS(.f)` then `Z` or `±HH:MM`, every part
//!   in range, year 1 to 9999 in UTC) is kept as it is: JavaScript reads it as the same
//!   instant;
//! - a real time in another form (no zone, which JavaScript would read as local time and we
//!   read as UTC; a space for `T`; `+HHMM`; a lowercase `z`; no seconds) is written in UTC
//!   (`YYYY-MM-DDTHH:MM:SS.mmmZ`) and counted as converted;
//! - anything else is no time: the caller writes the previous time and counts it left out.
//!
//! This module reads the forms; the calendar (the days of each month, leap years, the
//! parts' ranges, the days between two dates) is the `jiff` crate's, without its time zone
//! database (no I/O).

use jiff::SignedDuration;
use jiff::civil::DateTime;

/// What a transcript's time is, for the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Checked {
    /// In pi's form already: written as it is.
    Kept(i64),
    /// A real time in another form: written as this UTC text.
    Converted(String, i64),
    /// No time of the calendar.
    Invalid,
}

/// The time `text` is, for the session (see the module's rules).
pub(super) fn checked(text: &str) -> Checked {
    let Some(parsed) = parse(text) else { return Checked::Invalid };
    let ms = parsed.millis;
    // Year 1 to 9999 in UTC too (an offset may move a time past either end).
    if !(MIN_MS..=MAX_MS).contains(&ms) {
        return Checked::Invalid;
    }
    if parsed.pi_form {
        return Checked::Kept(ms);
    }
    match utc_text(ms) {
        Some(text) => Checked::Converted(text, ms),
        None => Checked::Invalid,
    }
}

/// 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z in milliseconds.
const MIN_MS: i64 = -62_135_596_800_000;
const MAX_MS: i64 = 253_402_300_799_999;

struct Parsed {
    millis: i64,
    pi_form: bool,
}

fn parse(text: &str) -> Option<Parsed> {
    let b = text.as_bytes();
    let digits = |from: usize, to: usize| -> Option<i64> {
        let part = b.get(from..to)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| part.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0')))
    };
    if b.len() < 16
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b' ')
        || b[13] != b':'
    {
        return None;
    }
    let (year, month, day) = (digits(0, 4)?, digits(5, 7)?, digits(8, 10)?);
    let (hour, minute) = (digits(11, 13)?, digits(14, 16)?);
    let mut at = 16;
    let mut second = 0;
    let mut has_seconds = false;
    if b.get(at) == Some(&b':') {
        second = digits(17, 19)?;
        has_seconds = true;
        at = 19;
    }
    let mut fraction_ms = 0;
    if b.get(at) == Some(&b'.') {
        let count = b[at + 1..].iter().take_while(|d| d.is_ascii_digit()).count();
        if count == 0 || !has_seconds {
            return None;
        }
        let first: String = text[at + 1..at + 1 + count.min(3)].to_owned();
        fraction_ms = format!("{first:0<3}").parse::<i64>().ok()?;
        at += 1 + count;
    }
    let zone = &text[at..];
    let offset_minutes = match zone {
        "Z" => 0,
        "" | "z" => 0,
        _ => {
            let sign = match zone.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let rest = &zone[1..];
            let (hours, minutes) = match rest.len() {
                5 if rest.as_bytes()[2] == b':' => (&rest[..2], &rest[3..]),
                4 => (&rest[..2], &rest[2..]),
                _ => return None,
            };
            let all_digits = |s: &str| s.bytes().all(|d| d.is_ascii_digit());
            if !all_digits(hours) || !all_digits(minutes) {
                return None;
            }
            let (hours, minutes) = (hours.parse::<i64>().ok()?, minutes.parse::<i64>().ok()?);
            if hours > 23 || minutes > 59 {
                return None;
            }
            sign * (hours * 60 + minutes)
        }
    };
    // The calendar (days of each month, leap years, hours, minutes, seconds) is jiff's.
    if !(1..=9999).contains(&year) {
        return None;
    }
    let part = |n: i64| i8::try_from(n).ok();
    let local = DateTime::new(
        i16::try_from(year).ok()?,
        part(month)?,
        part(day)?,
        part(hour)?,
        part(minute)?,
        part(second)?,
        0,
    )
    .ok()?;
    let local_ms = i64::try_from(local.duration_since(EPOCH).as_millis()).ok()?;
    Some(Parsed {
        millis: local_ms - offset_minutes * 60_000 + fraction_ms,
        pi_form: b[10] == b'T'
            && has_seconds
            && (zone == "Z" || zone.len() == 6 && zone.as_bytes()[3] == b':'),
    })
}

/// 1970-01-01T00:00:00, the instant milliseconds count from (in UTC).
const EPOCH: DateTime = DateTime::constant(1970, 1, 1, 0, 0, 0, 0);

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` of milliseconds since the epoch; `None` past the years jiff's
/// calendar has (-9999 to 9999).
pub(super) fn utc_text(ms: i64) -> Option<String> {
    let at = EPOCH.checked_add(SignedDuration::from_millis(ms)).ok()?;
    Some(format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        at.year(),
        at.month(),
        at.day(),
        at.hour(),
        at.minute(),
        at.second(),
        at.millisecond()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pi_form_is_kept_other_forms_converted_and_no_calendar_time_refused() {
        assert_eq!(checked("2025-07-15T05:07:22.709Z"), Checked::Kept(1_752_556_042_709));
        assert_eq!(checked("1970-01-01T00:00:00Z"), Checked::Kept(0));
        assert_eq!(checked("2025-07-15T07:07:22.7+02:00"), Checked::Kept(1_752_556_042_700));
        assert_eq!(
            checked("2025-07-15T07:07:22.7+0200"),
            Checked::Converted("2025-07-15T05:07:22.700Z".into(), 1_752_556_042_700)
        );
        assert_eq!(
            checked("2025-07-15T05:07:22"),
            Checked::Converted("2025-07-15T05:07:22.000Z".into(), 1_752_556_042_000)
        );
        assert_eq!(
            checked("2025-07-15 05:07"),
            Checked::Converted("2025-07-15T05:07:00.000Z".into(), 1_752_556_020_000)
        );
        for wrong in [
            "2025-13-01T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2024-04-31T00:00:00Z",
            "2025-01-01T25:61:00Z",
            "2025-01-01T23:59:60Z",
            "0000-01-01T00:00:00Z",
            "0001-01-01T00:30:00+01:00",
            "99999-01-01T00:00:00Z",
            "2025-01-01T00:00:00+25:00",
            "2025-01-01T00:00:00Zjunk",
            "2025-01-01T00:00:00.Z",
            "yesterday",
            "",
        ] {
            assert_eq!(checked(wrong), Checked::Invalid, "{wrong}");
        }
    }

    #[test]
    fn utc_text_reads_back_as_the_same_instant() {
        for ms in [0, 1_752_556_042_709, MIN_MS, MAX_MS, 951_782_400_000, -1] {
            assert_eq!(checked(&utc_text(ms).unwrap()), Checked::Kept(ms), "{ms}");
        }
    }
}
