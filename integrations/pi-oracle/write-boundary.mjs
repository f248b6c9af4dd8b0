// Writes pi 1.6's compaction decision at keepRecentTokens values on the boundaries of every
// leaf of every fixture session to crates/compaction-core/tests/fixtures/pi16/boundary/.
//
// For each leaf, the keep values are the exact sums of the newest projected entries' token
// estimates (pi's estimateTokens, walking back from the leaf over the region after the
// latest compaction, as prepareCompaction does), each minus one, equal and plus one: where
// "the recent part reaches keepRecentTokens" flips. Each case records prepareCompaction's
// answer (null: nothing to compact). test/oracle.test.mjs checks the files stay what pi
// computes; crates/compaction-core/tests/pi16_oracle.rs compares the engine with them.
//
//   node write-boundary.mjs

import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BOUNDARY_DIR, boundaryDocument, fixtureSessions, FIXTURE_DIR } from "./lib/boundary.mjs";

mkdirSync(BOUNDARY_DIR, { recursive: true });
for (const stale of readdirSync(BOUNDARY_DIR)) rmSync(join(BOUNDARY_DIR, stale));
let cases = 0;
let plans = 0;
for (const session of fixtureSessions()) {
	const doc = await boundaryDocument(join(FIXTURE_DIR, session));
	writeFileSync(join(BOUNDARY_DIR, session.replace(/\.jsonl$/, ".json")), doc.text);
	cases += doc.cases;
	plans += doc.plans;
}
console.log(`${cases} cases, ${plans} with a plan -> ${BOUNDARY_DIR}`);
