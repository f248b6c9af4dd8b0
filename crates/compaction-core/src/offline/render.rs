//! Rendering under a budget: the sections as Markdown within `max_chars` characters.
//!
//! Invariant: the output never exceeds the budget; the least important bullets go first,
//! long bullets are shortened before essential ones are dropped, and headings survive
//! whenever the empty skeleton fits.

use super::sections::*;
use super::text::*;

/// The heading over Done, In Progress and Blocked.
const PROGRESS_HEADING: &str = "## Progress\n";
/// Items longer than this are shortened before high-priority items are dropped.
pub(super) const SHORT_ITEM_CHARS: usize = 160;
/// Characters kept free for the note on how many items trimming left out.
const DROPPED_NOTE_CHARS: usize = 90;
/// What follows the count in the note that says how many items were left out. A later round
/// does not carry the note: its own note counts what it leaves out.
pub(super) const DROPPED_NOTE: &str =
    " lower-priority items were left out to fit the summary budget";

/// Whether a bullet's text would be read back as markup rather than text (a task box it
/// opens with, or the whole text shaped like an empty section's `(none)` placeholder):
/// such a text is written with its first character escaped.
fn read_as_markup(text: &str) -> bool {
    ["[ ] ", "[x] ", "[X] "].iter().any(|checkbox| text.starts_with(checkbox))
        || super::previous::is_placeholder(text)
}

pub(super) fn render(items: &[Item]) -> String {
    let mut out = String::new();
    let mut progress_open = false;
    for section in SECTIONS {
        let mut section_items = items.iter().filter(|item| item.section == section).peekable();
        if section_items.peek().is_none() && section != Section::Goal {
            continue;
        }
        let in_progress_group =
            matches!(section, Section::Done | Section::InProgress | Section::Blocked);
        let continues_progress = in_progress_group && progress_open;
        if !continues_progress && !out.is_empty() {
            out.push('\n');
        }
        if in_progress_group && !progress_open {
            out.push_str(PROGRESS_HEADING);
            progress_open = true;
        }
        out.push_str(section.heading());
        for item in section_items {
            out.push_str("- ");
            // A text that opens with a task box ("[x] …", the user's own list) keeps it:
            // escaped, the box is not read back as markup.
            if read_as_markup(&item.text) {
                out.push('\\');
            }
            out.push_str(&item.text);
            out.push('\n');
        }
    }
    out
}

/// Renders the items, dropping the least important ones until the text fits `max_chars`.
///
/// Lengths are tracked per section, so trimming costs one sort plus one final render.
pub(super) fn render_within(sections: Sections, max_chars: usize) -> String {
    let mut items = sections.items;
    let mut lengths = SectionLengths::new(&items);
    if lengths.total() <= max_chars {
        return render(&items);
    }
    // Room for the line that says how many items were left out, when the budget is not
    // so small that the line would take the place of what it tells about.
    let full_budget = max_chars;
    let note = max_chars >= 20 * DROPPED_NOTE_CHARS;
    let max_chars = if note { max_chars - DROPPED_NOTE_CHARS } else { max_chars };
    // Drop order: lowest priority first, then oldest first.
    let mut drop_order: Vec<usize> = (0..items.len()).collect();
    drop_order.sort_by_key(|&i| (items[i].priority, items[i].order));
    let mut dropped = vec![false; items.len()];
    let mut shortened = false;
    let mut fits = false;
    for &victim in &drop_order {
        if !shortened && items[victim].priority >= PRIORITY_ESSENTIAL {
            // Before losing essential items, shorten every long one that is left.
            shortened = true;
            for (index, item) in items.iter_mut().enumerate() {
                if !dropped[index] && !item.verbatim {
                    item.text = clip(&item.text, SHORT_ITEM_CHARS);
                }
            }
            let kept: Vec<Item> = kept_items(&items, &dropped);
            lengths = SectionLengths::new(&kept);
            if lengths.total() <= max_chars {
                fits = true;
                break;
            }
        }
        dropped[victim] = true;
        lengths.remove(&items[victim]);
        if lengths.total() <= max_chars {
            fits = true;
            break;
        }
    }
    let mut kept = kept_items(&items, &dropped);
    let count = dropped.iter().filter(|dropped| **dropped).count();
    if note && fits && count > 0 {
        // Trimming drops whole items and says so.
        kept.push(Item {
            section: Section::Critical,
            text: format!("{count}{DROPPED_NOTE}"),
            priority: 0,
            order: usize::MAX,
            verbatim: true,
        });
        if SectionLengths::new(&kept).total() > full_budget {
            kept.pop();
        }
    }
    let text = render(&kept);
    if fits {
        return text;
    }
    // Not even the empty skeleton fits: keep whole lines while they fit, then cut.
    let mut out = String::new();
    let mut used = 0;
    for line in text.split_inclusive('\n') {
        let length = char_len(line);
        if used + length > max_chars {
            if out.is_empty() {
                out = line.chars().take(max_chars).collect();
            }
            break;
        }
        out.push_str(line);
        used += length;
    }
    out
}

pub(super) fn kept_items(items: &[Item], dropped: &[bool]) -> Vec<Item> {
    items
        .iter()
        .zip(dropped)
        .filter(|(_, dropped)| !**dropped)
        .map(|(item, _)| item.clone())
        .collect()
}

/// The rendered length of a set of items, kept up to date as items are removed.
pub(super) struct SectionLengths {
    pub(super) counts: [usize; 8],
    pub(super) chars: [usize; 8],
}

impl SectionLengths {
    pub(super) fn new(items: &[Item]) -> Self {
        let mut lengths = SectionLengths { counts: [0; 8], chars: [0; 8] };
        for item in items {
            lengths.counts[item.section.index()] += 1;
            lengths.chars[item.section.index()] += Self::line_len(item);
        }
        lengths
    }

    /// `- text\n` (with the escape of a task box the text opens with).
    pub(super) fn line_len(item: &Item) -> usize {
        char_len(&item.text) + 3 + usize::from(read_as_markup(&item.text))
    }

    pub(super) fn remove(&mut self, item: &Item) {
        let index = item.section.index();
        self.counts[index] -= 1;
        self.chars[index] -= Self::line_len(item);
    }

    /// The length [`render`] gives: the Goal heading always, other headings only over
    /// items, `## Progress` once over its three parts, a blank line between top-level
    /// sections.
    pub(super) fn total(&self) -> usize {
        let mut total = 0;
        let mut blocks: usize = 0;
        let mut progress = false;
        for section in SECTIONS {
            let index = section.index();
            if self.counts[index] == 0 && section != Section::Goal {
                continue;
            }
            total += char_len(section.heading()) + self.chars[index];
            if matches!(section, Section::Done | Section::InProgress | Section::Blocked) {
                if !progress {
                    progress = true;
                    blocks += 1;
                    total += char_len(PROGRESS_HEADING);
                }
            } else {
                blocks += 1;
            }
        }
        total + blocks.saturating_sub(1)
    }
}
