// A local OpenAI-compatible chat completions server for the end-to-end tests: records
// every request, answers with text chosen by the test (streamed as server-sent events when
// the request asks for a stream), and can hold a request open until its client goes away.

import { createServer } from "node:http";

/** Starts the server on a free port of 127.0.0.1. */
export async function startMock() {
	const mock = {
		/** Every request body, parsed, in arrival order. */
		requests: [],
		/** The `authorization` header of each request (same order as `requests`). */
		authorizations: [],
		/** Requests whose client closed the connection while it was held open. */
		abandoned: [],
		/**
		 * `(body) => answer`: the answer for a request. A string (the reply text), `"hang"`
		 * (hold the request open), `{toolCall: {name, arguments}}` (a reply calling a tool),
		 * `{text, promptTokens}` (a reply reporting that many prompt tokens) or
		 * `{error: {status, message}}` (an HTTP error in OpenAI's error shape).
		 */
		answer: defaultAnswer,
		/** Resolvers waiting for the next request that matches a predicate. */
		waiters: [],
		baseUrl: "",
		close: () => new Promise((resolve) => server.close(resolve)),
		/** Resolves with the first request (already received or future) matching `predicate`. */
		waitFor(predicate) {
			const seen = mock.requests.find(predicate);
			if (seen) return Promise.resolve(seen);
			return new Promise((resolve) => mock.waiters.push({ predicate, resolve }));
		},
	};
	const server = createServer((req, res) => {
		let raw = "";
		req.setEncoding("utf8");
		req.on("data", (chunk) => (raw += chunk));
		req.on("end", () => {
			if (req.method !== "POST" || !req.url.endsWith("/chat/completions")) {
				res.writeHead(404, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
				return;
			}
			let body;
			try {
				body = JSON.parse(raw);
			} catch {
				res.writeHead(400).end();
				return;
			}
			mock.requests.push(body);
			mock.authorizations.push(req.headers.authorization ?? null);
			mock.waiters = mock.waiters.filter((waiter) => {
				if (!waiter.predicate(body)) return true;
				waiter.resolve(body);
				return false;
			});
			const text = mock.answer(body);
			if (text === "hang") {
				res.on("close", () => mock.abandoned.push(body));
				return;
			}
			if (text && typeof text === "object" && text.error) {
				res.writeHead(text.error.status ?? 400, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { message: text.error.message, type: "invalid_request_error", code: text.error.code ?? null } }));
				return;
			}
			reply(res, body, text);
		});
	});
	await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
	mock.baseUrl = `http://127.0.0.1:${server.address().port}/v1`;
	return mock;
}

/** The text of a chat message's content (string or blocks). */
export function contentText(content) {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content.map((block) => block.text ?? "").join("");
}

/** A checkpoint in the engine's structure, long enough for the gate. */
const CHECKPOINT = [
	"## Goal",
	"Keep the session parser robust while the user works on the tests.",
	"## Constraints & Preferences",
	"- Keep every line the parser reads; the tests cover the torn tail.",
	"## Progress",
	"### Done",
	"- [x] The parser keeps every line it reads.",
	"### In Progress",
	"- [ ] More tests of the torn tail.",
	"### Blocked",
	"- (none)",
	"## Key Decisions",
	"- **Keep whole lines**: a torn tail is moved aside, never dropped.",
	"## Next Steps",
	"1. Run the tests again after the next change.",
	"## Critical Context",
	"- The tests cover the torn tail and every line the parser reads.",
].join("\n");

/** A turn-prefix summary in the engine's structure. */
const TURN_PREFIX = [
	"## Original Request",
	"Keep the session parser robust.",
	"## Early Progress",
	"- The parser keeps every line it reads.",
	"## Context for the Rest of the Turn",
	"- The tests cover the torn tail.",
].join("\n");

/** pi's own summarizer sends the transcript inside `<conversation>`; others get a long reply. */
export function defaultAnswer(body) {
	const last = body.messages?.[body.messages.length - 1];
	// The engine asks for its own structures (its quality gate refuses a reply without them).
	const asked = (body.messages ?? []).map((m) => contentText(m.content)).join("\n");
	if (asked.includes("## Original Request") && asked.includes("## Early Progress")) return TURN_PREFIX;
	if (asked.includes('Write "(none)" under a heading when nothing applies')) return CHECKPOINT;
	if (contentText(last?.content).includes("<conversation>")) return "PI-OWN-SUMMARY of the conversation.";
	const n = body.messages?.filter((m) => m.role === "user").length ?? 0;
	return `Reply ${n}. ${"The parser keeps every line it reads and the tests cover the torn tail. ".repeat(12)}`;
}

function reply(res, body, answer) {
	// An answer is text, `{toolCall: {name, arguments}}` for a reply that calls a tool, or
	// `{text, promptTokens}` for a reply reporting a chosen prompt size.
	const call = typeof answer === "object" ? answer.toolCall : undefined;
	const text = call ? "" : typeof answer === "object" ? answer.text : answer;
	// Usage roughly as a real server reports it (pi and the engine count context from it).
	const prompt = (typeof answer === "object" && answer.promptTokens) || Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
	const completion = Math.ceil(text.length / 4);
	const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
	const base = { id: "chatcmpl-mock", created: 1, model: body.model };
	if (!body.stream) {
		res.writeHead(200, { "content-type": "application/json" });
		res.end(
			JSON.stringify({
				...base,
				object: "chat.completion",
				choices: [
					call
						? { index: 0, message: { role: "assistant", content: null, tool_calls: [toolCall(call)] }, finish_reason: "tool_calls" }
						: { index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" },
				],
				usage,
			}),
		);
		return;
	}
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
	const send = (chunk) => res.write(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", ...chunk })}\n\n`);
	send({ choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
	if (call) {
		send({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...toolCall(call) }] }, finish_reason: null }] });
		send({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] });
	} else {
		send({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] });
		send({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
	}
	send({ choices: [], usage });
	res.end("data: [DONE]\n\n");
}

function toolCall(call) {
	return { id: "call_mock_1", type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments) } };
}
