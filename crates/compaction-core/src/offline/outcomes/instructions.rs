//! Rules of the project instruction files the work read (`AGENTS.md`, `CLAUDE.md`, …).

use super::*;
use std::borrow::Cow;

impl Digest {
    /// Keeps the rules of a project instruction file the work read (`AGENTS.md`,
    /// `CLAUDE.md`, `CONTRIBUTING.md`, …): every section's first line, its lines that
    /// state a rule (in any language) and its other lines, at most [`RULES_PER_FILE`], each
    /// with the file and the heading it came from.
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
        // Every heading scopes something the work must respect ("Commands", "Code style"),
        // and a file often states it as a plain line, a fenced command or a table row rather
        // than as a rule: each section is heard once (its first rule, else its first line),
        // then the lines that state a rule, then the other lines by turns, section after
        // section. Each keeps the heading it stands under: its scope ("Commit messages":
        // "one line only").
        let mut sections: Vec<FileSection> = vec![FileSection::default()];
        let mut fenced = false;
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
            if line.starts_with("```") || line.starts_with("~~~") {
                fenced = !fenced;
                continue;
            }
            if !fenced && is_heading(line) {
                let title = line.trim_start_matches('#').trim();
                let heading = (!title.is_empty()).then(|| clip(title, 60));
                sections.push(FileSection { heading, ..FileSection::default() });
                continue;
            }
            let Some(section) = sections.last_mut() else { continue };
            let (text, row) = match table_row(line) {
                Some(TableRow::Rule) if !fenced => {
                    // The row above a table's rule line is its header: names, not content.
                    section.others.pop_if(|(_, row)| *row);
                    continue;
                }
                Some(TableRow::Cells(cells)) if !fenced => (Cow::Owned(cells), true),
                Some(_) | None => (Cow::Borrowed(strip_bullet(line)), false),
            };
            if text.is_empty() || char_len(&text) > 300 || text.starts_with("<!--") {
                continue;
            }
            if fenced {
                section.fenced.push(text.into_owned());
            } else if !row && sentences(&text).iter().any(|sentence| is_rule(sentence)) {
                section.rules.push(text.into_owned());
            } else if !is_break(&text) && !text.ends_with([':', '：']) {
                // A line that only leads into what follows ("Requirements:") says nothing
                // of its own.
                section.others.push((text.into_owned(), row));
            }
        }
        let rules = chosen_lines(&sections, RULES_PER_FILE);
        for (heading, text) in rules {
            let text = text.as_str();
            let scope = heading.map(|heading| format!(" ({heading})")).unwrap_or_default();
            self.constraints.retain(|known| !known.ends_with(text));
            self.constraints.push(format!("From {}{scope}: {text}", code(&name)));
        }
    }
}

/// The lines of an instruction file under one heading (the file's start has none).
#[derive(Default)]
struct FileSection {
    heading: Option<String>,
    /// Lines that state a rule, in the file's order.
    rules: Vec<String>,
    /// The other lines (bullets, plain lines, table rows' cells), in the file's order;
    /// `true` for a table row.
    others: Vec<(String, bool)>,
    /// Lines inside code fences: a command to run, or an example of a format; after the
    /// section's prose.
    fenced: Vec<String>,
}

impl FileSection {
    fn len(&self) -> usize {
        self.rules.len() + self.others.len() + self.fenced.len()
    }

    /// The section's `at`-th line: its rules, then its other lines, then its fenced ones.
    fn line(&self, at: usize) -> String {
        let others = at.checked_sub(self.rules.len());
        let fenced = others.and_then(|at| at.checked_sub(self.others.len()));
        match (others, fenced) {
            (None, _) => self.rules[at].clone(),
            (Some(at), None) => self.others[at].0.clone(),
            (Some(_), Some(at)) => self.fenced[at].clone(),
        }
    }
}

/// A thematic break (`---`, `***`, `___`): no text.
fn is_break(text: &str) -> bool {
    let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    text.len() >= 3 && ["-", "*", "_"].iter().any(|mark| text.chars().all(|c| mark.starts_with(c)))
}

/// What a table line is: the rule under a header (`|---|:--|`), or a row's cells joined.
enum TableRow {
    Rule,
    Cells(String),
}

fn table_row(line: &str) -> Option<TableRow> {
    let inner = line.trim().strip_prefix('|')?;
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    if inner.chars().all(|c| matches!(c, '-' | ':' | '|' | ' ')) {
        return Some(TableRow::Rule);
    }
    let cells: Vec<&str> =
        inner.split('|').map(str::trim).filter(|cell| !cell.is_empty()).collect();
    Some(TableRow::Cells(cells.join(" | ")))
}

/// Up to `room` lines of a file, each with its heading, in the file's order: first one
/// from each section (its first rule, else its first line), then the other rules, then the
/// other lines by turns, one per section each turn.
fn chosen_lines(sections: &[FileSection], room: usize) -> Vec<(Option<String>, String)> {
    // (section, rule index or other index); rules are numbered before others.
    let mut taken: Vec<(usize, usize)> = Vec::new();
    let candidates = FileSection::len;
    let take = |taken: &mut Vec<(usize, usize)>, pick: (usize, usize)| {
        if taken.len() < room && !taken.contains(&pick) {
            taken.push(pick);
        }
    };
    for (index, section) in sections.iter().enumerate() {
        if candidates(section) > 0 {
            take(&mut taken, (index, 0));
        }
    }
    for (index, section) in sections.iter().enumerate() {
        for rule in 0..section.rules.len() {
            take(&mut taken, (index, rule));
        }
    }
    let longest = sections.iter().map(candidates).max().unwrap_or(0);
    for turn in 0..longest {
        for (index, section) in sections.iter().enumerate() {
            if turn < candidates(section) {
                take(&mut taken, (index, turn));
            }
        }
    }
    taken.sort_unstable();
    taken
        .into_iter()
        .map(|(index, at)| (sections[index].heading.clone(), sections[index].line(at)))
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn chosen(text: &str) -> Vec<String> {
        let mut digest = Digest::default();
        digest.note_instruction_rules("/repo/AGENTS.md", text.lines());
        digest.constraints.clone()
    }

    #[test]
    fn every_section_is_heard_before_a_long_one_fills_the_room() {
        let stack: String = (1..=20).map(|n| format!("- library{n} 1.{n}\n")).collect();
        let text = format!(
            "# Guide\n\n## Stack\n{stack}\n## Commands\n\nnpm test; npm run lint\n\n## Style\n\nTypeScript: named exports only\n"
        );
        let kept = chosen(&text);
        assert_eq!(kept.len(), RULES_PER_FILE);
        assert!(kept.contains(&"From `AGENTS.md` (Commands): npm test; npm run lint".to_owned()));
        assert!(
            kept.contains(&"From `AGENTS.md` (Style): TypeScript: named exports only".to_owned())
        );
        // The long section keeps the rest of the room, from its start, in the file's order.
        assert!(kept[0].ends_with("(Stack): library1 1.1"), "{kept:?}");
    }

    #[test]
    fn rules_come_before_other_lines_once_each_section_is_heard() {
        let rules: String = (1..=15).map(|n| format!("- Never touch module{n}.\n")).collect();
        let text = format!("## Rules\n{rules}\n## Layout\n- `src/` code\n- `docs/` notes\n");
        let kept = chosen(&text);
        assert_eq!(kept.len(), RULES_PER_FILE);
        assert_eq!(kept.iter().filter(|line| line.contains("(Layout)")).count(), 1, "{kept:?}");
        assert_eq!(kept.iter().filter(|line| line.contains("Never touch")).count(), 11);
    }

    #[test]
    fn fenced_lines_and_table_rows_are_lines_and_a_header_row_a_break_or_a_lead_in_is_not() {
        let text = "## Build\n\nSteps:\n\n```sh\n# not a heading inside a fence\nmake release\n```\n\n---\n\n## Release\n\n| Step | Command |\n|---|:--|\n| Publish | `npm publish` |\n";
        let kept = chosen(text);
        assert_eq!(
            kept,
            [
                "From `AGENTS.md` (Build): # not a heading inside a fence",
                "From `AGENTS.md` (Build): make release",
                "From `AGENTS.md` (Release): Publish | `npm publish`",
            ]
        );
    }
}
