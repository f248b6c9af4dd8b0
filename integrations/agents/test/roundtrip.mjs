// The round trip through the real agents, shared by the test (`resume.test.mjs`) and the
// corpus measurement (`measure.mjs`): prepare a session (import, `compaction run` offline),
// export it, resume it in Claude Code or Codex against the mock, check the first request.

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, "../../..");

/** What `compaction export` writes before the summary, as Claude Code and Codex do. */
const SUMMARY_PREFACES = [
	"This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.",
	"Another language model started to solve this problem and produced a summary of its thinking process.",
];
const bin = process.env.COMPACTION_BIN ?? join(repo, "target/debug/compaction");
const claude = join(here, "../node_modules/.bin/claude");
const codex = join(here, "../node_modules/.bin/codex");

/** The real-transcript folder, or null. */
export function transcriptsDir() {
	const candidates = [process.env.COMPACTION_TRANSCRIPTS, join(repo, "../shared/transcripts")];
	try {
		// In a git worktree, the folder sits beside the main checkout.
		const common = execFileSync("git", ["-C", repo, "rev-parse", "--path-format=absolute", "--git-common-dir"], { encoding: "utf8" }).trim();
		candidates.push(join(dirname(dirname(common)), "shared/transcripts"));
	} catch {}
	return candidates.find((dir) => dir && existsSync(dir)) ?? null;
}

/**
 * The real transcripts: the two smallest of each agent's folder (a fixed rule, so the same
 * files are used on every machine that has the folder).
 */
export function realTranscripts(dir) {
	const picked = [];
	for (const agent of ["claude-code", "codex"]) {
		const folder = join(dir, agent);
		if (!existsSync(folder)) continue;
		const files = readdirSync(folder)
			.filter((name) => name.endsWith(".jsonl"))
			.map((name) => ({ path: join(folder, name), size: statSync(join(folder, name)).size }))
			.sort((a, b) => a.size - b.size || a.path.localeCompare(b.path));
		picked.push(...files.slice(0, 2).map((file) => file.path));
	}
	return picked;
}

export function compaction(args, env = {}) {
	return execFileSync(bin, args, { encoding: "utf8", env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 30 });
}

/** Runs an agent to its end; rejects after `ms`. */
export function runAgent(command, args, options, ms = 90_000) {
	return new Promise((resolvePromise, reject) => {
		const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (chunk) => (stdout += chunk));
		child.stderr.on("data", (chunk) => (stderr += chunk));
		const timer = setTimeout(() => {
			child.kill("SIGKILL");
			reject(new Error(`${command} ${args.join(" ")}: no end after ${ms} ms\n${stderr}`));
		}, ms);
		child.on("close", (code) => {
			clearTimeout(timer);
			resolvePromise({ code, stdout, stderr });
		});
	});
}

/** Every string inside a JSON value. */
export function strings(value, out = []) {
	if (typeof value === "string") out.push(value);
	else if (Array.isArray(value)) for (const item of value) strings(item, out);
	else if (value && typeof value === "object") for (const item of Object.values(value)) strings(item, out);
	return out;
}

/** The texts of one message of `compaction context --json`. */
export function messageTexts(message) {
	const content = message.content;
	const blocks = typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];
	return blocks.filter((block) => block.type === "text" && typeof block.text === "string").map((block) => block.text);
}

/** A probe for a text: its first 80 characters, trimmed (agents may cut long outputs). */
export function probe(text) {
	return text.trim().slice(0, 80).trim();
}

/**
 * Prepares one session: a pi session (imported when it is a transcript), compacted offline.
 * Returns what the checks need: the summary, probes of the kept and of the summarized texts.
 */
export function prepare(source, work) {
	const session = join(work, "session.jsonl");
	// A pi session is used as it is; a transcript is imported.
	const first = readFileSync(source, "utf8").split("\n", 1)[0];
	if (JSON.parse(first).type === "session") copyFileSync(source, session);
	else compaction(["import", source, "-o", session]);
	const before = JSON.parse(compaction(["context", session, "--json"]));
	const compacted = join(work, "compacted.jsonl");
	compaction(["run", session, "-o", compacted, "--keep-recent", "1000", "--strategy", "summarize"]);
	assert.ok(existsSync(compacted), `${source}: compaction run appended no compaction (nothing to compact)`);
	const after = JSON.parse(compaction(["context", compacted, "--json"]));
	// Lines a damaged source holds (two entries run together) are skipped here, as the reader does.
	const lines = readFileSync(compacted, "utf8")
		.trim()
		.split("\n")
		.flatMap((line) => {
			try {
				return [JSON.parse(line)];
			} catch {
				return [];
			}
		});
	const entry = lines.findLast((line) => line.type === "compaction");
	assert.ok(entry, `${source}: compaction run appended no compaction`);
	const keptIds = new Set(after.map((message) => message.entryId));
	const kept = after.filter((message) => message.role !== "compactionSummary" && message.entryId !== entry.id);
	const keptTexts = kept.flatMap(messageTexts);
	const summarizedTexts = before.filter((message) => !keptIds.has(message.entryId)).flatMap(messageTexts);
	assert.ok(summarizedTexts.length > 0, `${source}: nothing was summarized`);
	// A summarized text is checked only when nothing the agent should receive repeats it:
	// the summary, the kept messages, and the words each agent puts before a summary (an
	// imported Claude Code summary starts with Claude Code's).
	const allowed = [entry.summary, ...keptTexts, ...SUMMARY_PREFACES];
	const summarizedProbes = [...new Set(summarizedTexts.map(probe))].filter(
		(p) => p.length >= 24 && !allowed.some((text) => text.includes(p)),
	);
	const keptProbes = [...new Set(keptTexts.map(probe))].filter((p) => p.length >= 8);
	return { compacted, summary: entry.summary, keptProbes, summarizedProbes };
}

/** The checks on the first model request an agent sent. */
export function checkRequest(name, body, prepared) {
	const texts = strings(body);
	const holds = (p) => texts.some((text) => text.includes(p));
	assert.ok(holds(prepared.summary.trim()), `${name}: the summary is not in the first request`);
	const missing = prepared.keptProbes.filter((p) => !holds(p));
	assert.deepEqual(missing, [], `${name}: kept messages missing from the first request`);
	const leaked = prepared.summarizedProbes.filter(holds);
	assert.deepEqual(leaked, [], `${name}: summarized messages in the first request`);
	assert.ok(holds("continue"), `${name}: the new prompt is not in the first request`);
}

export async function resumeInClaudeCode(prepared, work, mock) {
	const home = join(work, "claude-home");
	const config = join(work, "claude-config");
	const project = join(work, "claude-project");
	for (const dir of [home, config, project]) mkdirSync(dir, { recursive: true });
	const env = {
		PATH: process.env.PATH,
		HOME: home,
		CLAUDE_CONFIG_DIR: config,
		ANTHROPIC_BASE_URL: mock.origin,
		ANTHROPIC_API_KEY: "dummy",
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
		DISABLE_AUTOUPDATER: "1",
	};
	const report = JSON.parse(compaction(["export", prepared.compacted, "--format", "claude-code", "--cwd", project, "--json"], env));
	assert.ok(report.output.startsWith(join(config, "projects")), report.output);
	const from = mock.requests.length;
	const run = await runAgent(claude, ["-p", "--resume", report.sessionId, "continue"], { cwd: project, env });
	assert.equal(run.code, 0, `claude exited ${run.code}: ${run.stderr}${run.stdout}`);
	assert.match(run.stdout, /Resumed/);
	const first = mock.requests.slice(from).find((r) => r.method === "POST" && r.path.endsWith("/v1/messages"));
	assert.ok(first, "Claude Code sent no Messages request");
	return first.body;
}

export async function resumeInCodex(prepared, work, mock) {
	const home = join(work, "codex-user");
	const codexHome = join(work, "codex-home");
	const project = join(work, "codex-project");
	for (const dir of [home, codexHome, project]) mkdirSync(dir, { recursive: true });
	writeFileSync(
		join(codexHome, "config.toml"),
		[
			`model = "mock-model"`,
			`model_provider = "mock"`,
			``,
			`[model_providers.mock]`,
			`name = "mock"`,
			`base_url = "${mock.origin}/v1"`,
			`wire_api = "responses"`,
			``,
		].join("\n"),
	);
	const env = { PATH: process.env.PATH, HOME: home, CODEX_HOME: codexHome };
	const report = JSON.parse(compaction(["export", prepared.compacted, "--format", "codex", "--cwd", project, "--json"], env));
	assert.ok(report.output.startsWith(join(codexHome, "sessions")), report.output);
	const from = mock.requests.length;
	const run = await runAgent(codex, ["exec", "--skip-git-repo-check", "resume", report.sessionId, "continue"], { cwd: project, env });
	assert.equal(run.code, 0, `codex exited ${run.code}: ${run.stderr}${run.stdout}`);
	assert.match(run.stdout, /Resumed/);
	const first = mock.requests.slice(from).find((r) => r.method === "POST" && r.path.endsWith("/v1/responses"));
	assert.ok(first, "Codex sent no Responses request");
	return first.body;
}

