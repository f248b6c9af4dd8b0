// End-to-end, what pi 1.6 added to the extension API: the reason of a compaction, the usage
// stored with it, `session_compact_failed`, and context edits the package must respect.
// Real pi 1.6.0 (this package's lockfile) in RPC mode against a local OpenAI-compatible mock.

import assert from "node:assert/strict";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { compactionBinary, compactionJson, makeWorld, PACKAGE_DIR, Pi, readEntries } from "./harness.mjs";
import { contentText, startMock } from "./mock-openai.mjs";

/** Small budgets so a few mock turns are enough to compact (pi and the engine read these). */
const COMPACTION = { keepRecentTokens: 300 };
const COST_KEYS = ["cacheRead", "cacheWrite", "input", "output", "total"];

let mock;
before(async () => {
	compactionBinary();
	mock = await startMock();
});
after(async () => {
	await mock?.close();
});

/**
 * A world whose engine runs a process extension recording every `before_compact` event in
 * `world.events` (one JSON line each).
 */
function recordingWorld(settings = {}) {
	const world = makeWorld(mock, {});
	const events = join(world.root, "engine-events.jsonl");
	const recorder = {
		name: "recorder",
		command: process.execPath,
		args: [join(PACKAGE_DIR, "test", "record-event.mjs"), events],
		events: ["before_compact"],
	};
	const written = makeWorldSettings(world, { compaction: { ...COMPACTION, extensions: [recorder] }, ...settings });
	return { ...world, events, settings: written };
}

/** Rewrites the world's settings.json with `settings` (next to the mock's model). */
function makeWorldSettings(world, settings) {
	const all = { defaultProvider: "mock", defaultModel: "m1", ...settings };
	writeFileSync(join(world.agentDir, "settings.json"), JSON.stringify(all, null, 2));
	return all;
}

/** The `before_compact` events the engine's recorder saw. */
function engineEvents(world) {
	if (!existsSync(world.events)) return [];
	return readFileSync(world.events, "utf8")
		.split("\n")
		.filter((line) => line.trim())
		.map((line) => JSON.parse(line));
}

async function withTurns(world, turns, options) {
	const pi = new Pi(world, options);
	for (let i = 1; i <= turns; i++) await pi.prompt(`Question ${i}: check the parser for torn lines.`);
	const file = (await pi.state()).sessionFile;
	return { pi, file };
}

/** The last user text of a request to the mock. */
function lastUserText(body) {
	const users = body.messages.filter((m) => m.role === "user");
	return contentText(users[users.length - 1]?.content);
}

function assertFullUsage(usage, what) {
	assert.ok(usage && typeof usage === "object", `${what}: no usage`);
	for (const key of ["input", "output", "cacheRead", "cacheWrite", "totalTokens"]) {
		assert.equal(typeof usage[key], "number", `${what}: usage.${key}`);
	}
	assert.deepEqual(Object.keys(usage.cost ?? {}).sort(), COST_KEYS, `${what}: usage.cost ${JSON.stringify(usage.cost)}`);
	for (const key of COST_KEYS) assert.equal(typeof usage.cost[key], "number", `${what}: usage.cost.${key}`);
}

describe("compaction reason, usage and statistics (pi 1.6)", () => {
	test("/compact: the engine is told `manual`, compaction_end says manual without retry, the stored compaction has pi's full usage, and get_session_stats and get_messages work, also after reopening", async () => {
		const world = recordingWorld();
		const { pi, file } = await withTurns(world, 5);
		try {
			const from = pi.events.length;
			const response = await pi.send({ type: "compact" });
			assert.equal(response.success, true, JSON.stringify(response));
			const end = await pi.waitFor((e) => e.type === "compaction_end", { from, what: "compaction_end" });
			assert.equal(end.reason, "manual");
			assert.equal(end.willRetry, false);
			assert.equal(end.aborted, false);
			assertFullUsage(end.result.usage, "compaction_end");
			const compaction = readEntries(file).at(-1);
			assert.equal(compaction.type, "compaction");
			assert.equal(compaction.fromHook, true);
			assertFullUsage(compaction.usage, "stored compaction");
			// pi 1.6 writes the system checkpoint itself, for an extension's compaction too.
			assert.equal(compaction.systemMessage?.role, "system");
			assert.deepEqual(engineEvents(world).map((e) => e.reason), ["manual"]);
			const statusNotes = pi.events.filter((e) => e.type === "extension_ui_request" && e.method === "setStatus");
			assert.match(statusNotes[0]?.statusText ?? "", /compaction engine: \/compact/, JSON.stringify(statusNotes));
			assert.equal(statusNotes.at(-1)?.statusText, undefined, "the status line was not cleared");

			const stats = await pi.send({ type: "get_session_stats" });
			assert.equal(stats.success, true, JSON.stringify(stats));
			assert.equal(typeof stats.data.cost, "number");
			assert.equal(typeof stats.data.tokens.total, "number");
			const messages = await pi.send({ type: "get_messages" });
			assert.equal(messages.success, true, JSON.stringify(messages).slice(0, 500));
			assert.ok(messages.data.messages.some((m) => m.role === "compactionSummary"));
			assert.deepEqual(pi.extensionErrors(), []);
		} finally {
			await pi.stop();
		}
		const reopened = new Pi(world, { session: file });
		try {
			const stats = await reopened.send({ type: "get_session_stats" });
			assert.equal(stats.success, true, JSON.stringify(stats));
			assert.equal((await reopened.send({ type: "get_messages" })).success, true);
		} finally {
			await reopened.stop();
		}
	});

	test("threshold: a turn whose usage crosses the trigger compacts through the engine with reason `threshold`", async () => {
		const world = recordingWorld();
		const { pi, file } = await withTurns(world, 4);
		const answer = mock.answer;
		// 120 000 prompt tokens: over 128 000 − 16 384 (pi's default reserve), under the window.
		mock.answer = (body) =>
			lastUserText(body).includes("THRESHOLD-NOW") ? { text: "Noted.", promptTokens: 120000 } : answer(body);
		try {
			const from = pi.events.length;
			await pi.prompt("THRESHOLD-NOW: one more question.");
			const end = await pi.waitFor((e) => e.type === "compaction_end", { from, what: "compaction_end" });
			assert.equal(end.reason, "threshold", JSON.stringify(end).slice(0, 500));
			assert.equal(end.willRetry, false);
			assert.equal(end.aborted, false);
			const compaction = readEntries(file).at(-1);
			assert.equal(compaction.type, "compaction");
			assert.equal(compaction.fromHook, true);
			assertFullUsage(compaction.usage, "stored compaction");
			assert.deepEqual(engineEvents(world).map((e) => e.reason), ["threshold"]);
			const note = pi.events.find((e) => e.method === "setStatus" && e.statusText);
			assert.match(note.statusText, /automatic compaction/);
			assert.deepEqual(pi.notifications().filter((n) => n.notifyType === "warning"), []);
		} finally {
			mock.answer = answer;
			await pi.stop();
		}
	});

	test("overflow: the model rejects the context, pi omits the failed attempt and compacts through the engine with reason `overflow` and willRetry, then retries", async () => {
		const world = recordingWorld();
		const { pi, file } = await withTurns(world, 4);
		const answer = mock.answer;
		let rejected = 0;
		mock.answer = (body) => {
			if (lastUserText(body).includes("OVERFLOW-NOW") && rejected === 0) {
				rejected++;
				return { error: { status: 400, message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens.", code: "context_length_exceeded" } };
			}
			return answer(body);
		};
		try {
			const from = pi.events.length;
			const requestsBefore = mock.requests.length;
			await pi.send({ type: "prompt", message: "OVERFLOW-NOW: a question too many." });
			const end = await pi.waitFor((e) => e.type === "compaction_end", { from, what: "compaction_end" });
			assert.equal(end.reason, "overflow", JSON.stringify(end).slice(0, 500));
			assert.equal(end.willRetry, true);
			await pi.waitFor((e) => e.type === "agent_end" && e.messages?.some((m) => m.role === "assistant" && m.stopReason === "stop"), { from, what: "the retried turn" });
			assert.deepEqual(engineEvents(world).map((e) => e.reason), ["overflow"]);
			const entries = readEntries(file);
			const failed = entries.find((e) => e.type === "message" && e.message.role === "assistant" && e.message.stopReason === "error");
			assert.ok(failed, "the failed attempt is not in the file");
			assert.ok(
				entries.some((e) => e.type === "context_edit" && e.targetId === failed.id && e.replacement === null),
				"pi did not omit the failed attempt",
			);
			const compaction = entries.find((e) => e.type === "compaction");
			assert.equal(compaction.fromHook, true);
			assertFullUsage(compaction.usage, "stored compaction");
			// The retry is the last request: it carries the question and nothing of the error.
			const retry = mock.requests.at(-1);
			assert.ok(mock.requests.length >= requestsBefore + 2);
			assert.match(lastUserText(retry), /OVERFLOW-NOW/);
			assert.doesNotMatch(JSON.stringify(retry.messages), /maximum context length/);
		} finally {
			mock.answer = answer;
			await pi.stop();
		}
	});
});

describe("session_compact_failed", () => {
	test("the engine fails, then pi's own compaction fails too: one warning names both, and the session file is unchanged", async () => {
		const world = makeWorld(mock, { compaction: COMPACTION });
		// A binary that is the real one except that `summarize` fails.
		const failing = join(world.root, "failing-compaction");
		writeFileSync(
			failing,
			`#!/bin/sh\nif [ "$1" = summarize ] && [ "$2" != --help ]; then echo "error: the summary service is down" >&2; exit 1; fi\nexec '${compactionBinary()}' "$@"\n`,
		);
		chmodSync(failing, 0o755);
		makeWorldSettings(world, { compaction: COMPACTION, compactionEngine: { binary: failing } });
		const { pi, file } = await withTurns(world, 5);
		const answer = mock.answer;
		mock.answer = (body) =>
			contentText(body.messages.at(-1)?.content).includes("<conversation>")
				? { error: { status: 400, message: "summaries are not allowed here" } }
				: answer(body);
		try {
			const before = readFileSync(file);
			const response = await pi.send({ type: "compact" });
			assert.equal(response.success, false, JSON.stringify(response));
			const warnings = pi.notifications().filter((n) => n.notifyType === "warning").map((n) => n.message);
			assert.ok(warnings.some((w) => /summary service is down.*pi's own compaction runs instead/.test(w)), JSON.stringify(warnings));
			const failure = warnings.find((w) => w.includes("failed: the engine could not compact"));
			assert.ok(failure, `session_compact_failed was not reported: ${JSON.stringify(warnings)}`);
			assert.match(failure, /^compaction: \/compact failed/);
			assert.match(failure, /summary service is down/);
			assert.match(failure, /summaries are not allowed here/);
			assert.match(failure, /the session is unchanged/);
			assert.deepEqual(readFileSync(file), before, "the session file changed");
		} finally {
			mock.answer = answer;
			await pi.stop();
		}
	});
});

describe("the context hook respects pi's projection", () => {
	test("a tool result an extension omitted (context_edit, replacement null) never reaches the model again, even pruned or with pins active; pi's system prompt is sent unchanged", async () => {
		const world = makeWorld(mock, { compaction: COMPACTION });
		writeFileSync(join(world.cwd, "notes.txt"), "OMIT-THIS-OUTPUT: the deploy token is in the vault.\n");
		const first = new Pi(world);
		await first.prompt("Question 1: check the parser.");
		const file = (await first.state()).sessionFile;
		const plainSystem = mock.requests.at(-1).messages.filter((m) => m.role === "system");
		await first.stop();
		// A pin: the package's hook now has work to do on every request.
		const append = (entry) => {
			const entries = readEntries(file);
			const id = `e2e${String(entries.length).padStart(5, "0")}`;
			const line = { id, parentId: entries.at(-1).id, timestamp: new Date().toISOString(), ...entry };
			writeFileSync(file, `${JSON.stringify(line)}\n`, { flag: "a" });
			return id;
		};
		append({ type: "custom", customType: "compaction.pin", data: { text: "Never print secrets." } });

		const answer = mock.answer;
		mock.answer = (body) => {
			const last = body.messages.at(-1);
			if (last.role === "tool") return "Read it.";
			if (contentText(last.content).includes("READ-NOTES")) return { toolCall: { name: "read", arguments: { path: "notes.txt" } } };
			return answer(body);
		};
		let pi = new Pi(world, { session: file });
		try {
			const from = mock.requests.length;
			await pi.prompt("READ-NOTES: what do the notes say?");
			const requests = mock.requests.slice(from);
			assert.equal(requests.length, 2, "expected the tool call and the reply after it");
			const entries = readEntries(file);
			const result = entries.find((e) => e.type === "message" && e.message.role === "toolResult");
			assert.ok(contentText(result.message.content).includes("OMIT-THIS-OUTPUT"), "the tool did not read the file");
			assert.ok(entries.some((e) => e.type === "context_edit" && e.targetId === result.id && e.replacement === null), "the helper did not omit the result");
			// The request after the tool call: pins applied by the package, the omitted output absent.
			const afterTool = requests[1];
			const text = JSON.stringify(afterTool.messages);
			assert.doesNotMatch(text, /OMIT-THIS-OUTPUT/);
			assert.match(text, /Never print secrets\./);
			assert.deepEqual(afterTool.messages.filter((m) => m.role === "system"), plainSystem, "the system prompt changed");
			assert.deepEqual(pi.extensionErrors(), []);
		} finally {
			await pi.stop();
		}
		// A prune of the omitted result (as an older engine writes it): still nothing of it is sent.
		append({
			type: "custom",
			customType: "compaction.prune",
			data: { entries: [{ id: readEntries(file).find((e) => e.message?.role === "toolResult").id, placeholder: "[PRUNED-OMITTED-RESULT]", tool: "read", tokens: 20, tokensAfter: 5 }], tokensBefore: 900, tokensSaved: 15 },
		});
		pi = new Pi(world, { session: file });
		try {
			await pi.prompt("Question 3: anything else?");
			const sent = JSON.stringify(mock.requests.at(-1).messages);
			assert.doesNotMatch(sent, /OMIT-THIS-OUTPUT/);
			assert.doesNotMatch(sent, /PRUNED-OMITTED-RESULT/);
			assert.match(sent, /Never print secrets\./);
			// The engine's own context at the leaf agrees.
			const ours = JSON.stringify(compactionJson(world, ["context", file, "--format", "json"]));
			assert.doesNotMatch(ours, /OMIT-THIS-OUTPUT|PRUNED-OMITTED-RESULT/);
			assert.match(ours, /Never print secrets\./);
		} finally {
			mock.answer = answer;
			await pi.stop();
		}
	});

	test("prunes as context_edit (pi applies them) and as compaction.prune entries (the package applies them) together: the latest of the two wins for each tool result, no original output is sent, also after another extension changed the list", async () => {
		const world = makeWorld(mock, { compaction: COMPACTION });
		const first = new Pi(world);
		await first.prompt("Question 1: check the parser.");
		const file = (await first.state()).sessionFile;
		await first.stop();
		const append = (entry) => {
			const entries = readEntries(file);
			const id = `e2e${String(entries.length).padStart(5, "0")}`;
			const line = { id, parentId: entries.at(-1).id, timestamp: new Date().toISOString(), ...entry };
			writeFileSync(file, `${JSON.stringify(line)}\n`, { flag: "a" });
			return id;
		};
		const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
		append({ type: "message", message: { role: "user", content: [{ type: "text", text: "Read three logs." }], timestamp: Date.now() } });
		append({
			type: "message",
			message: {
				role: "assistant",
				content: ["a", "b", "c"].map((n) => ({ type: "toolCall", id: `call_${n}`, name: "read", arguments: { path: `${n}.log` } })),
				api: "openai-completions",
				provider: "mock",
				model: "m1",
				usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: zero },
				stopReason: "toolUse",
				timestamp: Date.now(),
			},
		});
		const result = (n) =>
			append({
				type: "message",
				message: { role: "toolResult", toolCallId: `call_${n}`, toolName: "read", content: [{ type: "text", text: `ORIGINAL-${n.toUpperCase()} ${"line\n".repeat(40)}` }], isError: false, timestamp: Date.now() },
			});
		const [a, b, c] = [result("a"), result("b"), result("c")];
		const edit = (targetId, text) => append({ type: "context_edit", targetId, replacement: { content: [{ type: "text", text }] } });
		// c: edited by pi's mechanism first, then pruned by an engine entry (the prune is later).
		edit(c, "[C-EDITED]");
		append({
			type: "custom",
			customType: "compaction.prune",
			data: {
				entries: [a, b, c].map((id, i) => ({ id, placeholder: `[${"ABC"[i]}-PRUNED]`, tool: "read", tokens: 60, tokensAfter: 4 })),
				tokensBefore: 900,
				tokensSaved: 168,
			},
		});
		// a: a later context_edit (as the engine's own prune now writes) wins over the prune.
		edit(a, "[A-EDITED]");
		const pi = new Pi(world, { session: file });
		try {
			await pi.prompt("Question 2: what did the logs say?");
			const tools = mock.requests.at(-1).messages.filter((m) => m.role === "tool");
			assert.deepEqual(
				tools.map((m) => [m.tool_call_id, contentText(m.content)]),
				[
					["call_a", "[A-EDITED]"],
					["call_b", "[B-PRUNED]"],
					["call_c", "[C-PRUNED]"],
				],
			);
			assert.doesNotMatch(JSON.stringify(mock.requests.at(-1).messages), /ORIGINAL-/);
			// The engine's own context at the leaf agrees where no context_edit follows the
			// prune (b, c).
			const ours = compactionJson(world, ["context", file, "--format", "json"]);
			assert.deepEqual(
				ours.filter((m) => m.role === "toolResult").map((m) => contentText(m.content)).slice(1),
				["[B-PRUNED]", "[C-PRUNED]"],
			);
			// Another extension drops the first message first: the list no longer lines up
			// with pi's projection, and the prunes still apply (matched by tool call id).
			await pi.prompt("DROP-FIRST-MESSAGE: and now?");
			const dropped = mock.requests.at(-1).messages;
			assert.doesNotMatch(JSON.stringify(dropped), /Question 1: check the parser/);
			assert.deepEqual(
				dropped.filter((m) => m.role === "tool").map((m) => contentText(m.content)),
				["[A-EDITED]", "[B-PRUNED]", "[C-PRUNED]"],
			);
			assert.doesNotMatch(JSON.stringify(dropped), /ORIGINAL-/);
			assert.deepEqual(pi.extensionErrors(), []);
		} finally {
			await pi.stop();
		}
	});
});
