// Writes the oracle's output for every fixture session at every keep value of lib/expected.mjs
// (pi's default reserve, no window) to crates/compaction-core/tests/fixtures/pi16/expected/.
// Run it after make-sessions.mjs; test/oracle.test.mjs checks the files stay what pi computes.
//
//   node write-expected.mjs

import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EXPECTED_DIR, expectedFiles } from "./lib/expected.mjs";
import { formatDocument, runOracle } from "./oracle.mjs";

mkdirSync(EXPECTED_DIR, { recursive: true });
const files = expectedFiles();
const wanted = new Set(files.map((file) => file.expected));
for (const stale of readdirSync(EXPECTED_DIR)) {
	if (!wanted.has(join(EXPECTED_DIR, stale))) rmSync(join(EXPECTED_DIR, stale));
}
let leaves = 0;
let plans = 0;
for (const { session, keep, expected } of files) {
	const doc = runOracle(session, { keepRecentTokens: keep });
	writeFileSync(expected, formatDocument(doc));
	leaves += doc.leaves.length;
	plans += doc.leaves.filter((leaf) => leaf.plan !== null).length;
}
console.log(`${files.length} files, ${leaves} leaves, ${plans} with a plan -> ${EXPECTED_DIR}`);
