//! A secret fed to a command's input: a literal written by `echo`, `printf`, `cat <<<` or
//! `Write-Output` into a pipe (`echo '…' | podman login --password-stdin`, `(echo '…'; echo
//! '…') | adduser`), after a here-string (`cryptsetup open … <<< "…"`), the lines of a
//! here-document (`passwd ops <<EOF`), or sent in answer to a password prompt (`expect
//! "assword:"; send "…\r"`, `child.sendline('…')`). The value carries no name; what says
//! it is a secret is the command that reads it: one whose words name a password, a secret,
//! a token, a login or standard input, or that reads a password by its nature (`passwd`,
//! `ssh-add`, `sudo -S`).
//!
//! Invariant: a range covers one literal fed to such a command, of 6 characters or more,
//! not a variable (`$PW`), an option, a format (`%s\n`), a path or a yes/no answer.

use std::ops::Range;

/// Parts of a reading command (lower case) that say it reads a secret.
const READERS: &[&str] = &[
    "pass",
    "secret",
    "token",
    "login",
    "stdin",
    "cred",
    "auth",
    "key",
    "sudo -s",
    "passwd",
    "ssh-add",
    "adduser",
    "useradd",
    "cryptsetup",
    "gpg",
    "openssl",
    "unlock",
    "vault",
];

/// Whether `command` (lower case) reads a secret.
fn reads_secret(command: &str) -> bool {
    READERS.iter().any(|reader| command.contains(reader))
}

/// Whether `literal` may be a fed secret.
fn feedable(literal: &str) -> bool {
    let lower = literal.to_ascii_lowercase();
    literal.len() >= 6
        && literal.len() <= 128
        && !literal.starts_with(['$', '-', '%', '/', '~', '<', '>', '.'])
        && !literal.contains(['$', ' ', '/', '%'])
        && !matches!(lower.as_str(), "yes" | "no")
        && !literal.contains(super::REDACTED)
        && !literal.chars().any(char::is_control)
        && literal.chars().any(|c| c.is_ascii_alphanumeric())
}

/// The literals of a shell word list (`'a' "b" c`), each with its start in `text` (`base`
/// is where `words` starts), split at `\n` escapes.
fn literals(words: &str, base: usize, out: &mut Vec<Range<usize>>) {
    let bytes = words.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let quote = bytes[at];
        let (start, end) = if quote == b'\'' || quote == b'"' {
            let start = at + 1;
            let Some(len) = words[start..].find(char::from(quote)) else { return };
            at = start + len + 1;
            (start, start + len)
        } else if quote.is_ascii_whitespace() || matches!(quote, b'(' | b')' | b';') {
            at += 1;
            continue;
        } else {
            let start = at;
            while at < bytes.len()
                && !bytes[at].is_ascii_whitespace()
                && !matches!(bytes[at], b';' | b')')
            {
                at += 1;
            }
            (start, at)
        };
        let mut piece_start = start;
        for piece in words[start..end].split("\\n") {
            let piece_end = piece_start + piece.len();
            let trimmed = piece.trim_end_matches("\\r");
            if feedable(trimmed) {
                out.push(base + piece_start..base + piece_start + trimmed.len());
            }
            piece_start = piece_end + 2;
        }
    }
}

/// The commands that write their arguments to their output.
const WRITERS: &[&str] = &["echo", "printf", "write-output", "write-host", "yes"];

/// Ranges of literals piped, here-stringed or here-documented into a command that reads a
/// secret, or sent in answer to a password prompt.
pub(super) fn fed_values(text: &str, out: &mut Vec<Range<usize>>) {
    if !text.contains('|')
        && !text.contains("<<")
        && !text.contains("send")
        && !text.contains(".write(")
    {
        return;
    }
    let mut offset = 0;
    let mut heredoc: Option<String> = None;
    let mut prompt_seen = false;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.trim_end();
        if let Some(end) = &heredoc {
            if body.trim() == end {
                heredoc = None;
            } else if feedable(body.trim()) && !body.trim().contains(['=', ':']) {
                let lead = body.len() - body.trim_start().len();
                out.push(start + lead..start + body.trim_end().len());
            }
            continue;
        }
        let lower = body.to_ascii_lowercase();
        // A pipe: writers before it, a reader after it.
        if let Some(bar) = body.find('|') {
            let (left, right) = (&body[..bar], &lower[bar + 1..]);
            if reads_secret(right) && !body[bar..].starts_with("||") {
                for segment in left.split(';') {
                    let trimmed = segment.trim_start_matches([' ', '(', '\t']);
                    let seg_at = start
                        + (segment.as_ptr() as usize - body.as_ptr() as usize)
                        + (segment.len() - trimmed.len());
                    let word_end = trimmed.find(' ').unwrap_or(trimmed.len());
                    let command = trimmed[..word_end].to_ascii_lowercase();
                    let mut args = &trimmed[word_end..];
                    let mut args_at = seg_at + word_end;
                    if command == "cat" {
                        if let Some(here) = args.find("<<<") {
                            args_at += here + 3;
                            args = &args[here + 3..];
                        } else {
                            continue;
                        }
                    } else if !WRITERS.contains(&command.as_str()) {
                        // A lone literal piped into the reader (`"…" | ConvertTo-SecureString`).
                        let lone = trimmed.trim_end();
                        if lone.len() > 2
                            && (lone.starts_with('"') && lone.ends_with('"')
                                || lone.starts_with('\'') && lone.ends_with('\''))
                        {
                            literals(lone, seg_at, out);
                        }
                        continue;
                    }
                    // Options of the writer (`-n`, `-e`) and a format (`'%s\n'`) are skipped.
                    literals(args, args_at, out);
                }
            }
        }
        // A here-string after a reader.
        if let Some(here) = body.find("<<<") {
            if reads_secret(&lower[..here]) {
                literals(&body[here + 3..], start + here + 3, out);
            }
        } else if let Some(here) = body.find("<<") {
            // A here-document opened for a reader.
            let tag = body[here + 2..].trim_start_matches('-').trim();
            let tag = tag.trim_matches(['\'', '"']);
            if !tag.is_empty()
                && tag.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && reads_secret(&lower[..here])
            {
                heredoc = Some(tag.to_owned());
            }
        }
        // A prompt for a password, then what is sent in answer.
        if lower.contains("assword") || lower.contains("passphrase") || lower.contains("sudo -s") {
            prompt_seen = true;
        }
        if prompt_seen {
            for call in ["send ", "sendline(", ".write(", "send_keys("] {
                if let Some(at) = body.find(call) {
                    let args_at = at + call.len();
                    let args = body[args_at..].trim_start_matches(['b', ' ']);
                    let skip = body.len() - args_at - args.len();
                    if let Some(quote) = args.chars().next().filter(|c| *c == '"' || *c == '\'')
                        && let Some(len) = args[1..].find(quote)
                    {
                        literals(&args[..len + 2], start + args_at + skip, out);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        fed_values(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn secrets_fed_to_a_reading_command_are_found() {
        assert_eq!(
            found("cat <<< 'Saffron-orbit-228' | oras login -u deploy --password-stdin r.corp"),
            ["Saffron-orbit-228"]
        );
        assert_eq!(
            found("printf %s \"harborQ9971\" | helm registry login h -u ci --password-stdin"),
            ["harborQ9971"]
        );
        assert_eq!(
            found("(echo 'orbit-Quartz-968'; echo 'orbit-Quartz-968') | adduser --gecos '' b"),
            ["orbit-Quartz-968", "orbit-Quartz-968"]
        );
        assert_eq!(found("passwd ops <<EOF\nmaple-maple-600\nmaple-maple-600\nEOF\n").len(), 2);
        assert_eq!(
            found("printf 'CobaltQ8664Saffron\\n' | ssh-add ~/.ssh/id"),
            ["CobaltQ8664Saffron"]
        );
        assert_eq!(
            found("expect -c 'spawn ssh r@h; expect \"assword:\"; send \"z2QS3Pp9oUQno3\\r\"'"),
            ["z2QS3Pp9oUQno3"]
        );
        // What another finder replaced is not taken again.
        assert!(found("expect \"password:\"\nsend \"[REDACTED]\r\"").is_empty());
        assert_eq!(
            found("vault kv put secret/db password=- <<< 'Kq7-lantern-x'"),
            ["Kq7-lantern-x"]
        );
    }

    #[test]
    fn pipes_and_heredocs_of_ordinary_commands_stay() {
        for text in [
            "echo 'hello world' | grep world",
            "echo \"$PASSWORD\" | docker login -u ci --password-stdin",
            "printf '%s\\n' \"$TOKEN\" | gh auth login --with-token",
            "cat <<EOF > config.yml\nname: demo\nversion12\nEOF",
            "echo building | tee build.log",
            "cat file.txt | sort | uniq -c",
            "ls -la | grep key",
        ] {
            assert!(found(text).is_empty(), "{text}");
        }
    }
}
