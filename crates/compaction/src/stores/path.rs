//! What reading the path to a leaf gives.

use compaction_core::Session;
use compaction_core::context::{SessionContext, build_context_for_path};

/// The entries the context at a leaf is built from.
///
/// `session` holds the session's header and some of its entries, in file order; `path` the
/// indices (into `session`) of the root → leaf path the projection reads. A backend that
/// reads only part of the path keeps every entry the projection looks at: the path from the
/// latest compaction's first kept entry to the leaf; above it, every entry of the path that
/// is not a message except those the projection ignores there (older compactions, branch
/// summaries, custom messages, labels, session names), so edits, pins, prunes, usage, model
/// and thinking-level changes; and the nearest assistant reply above it that names its
/// model (the model the context was last talking to).
#[derive(Debug)]
pub struct PathRead {
    /// The header and the entries read.
    pub session: Session,
    /// The path, root → leaf, as indices into `session`; empty for a session without entries.
    pub path: Vec<usize>,
}

impl PathRead {
    /// The whole session's path to `leaf` (its current leaf when `None`).
    pub fn whole(session: Session, leaf: Option<usize>) -> PathRead {
        let path = leaf.map(|leaf| session.path(leaf)).unwrap_or_default();
        PathRead { session, path }
    }

    /// The leaf, as an index into [`PathRead::session`].
    pub fn leaf(&self) -> Option<usize> {
        self.path.last().copied()
    }

    /// The context at the leaf.
    pub fn context(&self) -> SessionContext {
        build_context_for_path(&self.session, self.path.clone())
    }
}
