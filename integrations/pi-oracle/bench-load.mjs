// How long pi 1.6.0 takes, inside one Node process, to open a session file and build the model
// context at its leaf: `SessionManager.open(file)` (pi's `loadEntriesFromFile`, the in-memory
// migration and the id/label index of `_buildIndex`) followed by `buildSessionContext()`. The
// figures are comparable with `compaction context FILE` (load, index, context at the leaf),
// recorded side by side in BENCHMARKS.md.
//
//   node bench-load.mjs SESSION.jsonl [--runs N]
//
// Every run opens the file afresh in the same process; the first run also pays for the
// JIT warming up. Prints one line per run and a summary (min / median / max). The session
// file is only read: pi's loader appends a newline to a file whose last line has none, so
// pass a file that ends with one (the generator's files do). Set PI_DIR to use a pi 1.6
// installation other than this folder's `node_modules`.

import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const PI_DIR = process.env.PI_DIR ?? join(HERE, "node_modules/@earendil-works/pi-coding-agent");
const { SessionManager } = await import(pathToFileURL(join(PI_DIR, "dist/core/session-manager.js")).href);
const PI_VERSION = JSON.parse(readFileSync(join(PI_DIR, "package.json"), "utf8")).version;

const args = process.argv.slice(2);
const file = args.find((arg) => !arg.startsWith("--"));
const runsAt = args.indexOf("--runs");
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 5;
if (!file || !Number.isInteger(runs) || runs < 1) {
	console.error("usage: node bench-load.mjs SESSION.jsonl [--runs N]");
	process.exit(2);
}

const path = resolve(file);
const bytes = statSync(path).size;
console.log(`pi ${PI_VERSION}, Node ${process.version}: ${path} (${(bytes / 1e6).toFixed(1)} MB)`);
const totals = [];
for (let run = 1; run <= runs; run++) {
	const start = performance.now();
	const manager = SessionManager.open(path);
	const opened = performance.now();
	const context = manager.buildSessionContext();
	const done = performance.now();
	totals.push(done - start);
	const entries = manager.getEntries().length;
	console.log(
		`run ${run}: open (read + parse + index) ${(opened - start).toFixed(0)} ms, ` +
			`context ${(done - opened).toFixed(1)} ms (${context.messages.length} messages), ` +
			`total ${(done - start).toFixed(0)} ms; ${entries} entries`,
	);
}
const sorted = [...totals].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)];
console.log(
	`open + context: min ${sorted[0].toFixed(0)} ms, median ${median.toFixed(0)} ms, ` +
		`max ${sorted[sorted.length - 1].toFixed(0)} ms over ${runs} runs; ` +
		`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
);
