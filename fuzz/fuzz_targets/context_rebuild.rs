//! Rebuilding the context for every leaf of an arbitrary session terminates without
//! panicking, and paths stay within the session.
#![no_main]

use compaction_core::context::build_context;
use compaction_core::parse_session;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let session = parse_session(bytes);
    for leaf in session.leaves() {
        assert!(session.path(leaf).len() <= session.entries().len());
        let context = build_context(&session, Some(leaf));
        let _ = context.agent_messages(&session);
        let _ = context.llm_messages(&session);
    }
    let _ = build_context(&session, session.leaf());
});
