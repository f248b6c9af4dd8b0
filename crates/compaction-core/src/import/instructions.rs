//! The instructions Codex puts in the context as user-role messages: which project
//! instruction file a block holds, and the part of it that is Codex's own text.
//!
//! Codex sends the project's AGENTS.md as `# AGENTS.md instructions for DIR` followed by
//! `<INSTRUCTIONS>…</INSTRUCTIONS>` (older versions: `<user_instructions>…`), and the
//! environment as `<environment_context>…`. Newer versions append to the AGENTS.md block a
//! `## Skills` section of their own (the skills found on disk and how to use them, opening
//! with "A skill is a set of local instructions"): Codex's rules, not the project's.

/// Whether a user-role text is context Codex injected rather than the user's words.
pub(super) fn is_injected_context(text: &str) -> bool {
    let text = text.trim_start();
    ["<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<INSTRUCTIONS>"]
        .iter()
        .any(|prefix| text.starts_with(prefix))
}

/// The project instruction file an injected text holds: `DIR/AGENTS.md` for Codex's
/// `# AGENTS.md instructions for DIR` block, `AGENTS.md` for the older
/// `<user_instructions>` block (the AGENTS.md files Codex found, joined); `None` for the
/// environment context.
pub(super) fn instruction_file(text: &str) -> Option<String> {
    let named = text.lines().find_map(|line| {
        let dir = line.trim().strip_prefix("# AGENTS.md instructions for")?.trim();
        let dir = dir.trim_end_matches(['/', '\\']);
        Some(if dir.is_empty() { "AGENTS.md".to_owned() } else { format!("{dir}/AGENTS.md") })
    });
    named.or_else(|| {
        (text.contains("<user_instructions>") || text.trim_start().starts_with("<INSTRUCTIONS>"))
            .then(|| "AGENTS.md".to_owned())
    })
}

/// The opening of Codex's own skills section.
const SKILLS_OPENING: &str = "A skill is a set of local instructions";

/// The block without Codex's skills section, and that section; `None` when the block has
/// none. The section runs from its `## Skills` heading to the next heading of that level or
/// the closing `</INSTRUCTIONS>` tag.
pub(crate) fn split_codex_skills(text: &str) -> Option<(String, String)> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let clean = |line: &str| line.trim_end_matches(['\n', '\r']).trim_end().to_owned();
    let start = lines.iter().enumerate().position(|(index, line)| {
        clean(line) == "## Skills"
            && lines[index + 1..]
                .iter()
                .map(|next| clean(next))
                .find(|next| !next.is_empty())
                .is_some_and(|next| next.starts_with(SKILLS_OPENING))
    })?;
    let end = lines[start + 1..]
        .iter()
        .position(|line| {
            let line = clean(line);
            line.starts_with("## ") || line.starts_with("</INSTRUCTIONS>")
        })
        .map_or(lines.len(), |offset| start + 1 + offset);
    let project: String = lines[..start].iter().chain(&lines[end..]).copied().collect();
    let skills: String = lines[start..end].concat();
    Some((project, skills))
}

/// Whether a block (without Codex's own section) still holds instructions: a line besides
/// its heading, tags and blank lines.
pub(super) fn holds_instructions(block: &str) -> bool {
    block.lines().map(str::trim).any(|line| {
        !line.is_empty()
            && !line.starts_with("# AGENTS.md instructions for")
            && !matches!(
                line,
                "<INSTRUCTIONS>"
                    | "</INSTRUCTIONS>"
                    | "<user_instructions>"
                    | "</user_instructions>"
            )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SKILLS: &str = "## Skills\nA skill is a set of local instructions to follow.\n### How to use skills\n- Trigger rules: you must use that skill.\n";

    #[test]
    fn codex_skills_section_is_split_from_the_projects_instructions() {
        let block = format!(
            "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\n# Rules\n- Never push to main.\n{SKILLS}</INSTRUCTIONS>"
        );
        let (project, skills) = split_codex_skills(&block).unwrap();
        assert_eq!(
            project,
            "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\n# Rules\n- Never push to main.\n</INSTRUCTIONS>"
        );
        assert_eq!(skills, SKILLS);
        assert!(holds_instructions(&project));
        // A block that is all Codex's section holds no project instructions.
        let only = format!(
            "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\n{SKILLS}</INSTRUCTIONS>"
        );
        let (project, _) = split_codex_skills(&only).unwrap();
        assert!(!holds_instructions(&project), "{project}");
        // A project's own `## Skills` heading is the project's.
        let own = "<INSTRUCTIONS>\n## Skills\n- Rust, SQL\n</INSTRUCTIONS>";
        assert_eq!(split_codex_skills(own), None);
    }

    #[test]
    fn the_older_user_instructions_block_names_agents_md() {
        assert_eq!(
            instruction_file("<user_instructions>\n- Use pnpm.\n</user_instructions>").as_deref(),
            Some("AGENTS.md")
        );
        assert_eq!(instruction_file("<environment_context></environment_context>"), None);
    }
}
