//! A parsed session: header, entries, kept malformed lines, diagnostics, and the tree index.
//!
//! Invariant: the resolved parent links form a forest. Duplicate ids resolve to the later
//! entry (as in pi), dangling parents make roots, and the link that closes a `parentId`
//! cycle is ignored, so every walk up the tree ends in at most `entries().len()` steps.
//! Building the index, a path and the leaves are all linear in the number of entries.

use std::collections::HashMap;
use std::hash::BuildHasher;

use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::entry::{Entry, EntryKind, Header};

/// Entry index by id that stores only entry indices: ids are looked up in the entries
/// themselves, so no id is copied into the index. foldhash is several times faster than
/// SipHash on short ids; it is seeded per process.
#[derive(Clone, Default)]
struct IdIndex {
    table: hashbrown::HashTable<usize>,
    hasher: foldhash::fast::RandomState,
}

impl std::fmt::Debug for IdIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdIndex").field("len", &self.table.len()).finish()
    }
}

impl IdIndex {
    fn with_capacity(capacity: usize) -> Self {
        IdIndex { table: hashbrown::HashTable::with_capacity(capacity), hasher: Default::default() }
    }

    fn get(&self, entries: &[Entry], id: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(id);
        self.table.find(hash, |&index| entries[index].id == id).copied()
    }

    /// Points `entries[index].id` at `index`; returns whether an earlier entry had the id.
    fn insert(&mut self, entries: &[Entry], index: usize) -> bool {
        let IdIndex { table, hasher } = self;
        let id = entries[index].id.as_str();
        let hash = hasher.hash_one(id);
        if let Some(slot) = table.find_mut(hash, |&other| entries[other].id == id) {
            *slot = index;
            return true;
        }
        table.insert_unique(hash, index, |&other| hasher.hash_one(entries[other].id.as_str()));
        false
    }
}

/// A line that is not a usable entry, kept so a rewrite can carry it over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MalformedLine {
    /// 1-based line number.
    pub line: usize,
    /// Byte offset of the line's start in the file.
    pub offset: u64,
    /// The line's bytes without its line ending; `None` when it was too long to hold.
    pub bytes: Option<Vec<u8>>,
    /// The line's length in bytes.
    pub length: usize,
}

/// How the file's lines were written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineStyle {
    /// The file starts with a UTF-8 byte order mark.
    pub bom: bool,
    /// Lines end with CRLF.
    pub crlf: bool,
}

/// An entry id that names no entry of the session.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no entry with id `{0}` in this session")]
pub struct UnknownEntryId(pub String);

/// A parsed session file with its tree index.
#[derive(Debug, Clone)]
pub struct Session {
    header: Option<Header>,
    header_raw: Option<String>,
    source_version: u32,
    migrated: bool,
    entries: Vec<Entry>,
    malformed: Vec<MalformedLine>,
    diagnostics: Vec<Diagnostic>,
    style: LineStyle,
    by_id: IdIndex,
    parents: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    labels: HashMap<String, String>,
}

impl Session {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn from_parts(
        header: Option<Header>,
        header_raw: Option<String>,
        source_version: u32,
        migrated: bool,
        entries: Vec<Entry>,
        malformed: Vec<MalformedLine>,
        diagnostics: Vec<Diagnostic>,
        style: LineStyle,
    ) -> Session {
        let mut by_id = IdIndex::with_capacity(entries.len());
        let mut diagnostics = diagnostics;
        for (index, entry) in entries.iter().enumerate() {
            if by_id.insert(&entries, index) {
                diagnostics.push(Diagnostic::new(
                    entry.line,
                    DiagnosticKind::DuplicateId,
                    format!("id `{}` was used by an earlier entry; this later one wins", entry.id),
                ));
            }
        }
        let mut session = Session {
            header,
            header_raw,
            source_version,
            migrated,
            entries,
            malformed,
            diagnostics,
            style,
            by_id,
            parents: Vec::new(),
            children: Vec::new(),
            labels: HashMap::new(),
        };
        session.link_all();
        session
    }

    /// Resolves parent links, breaks cycles, and fills children and labels.
    fn link_all(&mut self) {
        let count = self.entries.len();
        self.parents = Vec::with_capacity(count);
        for entry in &self.entries {
            let parent = match &entry.parent_id {
                None => None,
                Some(parent_id) => match self.by_id.get(&self.entries, parent_id) {
                    Some(index) => Some(index),
                    None => {
                        self.diagnostics.push(Diagnostic::new(
                            entry.line,
                            DiagnosticKind::DanglingParent,
                            format!("parent `{parent_id}` does not exist; treated as a root"),
                        ));
                        None
                    }
                },
            };
            self.parents.push(parent);
        }
        self.break_cycles();
        self.children = vec![Vec::new(); count];
        for (index, parent) in self.parents.iter().enumerate() {
            if let Some(parent) = parent {
                self.children[*parent].push(index);
            }
        }
        self.labels.clear();
        for index in 0..count {
            self.apply_label(index);
        }
    }

    /// Finds every cycle of parent links in linear time and cuts the link that closes it.
    fn break_cycles(&mut self) {
        const UNSEEN: u8 = 0;
        const ON_STACK: u8 = 1;
        const DONE: u8 = 2;
        let mut state = vec![UNSEEN; self.entries.len()];
        let mut stack = Vec::new();
        for start in 0..self.entries.len() {
            let mut current = start;
            while state[current] == UNSEEN {
                state[current] = ON_STACK;
                stack.push(current);
                match self.parents[current] {
                    Some(parent) if state[parent] == ON_STACK => {
                        let entry = &self.entries[current];
                        self.diagnostics.push(Diagnostic::new(
                            entry.line,
                            DiagnosticKind::ParentCycle,
                            format!(
                                "following parentId from `{}` loops back to it; its link to `{}` \
                                 is ignored",
                                entry.id, self.entries[parent].id
                            ),
                        ));
                        self.parents[current] = None;
                        break;
                    }
                    Some(parent) => current = parent,
                    None => break,
                }
            }
            for index in stack.drain(..) {
                state[index] = DONE;
            }
        }
    }

    fn apply_label(&mut self, index: usize) {
        if let EntryKind::Label { target_id, label } = &self.entries[index].kind {
            match label.as_deref() {
                Some(text) if !text.trim().is_empty() => {
                    self.labels.insert(target_id.clone(), text.to_owned());
                }
                Some(_) | None => {
                    self.labels.remove(target_id);
                }
            }
        }
    }

    /// Adds an entry parsed from a line just appended to the file.
    ///
    /// Fails (leaving the session unchanged) when the id is taken or the parent is unknown:
    /// the store never writes such an entry.
    pub fn push(&mut self, entry: Entry) -> Result<(), String> {
        if self.by_id.get(&self.entries, &entry.id).is_some() {
            return Err(format!("id `{}` is already used in this session", entry.id));
        }
        let parent = match &entry.parent_id {
            None => None,
            Some(parent_id) => match self.by_id.get(&self.entries, parent_id) {
                Some(index) => Some(index),
                None => return Err(format!("parent `{parent_id}` does not exist")),
            },
        };
        let index = self.entries.len();
        self.entries.push(entry);
        self.by_id.insert(&self.entries, index);
        self.parents.push(parent);
        self.children.push(Vec::new());
        if let Some(parent) = parent {
            self.children[parent].push(index);
        }
        self.apply_label(index);
        Ok(())
    }

    /// The header, when the first line is a readable session header.
    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }

    /// The header line's text as it should be written (migrated when the file was older).
    pub fn header_raw(&self) -> Option<&str> {
        self.header_raw.as_deref()
    }

    /// The format version the file declared before any migration.
    pub fn source_version(&self) -> u32 {
        self.source_version
    }

    /// Whether entries were rewritten in memory from an older format.
    pub fn is_migrated(&self) -> bool {
        self.migrated
    }

    /// Every usable entry, in file order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Lines that could not be used, kept verbatim for repair and migration.
    pub fn malformed(&self) -> &[MalformedLine] {
        &self.malformed
    }

    /// Every problem found while reading, with its line.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// How the file's lines were written (BOM, CRLF), so appends match.
    pub fn line_style(&self) -> LineStyle {
        self.style
    }

    /// The index of the entry with this id.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.by_id.get(&self.entries, id)
    }

    /// The entry with this id.
    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.index_of(id).map(|index| &self.entries[index])
    }

    /// Whether an id is used by an entry.
    pub fn contains(&self, id: &str) -> bool {
        self.by_id.get(&self.entries, id).is_some()
    }

    /// The resolved parent index of an entry (after dangling links and cycles are cut).
    pub fn parent_of(&self, index: usize) -> Option<usize> {
        self.parents.get(index).copied().flatten()
    }

    /// The children of an entry, in file order.
    pub fn children_of(&self, index: usize) -> &[usize] {
        self.children.get(index).map_or(&[], Vec::as_slice)
    }

    /// Indices of entries without a parent, in file order.
    pub fn roots(&self) -> Vec<usize> {
        (0..self.entries.len()).filter(|&i| self.parents[i].is_none()).collect()
    }

    /// The current leaf: the last entry in file order.
    pub fn leaf(&self) -> Option<usize> {
        self.entries.len().checked_sub(1)
    }

    /// The leaf with this id, or the current leaf when `id` is `None`. An unknown id is an
    /// error, never a silent fallback.
    pub fn resolve_leaf(&self, id: Option<&str>) -> Result<Option<usize>, UnknownEntryId> {
        match id {
            None => Ok(self.leaf()),
            Some(id) => self.index_of(id).map(Some).ok_or_else(|| UnknownEntryId(id.to_owned())),
        }
    }

    /// Entry indices from the root to `leaf`, inclusive.
    pub fn path(&self, leaf: usize) -> Vec<usize> {
        let mut path = Vec::new();
        let mut current = Some(leaf);
        while let Some(index) = current {
            if path.len() > self.entries.len() {
                break; // Unreachable: cycles were cut while indexing.
            }
            path.push(index);
            current = self.parents[index];
        }
        path.reverse();
        path
    }

    /// The path to the current leaf (empty for a session without entries).
    pub fn path_to_leaf(&self) -> Vec<usize> {
        self.leaf().map(|leaf| self.path(leaf)).unwrap_or_default()
    }

    /// Entries with no children, in file order.
    pub fn leaves(&self) -> Vec<usize> {
        (0..self.entries.len()).filter(|&i| self.children[i].is_empty()).collect()
    }

    /// The deepest entry that is an ancestor of both (an entry is its own ancestor).
    pub fn common_ancestor(&self, a: usize, b: usize) -> Option<usize> {
        let mut on_a = vec![false; self.entries.len()];
        for index in self.path(a) {
            on_a[index] = true;
        }
        let mut current = Some(b);
        while let Some(index) = current {
            if on_a[index] {
                return Some(index);
            }
            current = self.parents[index];
        }
        None
    }

    /// The label of an entry (the latest `label` entry wins; an empty label removes it).
    pub fn label(&self, id: &str) -> Option<&str> {
        self.labels.get(id).map(String::as_str)
    }

    /// All current labels by target id.
    pub fn labels(&self) -> &HashMap<String, String> {
        &self.labels
    }

    /// The session name from the latest `session_info` entry.
    pub fn name(&self) -> Option<&str> {
        self.entries.iter().rev().find_map(|entry| {
            if let EntryKind::SessionInfo { name } = &entry.kind {
                Some(name.as_deref())
            } else {
                None
            }
        })?
    }
}

#[cfg(test)]
mod tests {
    use crate::parse::parse_session;

    fn session(lines: &[&str]) -> crate::session::Session {
        let mut text =
            String::from(r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}"#);
        text.push('\n');
        for line in lines {
            text.push_str(line);
            text.push('\n');
        }
        parse_session(text.as_bytes())
    }

    fn entry(id: &str, parent: &str) -> String {
        let parent = if parent.is_empty() { "null".to_owned() } else { format!("\"{parent}\"") };
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"t","message":{{"role":"user","content":"{id}"}}}}"#
        )
    }

    #[test]
    fn path_leaves_children_and_common_ancestor() {
        let s = session(&[
            &entry("a", ""),
            &entry("b", "a"),
            &entry("c", "b"),
            &entry("d", "b"),
            &entry("e", "d"),
        ]);
        let ids =
            |v: Vec<usize>| v.into_iter().map(|i| s.entries()[i].id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(s.path_to_leaf()), ["a", "b", "d", "e"]);
        assert_eq!(ids(s.leaves()), ["c", "e"]);
        assert_eq!(ids(s.children_of(1).to_vec()), ["c", "d"]);
        let c = s.index_of("c").unwrap();
        let e = s.index_of("e").unwrap();
        assert_eq!(s.common_ancestor(c, e), s.index_of("b"));
        assert_eq!(s.common_ancestor(e, e), Some(e));
        assert_eq!(s.resolve_leaf(Some("c")).unwrap(), Some(c));
        assert!(s.resolve_leaf(Some("nope")).is_err());
    }

    #[test]
    fn latest_label_wins_and_empty_label_removes() {
        let s = session(&[
            &entry("a", ""),
            r#"{"type":"label","id":"l1","parentId":"a","timestamp":"t","targetId":"a","label":"first"}"#,
            r#"{"type":"label","id":"l2","parentId":"l1","timestamp":"t","targetId":"a","label":"second"}"#,
            r#"{"type":"label","id":"l3","parentId":"l2","timestamp":"t","targetId":"l1","label":"x"}"#,
            r#"{"type":"label","id":"l4","parentId":"l3","timestamp":"t","targetId":"l1"}"#,
        ]);
        assert_eq!(s.label("a"), Some("second"));
        assert_eq!(s.label("l1"), None);
    }

    #[test]
    fn push_indexes_new_entries_and_rejects_bad_ones() {
        let mut s = session(&[&entry("a", "")]);
        let b = crate::entry::Entry::parse(3, &entry("b", "a")).unwrap();
        s.push(b.clone()).unwrap();
        assert_eq!(s.path_to_leaf().len(), 2);
        assert!(s.push(b).is_err());
        let orphan = crate::entry::Entry::parse(4, &entry("z", "missing")).unwrap();
        assert!(s.push(orphan).is_err());
    }
}
