//! A secret a command prints with no name: the one word a command that reads or makes a
//! secret prints on the line after its prompt (`$ pass show infra/db` then the password,
//! `$ gopass show -o …`, `$ op item get … --reveal` then the value).
//! No name stands beside the value; the command line says what it is.
//!
//! Invariant: a range covers the whole of an output line that is one word, right after a
//! prompt line whose command shows, gets or reveals something; the
//! word is made like a password.

use std::ops::Range;

use super::checks::passes;
use super::rules::Check;

/// Verbs of a command that prints a stored or new value.
const VERBS: &[&str] = &["show", "get", "--reveal"];

/// Ranges of one-word output lines printed by a command that reads or makes a secret.
pub(super) fn printed_values(text: &str, out: &mut Vec<Range<usize>>) {
    if !text.contains("$ ") && !text.contains("> ") {
        return;
    }
    let mut offset = 0;
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        offset += line.len();
        let Some(command) = prompt_command(line.trim_end()) else { continue };
        if !command.split_whitespace().any(|word| {
            let word = word.to_ascii_lowercase();
            VERBS.iter().any(|verb| word.starts_with(verb))
        }) {
            continue;
        }
        let Some(next) = lines.peek() else { break };
        let word = next.trim();
        if word.is_empty()
            || word.len() < 8
            || word.len() > 128
            || word.contains(char::is_whitespace)
        {
            continue;
        }
        if passes(Check::StrongValue, command, word, "", 0) {
            let lead = next.len() - next.trim_start().len();
            out.push(offset + lead..offset + lead + word.len());
        }
    }
}

/// The command of a shell prompt line (`$ …`, `user@host:~$ …`, `PS C:\> …`, `PS> …`).
fn prompt_command(line: &str) -> Option<&str> {
    let line = line.trim_start();
    if let Some(rest) = line.strip_prefix("$ ") {
        return Some(rest);
    }
    if line.starts_with("PS") {
        return line.find("> ").map(|at| &line[at + 2..]);
    }
    line.find("$ ").filter(|&at| line[..at].contains(['@', ':', '~'])).map(|at| &line[at + 2..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        printed_values(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn the_word_a_command_shows_is_found() {
        assert_eq!(
            found("$ pass show acme/db-prod\nGranite?9001Copper\nuser: app"),
            ["Granite?9001Copper"]
        );
        assert_eq!(found("$ gopass show -o infra/db\nVioletx5842Saffron"), ["Violetx5842Saffron"]);
        assert_eq!(
            found(
                "ops@bastion:~$ op item get db --fields label=password --reveal\n  7Tcm5S?nuHE\n"
            ),
            ["7Tcm5S?nuHE"]
        );
        assert_eq!(found("PS C:\\> Get-Secret -Name Api\nQz8!rT2vLpQ"), ["Qz8!rT2vLpQ"]);
        // What other commands print, or more than one word, or no prompt.
        for text in [
            "$ git show HEAD\ncommit 4f9c2e1a77b0c3d2e1f0a9b8c7d6e5f4a3b2c1d0",
            "$ kubectl get pods\nNAME READY STATUS",
            "$ aws configure get region\nus-east-1",
            "$ npm get prefix\n/usr/local",
            "$ git config --get user.name\nJane Doe",
            "$ cargo --version\ncargo 1.90.0",
            "show the value\nQz8!rT2vLpQ",
        ] {
            assert_eq!(found(text), Vec::<&str>::new(), "{text}");
        }
    }
}
