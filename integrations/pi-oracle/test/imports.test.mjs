// Acceptance test of `compaction import`: every session it writes opens in real pi 1.6.
//
// The transcripts: the import fixtures of crates/compaction-core/tests/fixtures/import, and
// the Claude Code and Codex transcripts of ../shared/transcripts beside the repository (or
// COMPACTION_TRANSCRIPTS) when that folder exists. Each is imported with the binary, its
// header `cwd` pointed at an existing folder (pi opens a session only there; on the user's
// machine the transcript's own project folder exists), and plain pi 1.6 in RPC mode must:
// 1. open it (`switch_session`) with `get_session_stats` giving a token total (pi 1.6 throws
//    on an assistant message without usage) and `get_messages` succeeding;
// 2. send the model the same context as `compaction context FILE --json` lists: the same
//    roles, in order (pi's messages through its own `convertToLlm`).
//
// Run alone: `COMPACTION_BIN=/path/to/compaction node --test test/imports.test.mjs`.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { startMockProvider } from "../lib/mock-provider.mjs";
import { makeWorld, PACKAGE_DIR, Pi } from "../lib/pi-rpc.mjs";

const PI_DIST = join(PACKAGE_DIR, "node_modules/@earendil-works/pi-coding-agent/dist");
const { convertToLlm } = await import(join(PI_DIST, "core/messages.js"));

const BIN = resolve(PACKAGE_DIR, process.env.COMPACTION_BIN ?? "../../target/debug/compaction");
const FIXTURES = resolve(PACKAGE_DIR, "../../crates/compaction-core/tests/fixtures/import");
const SHARED = resolve(process.env.COMPACTION_TRANSCRIPTS ?? join(PACKAGE_DIR, "../../../shared/transcripts"));

/** The transcripts to import: [name, path]. */
function transcripts() {
	const found = readdirSync(FIXTURES)
		.filter((name) => name.endsWith(".jsonl"))
		.map((name) => [`fixture ${name}`, join(FIXTURES, name)]);
	if (existsSync(join(SHARED, "SOURCES.json"))) {
		const sources = JSON.parse(readFileSync(join(SHARED, "SOURCES.json"), "utf8"));
		for (const row of sources.files) {
			if (row.agent === "claude-code" || row.agent === "codex") found.push([row.file, join(SHARED, row.file)]);
		}
	} else {
		console.log(`# no real transcripts at ${SHARED}: the import fixtures only`);
	}
	return found;
}

/** Imports `source` into `output`, then points its header `cwd` at `cwd`. */
function importInto(source, output, cwd) {
	const result = spawnSync(BIN, ["import", source, "-o", output, "--force", "--json"], { encoding: "utf8" });
	if (result.error) throw new Error(`${BIN}: ${result.error.message} (build it with cargo build -p compaction-cli)`);
	assert.equal(result.status, 0, `import ${source}: ${result.stderr}`);
	const lines = readFileSync(output, "utf8").split("\n");
	const header = JSON.parse(lines[0]);
	assert.ok(header.cwd, `${source}: the header has a cwd`);
	lines[0] = JSON.stringify({ ...header, cwd });
	writeFileSync(output, lines.join("\n"));
	return JSON.parse(result.stdout);
}

/** `compaction context FILE --json`: the messages of the context at the leaf. */
function ourContext(file) {
	const result = spawnSync(BIN, ["context", file, "--json"], { encoding: "utf8", maxBuffer: 1 << 30 });
	assert.equal(result.status, 0, `context ${file}: ${result.stderr}`);
	return JSON.parse(result.stdout);
}

const [major, minor] = process.versions.node.split(".").map(Number);
assert.ok(major > 22 || (major === 22 && minor >= 19), `pi 1.6 needs Node >= 22.19, this is ${process.versions.node}`);

describe("imported sessions open in pi 1.6", () => {
	let mock;
	let world;
	let pi;
	before(async () => {
		mock = await startMockProvider();
		world = makeWorld(mock, { settings: { compaction: { enabled: false } } });
		pi = new Pi(world, { extensions: [] });
	});
	after(async () => {
		if (pi) await pi.stop();
		if (mock) await mock.close();
		if (world) rmSync(world.root, { recursive: true, force: true });
	});

	for (const [name, source] of transcripts()) {
		it(name, async () => {
			const output = join(world.root, `${name.replace(/[^A-Za-z0-9.-]+/g, "_")}.pi.jsonl`);
			importInto(source, output, world.cwd);
			const switched = await pi.send({ type: "switch_session", sessionPath: output }, { allowFailure: true, timeoutMs: 120000 });
			assert.ok(switched.success, `switch_session: ${switched.error}`);
			const stats = await pi.send({ type: "get_session_stats" }, { allowFailure: true, timeoutMs: 120000 });
			assert.ok(stats.success, `get_session_stats: ${stats.error}`);
			assert.equal(typeof stats.data?.tokens?.total, "number", JSON.stringify(stats.data));
			const messages = await pi.send({ type: "get_messages" }, { allowFailure: true, timeoutMs: 120000 });
			assert.ok(messages.success, `get_messages: ${messages.error}`);
			// What pi sends the model: its messages through its own convertToLlm.
			const theirs = convertToLlm(messages.data.messages).map((m) => m.role);
			const ours = ourContext(output).map((m) => m.role);
			assert.deepEqual(ours, theirs, "same context as pi's");
		});
	}
});
