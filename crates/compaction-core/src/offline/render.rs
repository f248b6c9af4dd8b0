//! Rendering under a budget: the sections as Markdown within `max_chars` characters.
//!
//! Invariant: the output never exceeds the budget; the least important bullets go first,
//! long bullets are shortened before essential ones are dropped, and headings survive
//! whenever the empty skeleton fits.

use super::sections::*;
use super::text::*;

pub(super) const EMPTY_SECTION: &str = "- (none)\n";
/// Items longer than this are shortened before high-priority items are dropped.
pub(super) const SHORT_ITEM_CHARS: usize = 160;

pub(super) fn render(items: &[Item]) -> String {
    let mut out = String::new();
    for (position, section) in SECTIONS.iter().enumerate() {
        if position > 0 && !matches!(section, Section::InProgress | Section::Blocked) {
            out.push('\n');
        }
        out.push_str(section.heading());
        let mut any = false;
        for item in items.iter().filter(|item| item.section == *section) {
            out.push_str("- ");
            out.push_str(&item.text);
            out.push('\n');
            any = true;
        }
        if !any {
            out.push_str(EMPTY_SECTION);
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
                if !dropped[index] {
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
    let text = render(&kept_items(&items, &dropped));
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
    /// Headings and blank separator lines, which are always printed.
    pub(super) fixed: usize,
    pub(super) counts: [usize; 8],
    pub(super) chars: [usize; 8],
}

impl SectionLengths {
    pub(super) fn new(items: &[Item]) -> Self {
        let fixed = SECTIONS.iter().map(|section| char_len(section.heading())).sum::<usize>()
            + SECTIONS
                .iter()
                .skip(1)
                .filter(|s| !matches!(s, Section::InProgress | Section::Blocked))
                .count();
        let mut lengths = SectionLengths { fixed, counts: [0; 8], chars: [0; 8] };
        for item in items {
            lengths.counts[item.section.index()] += 1;
            lengths.chars[item.section.index()] += Self::line_len(item);
        }
        lengths
    }

    /// `- text\n`.
    pub(super) fn line_len(item: &Item) -> usize {
        char_len(&item.text) + 3
    }

    pub(super) fn remove(&mut self, item: &Item) {
        let index = item.section.index();
        self.counts[index] -= 1;
        self.chars[index] -= Self::line_len(item);
    }

    pub(super) fn total(&self) -> usize {
        let placeholder = char_len(EMPTY_SECTION);
        self.fixed
            + (0..8)
                .map(|index| if self.counts[index] == 0 { placeholder } else { self.chars[index] })
                .sum::<usize>()
    }
}
