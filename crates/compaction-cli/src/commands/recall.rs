//! `compaction recall` and `compaction search`: get back what the context no longer shows.
//!
//! Read-only: the session file is opened for reading and never changed. `recall` prints an
//! entry's original content (a pruned tool output, a summarized message) as the log holds
//! it, secrets redacted as everywhere the terminal shows a session; `search` finds text in
//! the entries the context at a leaf hides (each snippet cut from the entry redacted whole)
//! and names the entry ids to recall.

use compaction_core::context::build_context;
use compaction_core::recall::{HiddenBy, recall, search as search_hidden};
use serde_json::json;

use super::{CommandError, ExitStatus};
use crate::cli::{RecallArgs, SearchArgs};
use crate::output::print_json;

pub fn run(args: &RecallArgs) -> anyhow::Result<ExitStatus> {
    let session = crate::load::read_session(&args.file)?;
    let recalled = recall(&session, &args.id)
        .map_err(|e| CommandError::usage(format!("{}: {e}", args.file.display())))?;
    if args.json {
        print_json(&recalled)?;
    } else {
        use std::io::Write as _;
        let mut stdout = crate::output::Visible(std::io::stdout().lock());
        let text = crate::output::shown(&recalled.text);
        stdout.write_all(text.as_bytes())?;
        if !text.ends_with('\n') {
            stdout.write_all(b"\n")?;
        }
    }
    crate::load::release_at_exit(session);
    Ok(ExitStatus::Success)
}

pub fn search(args: &SearchArgs) -> anyhow::Result<ExitStatus> {
    let (session, leaf) = super::load_with_leaf(&args.session)?;
    let context = build_context(&session, leaf);
    let hits =
        search_hidden(&session, &context, &args.query, args.limit, Some(crate::output::redactor()));
    if args.json {
        print_json(&json!({ "query": args.query, "hits": hits }))?;
    } else if hits.is_empty() {
        println!("no match for `{}` in what the context no longer shows", args.query);
    } else {
        for hit in &hits {
            let what = match &hit.hidden_by {
                HiddenBy::Compaction { id } => format!("summarized by {id}"),
                HiddenBy::Edit { id } => format!("edited out by context edit {id}"),
                HiddenBy::Prune { id } => format!("pruned by {id}"),
            };
            let role = match &hit.tool {
                Some(tool) => format!("{} ({tool})", hit.role),
                None => hit.role.clone(),
            };
            println!("{}  {role}, {what}, {} match(es)", hit.id, hit.matches);
            println!("    {}", crate::output::shown(&hit.snippet));
        }
        println!("recall one with: compaction recall {} ID", args.session.file.display());
    }
    crate::load::release_at_exit(session);
    Ok(ExitStatus::Success)
}
