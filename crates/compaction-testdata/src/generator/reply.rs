//! Assistant replies: thinking blocks, tool calls with their results, usage and cost, final
//! and failed replies. Every tool result directly follows the reply holding its call.

use serde_json::{Map, Value, json};

use super::{FileOp, NodeKind, SessionGenerator, tokens_of};
use crate::outputs::{code, compiler_errors, listing, test_output};
use crate::vocabulary::{
    FINAL_REPLIES, MODELS, MODULES, REPLIES, THINKING_LEVELS, THOUGHTS, WORDS, fill,
};

impl SessionGenerator {
    pub(super) fn thinking_block(&mut self, file: &str) -> Option<(Value, u64)> {
        if THINKING_LEVELS[self.thinking] == "off" {
            return None;
        }
        let mut text = String::new();
        for _ in 0..self.rng.range(1, 3 + self.thinking) {
            if !text.is_empty() {
                text.push(' ');
            }
            let template = *self.rng.pick(THOUGHTS);
            text.push_str(&fill(&mut self.rng, template, file));
        }
        let tokens = tokens_of(&text);
        let block = match MODELS[self.model].provider {
            "anthropic" => {
                let signature_length = self.rng.range(200, 600);
                json!({"type": "thinking", "thinking": text, "thinkingSignature": self.rng.alphanumeric(signature_length)})
            }
            "openai" => {
                let id = format!("rs_{}", self.rng.hex(48));
                json!({"type": "thinking", "thinking": text, "thinkingSignature": json!({"type": "reasoning", "id": id, "summary": []}).to_string()})
            }
            _ => json!({"type": "thinking", "thinking": text}),
        };
        Some((block, tokens))
    }

    pub(super) fn tool_call_id(&mut self) -> String {
        match MODELS[self.model].provider {
            "anthropic" => format!("toolu_01{}", self.rng.alphanumeric(22)),
            "openai" => format!("call_{}|fc_{}", self.rng.alphanumeric(24), self.rng.hex(48)),
            _ => format!("tool_{}", self.rng.hex(12)),
        }
    }

    /// Usage of a reply: the context so far is read from cache, the new part is written.
    pub(super) fn usage(&mut self, output_tokens: u64) -> Value {
        let context = self.context_tokens();
        let input = self.rng.range(1, 12) as u64;
        let cache_write = self.rng.range(50, 3000) as u64;
        let cache_read = context.saturating_sub(cache_write + input);
        let prices = MODELS[self.model].prices;
        let cost = |tokens: u64, price: f64| (tokens as f64) * price / 1_000_000.0;
        let costs = [
            cost(input, prices[0]),
            cost(output_tokens, prices[1]),
            cost(cache_read, prices[2]),
            cost(cache_write, prices[3]),
        ];
        json!({
            "input": input,
            "output": output_tokens,
            "cacheRead": cache_read,
            "cacheWrite": cache_write,
            "totalTokens": input + output_tokens + cache_read + cache_write,
            "cost": {
                "input": costs[0],
                "output": costs[1],
                "cacheRead": costs[2],
                "cacheWrite": costs[3],
                "total": costs.iter().sum::<f64>(),
            },
        })
    }

    pub(super) fn assistant(
        &mut self,
        content: Vec<Value>,
        tokens: u64,
        stop_reason: &str,
        error: Option<&str>,
        kind: NodeKind,
    ) {
        let model = &MODELS[self.model];
        let mut message = Map::new();
        message.insert("role".into(), "assistant".into());
        message.insert("content".into(), Value::Array(content));
        message.insert("api".into(), model.api.into());
        message.insert("provider".into(), model.provider.into());
        message.insert("model".into(), model.id.into());
        let usage = if error.is_some() {
            json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                   "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}})
        } else {
            self.usage(tokens)
        };
        message.insert("usage".into(), usage);
        message.insert("stopReason".into(), stop_reason.into());
        self.tick(2_000, 40_000);
        message.insert("timestamp".into(), self.timestamp_ms());
        if model.provider == "anthropic" && error.is_none() {
            message
                .insert("responseId".into(), format!("msg_01{}", self.rng.alphanumeric(22)).into());
        }
        if let Some(error) = error {
            message.insert("errorMessage".into(), error.into());
        }
        self.push_message(Value::Object(message), kind, tokens);
    }

    pub(super) fn failed_reply(&mut self) {
        if self.rng.chance(0.5) {
            self.assistant(
                Vec::new(),
                0,
                "error",
                Some("529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"),
                NodeKind::Other,
            );
        } else {
            let text = "Let me look at the".to_owned();
            self.assistant(
                vec![json!({"type": "text", "text": text})],
                5,
                "aborted",
                Some("Request was aborted"),
                NodeKind::Other,
            );
        }
    }

    /// One assistant reply with tool calls, followed by one result per call.
    pub(super) fn tool_step(&mut self, file: &str, last: bool) {
        let mut content = Vec::new();
        let mut tokens = 0;
        if let Some((block, block_tokens)) = self.thinking_block(file) {
            content.push(block);
            tokens += block_tokens;
        }
        if self.rng.chance(0.6) {
            let template = *self.rng.pick(REPLIES);
            let text = fill(&mut self.rng, template, file);
            tokens += tokens_of(&text);
            content.push(json!({"type": "text", "text": text}));
        }
        let calls = if self.rng.chance(0.8) { 1 } else { self.rng.range(2, 3) };
        let mut results = Vec::new();
        for _ in 0..calls {
            let id = self.tool_call_id();
            let (name, arguments, result) = self.tool_call(file, last);
            tokens += tokens_of(name) + tokens_of(&arguments.to_string());
            content
                .push(json!({"type": "toolCall", "id": id, "name": name, "arguments": arguments}));
            results.push((id, name, result));
        }
        self.assistant(content, tokens, "toolUse", None, NodeKind::Other);
        for (id, name, (text, details, is_error)) in results {
            let tokens = tokens_of(&text);
            let mut message = Map::new();
            message.insert("role".into(), "toolResult".into());
            message.insert("toolCallId".into(), id.into());
            message.insert("toolName".into(), name.into());
            message.insert("content".into(), json!([{"type": "text", "text": text}]));
            if let Some(details) = details {
                message.insert("details".into(), details);
            }
            message.insert("isError".into(), is_error.into());
            self.tick(100, 20_000);
            message.insert("timestamp".into(), self.timestamp_ms());
            self.push_message(Value::Object(message), NodeKind::Other, tokens);
        }
    }

    /// A tool call's name, arguments and result (text, details, isError).
    pub(super) fn tool_call(
        &mut self,
        file: &str,
        last: bool,
    ) -> (&'static str, Value, (String, Option<Value>, bool)) {
        // The assistant message holding this call is the next entry on the path.
        let position = self.path.len();
        let mean = self.tool_output_mean;
        match self.rng.below(10) {
            0..=3 => {
                let path = if self.rng.chance(0.7) { file.to_owned() } else { self.random_file() };
                self.file_ops.push(FileOp { position, file: path.clone(), modified: false });
                let size = self.rng.size_around(mean);
                let text = code(&mut self.rng, size);
                let arguments = if self.rng.chance(0.2) {
                    json!({"path": path, "offset": self.rng.range(1, 400), "limit": 200})
                } else {
                    json!({"path": path})
                };
                ("read", arguments, (text, None, false))
            }
            4 | 5 => {
                self.file_ops.push(FileOp { position, file: file.to_owned(), modified: true });
                let (old_size, new_size) = (self.rng.range(40, 300), self.rng.range(40, 400));
                let old_text = code(&mut self.rng, old_size);
                let new_text = code(&mut self.rng, new_size);
                let line = self.rng.range(1, 600);
                let diff = format!(
                    "{}\n{}",
                    old_text
                        .lines()
                        .map(|l| format!("-{line:>4} {l}"))
                        .collect::<Vec<_>>()
                        .join("\n"),
                    new_text
                        .lines()
                        .map(|l| format!("+{line:>4} {l}"))
                        .collect::<Vec<_>>()
                        .join("\n"),
                );
                if self.rng.chance(0.1) {
                    let text = format!(
                        "Could not find the exact text in {file}. The old text must match exactly including all whitespace and newlines."
                    );
                    let arguments = json!({"path": file, "edits": [{"oldText": old_text, "newText": new_text}]});
                    return ("edit", arguments, (text, None, true));
                }
                let arguments =
                    json!({"path": file, "edits": [{"oldText": old_text, "newText": new_text}]});
                let text = format!("Successfully replaced 1 block(s) in {file}.");
                let details = json!({"diff": diff, "firstChangedLine": line});
                ("edit", arguments, (text, Some(details), false))
            }
            6 => {
                let path = format!("tests/{}_{}.rs", self.rng.pick(MODULES), self.rng.pick(WORDS));
                self.file_ops.push(FileOp { position, file: path.clone(), modified: true });
                let size = self.rng.size_around(mean / 2);
                let content = code(&mut self.rng, size);
                let text = format!("Successfully wrote {} bytes to {path}", content.len());
                ("write", json!({"path": path, "content": content}), (text, None, false))
            }
            _ => {
                let size = self.rng.size_around(mean);
                let (command, mut text, failed) = match self.rng.below(4) {
                    0 | 1 => {
                        let failed = if last {
                            0
                        } else {
                            usize::from(self.rng.chance(0.35)) * self.rng.range(1, 3)
                        };
                        ("cargo test", test_output(&mut self.rng, size, failed), failed > 0)
                    }
                    2 => {
                        if self.rng.chance(0.4) {
                            ("cargo build", compiler_errors(&mut self.rng, size, file), true)
                        } else {
                            (
                                "cargo clippy --all-targets -- -D warnings",
                                "    Checking compaction-core v0.1.0\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 2.03s\n".to_owned(),
                                false,
                            )
                        }
                    }
                    _ => ("rg -n 'fn ' src", listing(&mut self.rng, size), false),
                };
                if failed {
                    text.push_str(&format!(
                        "\n\nCommand exited with code {}",
                        if command == "cargo test" { 101 } else { 1 }
                    ));
                }
                let arguments = if self.rng.chance(0.2) {
                    json!({"command": command, "timeout": 120})
                } else {
                    json!({"command": command})
                };
                ("bash", arguments, (text, None, failed))
            }
        }
    }

    pub(super) fn final_reply(&mut self, file: &str) {
        let mut content = Vec::new();
        let mut tokens = 0;
        if let Some((block, block_tokens)) = self.thinking_block(file) {
            content.push(block);
            tokens += block_tokens;
        }
        let template = *self.rng.pick(FINAL_REPLIES);
        let text = fill(&mut self.rng, template, file);
        tokens += tokens_of(&text);
        content.push(json!({"type": "text", "text": text}));
        self.assistant(content, tokens, "stop", None, NodeKind::TurnEnd);
    }
}
