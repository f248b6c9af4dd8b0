//! A view of bytes written as numbers or characters apart: hexadecimal pairs (`od -An
//! -tx1`, `hexdump -C`, a packet's payload), `0x44, 0x61, …` arrays, character codes
//! (`String.fromCharCode(68, 97, …)`, `[]byte{…}`) and `'D', 'a', …` initialisers, read as
//! the text they spell so that the rules see it (`$PGPASSWORD | od -An -tx1` ⏎ `44 61 …`).
//!
//! Invariant: a run is read only when it has at least eight bytes in one notation, every
//! byte is printable text (or a tab or line break), it spells a letter, and a run of pairs
//! holds a hexadecimal letter, so tables of numbers and binary dumps are left as they are.

use super::views::{View, decode_escapes, is_printable, is_text};

/// Fewest bytes in a spaced run read as text.
const MIN_SPACED_BYTES: usize = 8;

/// Most bytes read as one run (a longer run goes on as the next): each position of a text
/// may start a run, so the reading of each is bounded.
const MAX_SPACED_BYTES: usize = 512;

/// How the bytes of a run are written.
#[derive(Clone, Copy, PartialEq)]
enum Notation {
    /// Two hexadecimal digits apart by one or two spaces (`44 61 68`).
    HexPairs,
    /// `0x44, 0x61` (a C, Java or Python array).
    HexLiterals,
    /// `68, 97, 104` (character codes: `String.fromCharCode`, `[]byte{…}`, `[char[]]`).
    Decimal,
    /// `'D', 'a', 'h'` (a `char[]` initialiser).
    QuotedChars,
    /// Two hexadecimal digits apart by commas (`44,61,68`: a registry export's `hex:`).
    HexCommaPairs,
    /// Eight binary digits apart by a space (`01000100 01100001`).
    Binary,
}

/// `text` with every run of at least [`MIN_SPACED_BYTES`] bytes written as numbers or
/// characters apart (`44 61 68 6c …`, `0x44, 0x61, …`, `68, 97, …`, `'D', 'a', …`) that
/// spells text replaced by that text.
pub(super) fn written_bytes(text: &str) -> Option<View> {
    if !may_hold(text) {
        return None;
    }
    decode_escapes(text, |bytes, at| {
        if at > 0
            && !matches!(
                bytes[at - 1],
                b' ' | b'\t' | b'\n' | b'|' | b':' | b'(' | b'"' | b'[' | b'{'
            )
        {
            return None;
        }
        written_run(bytes, at)
    })
}

/// Whether `text` may hold bytes written apart (a cheap test before [`written_bytes`]).
pub(super) fn may_hold(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.windows(4).any(|w| {
        w[0].is_ascii_alphanumeric() && w[1] == b',' && w[2] == b' ' && w[3] != b' '
            || w[0].is_ascii_hexdigit()
                && w[1].is_ascii_hexdigit()
                && matches!(w[2], b' ' | b',')
                && w[3].is_ascii_hexdigit()
            || w[0] == b'\'' && w[1] == b',' && (w[2] == b'\'' || w[3] == b'\'')
    }) || hex_literal_at_any(bytes)
        || bytes.windows(10).any(|w| {
            w[..8].iter().all(|b| matches!(b, b'0' | b'1'))
                && w[8] == b' '
                && matches!(w[9], b'0' | b'1')
        })
}

/// The byte of one item written in `notation` at `at`, and where the item ends.
fn item(bytes: &[u8], at: usize, notation: Notation) -> Option<(u8, usize)> {
    let hex = |b: u8| (b as char).to_digit(16);
    let rest = &bytes[at..];
    let (value, end) = match notation {
        Notation::QuotedChars => {
            (rest.len() >= 3 && rest[0] == b'\'' && rest[2] == b'\'').then_some(())?;
            (u32::from(rest[1]), at + 3)
        }
        Notation::HexLiterals => {
            (rest.starts_with(b"0x") || rest.starts_with(b"0X")).then_some(())?;
            (hex(*rest.get(2)?)? * 16 + hex(*rest.get(3)?)?, at + 4)
        }
        Notation::HexPairs | Notation::HexCommaPairs => {
            (hex(*rest.first()?)? * 16 + hex(*rest.get(1)?)?, at + 2)
        }
        Notation::Binary => {
            let digits = rest.get(..8)?;
            digits.iter().all(|b| matches!(b, b'0' | b'1')).then_some(())?;
            (digits.iter().fold(0u32, |acc, &b| acc * 2 + u32::from(b - b'0')), at + 8)
        }
        Notation::Decimal => {
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            (1..=3).contains(&digits).then_some(())?;
            (std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?, at + digits)
        }
    };
    if bytes.get(end).is_some_and(u8::is_ascii_alphanumeric) || value > 0x7e {
        return None;
    }
    let byte = value as u8;
    // A zero byte is kept for the run to tell UTF-16 text (`50 00 61 00`) from a binary one.
    (is_printable(byte) || byte == 0).then_some((byte, end))
}

/// Whether `bytes` holds a hexadecimal literal of at least 16 digits after `0x`.
fn hex_literal_at_any(bytes: &[u8]) -> bool {
    memchr::memmem::find_iter(bytes, b"0x")
        .any(|at| bytes[at + 2..].iter().take(16).filter(|b| b.is_ascii_hexdigit()).count() == 16)
}

/// A hexadecimal literal (`0x…`, 16 digits or more, an even number) that spells text, ASCII
/// or UTF-16 (`CONVERT(NVARCHAR(100), 0x5000…)`): the text and the literal's width.
fn hex_literal(bytes: &[u8], at: usize) -> Option<(Vec<u8>, usize)> {
    let rest = bytes.get(at..)?;
    if !(rest.starts_with(b"0x") || rest.starts_with(b"0X")) {
        return None;
    }
    let digits = rest[2..].iter().take_while(|b| b.is_ascii_hexdigit()).count();
    if digits < 16
        || !digits.is_multiple_of(2)
        || digits > 2 * MAX_SPACED_BYTES
        || rest.get(2 + digits).is_some_and(u8::is_ascii_alphanumeric)
    {
        return None;
    }
    let hex = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
    let out: Vec<u8> =
        rest[2..2 + digits].chunks(2).map(|pair| hex(pair[0]) * 16 + hex(pair[1])).collect();
    let text = utf16_narrow(&out).unwrap_or(out);
    is_text(&text).then_some((text, 2 + digits))
}

/// Bytes that are UTF-16 little-endian text of one-byte characters (`50 00 61 00`, a trailing
/// `00 00` allowed), as those characters; `None` for anything else.
fn utf16_narrow(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut end = bytes.len();
    while end >= 2 && bytes[end - 2..end] == [0, 0] {
        end -= 2;
    }
    let units = &bytes[..end];
    (units.len() >= 8
        && units.len().is_multiple_of(2)
        && units.chunks(2).all(|pair| pair[0] != 0 && pair[1] == 0))
    .then(|| units.iter().step_by(2).copied().collect())
}

/// The notation of a run starting at `at`: hexadecimal pairs when the first is followed by a
/// space, the others when it is followed by a comma.
fn notations_at(bytes: &[u8], at: usize) -> Vec<Notation> {
    let mut out = Vec::new();
    for notation in
        [Notation::QuotedChars, Notation::HexLiterals, Notation::Decimal, Notation::HexCommaPairs]
    {
        if let Some((_, end)) = item(bytes, at, notation)
            && bytes.get(end) == Some(&b',')
        {
            out.push(notation);
        }
    }
    for notation in [Notation::HexPairs, Notation::Binary] {
        if item(bytes, at, notation).is_some_and(|(_, end)| bytes.get(end) == Some(&b' ')) {
            out.push(notation);
        }
    }
    out
}

/// The bytes a run starting at `at` spells and the run's width, when it is one: every item
/// in one notation, apart by a comma (and spaces) or, for hexadecimal pairs, by one or two
/// spaces (`hexdump -C` leaves two in the middle of a line); of the notations the run may be
/// read in (`50,00,61` is decimal or hexadecimal), the longest reading. A hexadecimal literal
/// (`0x…`) that spells text is one too.
fn written_run(bytes: &[u8], at: usize) -> Option<(Vec<u8>, usize)> {
    if let Some(found) = hex_literal(bytes, at) {
        return Some(found);
    }
    notations_at(bytes, at)
        .into_iter()
        .filter_map(|notation| run_in(bytes, at, notation))
        .max_by_key(|(_, width)| *width)
}

/// The run starting at `at` read in `notation` (see [`written_run`]). Zero bytes end it,
/// unless the run is UTF-16 text (`50 00 61 00`), which is read as its characters.
fn run_in(bytes: &[u8], at: usize, notation: Notation) -> Option<(Vec<u8>, usize)> {
    let mut out = Vec::new();
    let mut ends = Vec::new();
    let mut next = at;
    let mut hex_letter = false;
    while let Some((byte, item_end)) = item(bytes, next, notation) {
        hex_letter |= bytes[next..item_end].iter().any(u8::is_ascii_alphabetic);
        out.push(byte);
        ends.push(item_end);
        if out.len() >= MAX_SPACED_BYTES {
            break;
        }
        let end = item_end;
        let mut gap = end;
        if matches!(notation, Notation::HexPairs | Notation::Binary) {
            while gap < bytes.len() && bytes[gap] == b' ' && gap - end < 2 {
                gap += 1;
            }
        } else {
            if bytes.get(gap) != Some(&b',') {
                break;
            }
            gap += 1;
            while gap < bytes.len() && bytes[gap] == b' ' && gap - end < 3 {
                gap += 1;
            }
        }
        if gap == end {
            break;
        }
        next = gap;
    }
    if out.contains(&0) {
        match utf16_narrow(&out) {
            Some(narrow) => out = narrow,
            None => {
                let first = out.iter().position(|&b| b == 0)?;
                out.truncate(first);
                ends.truncate(first);
            }
        }
    }
    let end = *ends.last()?;
    // Pairs of digits alone are as often a table of numbers.
    let pairs = matches!(notation, Notation::HexPairs | Notation::HexCommaPairs);
    let telling = !pairs || hex_letter;
    let letters = out.iter().any(u8::is_ascii_alphabetic);
    (out.len() >= MIN_SPACED_BYTES && letters && telling).then_some((out, end - at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_bytes_bytes_that_spell_text_are_read() {
        let view = written_bytes("od:\n 44 61 68 6c 69 61 21 34 39 32 31 36\n").unwrap();
        assert_eq!(view.text, "od:\n Dahlia!49216\n");
        let dump = "00000000  44 42 5f 50 41 53 53 57  4f 52 44 3d 53 65 71 75  |DB_PASSWORD=Sequ|";
        assert!(written_bytes(dump).unwrap().text.contains("DB_PASSWORD=Sequ  |"));
        // Numbers of two digits, binary bytes, short runs: left alone.
        for (text, spelled) in [
            ("String.fromCharCode(68, 97, 104, 108, 105, 97, 33, 52, 57)", "(Dahlia!49)"),
            ("bytes([0x44, 0x61, 0x68, 0x6c, 0x69, 0x61, 0x21, 0x34])", "([Dahlia!4])"),
            ("char[] p = {'D', 'a', 'h', 'l', 'i', 'a', '!', '4'};", "{Dahlia!4}"),
            (
                "pw: 01000100 01100001 01101000 01101100 01101001 01100001 00100001 00110100",
                "pw: Dahlia!4",
            ),
        ] {
            assert!(written_bytes(text).unwrap().text.contains(spelled), "{text}");
        }
        // UTF-16 text written as bytes, and a hexadecimal literal that spells text.
        for (text, spelled) in [
            ("\"Pw\"=hex(2):50,00,75,00,6d,00,69,00,63,00,65,00,35,00,36,00,00,00", ":Pumice56"),
            ("xxd: 54 00 61 00 6d 00 61 00 72 00 69 00 6e 00 64 00", "xxd: Tamarind"),
            ("CONVERT(NVARCHAR(100), 0x730061006600660072006f006e003900)", ", saffron9)"),
            ("UNHEX(0x44425f504153533d4142)", "(DB_PASS=AB)"),
        ] {
            assert!(written_bytes(text).unwrap().text.contains(spelled), "{text}");
        }
        for text in [
            "10 20 30 40 50 60 70 80 90",
            "[1, 2, 3, 4, 5, 6, 7, 8, 9]",
            "ports: 80, 443, 8080, 9090, 3000, 5000, 6000, 7000",
            "ff fe 00 01 9c 8d 7a 6b 5c 4d",
            "de ad be ef",
            "mac 00:1a:2b:3c:4d:5e",
            "00 00 00 00 41 42 43 44 45 46 47 48 00",
            "0x0000000000000000000000000000000000000000",
            "0xd3c21bcecceda1000000",
        ] {
            assert!(written_bytes(text).is_none(), "{text}");
        }
    }
}
