// Acceptance test of the store's concurrency test: the sessions it leaves open in real pi 1.6.
//
// The Rust test `workers::load` (crates/compaction-cli/tests/cli/workers/load.rs) runs 8 agents
// and 3 workers (one killed with SIGKILL) on 200 sessions of each store (a SQLite database, a
// folder of pi files), then writes every tenth session's export (20 per store) and what
// `compaction context STORE#ID --json` printed for it to
// target/tmp/concurrency-exports/STORE/ (or $COMPACTION_CONCURRENCY_EXPORTS). For each export,
// its header `cwd` pointed at an existing folder, plain pi 1.6 in RPC mode must:
// 1. open it (`switch_session`), with `get_session_stats` giving a token total and
//    `get_messages` succeeding;
// 2. send the model the same context as the store's `compaction context` printed: the same
//    roles in order (pi's messages through its own `convertToLlm`), and the same source
//    entries (pi's own projection of the file at its leaf).
//
// Run `cargo test -p compaction-cli --test cli workers::load` first; without its output the
// test is skipped with the reason printed.

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { startMockProvider } from "../lib/mock-provider.mjs";
import { makeWorld, PACKAGE_DIR, Pi } from "../lib/pi-rpc.mjs";
import { loadSession } from "../oracle.mjs";

const PI_DIST = join(PACKAGE_DIR, "node_modules/@earendil-works/pi-coding-agent/dist");
const { convertToLlm } = await import(join(PI_DIST, "core/messages.js"));
const { buildSessionProjection } = await import(join(PI_DIST, "core/session-manager.js"));

const EXPORTS = resolve(process.env.COMPACTION_CONCURRENCY_EXPORTS ?? join(PACKAGE_DIR, "../../target/tmp/concurrency-exports"));

/** Every export the concurrency test wrote: [store, name, file, context file]. */
function exportsWritten() {
	if (!existsSync(EXPORTS)) return [];
	const found = [];
	for (const store of readdirSync(EXPORTS).sort()) {
		for (const name of readdirSync(join(EXPORTS, store)).sort()) {
			if (!name.endsWith(".jsonl")) continue;
			found.push([store, name, join(EXPORTS, store, name), join(EXPORTS, store, name.replace(/\.jsonl$/, ".context.json"))]);
		}
	}
	return found;
}

/** A copy of `file` with its header's `cwd` set to `cwd` (pi opens a session only in an existing folder). */
function copyWithCwd(file, target, cwd) {
	const lines = readFileSync(file, "utf8").split("\n");
	const header = JSON.parse(lines[0]);
	lines[0] = JSON.stringify({ ...header, cwd });
	writeFileSync(target, lines.join("\n"));
}

/** pi 1.6's provider messages at the file's leaf, each with its source entry id. */
function piProvider(file) {
	const manager = loadSession(file);
	const projection = buildSessionProjection(manager.getBranch(manager.getLeafId()));
	return projection.entries.flatMap((entry) => entry.messages.flatMap((message) => convertToLlm([message]).map((m) => ({ role: m.role, entryId: entry.sourceEntry.id }))));
}

const [major, minor] = process.versions.node.split(".").map(Number);
assert.ok(major > 22 || (major === 22 && minor >= 19), `pi 1.6 needs Node >= 22.19, this is ${process.versions.node}`);

const written = exportsWritten();
if (written.length === 0) {
	console.log(`# SKIPPED: no exports at ${EXPORTS}; run cargo test -p compaction-cli --test cli workers::load first`);
}

describe("sessions left by agents and workers (one killed) open in pi 1.6 with the context compaction prints", { skip: written.length === 0 }, () => {
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

	it("the concurrency test wrote 20 exports per store", () => {
		const perStore = Map.groupBy(written, ([store]) => store);
		for (const [store, files] of perStore) assert.equal(files.length, 20, `${store}: ${files.length} exports`);
	});

	for (const [store, name, file, contextFile] of written) {
		it(`${store}/${name}`, async () => {
			const copy = join(world.root, `${store}-${name}`);
			copyWithCwd(file, copy, world.cwd);
			const ours = JSON.parse(readFileSync(contextFile, "utf8"));
			assert.ok(ours.length > 0, "compaction context printed no message");
			const switched = await pi.send({ type: "switch_session", sessionPath: copy }, { allowFailure: true, timeoutMs: 120000 });
			assert.ok(switched.success, `switch_session: ${switched.error}`);
			const stats = await pi.send({ type: "get_session_stats" }, { allowFailure: true, timeoutMs: 120000 });
			assert.ok(stats.success, `get_session_stats: ${stats.error}`);
			assert.equal(typeof stats.data?.tokens?.total, "number", JSON.stringify(stats.data));
			const messages = await pi.send({ type: "get_messages" }, { allowFailure: true, timeoutMs: 120000 });
			assert.ok(messages.success, `get_messages: ${messages.error}`);
			const theirs = convertToLlm(messages.data.messages).map((m) => m.role);
			assert.deepEqual(ours.map((m) => m.role), theirs, "same roles as the context pi sends");
			assert.ok(ours.some((m) => JSON.stringify(m.content).includes("<summary>")), "the context starts from a compaction summary");
			const projected = piProvider(copy);
			assert.deepEqual(ours.map((m) => m.entryId), projected.map((m) => m.entryId), "same source entries as pi's projection");
		});
	}
});
