// End-to-end: real pi 1.6.0 (from this package's lockfile) in RPC mode with this package,
// against a local OpenAI-compatible mock, compacting and summarizing branches through the
// `compaction` binary under test.

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
	compactionBinary,
	compactionJson,
	llmRole,
	makeWorld,
	PACKAGE_DIR,
	Pi,
	pathTo,
	readEntries,
	worldEnv,
} from "./harness.mjs";
import { contentText, startMock } from "./mock-openai.mjs";

/** Small budgets so a few mock turns are enough to compact (pi and the engine read these). */
const COMPACTION = { keepRecentTokens: 300 };

let mock;
before(async () => {
	compactionBinary();
	mock = await startMock();
});
after(async () => {
	await mock?.close();
});

/** A pi session with `turns` prompts answered by the mock; returns pi, its file and world. */
async function sessionWithTurns(turns, settings = {}) {
	const world = makeWorld(mock, { compaction: COMPACTION, ...settings });
	const pi = new Pi(world);
	for (let i = 1; i <= turns; i++) await pi.prompt(`Question ${i}: check the parser for torn lines.`);
	const file = (await pi.state()).sessionFile;
	return { world, pi, file };
}

/** The conversation a request to the mock carries, without the system prompt. */
function conversation(request) {
	return request.messages.filter((m) => m.role !== "system" && m.role !== "developer");
}

describe("pi compacts through the engine", () => {
	test("compact, with no API key for summaries (offline summarizer), appends pi's fromHook entry with our summary; the next request holds it and the kept messages", async () => {
		const { pi, file } = await sessionWithTurns(5);
		try {
			const requestsBefore = mock.requests.length;
			const response = await pi.send({ type: "compact" });
			assert.equal(response.success, true, JSON.stringify(response));
			// Offline summarizer, no API key for summaries: no request reached any model.
			assert.equal(mock.requests.length, requestsBefore, `compaction called a model; notices: ${JSON.stringify(pi.notifications())} errors: ${JSON.stringify(pi.extensionErrors())}`);
			const entries = readEntries(file);
			const compaction = entries[entries.length - 1];
			assert.equal(compaction.type, "compaction");
			assert.equal(compaction.fromHook, true);
			assert.equal(compaction.summary, response.data.summary);
			assert.match(compaction.summary, /## Goal/);
			assert.doesNotMatch(compaction.summary, /PI-OWN-SUMMARY/);
			const path = pathTo(entries, compaction.id);
			assert.ok(path.includes(compaction.firstKeptEntryId), "firstKeptEntryId is not on the path");
			const notices = pi.notifications().filter((n) => n.notifyType === "warning");
			assert.deepEqual(notices, [], "unexpected warnings");

			// The next prompt's request holds our summary and the kept messages.
			await pi.prompt("Question 6: and the lock?");
			const sent = conversation(mock.requests[mock.requests.length - 1]);
			assert.ok(
				sent.some((m) => m.role === "user" && contentText(m.content).includes(compaction.summary.slice(0, 200))),
				"the request lacks our summary",
			);
			const firstKept = entries.find((e) => e.id === compaction.firstKeptEntryId);
			const keptText = contentText(firstKept.message.content).slice(0, 60);
			assert.ok(sent.some((m) => contentText(m.content).includes(keptText)), "the request lacks the kept messages");
			assert.deepEqual(pi.extensionErrors(), []);
		} finally {
			await pi.stop();
		}
	});

	test("after a compaction through the package, the engine's context and stats equal pi's (system checkpoint included), in the next request and when pi reopens the file", async () => {
		const { world, pi, file } = await sessionWithTurns(5);
		try {
			const response = await pi.send({ type: "compact" });
			assert.equal(response.success, true, JSON.stringify(response));
			const piMessages = await pi.messages();
			const ours = compactionJson(world, ["context", file, "--format", "json"]);
			assert.deepEqual(ours.map((m) => m.role), piMessages.map(llmRole));
			const stats = compactionJson(world, ["stats", file, "--json"]);
			assert.equal(stats.contextMessages, piMessages.length, JSON.stringify(stats));
			const piRoles = {};
			for (const m of piMessages) piRoles[m.role] = (piRoles[m.role] ?? 0) + 1;
			assert.deepEqual(stats.contextRoles, piRoles);

			// The request after the compaction is the context the engine builds at the new
			// leaf (roles and count), minus the reply to it.
			await pi.prompt("Question 6: and the lock?");
			const sent = mock.requests[mock.requests.length - 1].messages;
			const leafContext = compactionJson(world, ["context", file, "--format", "json"]);
			const wireRole = (role) => (role === "toolResult" ? "tool" : role);
			assert.deepEqual(
				sent.map((m) => m.role),
				leafContext.slice(0, -1).map((m) => wireRole(m.role)),
			);
		} finally {
			await pi.stop();
		}
		const reopened = new Pi(world, { session: file });
		try {
			const piMessages = await reopened.messages();
			const ours = compactionJson(world, ["context", file, "--format", "json"]);
			assert.deepEqual(ours.map((m) => m.role), piMessages.map(llmRole));
			assert.equal(compactionJson(world, ["stats", file, "--json"]).contextMessages, piMessages.length);
		} finally {
			await reopened.stop();
		}
	});
});

describe("summarizer choice", () => {
	test('summarizer "pi": the engine summarizes with pi\'s model, its key passed in the environment; the tokens it spent are stored and counted in pi\'s session totals', async () => {
		const { pi, file } = await sessionWithTurns(5, { compactionEngine: { summarizer: "pi" } });
		try {
			const statsBefore = await pi.send({ type: "get_session_stats" });
			const requestsBefore = mock.requests.length;
			const response = await pi.send({ type: "compact" });
			assert.equal(response.success, true, JSON.stringify(response));
			const engineRequests = mock.requests.slice(requestsBefore);
			assert.ok(engineRequests.length >= 1, "the engine did not call pi's model");
			assert.ok(engineRequests.every((body) => body.model === "m1"));
			const keys = mock.authorizations.slice(requestsBefore);
			assert.ok(keys.every((header) => header === "Bearer mock-key"), JSON.stringify(keys));
			const entries = readEntries(file);
			const compaction = entries[entries.length - 1];
			assert.equal(compaction.type, "compaction");
			assert.equal(compaction.fromHook, true);
			// The tokens the engine's summarizer spent are stored in pi's usage shape (the mock
			// reports no price: the cost is zero, but present).
			assert.ok(compaction.usage.input > 0 && compaction.usage.output > 0, JSON.stringify(compaction.usage));
			assert.equal(compaction.usage.totalTokens >= compaction.usage.input + compaction.usage.output, true);
			assert.equal(compaction.usage.cost.total, 0);
			const stats = await pi.send({ type: "get_session_stats" });
			assert.equal(stats.success, true, JSON.stringify(stats));
			assert.equal(stats.data.tokens.input - statsBefore.data.tokens.input, compaction.usage.input, "the summarizer's tokens are not in pi's totals");
			assert.equal(stats.data.tokens.output - statsBefore.data.tokens.output, compaction.usage.output);
			assert.deepEqual(pi.notifications().filter((n) => n.notifyType === "warning"), []);
		} finally {
			await pi.stop();
		}
	});
});

describe("pi falls back to itself when the engine cannot answer", () => {
	test("a missing binary: pi's own compaction runs, with a visible warning", async () => {
		const missing = join(PACKAGE_DIR, "test", "no-such-compaction-binary");
		const { pi, file } = await sessionWithTurns(5, { compactionEngine: { binary: missing } });
		try {
			const response = await pi.send({ type: "compact" });
			assert.equal(response.success, true, JSON.stringify(response));
			const warning = pi
				.notifications()
				.find((n) => n.notifyType === "warning" && n.message.includes("compaction runs instead"));
			assert.ok(warning, `no warning was shown: ${JSON.stringify(pi.notifications())}`);
			assert.match(warning.message, /not found/);
			assert.match(warning.message, /pi's own compaction runs instead/);
			const entries = readEntries(file);
			const compaction = entries[entries.length - 1];
			assert.equal(compaction.type, "compaction");
			assert.equal(compaction.fromHook, false);
			assert.match(compaction.summary, /PI-OWN-SUMMARY/);
		} finally {
			await pi.stop();
		}
	});

	test("enabled: false leaves pi's compaction alone, without a warning", async () => {
		const { pi, file } = await sessionWithTurns(5, { compactionEngine: { enabled: false } });
		try {
			const response = await pi.send({ type: "compact" });
			assert.equal(response.success, true, JSON.stringify(response));
			assert.deepEqual(pi.notifications(), []);
			const entries = readEntries(file);
			assert.equal(entries[entries.length - 1].fromHook, false);
		} finally {
			await pi.stop();
		}
	});
});

describe("branch summaries", () => {
	test("navigating with a summary (RPC prompt of an extension command calling navigateTree) uses our summary", async () => {
		const { pi, file } = await sessionWithTurns(3);
		try {
			const before = readEntries(file);
			const oldLeaf = before[before.length - 1];
			const firstReply = before.find((e) => e.type === "message" && e.message.role === "assistant");
			const requestsBefore = mock.requests.length;
			const from = pi.events.length;
			await pi.command(`/e2e-goto ${firstReply.id}`);
			const done = await pi.waitFor((e) => e.type === "extension_ui_request" && /^e2e-goto:/.test(e.message ?? ""), {
				from,
				what: "navigation",
			});
			assert.match(done.message, /"cancelled":false/);
			assert.equal(mock.requests.length, requestsBefore, "the branch summary called a model");
			const entries = readEntries(file);
			const summary = entries[entries.length - 1];
			assert.equal(summary.type, "branch_summary");
			assert.equal(summary.fromHook, true);
			assert.equal(summary.parentId, firstReply.id);
			// pi 1.6 writes the leaf left behind as `fromId` (0.73.1 wrote the target).
			assert.equal(summary.fromId, oldLeaf.id);
			// The summary's usage is stored in pi's full shape (offline summarizer: zeros).
			assert.deepEqual(summary.usage?.cost, { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 });
			assert.match(summary.summary, /^Work done on another branch/);
			assert.doesNotMatch(summary.summary, /PI-OWN-SUMMARY/);
			await pi.prompt("Question 4: back to the start.");
			const sent = conversation(mock.requests[mock.requests.length - 1]);
			assert.ok(sent.some((m) => contentText(m.content).includes(summary.summary.slice(0, 120))), "the request lacks the branch summary");
			assert.deepEqual(pi.extensionErrors(), []);
		} finally {
			await pi.stop();
		}
	});
});

describe("entries only the engine reads", () => {
	test("pi opens a session holding compaction.prune and compaction.pin entries and the model gets the engine's context: the prune's placeholder and the pins message, word for word", async () => {
		const { world, pi: first, file } = await sessionWithTurns(2);
		await first.stop();
		// A tool call and its long output, then a prune of that output and a pin.
		const entries = readEntries(file);
		let parentId = entries[entries.length - 1].id;
		const now = new Date().toISOString();
		const append = (entry) => {
			const id = `e2e${String(readEntries(file).length).padStart(5, "0")}`;
			writeFileSync(file, `${JSON.stringify({ id, parentId, timestamp: now, ...entry })}\n`, { flag: "a" });
			parentId = id;
			return id;
		};
		append({ type: "message", message: { role: "user", content: [{ type: "text", text: "Read the log." }], timestamp: Date.now() } });
		append({
			type: "message",
			message: {
				role: "assistant",
				content: [{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "build.log" } }],
				api: "openai-completions",
				provider: "mock",
				model: "m1",
				usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
				stopReason: "toolUse",
				timestamp: Date.now(),
			},
		});
		const output = append({
			type: "message",
			message: {
				role: "toolResult",
				toolCallId: "call_1",
				toolName: "read",
				content: [{ type: "text", text: `LOG-OUTPUT ${"warning: unused variable\n".repeat(80)}` }],
				isError: false,
				timestamp: Date.now(),
			},
		});
		append({
			type: "custom",
			customType: "compaction.prune",
			data: { entries: [{ id: output, placeholder: "[build.log output pruned]", tool: "read", tokens: 500, tokensAfter: 6 }], tokensBefore: 900, tokensSaved: 494 },
		});
		append({ type: "custom", customType: "compaction.pin", data: { text: "Never edit generated files." } });
		const engineContext = compactionJson(world, ["context", file, "--format", "json"]);

		const pi = new Pi(world, { session: file });
		try {
			await pi.prompt("Question 3: what did the log say?");
			assert.deepEqual(pi.extensionErrors(), []);
			assert.deepEqual(pi.notifications().filter((n) => n.notifyType !== "info"), []);
			const sent = conversation(mock.requests[mock.requests.length - 1]);
			// The model got the engine's conversation at that leaf (the system prompt is pi's)
			// plus the new prompt, message for message.
			const engineConversation = engineContext.filter((m) => m.role !== "system");
			const wireRole = (role) => (role === "toolResult" ? "tool" : role);
			assert.deepEqual(
				sent.slice(0, -1).map((m) => m.role),
				engineConversation.map((m) => wireRole(m.role)),
			);
			sent.slice(0, -1).forEach((m, i) => {
				assert.equal(contentText(m.content), contentText(engineConversation[i].content), `message ${i} differs from the engine's`);
			});
			assert.doesNotMatch(JSON.stringify(sent), /LOG-OUTPUT/);
			assert.equal(contentText(sent.find((m) => m.role === "tool").content), "[build.log output pruned]");
			assert.ok(sent.some((m) => contentText(m.content).includes("<pinned-instruction>\nNever edit generated files.\n</pinned-instruction>")));
			const reply = readEntries(file).at(-1);
			assert.equal(reply.message.role, "assistant");
			assert.equal(reply.message.stopReason, "stop");
		} finally {
			await pi.stop();
		}
	});
});

describe("/compaction-stats", () => {
	test("reports the context, the trigger and what the next compaction keeps", async () => {
		const { pi } = await sessionWithTurns(5);
		try {
			const from = pi.events.length;
			await pi.command("/compaction-stats");
			const notice = await pi.waitFor((e) => e.type === "extension_ui_request" && e.method === "notify", { from, what: "stats" });
			assert.equal(notice.notifyType, "info", notice.message);
			assert.match(notice.message, /^context: \d+ tokens of 128000/);
			assert.match(notice.message, /trigger: not reached/);
			assert.match(notice.message, /next compaction: summarizes \d+ messages.*keeps from entry [0-9a-f]{8}/);
		} finally {
			await pi.stop();
		}
	});
});

describe("abort", () => {
	test("aborting a compaction while the engine summarizes kills it and leaves no entry", async () => {
		const engine = { summarizer: "openai", summaryModel: "engine-summarizer", baseUrl: mock.baseUrl };
		const { world, pi, file } = await sessionWithTurns(5, { compactionEngine: engine });
		await pi.stop();
		const before = readFileSync(file);
		const answer = mock.answer;
		mock.answer = (body) => (body.model === "engine-summarizer" ? "hang" : answer(body));
		const driver = spawn(process.execPath, [join(PACKAGE_DIR, "test", "abort-driver.mjs"), file, world.cwd], {
			cwd: PACKAGE_DIR,
			env: worldEnv(world),
			stdio: ["pipe", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		driver.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
		driver.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
		const exited = new Promise((resolve) => driver.on("exit", resolve));
		try {
			const held = await Promise.race([
				mock.waitFor((body) => body.model === "engine-summarizer"),
				exited.then(() => {
					throw new Error(`pi exited before the engine asked for a summary:\n${stdout}\n${stderr}`);
				}),
			]);
			driver.stdin.write("abort\n");
			await exited;
			const result = stdout
				.split("\n")
				.filter((line) => line.startsWith("{"))
				.map((line) => JSON.parse(line))
				.find((event) => event.type === "result");
			assert.ok(result, `no result from pi:\n${stdout}\n${stderr}`);
			assert.equal(result.ok, false);
			assert.equal(result.error, "Compaction cancelled");
			assert.deepEqual(readFileSync(file), before, "the session file changed");
			// The engine was killed: its request to the summary model was abandoned.
			for (let i = 0; i < 50 && !mock.abandoned.includes(held); i++) await new Promise((r) => setTimeout(r, 100));
			assert.ok(mock.abandoned.includes(held), "the engine's summary request is still open");
		} finally {
			mock.answer = answer;
			driver.kill("SIGKILL");
		}
	});
});

describe("history tools", () => {
	test("the model reads a summarized message back through compaction_recall", async () => {
		const { pi, file } = await sessionWithTurns(5);
		const answer = mock.answer;
		try {
			const response = await pi.send({ type: "compact" });
			assert.equal(response.success, true, JSON.stringify(response));
			const entries = readEntries(file);
			const compaction = entries[entries.length - 1];
			const path = pathTo(entries, compaction.id);
			const kept = path.indexOf(compaction.firstKeptEntryId);
			const summarized = entries.find(
				(e) => e.type === "message" && e.message.role === "user" && path.indexOf(e.id) >= 0 && path.indexOf(e.id) < kept,
			);
			assert.ok(summarized, "no summarized user message");
			mock.answer = (body) => {
				const last = body.messages[body.messages.length - 1];
				if (last.role === "tool") return "Recalled.";
				if (contentText(last.content).includes("RECALL-IT")) {
					return { toolCall: { name: "compaction_recall", arguments: { id: summarized.id } } };
				}
				return answer(body);
			};
			const from = mock.requests.length;
			await pi.prompt("RECALL-IT: what was my first question?");
			const requests = mock.requests.slice(from);
			assert.ok(requests[0].tools.some((t) => t.function.name === "compaction_recall"), "the tool was not offered");
			assert.ok(requests[0].tools.some((t) => t.function.name === "compaction_search"), "the tool was not offered");
			const toolMessage = requests[requests.length - 1].messages.find((m) => m.role === "tool");
			assert.ok(toolMessage, "no tool result reached the model");
			assert.ok(
				contentText(toolMessage.content).includes(contentText(summarized.message.content)),
				contentText(toolMessage.content),
			);
			assert.deepEqual(pi.extensionErrors(), []);
		} finally {
			mock.answer = answer;
			await pi.stop();
		}
	});
});
