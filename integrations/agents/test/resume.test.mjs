// Round trip through the real agents: a session (the bundled example, and real Claude Code
// and Codex transcripts imported with `compaction import`) is compacted offline with
// `compaction run`, exported with `compaction export`, and resumed non-interactively by real
// Claude Code (`claude -p --resume ID`) and real Codex (`codex exec resume ID`), each pointed
// at a local mock model. The first model request each agent sends must hold the compaction
// summary and every kept message, and nothing that was summarized.
//
// Environment: COMPACTION_BIN (default: target/debug/compaction of this repository);
// COMPACTION_TRANSCRIPTS (default: ../shared/transcripts beside the repository, or beside
// the main checkout of a git worktree). Real transcripts are skipped, with the reason
// printed, when that folder is absent.

import { test } from "node:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { startMock } from "./mock-models.mjs";
import { checkRequest, prepare, realTranscripts, repo, resumeInClaudeCode, resumeInCodex, transcriptsDir } from "./roundtrip.mjs";

const sources = [join(repo, "examples/coding-session.jsonl")];
const shared = transcriptsDir();
if (shared) sources.push(...realTranscripts(shared));
else console.log("SKIPPED real transcripts: no ../shared/transcripts beside the repository (set COMPACTION_TRANSCRIPTS to its path)");

for (const source of sources) {
	const name = source.split("/").slice(-2).join("/");
	test(`${name}: import → run → export → resume in Claude Code and Codex`, async (t) => {
		const work = mkdtempSync(join(tmpdir(), "compaction-agents-"));
		const mock = await startMock();
		try {
			const prepared = prepare(source, work);
			t.diagnostic(`${prepared.keptProbes.length} kept texts, ${prepared.summarizedProbes.length} summarized texts checked`);
			checkRequest(`Claude Code, ${name}`, await resumeInClaudeCode(prepared, work, mock), prepared);
			checkRequest(`Codex, ${name}`, await resumeInCodex(prepared, work, mock), prepared);
			const paths = mock.requests.map((r) => `${r.method} ${r.path}`);
			t.diagnostic(`requests received: ${paths.join(", ")}`);
		} finally {
			await mock.close();
			rmSync(work, { recursive: true, force: true });
		}
	});
}
