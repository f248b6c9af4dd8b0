//! Which call a tool result of an import answers, decided by where the result stands.
//!
//! A provider accepts a tool result only right after the assistant message holding its call
//! (past other results of that message), and only once. A transcript can lie about both: a
//! result may hang on another branch, after the agent's own compaction, after the user's
//! next message or a later reply, and the same call id may be given to several calls (of one
//! reply or of several turns, or left empty). So the pairing is by place, not by id alone:
//! a result answers the first unanswered call with the id it names in *the reply it
//! follows* — the nearest assistant message above it on its branch, past other results and
//! entries outside the context (`custom`). A result that follows no reply holding such a
//! call is kept as an `imported-meta` note (its output stays in the context, as user-role
//! text) and counted; it never stands where a provider would refuse it.
//!
//! Every call id written is unique in the session: a call whose id was given before (or is
//! empty) gets a new one (`id-2`, `imported-call-N`), and the result that answers it names
//! that one.
//!
//! Invariant: entries are handed to [`Pairing`] in the order of their indices, each after
//! its parent.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

/// The calls of one assistant message: by the id the transcript gave, the ids written (in
/// order) and how many of them are answered (results answer the first unanswered one, so
/// the answered ones are always the first).
type Calls = HashMap<String, (Vec<String>, usize)>;

/// Why a tool result was kept as a note.
pub(super) const ANSWERED: &str =
    "tool result given again for a call already answered (kept as a note)";
/// Why a tool result was kept as a note.
pub(super) const NOT_IN_SESSION: &str =
    "tool result whose call is not in the session (kept as a note)";
/// Why a tool result was kept as a note.
pub(super) const NOT_BEFORE_IT: &str =
    "tool result whose call is not right before it on its branch (kept as a note)";

/// The pairing state of an import.
#[derive(Default)]
pub(super) struct Pairing {
    /// Every call id written.
    written: HashSet<String>,
    /// Every call id the transcript gave.
    given: HashSet<String>,
    /// Per id given, the last suffix tried for a call given it again.
    suffix: HashMap<String, usize>,
    /// Per entry (by index), the reply whose results may follow it: the assistant entry's
    /// index + 1, or 0 for none.
    reply_of: Vec<u32>,
    /// The calls of each assistant entry that holds some (by index + 1).
    calls: HashMap<u32, Calls>,
}

impl Pairing {
    fn set(&mut self, index: usize, reply: u32) {
        if self.reply_of.len() <= index {
            self.reply_of.resize(index + 1, 0);
        }
        self.reply_of[index] = reply;
    }

    fn reply_under(&self, parent: u32) -> u32 {
        parent.checked_sub(1).and_then(|p| self.reply_of.get(p as usize)).copied().unwrap_or(0)
    }

    /// An assistant message handed out as entry `index`: gives each call a unique id.
    pub(super) fn assistant(&mut self, index: usize, blocks: &mut [Value]) {
        let reply = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let mut calls = Calls::new();
        for block in blocks.iter_mut().filter(|b| b["type"] == "toolCall") {
            let id = block["id"].as_str().unwrap_or("").to_owned();
            // The last suffix tried for an id is remembered, so an id given n times costs n
            // tries in all, not n² (a suffix another call holds is still skipped).
            let mut unique = id.clone();
            let suffix = self.suffix.entry(id.clone()).or_insert(1);
            while unique.is_empty() || self.written.contains(&unique) {
                *suffix += 1;
                unique = if id.is_empty() {
                    format!("imported-call-{suffix}")
                } else {
                    format!("{id}-{suffix}")
                };
            }
            if unique != id {
                block["id"] = Value::String(unique.clone());
            }
            self.written.insert(unique.clone());
            self.given.insert(id.clone());
            calls.entry(id).or_default().0.push(unique);
        }
        if !calls.is_empty() {
            self.calls.insert(reply, calls);
        }
        self.set(index, reply);
    }

    /// A tool result handed out as entry `index` under `parent` (index + 1, 0 for a root):
    /// names the call it answers, or says why it answers none (then it is to be kept as a
    /// note, and [`Pairing::other`] told so).
    pub(super) fn result(
        &mut self,
        index: usize,
        parent: u32,
        message: &mut Map<String, Value>,
    ) -> Result<(), &'static str> {
        let named = message.get("toolCallId").and_then(Value::as_str).unwrap_or("").to_owned();
        let reply = self.reply_under(parent);
        let slot = self.calls.get_mut(&reply).and_then(|calls| calls.get_mut(&named));
        match slot {
            Some((written, answered)) if *answered < written.len() => {
                message.insert("toolCallId".into(), Value::String(written[*answered].clone()));
                *answered += 1;
                self.set(index, reply);
                Ok(())
            }
            Some(_) => Err(ANSWERED),
            None if self.given.contains(&named) => Err(NOT_BEFORE_IT),
            None => Err(NOT_IN_SESSION),
        }
    }

    /// Any other entry handed out as `index` under `parent`: an entry outside the context
    /// (`custom`) keeps the reply above it open; one in it (a user message, a note, a
    /// compaction) closes it.
    pub(super) fn other(&mut self, index: usize, parent: u32, in_context: bool) {
        let reply = if in_context { 0 } else { self.reply_under(parent) };
        self.set(index, reply);
    }
}
