//! Recording pins and unpins: the `custom` entries of [`compaction_core::pins`], appended
//! under a leaf through the store.
//!
//! Invariant: a pin or unpin is one appended line; a refused request (unknown entry, no
//! text, an id that is not an active pin) writes nothing.

use compaction_core::entry::Entry;
use compaction_core::pins::{
    NotAPin, PIN_CUSTOM_TYPE, PinData, PinSourceError, UNPIN_CUSTOM_TYPE, UnpinData, active_pins,
    pin_text_of_entry, resolve_unpin_ids,
};
use serde_json::{Map, Value};

use crate::store::{NewEntry, Parent, SessionStore, StoreError};

/// What to pin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinSource {
    /// The text of this entry (a user message, usually).
    Entry(String),
    /// This text, verbatim.
    Text(String),
}

/// Why a pin or unpin was not recorded. The session file is unchanged in every case.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PinError {
    /// The entry to pin does not exist or has no text.
    #[error(transparent)]
    Source(#[from] PinSourceError),
    /// The text to pin is empty or only whitespace.
    #[error("the text to pin is empty")]
    EmptyText,
    /// An id given to unpin is not an active pin.
    #[error(transparent)]
    NotAPin(#[from] NotAPin),
    /// Unpin was given no ids.
    #[error("give the id of at least one pin to remove")]
    NothingToUnpin,
    /// The leaf asked for does not exist.
    #[error(transparent)]
    UnknownLeaf(#[from] compaction_core::session::UnknownEntryId),
    /// The store could not append the entry.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn parent_of(store: &SessionStore, leaf: Option<usize>) -> Parent {
    match leaf {
        Some(index) => Parent::Id(store.session().entries()[index].id.clone()),
        None => Parent::Root,
    }
}

fn custom_entry(custom_type: &str, data: Value) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("customType".to_owned(), Value::String(custom_type.to_owned()));
    fields.insert("data".to_owned(), data);
    fields
}

/// Appends a `compaction.pin` entry under `leaf` (an entry index; `None` = a new root) and
/// returns it.
pub fn pin(
    store: &mut SessionStore,
    leaf: Option<usize>,
    source: &PinSource,
) -> Result<Entry, PinError> {
    let data = match source {
        PinSource::Entry(id) => PinData {
            text: pin_text_of_entry(store.session(), id)?,
            source_entry_id: Some(id.clone()),
        },
        PinSource::Text(text) if text.trim().is_empty() => return Err(PinError::EmptyText),
        PinSource::Text(text) => PinData { text: text.clone(), source_entry_id: None },
    };
    let data = serde_json::to_value(data).unwrap_or(Value::Null);
    let new = NewEntry::new("custom", custom_entry(PIN_CUSTOM_TYPE, data))
        .with_parent(parent_of(store, leaf));
    Ok(store.append(new)?)
}

/// Appends a `compaction.unpin` entry under `leaf` removing the pins named by `ids` (pin
/// ids, or ids of the entries pins were copied from) and returns it with the pin ids removed.
pub fn unpin(
    store: &mut SessionStore,
    leaf: Option<usize>,
    ids: &[String],
) -> Result<(Entry, Vec<String>), PinError> {
    if ids.is_empty() {
        return Err(PinError::NothingToUnpin);
    }
    let pins = active_pins(store.session(), leaf);
    let pin_ids = resolve_unpin_ids(&pins, ids)?;
    let data = serde_json::to_value(UnpinData { pin_ids: pin_ids.clone() }).unwrap_or(Value::Null);
    let new = NewEntry::new("custom", custom_entry(UNPIN_CUSTOM_TYPE, data))
        .with_parent(parent_of(store, leaf));
    Ok((store.append(new)?, pin_ids))
}
