// A local OpenAI-compatible chat completions server on 127.0.0.1 that answers pi 1.6 with
// replies the session maker scripts: text, tool calls, a context-overflow error, a reply cut
// short by the output limit. Summary requests (pi's compaction and branch summaries) and
// prompt-cache refreshes (one output token) are recognised and answered on their own, so the
// script only lists the answers to ordinary turns.

import { createServer } from "node:http";

/** Starts the server on a free port of 127.0.0.1. */
export async function startMockProvider() {
	const mock = {
		/** Every request body, parsed, in arrival order, with the kind the mock gave it. */
		requests: [],
		/** Answers for the next ordinary turns, consumed in order. */
		queue: [],
		/** Count of summaries answered (numbers the summary texts). */
		summaries: 0,
		/** Count of tool calls answered (numbers their ids). */
		toolCalls: 0,
		/** Whether a one-token request is a prompt-cache refresh (only models with a cache lifetime send them). */
		cacheWarming: false,
		/** Whether ordinary turns report three quarters of their prompt as read from the cache. */
		cacheHits: false,
		baseUrl: "",
		close: () => new Promise((resolve) => server.close(resolve)),
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
			const kind = requestKind(body, mock.cacheWarming);
			mock.requests.push({ kind, body });
			let answer;
			if (kind === "summary") answer = summaryAnswer(body, ++mock.summaries);
			else if (kind === "cache-warm") answer = { text: ".", cachedAll: true };
			else answer = mock.queue.length > 0 ? mock.queue.shift() : { text: "Done." };
			if (typeof answer === "string") answer = { text: answer };
			if (kind === "turn" && mock.cacheHits) answer = { cachedShare: 0.75, ...answer };
			reply(res, body, answer, mock);
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

/** `summary` for pi's summarizer requests, `cache-warm` for refreshes, else `turn`. */
function requestKind(body, cacheWarming) {
	const last = body.messages?.[body.messages.length - 1];
	const text = contentText(last?.content);
	if (text.includes("<conversation>") || text.startsWith("# Conversation")) return "summary";
	if (cacheWarming && (body.max_completion_tokens === 1 || body.max_tokens === 1)) return "cache-warm";
	return "turn";
}

function summaryAnswer(body, n) {
	const last = body.messages[body.messages.length - 1];
	const text = contentText(last.content);
	const chars = text.length;
	return {
		text: `## Goal\nSummary ${n} of a conversation of ${chars} characters.\n\n## Progress\n- the mock summarizer read it`,
	};
}

/**
 * Usage the way a server reports it: tokens from the size of the messages and tools at 3.5
 * characters a token (not pi's 4, so counts taken from usage and pi's estimates differ).
 */
function usageFor(body, text, answer) {
	const prompt = Math.ceil((JSON.stringify([body.messages ?? [], body.tools ?? []]).length * 2) / 7);
	const completion = Math.max(1, Math.ceil((text.length * 2) / 7));
	const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
	if (answer.cachedAll) usage.prompt_tokens_details = { cached_tokens: prompt };
	else if (answer.cachedShare) usage.prompt_tokens_details = { cached_tokens: Math.floor(prompt * answer.cachedShare) };
	if (answer.zeroUsage) return { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
	return usage;
}

/**
 * An answer is `{text}`, `{text?, toolCalls: [{name, arguments}]}`, `{length: text}` (cut
 * short by the output limit), or `{error: {status, message}}` (an HTTP error); `thinking`
 * adds reasoning text (streamed as `reasoning_content`), `zeroUsage` reports all-zero usage.
 */
function reply(res, body, answer, mock) {
	if (answer.error) {
		res.writeHead(answer.error.status ?? 400, { "content-type": "application/json" });
		res.end(JSON.stringify({ error: { message: answer.error.message, type: "invalid_request_error" } }));
		return;
	}
	const calls = answer.toolCalls ?? [];
	const text = answer.length ?? answer.text ?? "";
	const finish = answer.length !== undefined ? "length" : calls.length > 0 ? "tool_calls" : "stop";
	const thinking = answer.thinking ?? "";
	const usage = usageFor(body, thinking + text + JSON.stringify(calls), answer);
	const base = { id: "chatcmpl-mock", created: 1, model: body.model };
	const toolCalls = calls.map((call, index) => ({
		index,
		id: call.id ?? `call_${++mock.toolCalls}`,
		type: "function",
		function: { name: call.name, arguments: JSON.stringify(call.arguments) },
	}));
	if (!body.stream) {
		res.writeHead(200, { "content-type": "application/json" });
		res.end(
			JSON.stringify({
				...base,
				object: "chat.completion",
				choices: [
					{
						index: 0,
						message: {
							role: "assistant",
							content: text || null,
							...(thinking ? { reasoning_content: thinking } : {}),
							...(toolCalls.length ? { tool_calls: toolCalls } : {}),
						},
						finish_reason: finish,
					},
				],
				usage,
			}),
		);
		return;
	}
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
	const send = (chunk) => res.write(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", ...chunk })}\n\n`);
	send({ choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
	if (thinking) send({ choices: [{ index: 0, delta: { reasoning_content: thinking }, finish_reason: null }] });
	if (text) send({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] });
	if (toolCalls.length) send({ choices: [{ index: 0, delta: { tool_calls: toolCalls }, finish_reason: null }] });
	send({ choices: [{ index: 0, delta: {}, finish_reason: finish }] });
	send({ choices: [], usage });
	res.end("data: [DONE]\n\n");
}
