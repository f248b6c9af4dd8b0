//! A view of text disguised by Unicode: characters that are drawn like ASCII ones read as
//! those (fullwidth forms `ｐａｓｓ１`, mathematical letters and digits `𝐏𝐚𝐬𝐬𝟏`, Cyrillic
//! and Greek letters drawn like Latin ones inside a Latin word `pаsswоrd`), characters that
//! draw nothing removed (zero-width spaces and joiners, the word joiner, a soft hyphen, a
//! byte order mark inside text), and spaces of other widths read as a space. A person reads
//! such a text as the ASCII it looks like; the rules read the view, and what they find is
//! redacted in the original.
//!
//! Invariant: a view is made only for a text holding one of these characters; every other
//! character is kept, and a Cyrillic or Greek letter is read as Latin only beside a Latin
//! letter, so text written in those scripts is read as it is.

use super::views::{View, decode_escapes};

/// Whether `text` holds a character this view reads otherwise (a cheap test first: ASCII
/// text holds none).
pub(super) fn has_disguises(text: &str) -> bool {
    !text.is_ascii() && text.char_indices().any(|(at, c)| folded(text, at, c).is_some())
}

/// `text` with its disguised characters read as what they look like (see the module).
pub(super) fn undisguised(text: &str) -> Option<View> {
    if !has_disguises(text) {
        return None;
    }
    decode_escapes(text, |bytes, at| {
        if bytes[at] < 0xc2 {
            return None;
        }
        let c = text.get(at..)?.chars().next()?;
        let out = folded(text, at, c)?;
        Some((out.map(|b| vec![b]).unwrap_or_default(), c.len_utf8()))
    })
}

/// What the character `c` at `at` of `text` reads as: `Some(Some(byte))` an ASCII character,
/// `Some(None)` nothing, `None` itself.
fn folded(text: &str, at: usize, c: char) -> Option<Option<u8>> {
    let code = c as u32;
    let ascii = |value: u32| Some(Some(value as u8));
    match code {
        0xFF01..=0xFF5E => ascii(code - 0xFF01 + 0x21),
        0x00A0 | 0x2000..=0x200A | 0x202F | 0x205F | 0x3000 => ascii(0x20),
        0x00AD | 0x180E | 0x200B..=0x200D | 0x2060 | 0xFEFF => Some(None),
        // Mathematical alphanumeric symbols: thirteen styles of A–Z and a–z, five of 0–9.
        0x1D400..=0x1D6A3 => {
            let index = (code - 0x1D400) % 52;
            ascii(if index < 26 { 0x41 + index } else { 0x61 + index - 26 })
        }
        0x1D7CE..=0x1D7FF => ascii(0x30 + (code - 0x1D7CE) % 10),
        _ => {
            let latin = look_alike(c)?;
            beside_latin(text, at, c).then_some(Some(latin))
        }
    }
}

/// The Latin letter a Cyrillic or Greek letter is drawn like, if any.
fn look_alike(c: char) -> Option<u8> {
    let latin = match c {
        'а' | 'α' => b'a',
        'с' => b'c',
        'ԁ' => b'd',
        'е' => b'e',
        'һ' => b'h',
        'і' | 'ι' => b'i',
        'ј' => b'j',
        'ӏ' => b'l',
        'о' | 'ο' => b'o',
        'р' | 'ρ' => b'p',
        'ѕ' => b's',
        'у' => b'y',
        'х' => b'x',
        'ν' => b'v',
        'А' | 'Α' => b'A',
        'В' | 'Β' => b'B',
        'С' => b'C',
        'Е' | 'Ε' => b'E',
        'Н' | 'Η' => b'H',
        'І' | 'Ι' => b'I',
        'Ј' => b'J',
        'К' | 'Κ' => b'K',
        'М' | 'Μ' => b'M',
        'О' | 'Ο' => b'O',
        'Р' | 'Ρ' => b'P',
        'Ѕ' => b'S',
        'Т' | 'Τ' => b'T',
        'Х' | 'Χ' => b'X',
        'Υ' | 'Ү' => b'Y',
        'Ζ' => b'Z',
        _ => return None,
    };
    Some(latin)
}

/// Whether the character `c` at `at` stands beside an ASCII letter (in a Latin word).
fn beside_latin(text: &str, at: usize, c: char) -> bool {
    let before = text[..at].chars().next_back();
    let after = text[at + c.len_utf8()..].chars().next();
    before.is_some_and(|b| b.is_ascii_alphabetic())
        || after.is_some_and(|a| a.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disguised_characters_read_as_what_they_look_like() {
        for (text, read) in [
            ("ｐａｓｓｗｏｒｄ：Ｋｅｓｔｒｅｌ２０", "password:Kestrel20"),
            ("𝐏𝐚𝐬𝐬𝐰𝐨𝐫𝐝: 𝟓𝐰𝐧", "Password: 5wn"),
            ("pw: a\u{200B}b\u{00AD}c\u{2060}d", "pw: abcd"),
            ("p\u{0430}ssw\u{043E}rd = x", "password = x"),
            ("user:\u{00A0}ops\u{3000}x", "user: ops x"),
        ] {
            let view = undisguised(text).unwrap();
            assert_eq!(view.text, read, "{text}");
        }
        // A span of the view covers the characters it was read from.
        let text = "k=ｘｙ";
        let view = undisguised(text).unwrap();
        assert_eq!(&text[view.source(2..4)], "ｘｙ");
        // Words of Cyrillic or Greek, and ASCII text: nothing to read.
        for text in ["Пароль: сервер", "κωδικός", "plain ascii", "日本語のテキスト"]
        {
            assert!(undisguised(text).is_none(), "{text}");
        }
    }
}
