//! A view of bytes written as numbers or characters apart: hexadecimal pairs (`od -An
//! -tx1`, `hexdump -C`, a packet's payload), `0x44, 0x61, …` arrays, character codes
//! (`String.fromCharCode(68, 97, …)`, `[]byte{…}`) and `'D', 'a', …` initialisers, read as
//! the text they spell so that the rules see it (`$PGPASSWORD | od -An -tx1` ⏎ `44 61 …`).
//!
//! Invariant: a run is read only when it has at least eight bytes in one notation, every
//! byte is printable text (or a tab or line break), it spells a letter, and a run of pairs
//! holds a hexadecimal letter, so tables of numbers and binary dumps are left as they are.

use super::views::{View, decode_escapes};

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
}

/// `text` with every run of at least [`MIN_SPACED_BYTES`] bytes written as numbers or
/// characters apart (`44 61 68 6c …`, `0x44, 0x61, …`, `68, 97, …`, `'D', 'a', …`) that
/// spells text replaced by that text.
pub(super) fn written_bytes(text: &str) -> Option<View> {
    let bytes = text.as_bytes();
    let has = bytes.windows(4).any(|w| {
        w[0].is_ascii_alphanumeric() && w[1] == b',' && w[2] == b' ' && w[3] != b' '
            || w[0].is_ascii_hexdigit()
                && w[1].is_ascii_hexdigit()
                && w[2] == b' '
                && w[3].is_ascii_hexdigit()
            || w[0] == b'\'' && w[1] == b',' && (w[2] == b'\'' || w[3] == b'\'')
    });
    if !has {
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
        Notation::HexPairs => (hex(*rest.first()?)? * 16 + hex(*rest.get(1)?)?, at + 2),
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
    ((0x20..0x7f).contains(&byte) || matches!(byte, b'\t' | b'\n' | b'\r')).then_some((byte, end))
}

/// The notation of a run starting at `at`: hexadecimal pairs when the first is followed by a
/// space, the others when it is followed by a comma.
fn notation_at(bytes: &[u8], at: usize) -> Option<Notation> {
    for notation in [Notation::QuotedChars, Notation::HexLiterals, Notation::Decimal] {
        if let Some((_, end)) = item(bytes, at, notation)
            && bytes.get(end) == Some(&b',')
        {
            return Some(notation);
        }
    }
    item(bytes, at, Notation::HexPairs)
        .filter(|&(_, end)| bytes.get(end) == Some(&b' '))
        .map(|_| Notation::HexPairs)
}

/// The bytes a run starting at `at` spells and the run's width, when it is one: every item
/// in one notation, apart by a comma (and spaces) or, for hexadecimal pairs, by one or two
/// spaces (`hexdump -C` leaves two in the middle of a line).
fn written_run(bytes: &[u8], at: usize) -> Option<(Vec<u8>, usize)> {
    let notation = notation_at(bytes, at)?;
    let mut out = Vec::new();
    let mut next = at;
    let mut end = at;
    let mut hex_letter = false;
    while let Some((byte, item_end)) = item(bytes, next, notation) {
        hex_letter |= bytes[next..item_end].iter().any(u8::is_ascii_alphabetic);
        out.push(byte);
        end = item_end;
        if out.len() >= MAX_SPACED_BYTES {
            break;
        }
        let mut gap = end;
        if notation == Notation::HexPairs {
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
    // Pairs of digits alone are as often a table of numbers.
    let telling = notation != Notation::HexPairs || hex_letter;
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
        ] {
            assert!(written_bytes(text).is_none(), "{text}");
        }
    }
}
