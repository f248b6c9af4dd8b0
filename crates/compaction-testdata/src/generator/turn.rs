//! One turn: the user's prompt, the assistant's tool steps and final reply, and the events
//! that may come before it (session name, compaction, branch, model and thinking-level
//! changes, labels, extension entries, user shell commands).

use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::{NodeKind, SessionGenerator, tokens_of};
use crate::image::png;
use crate::outputs::{listing, test_output};
use crate::vocabulary::{
    CUSTOM_TYPES, LABELS, MODELS, PROMPTS, PROMPTS_CJK, THINKING_LEVELS, WORDS, fill,
};

impl SessionGenerator {
    /// Produces the entries of one turn (and any events before it) into the queue.
    pub(super) fn turn(&mut self) {
        if self.turns == 0 {
            let model = &MODELS[self.model];
            let mut body = Map::new();
            body.insert("provider".into(), model.provider.into());
            body.insert("modelId".into(), model.id.into());
            self.push("model_change", Map::new(), body, NodeKind::Other, 0);
            let mut body = Map::new();
            body.insert("thinkingLevel".into(), THINKING_LEVELS[self.thinking].into());
            self.push("thinking_level_change", Map::new(), body, NodeKind::Other, 0);
            if self.options.pi16 {
                self.first_system_message();
            }
        }
        self.turns += 1;
        self.side_events();
        let file = self.random_file();
        self.user_message(&file);
        let steps = self.rng.range(1, 5);
        for step in 0..steps {
            if self.rng.chance(0.015) {
                self.failed_reply();
                return;
            }
            self.tool_step(&file, step + 1 == steps);
        }
        self.final_reply(&file);
    }

    /// Whether an event of base probability `probability` happens now.
    pub(super) fn event(&mut self, probability: f64) -> bool {
        self.rng.chance(probability * self.options.event_scale)
    }

    pub(super) fn side_events(&mut self) {
        if !self.named && self.turns > 2 {
            self.named = true;
            let name = format!("Fix {} handling", self.rng.pick(WORDS));
            let mut body = Map::new();
            body.insert("name".into(), name.into());
            self.push("session_info", Map::new(), body, NodeKind::Other, 0);
        }
        if self.options.compactions
            && self.context_tokens() > self.options.compaction_threshold_tokens
        {
            self.compaction();
        }
        if self.options.branches && self.turns > 3 && self.event(0.04) {
            self.branch();
        }
        if self.event(0.03) {
            self.model = (self.model + 1 + self.rng.below(MODELS.len() - 1)) % MODELS.len();
            let model = &MODELS[self.model];
            let mut body = Map::new();
            body.insert("provider".into(), model.provider.into());
            body.insert("modelId".into(), model.id.into());
            self.push("model_change", Map::new(), body, NodeKind::Other, 0);
        }
        if self.event(0.03) {
            self.thinking = self.rng.below(THINKING_LEVELS.len());
            let mut body = Map::new();
            body.insert("thinkingLevel".into(), THINKING_LEVELS[self.thinking].into());
            self.push("thinking_level_change", Map::new(), body, NodeKind::Other, 0);
        }
        if self.event(0.04) {
            self.label();
        }
        if self.event(0.03) {
            let custom_type = *self.rng.pick(CUSTOM_TYPES);
            let items: Vec<Value> = (0..self.rng.range(1, 4))
                .map(|i| json!({"id": i + 1, "text": fill(&mut self.rng, "{verb} the {word}", ""), "done": i == 0}))
                .collect();
            let mut head = Map::new();
            head.insert("customType".into(), custom_type.into());
            head.insert("data".into(), json!({"items": items, "revision": self.turns}));
            self.push("custom", head, Map::new(), NodeKind::Other, 0);
        }
        if self.event(0.03) {
            let text = fill(
                &mut self.rng,
                "Reminder from the {module} extension: keep `{verb}_{word}` covered by tests.",
                "",
            );
            let tokens = tokens_of(&text);
            let mut head = Map::new();
            head.insert("customType".into(), "reminder".into());
            head.insert(
                "content".into(),
                if self.rng.chance(0.5) {
                    Value::String(text)
                } else {
                    json!([{"type": "text", "text": text}])
                },
            );
            head.insert("display".into(), self.rng.chance(0.7).into());
            head.insert("details".into(), json!({"source": "extension", "turn": self.turns}));
            self.push("custom_message", head, Map::new(), NodeKind::Other, tokens);
        }
        if self.event(0.04) {
            self.user_bash();
        }
        if self.options.pi16 {
            self.pi16_events();
        }
    }

    pub(super) fn label(&mut self) {
        if self.path.is_empty() {
            return;
        }
        let low = self.path.len().saturating_sub(40);
        let target = self.path[self.rng.range(low, self.path.len() - 1)].id.clone();
        let mut body = Map::new();
        body.insert("targetId".into(), target.into());
        // One label in eight is a removal: pi leaves `label` out.
        if !self.rng.chance(0.125) {
            body.insert("label".into(), (*self.rng.pick(LABELS)).into());
        }
        self.push("label", Map::new(), body, NodeKind::Other, 0);
    }

    pub(super) fn user_bash(&mut self) {
        let (command, output, exit_code) = match self.rng.below(4) {
            0 => {
                let failed = usize::from(self.rng.chance(0.4));
                let size = self.rng.size_around(self.tool_output_mean / 2);
                (
                    "cargo test".to_owned(),
                    test_output(&mut self.rng, size, failed),
                    i64::from(failed > 0) * 101,
                )
            }
            1 => (
                "git status --short".to_owned(),
                format!(" M {}\n M {}\n?? notes.md\n", self.random_file(), self.random_file()),
                0,
            ),
            2 => {
                let size = self.rng.size_around(self.tool_output_mean / 3);
                (format!("rg -n {} src", self.rng.pick(WORDS)), listing(&mut self.rng, size), 0)
            }
            _ => ("ls".to_owned(), "Cargo.lock\nCargo.toml\nREADME.md\nsrc\ntests\n".into(), 0),
        };
        let truncated = output.len() > 30_000;
        let tokens = tokens_of(&command) + tokens_of(&output);
        let mut message = Map::new();
        message.insert("role".into(), "bashExecution".into());
        message.insert("command".into(), command.into());
        message.insert("output".into(), output.into());
        message.insert("exitCode".into(), exit_code.into());
        message.insert("cancelled".into(), false.into());
        message.insert("truncated".into(), truncated.into());
        if truncated {
            let path = format!("/tmp/pi-bash-{}.log", self.rng.hex(8));
            message.insert("fullOutputPath".into(), path.into());
        }
        message.insert("timestamp".into(), self.timestamp_ms());
        if self.rng.chance(0.15) {
            message.insert("excludeFromContext".into(), true.into());
        }
        self.push_message(Value::Object(message), NodeKind::Other, tokens);
    }

    pub(super) fn user_message(&mut self, file: &str) {
        let template = if self.rng.chance(0.1) {
            *self.rng.pick(PROMPTS_CJK)
        } else {
            *self.rng.pick(PROMPTS)
        };
        let text = fill(&mut self.rng, template, file);
        let mut tokens = tokens_of(&text);
        let content = if self.rng.chance(0.75) {
            Value::String(text)
        } else {
            let mut blocks = vec![json!({"type": "text", "text": text})];
            if self.rng.chance(0.3) {
                let (width, height) = (self.rng.range(8, 48) as u32, self.rng.range(8, 32) as u32);
                let image = png(&mut self.rng, width, height);
                blocks.push(json!({
                    "type": "image",
                    "data": base64::engine::general_purpose::STANDARD.encode(image),
                    "mimeType": "image/png",
                }));
                tokens += 1200;
            } else {
                let extra = fill(
                    &mut self.rng,
                    "Context: the `{verb}_{word}` path in {file} is the hot one.",
                    file,
                );
                tokens += tokens_of(&extra);
                blocks.push(json!({"type": "text", "text": extra}));
            }
            Value::Array(blocks)
        };
        self.tick(20_000, 240_000);
        let message = json!({"role": "user", "content": content, "timestamp": self.timestamp_ms()});
        self.push_message(message, NodeKind::User, tokens);
    }
}
