//! Decoded views of a text: the text with one level of JSON (or PHP `\/`) escaping undone, or
//! with URL encoding undone, each byte mapped back to where it came from. The rules run on the
//! view; what they redact there is redacted in the original (the escaped span as a whole), so
//! a secret hidden by escaping or double escaping is found without changing the text around
//! it.
//!
//! Invariant: a view maps every decoded byte boundary to a byte boundary of the original, and
//! a redaction found in a view replaces exactly the original bytes it decoded from.

use std::ops::Range;

use super::REDACTED;

/// A decoded text and, for each byte boundary of it, the offset in the original.
pub(super) struct View {
    pub(super) text: String,
    /// `origin[i]` is where decoded byte `i` starts in the original; `origin[len]` is the end.
    origin: Vec<usize>,
}

/// Whether a decoded byte is text: a printable ASCII character, a tab or a line break.
pub(super) fn is_printable(byte: u8) -> bool {
    (0x20..0x7f).contains(&byte) || matches!(byte, b'\t' | b'\n' | b'\r')
}

/// Whether decoded bytes are text with a letter (what a decoding that spells text gives,
/// where binary data and look-alikes do not).
pub(super) fn is_text(bytes: &[u8]) -> bool {
    bytes.iter().all(|&b| is_printable(b)) && bytes.iter().any(u8::is_ascii_alphabetic)
}

impl View {
    /// The original's range that decoded to `range` of the view. A range that ends inside
    /// what one escape decoded to (a line of a blob decoded where it stands) ends where that
    /// escape ends, so that the whole escape is covered.
    pub(super) fn source(&self, range: Range<usize>) -> Range<usize> {
        let start = self.origin[range.start];
        if range.is_empty() {
            return start..self.origin[range.end];
        }
        let last = self.origin[range.end - 1];
        let mut end = range.end;
        while end < self.origin.len() - 1 && self.origin[end] == last {
            end += 1;
        }
        start..self.origin[end]
    }

    /// A view of this view (decoded once more), mapped back to the original.
    pub(super) fn decode(&self, how: Decoding) -> Option<View> {
        let inner = how.apply(&self.text)?;
        let origin = inner.origin.iter().map(|&at| self.origin[at]).collect();
        Some(View { text: inner.text, origin })
    }

    /// A copy of this view.
    pub(super) fn clone_view(&self) -> View {
        View { text: self.text.clone(), origin: self.origin.clone() }
    }

    /// The text itself, as a view of itself.
    pub(super) fn identity(text: &str) -> View {
        View { text: text.to_owned(), origin: (0..=text.len()).collect() }
    }
}

/// One way of decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Decoding {
    /// JSON string escapes (`\"`, `\\`, `\/`, `\n`, `\uXXXX`) undone.
    JsonEscapes,
    /// `%XX` undone.
    Url,
    /// A URL's query or a form body read as lines: URL encoding and `+` for a space undone,
    /// and each parameter's value starting a line of its own (`?text=sentinel%20auth-pass…`
    /// reads `sentinel auth-pass…` as a line, as it was before it was put in a URL).
    QueryLines,
    /// HTML and XML character references undone: `&quot;` `&apos;` `&lt;` `&gt;` `&amp;`,
    /// `&#N;` and `&#xN;`.
    Entities,
    /// Byte and character escapes of C, Python, shell and many more undone: `\xNN`, octal
    /// `\NNN` of a printable character, `\u{N…}` (JavaScript, Rust, Swift, Ruby).
    ByteEscapes,
    /// Bytes written as numbers or characters apart (`od -tx1`, `hexdump -C`, a packet's
    /// bytes, `0x44, 0x61, …`, character codes, `'D', 'a', …`) read as the text they spell,
    /// when they spell text.
    WrittenBytes,
    /// Pieces of one value put together again: a line continuation (`\`, `^` or `` ` ``
    /// ending a line, and the next line's indent) removed, and string literals joined where
    /// only a concatenation stands between them (`"ab" "cd"`, `'ab' + 'cd'`, `"ab" .. "cd"`,
    /// `'ab' . 'cd'`, across line breaks).
    Joined,
    /// A table drawn with box-drawing characters read as one drawn with ASCII: vertical bars
    /// (`│ ┃ ║ ┆ ┊`) as `|`, every other box-drawing character (lines, corners, junctions) as
    /// `-`, so that the rules and the finders of tables drawn with `|` read it.
    BoxDrawing,
    /// Encodings that mark where they start and end, decoded where they stand: Ascii85
    /// (`<~…~>`) and uuencoded files (`begin 644 name` ⏎ …), when they spell text.
    Blobs,
    /// The NULs of UTF-16 text read as bytes removed (`p\0a\0s\0s\0`, `cat -v`'s `p^@a^@`).
    Nuls,
    /// Characters drawn like ASCII ones read as those (fullwidth, mathematical, Cyrillic or
    /// Greek look-alikes in a Latin word), and characters that draw nothing removed.
    Disguises,
    /// Single characters standing apart (`P a s s w o r d`) read together.
    Spaced,
}

impl Decoding {
    /// The decoded view of `text`, or `None` when there is nothing to decode.
    fn apply(self, text: &str) -> Option<View> {
        match self {
            Decoding::JsonEscapes => text.contains('\\').then(|| unescape(text)).flatten(),
            Decoding::Url => text.contains('%').then(|| url_decode(text)).flatten(),
            Decoding::QueryLines => has_query(text).then(|| query_lines(text)).flatten(),
            Decoding::Entities => text.contains('&').then(|| entities(text)).flatten(),
            Decoding::ByteEscapes => has_byte_escapes(text).then(|| byte_escapes(text)).flatten(),
            Decoding::WrittenBytes => super::dumps::written_bytes(text),
            Decoding::Joined => has_joins(text).then(|| joined(text)).flatten(),
            Decoding::BoxDrawing => has_box_drawing(text).then(|| box_drawing(text)).flatten(),
            Decoding::Blobs => super::blobs::blobs(text),
            Decoding::Nuls => super::blobs::nuls(text),
            Decoding::Disguises => super::disguises::undisguised(text),
            Decoding::Spaced => super::spaced::joined_letters(text),
        }
    }
}

/// `text` with every escape `step` recognises decoded: `step(bytes, at)` gives the bytes an
/// escape starting at `at` decodes to and its width in the original. `None` when nothing was
/// decoded or the result is not UTF-8.
pub(super) fn decode_escapes(
    text: &str,
    step: impl Fn(&[u8], usize) -> Option<(Vec<u8>, usize)>,
) -> Option<View> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut origin = Vec::with_capacity(bytes.len() + 1);
    let mut at = 0;
    let mut changed = false;
    while at < bytes.len() {
        if let Some((decoded, width)) = step(bytes, at) {
            for byte in decoded {
                origin.push(at);
                out.push(byte);
            }
            at += width;
            changed = true;
            continue;
        }
        origin.push(at);
        out.push(bytes[at]);
        at += 1;
    }
    origin.push(bytes.len());
    let text = String::from_utf8(out).ok()?;
    changed.then_some(View { text, origin })
}

fn unescape(text: &str) -> Option<View> {
    decode_escapes(text, |bytes, at| {
        if bytes[at] != b'\\' || at + 1 >= bytes.len() {
            return None;
        }
        match bytes[at + 1] {
            b'"' => Some((vec![b'"'], 2)),
            b'\\' => Some((vec![b'\\'], 2)),
            b'/' => Some((vec![b'/'], 2)),
            b'\'' => Some((vec![b'\''], 2)),
            b'n' => Some((vec![b'\n'], 2)),
            b'r' => Some((vec![b'\r'], 2)),
            b't' => Some((vec![b'\t'], 2)),
            b'u' => text
                .get(at + 2..at + 6)
                .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                .and_then(char::from_u32)
                .map(|c| (c.to_string().into_bytes(), 6)),
            _ => None,
        }
    })
}

fn url_decode(text: &str) -> Option<View> {
    let hex = |b: u8| (b as char).to_digit(16);
    decode_escapes(text, |bytes, at| {
        if bytes[at] != b'%' {
            return None;
        }
        let high = bytes.get(at + 1).and_then(|&b| hex(b))?;
        let low = bytes.get(at + 2).and_then(|&b| hex(b))?;
        Some((vec![(high * 16 + low) as u8], 3))
    })
}

/// Whether `text` holds a URL-encoded query parameter: `?name=` or `&name=` with a `%XX`
/// escape somewhere after it.
/// Whether `text` may hold a line continuation or literals put together (see
/// [`Decoding::Joined`]).
pub(super) fn has_joins(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(at, &b)| {
        b == b'\n' && at > 0 && {
            let before =
                if bytes[at - 1] == b'\r' && at > 1 { bytes[at - 2] } else { bytes[at - 1] };
            matches!(before, b'\\' | b'^' | b'`')
        }
    }) || (0..bytes.len()).any(|at| literal_join(bytes, at).is_some())
}

/// The width of a join of two string literals at `at`: a closing quote, blanks (line breaks
/// too), at most one of `+`, `.`, `..`, `&` or a line continuation, blanks, and the same quote
/// opening the next literal. `None` when there is none.
fn literal_join(bytes: &[u8], at: usize) -> Option<usize> {
    let quote = *bytes.get(at)?;
    if !matches!(quote, b'"' | b'\'') || at == 0 || !bytes[at - 1].is_ascii_alphanumeric() {
        return None;
    }
    let blanks = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let mut i = blanks(at + 1);
    let operator = if bytes[i..].starts_with(b"..") {
        2
    } else if matches!(bytes.get(i), Some(b'+' | b'.' | b'&' | b'\\')) {
        1
    } else {
        0
    };
    i = blanks(i + operator);
    let next = *bytes.get(i)?;
    (next == quote && i > at + 1 && bytes.get(i + 1).is_some_and(u8::is_ascii_alphanumeric))
        .then_some(i + 1 - at)
}

/// `text` with line continuations removed and joined literals put together.
fn joined(text: &str) -> Option<View> {
    decode_escapes(text, |bytes, at| {
        let b = bytes[at];
        if matches!(b, b'\\' | b'^' | b'`') {
            let mut i = at + 1;
            if bytes.get(i) == Some(&b'\r') {
                i += 1;
            }
            if bytes.get(i) != Some(&b'\n') {
                return None;
            }
            i += 1;
            while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
                i += 1;
            }
            return Some((Vec::new(), i - at));
        }
        literal_join(bytes, at).map(|width| (Vec::new(), width))
    })
}

/// Whether `text` holds a box-drawing character (U+2500 to U+257F).
pub(super) fn has_box_drawing(text: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), b"\xe2\x94").is_some()
        || memchr::memmem::find(text.as_bytes(), b"\xe2\x95").is_some()
}

/// `text` with box-drawing characters written in ASCII (see [`Decoding::BoxDrawing`]).
fn box_drawing(text: &str) -> Option<View> {
    decode_escapes(text, |bytes, at| {
        let lead = bytes.get(at..at + 3)?;
        if lead[0] != 0xe2 || !matches!(lead[1], 0x94 | 0x95) {
            return None;
        }
        let c = std::str::from_utf8(lead).ok()?.chars().next()?;
        let ascii = if matches!(c, '│' | '┃' | '║' | '┆' | '┇' | '┊' | '┋' | '╎' | '╏')
        {
            b'|'
        } else {
            b'-'
        };
        Some((vec![ascii], 3))
    })
}

fn has_query(text: &str) -> bool {
    let bytes = text.as_bytes();
    let Some(last_escape) = bytes
        .windows(3)
        .rposition(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit())
    else {
        return false;
    };
    bytes[..last_escape].iter().enumerate().any(|(at, &b)| {
        matches!(b, b'?' | b'&')
            && bytes[at + 1..last_escape]
                .iter()
                .take(64)
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
                .count()
                .checked_add(at + 1)
                .is_some_and(|end| end > at + 1 && bytes.get(end) == Some(&b'='))
    })
}

fn query_lines(text: &str) -> Option<View> {
    let hex = |b: u8| (b as char).to_digit(16);
    let name_byte =
        |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'[' | b']');
    decode_escapes(text, |bytes, at| match bytes[at] {
        b'%' => {
            let high = bytes.get(at + 1).and_then(|&b| hex(b))?;
            let low = bytes.get(at + 2).and_then(|&b| hex(b))?;
            Some((vec![(high * 16 + low) as u8], 3))
        }
        b'+' => Some((vec![b' '], 1)),
        b'=' => {
            let from = at.saturating_sub(64);
            let name_start = bytes[from..at].iter().rposition(|b| !name_byte(b))? + from;
            (matches!(bytes[name_start], b'?' | b'&' | b';') && name_start + 1 < at)
                .then(|| (vec![b'\n'], 1))
        }
        _ => None,
    })
}

fn entities(text: &str) -> Option<View> {
    decode_escapes(text, |bytes, at| {
        if bytes[at] != b'&' {
            return None;
        }
        let rest = &bytes[at + 1..bytes.len().min(at + 12)];
        let end = rest.iter().position(|&b| b == b';')?;
        let name = std::str::from_utf8(&rest[..end]).ok()?;
        let c = match name {
            "quot" => '"',
            "apos" => '\'',
            "lt" => '<',
            "gt" => '>',
            "amp" => '&',
            _ => {
                let number = name.strip_prefix('#')?;
                let code = match number.strip_prefix(['x', 'X']) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                    None => number.parse().ok()?,
                };
                char::from_u32(code)?
            }
        };
        Some((c.to_string().into_bytes(), end + 2))
    })
}

/// Whether `text` may hold a byte escape: `\x`, `\u{`, or `\` and three octal digits.
fn has_byte_escapes(text: &str) -> bool {
    memchr::memchr_iter(b'\\', text.as_bytes()).any(|at| {
        let rest = &text.as_bytes()[at + 1..];
        rest.starts_with(b"x")
            || rest.starts_with(b"u{")
            || rest.len() >= 3 && rest[..3].iter().all(|b| (b'0'..=b'7').contains(b))
    })
}

fn byte_escapes(text: &str) -> Option<View> {
    let hex = |b: u8| (b as char).to_digit(16);
    decode_escapes(text, |bytes, at| {
        if bytes[at] != b'\\' {
            return None;
        }
        match *bytes.get(at + 1)? {
            b'x' => {
                let high = bytes.get(at + 2).and_then(|&b| hex(b))?;
                let low = bytes.get(at + 3).and_then(|&b| hex(b))?;
                Some((vec![(high * 16 + low) as u8], 4))
            }
            b'u' if bytes.get(at + 2) == Some(&b'{') => {
                let digits = bytes[at + 3..].iter().take(7).take_while(|b| b.is_ascii_hexdigit());
                let width = digits.count();
                (bytes.get(at + 3 + width) == Some(&b'}') && width > 0).then_some(())?;
                let code = u32::from_str_radix(text.get(at + 3..at + 3 + width)?, 16).ok()?;
                Some((char::from_u32(code)?.to_string().into_bytes(), width + 4))
            }
            b'0'..=b'3' => {
                let digits = bytes.get(at + 1..at + 4)?;
                digits.iter().all(|b| (b'0'..=b'7').contains(b)).then_some(())?;
                let value = digits.iter().fold(0u32, |acc, &b| acc * 8 + u32::from(b - b'0'));
                (0x20..0x7f).contains(&value).then(|| (vec![value as u8], 4))
            }
            _ => None,
        }
    })
}

/// The ranges of `view` that `redacted` (the view after redaction) replaced with
/// `[REDACTED]`. `None` when the two cannot be aligned (then the caller redacts the whole
/// view).
pub(super) fn replaced(view: &str, redacted: &str) -> Option<Vec<Range<usize>>> {
    let v = view.as_bytes();
    let r = redacted.as_bytes();
    let marker = REDACTED.as_bytes();
    let mut spans = Vec::new();
    let (mut i, mut j) = (0, 0);
    while j < r.len() {
        if r[j..].starts_with(marker) && !v[i..].starts_with(marker) {
            // Skip adjacent markers: they are one replaced stretch.
            let mut after = j;
            while r[after..].starts_with(marker) {
                after += marker.len();
            }
            let chunk_end = find(&r[after..], marker).map_or(r.len(), |offset| after + offset);
            let chunk = &r[after..chunk_end];
            let end = if chunk_end == r.len() {
                v.len().checked_sub(chunk.len()).filter(|&end| v[end..] == *chunk && end > i)?
            } else {
                i + 1 + find(v.get(i + 1..)?, chunk)?
            };
            spans.push(i..end);
            i = end;
            j = after;
            continue;
        }
        if i < v.len() && v[i] == r[j] {
            i += 1;
            j += 1;
        } else {
            return None;
        }
    }
    (i == v.len()).then_some(spans)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    memchr::memmem::find(haystack, needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_undone_and_mapped_back() {
        let text = r#"{"dsn":"mysql:\/\/app:pw@db\/shop","n":"a\nb"}"#;
        let view = Decoding::JsonEscapes.apply(text).unwrap();
        assert_eq!(view.text, "{\"dsn\":\"mysql://app:pw@db/shop\",\"n\":\"a\nb\"}");
        let at = view.text.find("pw").unwrap();
        assert_eq!(&text[view.source(at..at + 2)], "pw");
        let double = r#"{\"p\": \"x\\\/y\"}"#;
        let once = Decoding::JsonEscapes.apply(double).unwrap();
        let twice = once.decode(Decoding::JsonEscapes).unwrap();
        assert_eq!(twice.text, "{\"p\": \"x/y\"}");
        let at = twice.text.find("x/y").unwrap();
        assert_eq!(&double[twice.source(at..at + 3)], r"x\\\/y");
        let url = Decoding::Url.apply("a%3Db%26c").unwrap();
        assert_eq!(url.text, "a=b&c");
        assert_eq!(url.source(2..3), 4..5);
        let lines = Decoding::QueryLines.apply("/s?text=auth-pass%20x%40y+z&n=1").unwrap();
        assert_eq!(lines.text, "/s?text\nauth-pass x@y z&n\n1");
        let html = Decoding::Entities.apply("a=&quot;x&#62;&#x3c;&amp;lt;").unwrap();
        assert_eq!(html.text, "a=\"x><&lt;");
        assert_eq!(html.source(2..3), 2..8);
        let bytes = Decoding::ByteEscapes.apply(r"k=\x41\x42!").unwrap();
        assert_eq!(bytes.text, "k=AB!");
        assert_eq!(bytes.source(3..4), 6..10);
        let other = Decoding::ByteEscapes.apply(r"k=\101\102 \u{43}\u{1F600} \0 \400").unwrap();
        assert_eq!(other.text, "k=AB C\u{1F600} \\0 \\400");
        let table = Decoding::BoxDrawing.apply("┃ pw ┃ x ┃\n┗━━┛").unwrap();
        assert_eq!(table.text, "| pw | x |\n----");
        assert_eq!(table.source(2..4), 4..6);
        // A span inside what one escape decoded to covers the escape.
        let blob = super::super::blobs::blobs("k <~6pb6W5uU]F=(,o_F`\\ic2)5~> y").unwrap();
        let at = blob.text.find("Walnut").unwrap();
        assert_eq!(blob.source(at..at + 6), 2..29);
    }

    #[test]
    fn continued_lines_and_joined_literals_are_put_together() {
        let text = "export API_TOKEN=\"Qp3H6J0HAa83\\\n  duW0EoHSXz5H\"";
        let view = Decoding::Joined.apply(text).unwrap();
        assert_eq!(view.text, "export API_TOKEN=\"Qp3H6J0HAa83duW0EoHSXz5H\"");
        let at = view.text.find("Qp3").unwrap();
        assert_eq!(&text[view.source(at..at + 24)], "Qp3H6J0HAa83\\\n  duW0EoHSXz5H");
        for (joined, whole) in [
            ("k = 'ab12' + 'cd34';", "k = 'ab12cd34';"),
            ("k = (\"ab12\"\n     \"cd34\")", "k = (\"ab12cd34\")"),
            ("k = \"ab12\" .. \"cd34\"", "k = \"ab12cd34\""),
            ("#define K \"ab12\" \\\n    \"cd34\"", "#define K \"ab12cd34\""),
            ("set K=ab12^\ncd34", "set K=ab12cd34"),
            ("--password \\\r\n  x", "--password x"),
        ] {
            assert_eq!(Decoding::Joined.apply(joined).unwrap().text, whole, "{joined}");
        }
        // Nothing to join: literals apart (`f("a", "b")`), a quote not after a value.
        for text in ["f(\"ab\", \"cd\")", "x = \"\" + \"\"", "echo 'it' is 'x'", "a\nb"] {
            assert!(!has_joins(text), "{text}");
        }
    }

    #[test]
    fn replacements_are_aligned() {
        let one = replaced("pw=abc x", "pw=[REDACTED] x").unwrap();
        assert_eq!((one.len(), one[0].start, one[0].end), (1, 3, 6));
        assert_eq!(replaced("a=1 b=2", "a=[REDACTED] b=[REDACTED]"), Some(vec![2..3, 6..7]));
        assert_eq!(replaced("same", "same"), Some(vec![]));
        assert_eq!(replaced("abc", "xyz"), None);
    }
}
