//! The writers of round 17's transcripts: Claude Code lines and Codex rollout items, each
//! text, call input and output carrying a marker numbered for its instance.

use serde_json::{Value, json};

use super::super::SourceFormat;

/// One generated transcript and what its session must hold.
pub(super) struct Instance {
    pub(super) name: String,
    pub(super) format: SourceFormat,
    pub(super) text: String,
    /// Every marker that must reach the session.
    pub(super) markers: Vec<String>,
    /// Outputs that must stay tool results (their call is right before them).
    pub(super) results: Vec<String>,
    /// The markers of the transcript's own path to its last line (from the agent's last
    /// compaction on): what the model sees when the session is resumed.
    pub(super) on_path: Vec<String>,
}

/// The markers in a line.
fn markers_of(line: &Value) -> Vec<String> {
    let text = line.to_string();
    let mut out = Vec::new();
    for what in ["USER-", "SAY-", "ARG-", "OUT-", "SUMMARY-"] {
        for (at, _) in text.match_indices(what) {
            let rest = &text[at..];
            let end = rest[what.len()..]
                .find(|c: char| !(c.is_ascii_digit() || c == '-'))
                .map_or(rest.len(), |e| e + what.len());
            out.push(rest[..end].to_owned());
        }
    }
    out
}

/// Lines of a Claude Code transcript, with markers numbered for instance `k`.
pub(super) struct Claude {
    pub(super) k: usize,
    pub(super) lines: Vec<Value>,
    pub(super) markers: Vec<String>,
    pub(super) results: Vec<String>,
}

impl Claude {
    pub(super) fn new(k: usize) -> Self {
        Claude { k, lines: Vec::new(), markers: Vec::new(), results: Vec::new() }
    }

    pub(super) fn mark(&mut self, what: &str, n: usize) -> String {
        let mark = format!("{what}-{}-{n}", self.k);
        self.markers.push(mark.clone());
        mark
    }

    pub(super) fn line(&mut self, kind: &str, uuid: &str, parent: Option<&str>, mut extra: Value) {
        let second = self.lines.len();
        let mut line = json!({
            "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": "/w",
            "sessionId": "s17", "version": "1.0.80", "type": kind, "uuid": uuid,
            "timestamp": format!("2026-01-01T{:02}:{:02}:{:02}.000Z", second / 3600 % 24,
                second / 60 % 60, second % 60),
        });
        if let (Some(line), Some(extra)) = (line.as_object_mut(), extra.as_object_mut()) {
            line.append(extra);
        }
        self.lines.push(line);
    }

    pub(super) fn user(&mut self, uuid: &str, parent: Option<&str>, n: usize) {
        let text = self.mark("USER", n);
        self.line("user", uuid, parent, json!({ "message": { "role": "user", "content": text } }));
    }

    /// An assistant line of reply `reply` with a text and the calls `(id, n)`.
    pub(super) fn reply(
        &mut self,
        uuid: &str,
        parent: Option<&str>,
        reply: &str,
        calls: &[(&str, usize)],
    ) {
        let mut content =
            vec![json!({ "type": "text", "text": self.mark("SAY", self.lines.len()) })];
        for &(id, n) in calls {
            let arg = self.mark("ARG", n);
            content.push(json!({ "type": "tool_use", "id": id, "name": "Grep",
                "input": { "pattern": arg } }));
        }
        let message = json!({ "id": reply, "type": "message", "role": "assistant",
            "model": "claude-sonnet-4", "content": content, "stop_reason": null,
            "usage": { "input_tokens": 10, "output_tokens": 5 } });
        self.line("assistant", uuid, parent, json!({ "message": message }));
    }

    /// A line holding the result of call `id` (output `n`); `placed` when its parent is the
    /// call's line or a result of the same reply.
    pub(super) fn result(
        &mut self,
        uuid: &str,
        parent: Option<&str>,
        id: &str,
        n: usize,
        placed: bool,
    ) {
        let out = self.mark("OUT", n);
        if placed {
            self.results.push(out.clone());
        }
        let content = json!([{ "type": "tool_result", "tool_use_id": id, "content": out }]);
        self.line(
            "user",
            uuid,
            parent,
            json!({ "message": { "role": "user", "content": content } }),
        );
    }

    /// Claude Code's own compaction after `logical`: the boundary, then the summary.
    pub(super) fn compact(&mut self, uuid: &str, logical: &str) {
        self.line(
            "system",
            uuid,
            None,
            json!({ "subtype": "compact_boundary",
            "logicalParentUuid": logical, "compactMetadata": { "preTokens": 900 } }),
        );
        let summary = self.mark("SUMMARY", self.lines.len());
        let message = json!({ "role": "user", "content": summary });
        self.line(
            "user",
            &format!("{uuid}s"),
            Some(uuid),
            json!({ "isCompactSummary": true, "message": message }),
        );
    }

    /// `filler` complete turns from `parent`, each with `calls` calls answered in order;
    /// returns the last line's uuid.
    pub(super) fn turns(
        &mut self,
        tag: &str,
        parent: Option<&str>,
        filler: usize,
        calls: usize,
    ) -> String {
        let mut last = parent.map(str::to_owned);
        for t in 0..filler {
            let user = format!("{tag}u{t}");
            self.user(&user, last.as_deref(), 100 + t);
            let ids: Vec<String> = (0..calls).map(|c| format!("toolu_{tag}{t}_{c}")).collect();
            let pairs: Vec<(&str, usize)> =
                ids.iter().enumerate().map(|(c, id)| (id.as_str(), 200 + t * 10 + c)).collect();
            let reply = format!("{tag}a{t}");
            self.reply(&reply, Some(&user), &format!("msg_{tag}{t}"), &pairs);
            last = Some(reply);
            for (c, id) in ids.iter().enumerate() {
                let uuid = format!("{tag}r{t}_{c}");
                self.result(&uuid, last.as_deref(), id, 200 + t * 10 + c, true);
                last = Some(uuid);
            }
        }
        last.unwrap_or_default()
    }

    pub(super) fn done(self, name: String) -> Instance {
        let text = self.lines.iter().map(|l| format!("{l}\n")).collect();
        // The path from the last line: each line's parent is the latest line before it with
        // that id; it ends at the agent's own compaction summary or a root.
        let mut on_path = Vec::new();
        let mut at = self.lines.len().checked_sub(1);
        while let Some(index) = at {
            let line = &self.lines[index];
            on_path.extend(markers_of(line));
            if line["isCompactSummary"] == true {
                break;
            }
            let parent = line["parentUuid"].as_str();
            at = parent.and_then(|p| self.lines[..index].iter().rposition(|l| l["uuid"] == p));
        }
        Instance {
            name,
            format: SourceFormat::ClaudeCode,
            text,
            markers: self.markers,
            results: self.results,
            on_path,
        }
    }
}

/// Lines of a Codex rollout.
pub(super) struct Codex {
    pub(super) k: usize,
    pub(super) lines: Vec<Value>,
    pub(super) markers: Vec<String>,
    pub(super) results: Vec<String>,
}

impl Codex {
    pub(super) fn new(k: usize) -> Self {
        let meta = json!({ "timestamp": "2026-01-01T00:00:00.000Z", "type": "session_meta",
            "payload": { "id": "c17", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w",
                "model_provider": "openai" } });
        Codex { k, lines: vec![meta], markers: Vec::new(), results: Vec::new() }
    }

    pub(super) fn mark(&mut self, what: &str, n: usize) -> String {
        let mark = format!("{what}-{}-{n}", self.k);
        self.markers.push(mark.clone());
        mark
    }

    pub(super) fn item(&mut self, payload: Value) {
        let second = self.lines.len();
        self.lines.push(json!({ "timestamp": format!("2026-01-01T00:{:02}:{:02}.000Z",
            second / 60 % 60, second % 60), "type": "response_item", "payload": payload }));
    }

    pub(super) fn user(&mut self, n: usize) {
        let text = self.mark("USER", n);
        self.item(json!({ "type": "message", "role": "user",
            "content": [{ "type": "input_text", "text": text }] }));
    }

    pub(super) fn say(&mut self) {
        let text = self.mark("SAY", self.lines.len());
        self.item(json!({ "type": "message", "role": "assistant",
            "content": [{ "type": "output_text", "text": text }] }));
    }

    pub(super) fn call(&mut self, id: &str, n: usize) {
        let arg = self.mark("ARG", n);
        let arguments = json!({ "q": arg }).to_string();
        self.item(json!({ "type": "function_call", "name": "lookup", "arguments": arguments,
            "call_id": id }));
    }

    pub(super) fn output(&mut self, id: &str, n: usize, placed: bool) {
        let out = self.mark("OUT", n);
        if placed {
            self.results.push(out.clone());
        }
        self.item(json!({ "type": "function_call_output", "call_id": id, "output": out }));
    }

    pub(super) fn compacted(&mut self) {
        let text = self.mark("SUMMARY", self.lines.len());
        let second = self.lines.len();
        self.lines.push(json!({ "timestamp": format!("2026-01-01T00:{:02}:{:02}.000Z",
            second / 60 % 60, second % 60), "type": "compacted",
            "payload": { "message": text, "replacement_history": [] } }));
    }

    /// `filler` complete turns with `calls` calls each, answered in order.
    pub(super) fn turns(&mut self, filler: usize, calls: usize) {
        for t in 0..filler {
            self.user(100 + t);
            self.say();
            for c in 0..calls {
                self.call(&format!("call_f{t}_{c}"), 200 + t * 10 + c);
            }
            for c in 0..calls {
                self.output(&format!("call_f{t}_{c}"), 200 + t * 10 + c, true);
            }
        }
    }

    pub(super) fn done(self, name: String) -> Instance {
        let text = self.lines.iter().map(|l| format!("{l}\n")).collect();
        // A rollout is one path; the model sees it from the last compaction on.
        let from = self.lines.iter().rposition(|l| l["type"] == "compacted").unwrap_or(0);
        let on_path = self.lines[from..].iter().flat_map(markers_of).collect();
        Instance {
            name,
            format: SourceFormat::Codex,
            text,
            markers: self.markers,
            results: self.results,
            on_path,
        }
    }
}
