//! Rules of the project instruction files the work read (`AGENTS.md`, `CLAUDE.md`, …).

use super::*;

impl Digest {
    /// Keeps the rules of a project instruction file the work read (`AGENTS.md`,
    /// `CLAUDE.md`, `CONTRIBUTING.md`, …): its lines that state a rule, in any language, at
    /// most [`RULES_PER_FILE`], each with the file it came from.
    pub(in super::super) fn note_instruction_rules<'l>(
        &mut self,
        path: &str,
        lines: impl Iterator<Item = &'l str>,
    ) {
        if !is_instruction_file(path) {
            return;
        }
        // A file every skill or folder shares the name of (`SKILL.md`) is named with its
        // folder.
        let mut parts = path.rsplit(['/', '\\']).filter(|part| !part.is_empty());
        let base = parts.next().unwrap_or(path);
        let name = match parts.next() {
            Some(folder) if base.eq_ignore_ascii_case("skill.md") => format!("{folder}/{base}"),
            Some(_) | None => base.to_owned(),
        };
        // Lines that state a rule first; the file's other bullets (a convention stated as
        // a fact: "merges use merge commits") fill the rest, in the file's order. Each keeps
        // the heading it stands under: its scope ("Commit messages": "one line only").
        let mut marked: Vec<(Option<String>, &str)> = Vec::new();
        let mut bullets: Vec<(Option<String>, &str)> = Vec::new();
        let mut heading: Option<String> = None;
        for line in lines {
            // Claude Code numbers the lines it shows (`    12→text`, `12\ttext`).
            let line = line.trim_start();
            let digits = line.chars().take_while(char::is_ascii_digit).count();
            let line = match line[digits..]
                .strip_prefix('→')
                .or_else(|| line[digits..].strip_prefix('\t'))
            {
                Some(rest) if digits > 0 => rest.trim_start(),
                Some(_) | None => line,
            };
            if is_heading(line) {
                let title = line.trim_start_matches('#').trim();
                heading = (!title.is_empty()).then(|| clip(title, 60));
                continue;
            }
            let text = strip_bullet(line);
            if text.is_empty() || char_len(text) > 300 {
                continue;
            }
            if sentences(text).iter().any(|sentence| is_rule(sentence)) {
                marked.push((heading.clone(), text));
            } else if text != line.trim() {
                bullets.push((heading.clone(), text));
            }
        }
        let room = RULES_PER_FILE.saturating_sub(marked.len());
        let rules: Vec<(Option<String>, &str)> =
            marked.into_iter().take(RULES_PER_FILE).chain(bullets.into_iter().take(room)).collect();
        for (heading, text) in rules {
            let scope = heading.map(|heading| format!(" ({heading})")).unwrap_or_default();
            self.constraints.retain(|known| !known.ends_with(text));
            self.constraints.push(format!("From {}{scope}: {text}", code(&name)));
        }
    }
}

/// Rules kept from one instruction file.
const RULES_PER_FILE: usize = 12;

/// Whether a path names a project instruction file: the rules agents and contributors are
/// asked to follow.
///
/// By name (`AGENTS.md`, `CLAUDE.md`, `GEMINI.md`, `CONTRIBUTING*`, `SKILL.md`,
/// `.cursorrules`, `*.instructions.md`), or as a Markdown file in a folder agents read their
/// rules or commands from (`.claude/commands/`, `.claude/agents/`, `.cursor/rules/`,
/// `.github/instructions/`, `skills/`…); not an agent's memory notes.
pub(in super::super) fn is_instruction_file(path: &str) -> bool {
    let name = file_name(path);
    let lower = path.to_lowercase().replace('\\', "/");
    let markdown = name.ends_with(".md") || name.ends_with(".mdc");
    let lower = format!("/{lower}");
    let rules_folder = [
        "/.claude/commands/",
        "/.claude/agents/",
        "/.claude/rules/",
        "/.cursor/rules/",
        "/.github/instructions/",
        "/.github/prompts/",
        "/skills/",
    ]
    .iter()
    .any(|folder| lower.contains(folder));
    name.starts_with("contributing")
        || name.ends_with(".instructions.md")
        || (markdown && rules_folder)
        || matches!(
            name.as_str(),
            "agents.md"
                | "claude.md"
                | "gemini.md"
                | "skill.md"
                | ".cursorrules"
                | "copilot-instructions.md"
        )
}
