//! `compaction pin` and `compaction unpin`: record which user instructions must survive
//! every compaction word for word.
//!
//! Each command appends one `custom` entry under the leaf (the last entry, or `--leaf`);
//! a refused request (unknown entry, empty text, an id that is not an active pin) writes
//! nothing and exits 2.

use crate::output::plural;
use compaction::pins::{PinSource, pin as append_pin, unpin as append_unpin};
use serde_json::json;

use super::{CommandError, ExitStatus, open};
use crate::cli::{PinArgs, SessionArgs, UnpinArgs};
use crate::output::print_json;

fn open(
    session: &SessionArgs,
    wait: bool,
) -> anyhow::Result<(compaction::store::SessionStore, Option<usize>)> {
    let store = open::open_store(&session.file, true, wait)?;
    let leaf = store
        .session()
        .resolve_leaf(session.leaf.as_deref())
        .map_err(|e| CommandError::usage(format!("{}: {e}", session.file.display())))?;
    Ok((store, leaf))
}

pub fn pin(args: &PinArgs) -> anyhow::Result<ExitStatus> {
    let source = match (&args.entry, &args.text) {
        (Some(id), _) => PinSource::Entry(id.clone()),
        (None, Some(text)) => PinSource::Text(text.clone()),
        (None, None) => return Err(CommandError::usage("give --entry ID or --text TEXT")),
    };
    let file = args.session.file.display();
    let (mut store, leaf) = open(&args.session, args.wait)?;
    let entry = append_pin(&mut store, leaf, &source)
        .map_err(|e| CommandError::usage(format!("{file}: {e}; nothing written")))?;
    let pins =
        compaction_core::pins::active_pins(store.session(), store.session().index_of(&entry.id));
    if args.json {
        print_json(&json!({"pinned": true, "entryId": entry.id, "activePins": pins}))?;
    } else {
        println!("{file}: pinned {} ({})", entry.id, plural(pins.len(), "active pin"));
    }
    Ok(ExitStatus::Success)
}

pub fn unpin(args: &UnpinArgs) -> anyhow::Result<ExitStatus> {
    let file = args.session.file.display();
    let (mut store, leaf) = open(&args.session, args.wait)?;
    let (entry, removed) = append_unpin(&mut store, leaf, &args.ids)
        .map_err(|e| CommandError::usage(format!("{file}: {e}; nothing written")))?;
    let pins =
        compaction_core::pins::active_pins(store.session(), store.session().index_of(&entry.id));
    if args.json {
        print_json(&json!({"unpinned": removed, "entryId": entry.id, "activePins": pins}))?;
    } else {
        println!(
            "{file}: unpinned {} ({} left)",
            removed.join(", "),
            plural(pins.len(), "active pin")
        );
    }
    Ok(ExitStatus::Success)
}
