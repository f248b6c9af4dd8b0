//! Views of text in encodings that mark where they start and end, decoded where they stand:
//! Ascii85 between `<~` and `~>` (PostScript, PDF, Python's `a85encode(adobe=True)`), the
//! lines of a uuencoded file between `begin NNN name` and `end`, and UTF-16 text read as
//! bytes, whose every other character is a NUL (`\u0000`, `\x00` once decoded, `cat -v`'s
//! `^@`).
//!
//! Invariant: a blob is decoded only when it decodes to text (printable characters, tabs and
//! line breaks), so binary data and look-alikes are left as they are.

use super::views::{View, decode_escapes, is_text};

/// Longest blob decoded.
const MAX_BLOB: usize = 64 * 1024;

/// Whether `text` may hold a blob this module decodes.
pub(super) fn has_blobs(text: &str) -> bool {
    text.contains("<~") || text.contains("begin ") || text.contains('\0') || text.contains("^@")
}

/// `text` with every Ascii85 blob and uuencoded file decoded where it stands.
pub(super) fn blobs(text: &str) -> Option<View> {
    if !text.contains("<~") && !text.contains("begin ") {
        return None;
    }
    decode_escapes(text, |bytes, at| ascii85_at(bytes, at).or_else(|| uuencoded_at(bytes, at)))
}

/// An Ascii85 blob `<~…~>` at `at`, decoded (its delimiters with it).
fn ascii85_at(bytes: &[u8], at: usize) -> Option<(Vec<u8>, usize)> {
    if !bytes[at..].starts_with(b"<~") {
        return None;
    }
    let body_start = at + 2;
    let window = &bytes[body_start..bytes.len().min(body_start + MAX_BLOB)];
    let close = memchr::memmem::find(window, b"~>")?;
    let mut out = Vec::new();
    let mut group = Vec::with_capacity(5);
    for &c in &window[..close] {
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => continue,
            b'z' if group.is_empty() => out.extend_from_slice(&[0; 4]),
            b'!'..=b'u' => {
                group.push(c - b'!');
                if group.len() == 5 {
                    out.extend_from_slice(&word85(&group)?.to_be_bytes());
                    group.clear();
                }
            }
            _ => return None,
        }
    }
    if group.len() == 1 {
        return None;
    }
    if !group.is_empty() {
        let kept = group.len() - 1;
        group.resize(5, 84);
        out.extend_from_slice(&word85(&group)?.to_be_bytes()[..kept]);
    }
    is_text(&out).then_some((out, close + 4))
}

fn word85(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0u32, |acc, &d| acc.checked_mul(85)?.checked_add(u32::from(d)))
}

/// The data lines of a uuencoded file at `at` (the line after `begin NNN name`), decoded, up
/// to the line of a single `` ` `` or the `end` line.
fn uuencoded_at(bytes: &[u8], at: usize) -> Option<(Vec<u8>, usize)> {
    // `at` starts the first data line: the line before is `begin` and an octal mode.
    if at == 0 || bytes[at - 1] != b'\n' {
        return None;
    }
    let before = &bytes[..at - 1];
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let header = &before[line_start..];
    let mode = header.strip_prefix(b"begin ")?;
    if mode.len() < 5 || !mode[..3].iter().all(|b| (b'0'..=b'7').contains(b)) || mode[3] != b' ' {
        return None;
    }
    let mut out = Vec::new();
    let mut end = at;
    for line in bytes[at..bytes.len().min(at + MAX_BLOB)].split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some((&count, body)) = line.split_first() else { break };
        if count == b'`' || line == b"end" {
            break;
        }
        let count = usize::from(count.checked_sub(32)?);
        // Trailing spaces of the last quad may be trimmed by whatever carried the text.
        let quads = count.div_ceil(3) * 4;
        if count > 45 || body.len() + 2 < quads {
            return None;
        }
        let mut body = body.to_vec();
        body.resize(body.len().max(quads), b'`');
        let six = |c: u8| if c == b'`' { Some(0) } else { c.checked_sub(32).filter(|&v| v < 64) };
        let mut decoded = Vec::with_capacity(count + 2);
        for quad in body.chunks(4).take(count.div_ceil(3)) {
            let v: Vec<u8> = quad.iter().map(|&c| six(c)).collect::<Option<_>>()?;
            decoded.push((v[0] << 2) | (v[1] >> 4));
            decoded.push((v[1] << 4) | (v[2] >> 2));
            decoded.push((v[2] << 6) | v[3]);
        }
        decoded.truncate(count);
        out.extend_from_slice(&decoded);
        end += line.len() + 1;
    }
    // The last data line's break stays in the text.
    let width = end.checked_sub(at + 1)?;
    (width > 0 && is_text(&out)).then(|| {
        if out.last() == Some(&b'\n') {
            out.pop();
        }
        (out, width)
    })
}

/// `text` with the NULs of UTF-16 text read as bytes removed (`p\0a\0s\0s\0`, `p^@a^@`): a NUL
/// (or `^@`) after a printable character, in a run of at least four such pairs.
pub(super) fn nuls(text: &str) -> Option<View> {
    if !text.contains('\0') && !text.contains("^@") {
        return None;
    }
    let bytes = text.as_bytes();
    let nul_at = |i: usize| -> Option<usize> {
        match bytes.get(i)? {
            0 => Some(1),
            b'^' if bytes.get(i + 1) == Some(&b'@') => Some(2),
            _ => None,
        }
    };
    // Whether the NUL at `at` closes a pair (a printable character and a NUL) in a run of
    // four pairs or more.
    let printable = |i: usize| bytes.get(i).is_some_and(|b| (0x21..0x7f).contains(b));
    let in_run = |at: usize| {
        let mut count = 1;
        // Back: the character before `at` is at `c`; a NUL ending right before it closes the
        // pair before.
        let mut c = at - 1;
        loop {
            let width = if c >= 1 && bytes[c - 1] == 0 {
                1
            } else if c >= 2 && &bytes[c - 2..c] == b"^@" {
                2
            } else {
                break;
            };
            let Some(prev) = c.checked_sub(width + 1).filter(|&p| printable(p)) else { break };
            count += 1;
            c = prev;
        }
        let mut j = at + nul_at(at).unwrap_or(1);
        while printable(j) {
            let Some(width) = nul_at(j + 1) else { break };
            count += 1;
            j += 1 + width;
        }
        count >= 4
    };
    decode_escapes(text, |bytes, at| {
        let width = nul_at(at)?;
        (at > 0 && (0x21..0x7f).contains(&bytes[at - 1]) && in_run(at))
            .then_some((Vec::new(), width))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_that_spell_text_are_decoded_where_they_stand() {
        // `DB_PASS=Walnut#552` in Ascii85 and uuencoded.
        let view = blobs("x <~6pb6W5uU]F=(,o_F`\\ic2)5~> y").unwrap();
        assert_eq!(view.text, "x DB_PASS=Walnut#552 y");
        let uu = "begin 644 .env\n31$)?4$%34SU786QN=70C-34R\"@\n`\nend";
        let view = blobs(uu).unwrap();
        assert_eq!(view.text, "begin 644 .env\nDB_PASS=Walnut#552\n`\nend");
        assert!(blobs("<~ not ascii85 ~>").is_none());
        assert!(blobs("begin 644 x\nhello world\nend").is_none());
    }

    #[test]
    fn utf16_nuls_are_removed() {
        assert_eq!(nuls("pw=W\0a\0l\0n\0u\0t\0").unwrap().text, "pw=Walnut");
        assert_eq!(nuls("D^@B^@_^@P^@=^@x^@").unwrap().text, "DB_P=x");
        assert!(nuls("a\0b").is_none());
        assert!(nuls("press ^@ to continue").is_none());
    }
}
