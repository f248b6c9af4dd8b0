// A local model server for the resume tests, speaking the two wire protocols the agents use:
// Anthropic's Messages API (`POST /v1/messages`, streamed as server-sent events when asked,
// `POST /v1/messages/count_tokens`) for Claude Code, and OpenAI's Responses API
// (`POST /v1/responses`, streamed) for Codex. Every request is recorded with its path; every
// answer is a short text reply that ends the turn.

import { createServer } from "node:http";

/** Starts the server on a free port of 127.0.0.1. */
export async function startMock() {
	const mock = {
		/** `{path, body}` of every request, in arrival order. */
		requests: [],
		/** The text every reply carries. */
		replyText: "Resumed: continuing from the checkpoint.",
		origin: "",
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections?.();
				server.close(resolve);
			}),
	};
	const server = createServer((req, res) => {
		let raw = "";
		req.setEncoding("utf8");
		req.on("data", (chunk) => (raw += chunk));
		req.on("end", () => {
			const path = req.url.split("?")[0];
			let body = null;
			try {
				body = raw ? JSON.parse(raw) : null;
			} catch {
				res.writeHead(400, { "content-type": "application/json" }).end("{}");
				return;
			}
			mock.requests.push({ method: req.method, path, body });
			if (req.method === "POST" && path.endsWith("/messages/count_tokens")) {
				json(res, { input_tokens: Math.ceil(raw.length / 4) });
			} else if (req.method === "POST" && path.endsWith("/messages")) {
				anthropic(res, body, mock.replyText);
			} else if (req.method === "POST" && path.endsWith("/responses")) {
				responses(res, body, mock.replyText);
			} else if (req.method === "GET" && path.endsWith("/models")) {
				json(res, { object: "list", data: [], models: [] });
			} else {
				res.writeHead(404, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { type: "not_found_error", message: `no route ${req.method} ${path}` } }));
			}
		});
	});
	await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
	mock.origin = `http://127.0.0.1:${server.address().port}`;
	return mock;
}

function json(res, value) {
	res.writeHead(200, { "content-type": "application/json" });
	res.end(JSON.stringify(value));
}

function sse(res, events) {
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
	for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
	res.end();
}

/** One Messages API reply: a text block, `end_turn`. */
function anthropic(res, body, text) {
	const id = `msg_mock_${Date.now()}`;
	const model = body?.model ?? "claude-mock";
	const usage = { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
	if (!body?.stream) {
		json(res, {
			id,
			type: "message",
			role: "assistant",
			model,
			content: [{ type: "text", text }],
			stop_reason: "end_turn",
			stop_sequence: null,
			usage,
		});
		return;
	}
	sse(res, [
		["message_start", { type: "message_start", message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }],
		["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
		["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }],
		["content_block_stop", { type: "content_block_stop", index: 0 }],
		["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 10 } }],
		["message_stop", { type: "message_stop" }],
	]);
}

/** One Responses API reply: an assistant message, then `response.completed`. */
function responses(res, body, text) {
	const id = `resp_mock_${Date.now()}`;
	const model = body?.model ?? "mock";
	const item = {
		type: "message",
		id: `msg_${id}`,
		role: "assistant",
		status: "completed",
		content: [{ type: "output_text", text, annotations: [] }],
	};
	const usage = {
		input_tokens: 100,
		input_tokens_details: { cached_tokens: 0 },
		output_tokens: 10,
		output_tokens_details: { reasoning_tokens: 0 },
		total_tokens: 110,
	};
	const response = { id, object: "response", created_at: Math.floor(Date.now() / 1000), model, status: "completed", output: [item], usage };
	if (body?.stream === false) {
		json(res, response);
		return;
	}
	sse(res, [
		["response.created", { type: "response.created", response: { ...response, status: "in_progress", output: [] } }],
		["response.output_item.added", { type: "response.output_item.added", output_index: 0, item: { ...item, status: "in_progress", content: [] } }],
		["response.output_text.delta", { type: "response.output_text.delta", item_id: item.id, output_index: 0, content_index: 0, delta: text }],
		["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }],
		["response.completed", { type: "response.completed", response }],
	]);
}
