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
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { startMock } from "./mock-models.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../../..");
const bin = process.env.COMPACTION_BIN ?? join(repo, "target/debug/compaction");
const claude = join(here, "../node_modules/.bin/claude");
const codex = join(here, "../node_modules/.bin/codex");

/** The real-transcript folder, or null. */
function transcriptsDir() {
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
function realTranscripts(dir) {
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

function compaction(args, env = {}) {
	return execFileSync(bin, args, { encoding: "utf8", env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
}

/** Runs an agent to its end; rejects after `ms`. */
function runAgent(command, args, options, ms = 90_000) {
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
function strings(value, out = []) {
	if (typeof value === "string") out.push(value);
	else if (Array.isArray(value)) for (const item of value) strings(item, out);
	else if (value && typeof value === "object") for (const item of Object.values(value)) strings(item, out);
	return out;
}

/** The texts of one message of `compaction context --json`. */
function messageTexts(message) {
	const content = message.content;
	const blocks = typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];
	return blocks.filter((block) => block.type === "text" && typeof block.text === "string").map((block) => block.text);
}

/** A probe for a text: its first 80 characters, trimmed (agents may cut long outputs). */
function probe(text) {
	return text.trim().slice(0, 80).trim();
}

/**
 * Prepares one session: a pi session (imported when it is a transcript), compacted offline.
 * Returns what the checks need: the summary, probes of the kept and of the summarized texts.
 */
function prepare(source, work) {
	const session = join(work, "session.jsonl");
	if (source.endsWith("coding-session.jsonl")) copyFileSync(source, session);
	else compaction(["import", source, "-o", session]);
	const before = JSON.parse(compaction(["context", session, "--json"]));
	const compacted = join(work, "compacted.jsonl");
	compaction(["run", session, "-o", compacted, "--keep-recent", "2000"]);
	const after = JSON.parse(compaction(["context", compacted, "--json"]));
	const lines = readFileSync(compacted, "utf8").trim().split("\n").map((line) => JSON.parse(line));
	const entry = lines.findLast((line) => line.type === "compaction");
	assert.ok(entry, `${source}: compaction run appended no compaction`);
	const keptIds = new Set(after.map((message) => message.entryId));
	const kept = after.filter((message) => message.role !== "compactionSummary" && message.entryId !== entry.id);
	const keptTexts = kept.flatMap(messageTexts);
	const summarizedTexts = before.filter((message) => !keptIds.has(message.entryId)).flatMap(messageTexts);
	assert.ok(summarizedTexts.length > 0, `${source}: nothing was summarized`);
	// A summarized text is checked only when nothing the agent should receive repeats it.
	const allowed = [entry.summary, ...keptTexts];
	const summarizedProbes = [...new Set(summarizedTexts.map(probe))].filter(
		(p) => p.length >= 24 && !allowed.some((text) => text.includes(p)),
	);
	const keptProbes = [...new Set(keptTexts.map(probe))].filter((p) => p.length >= 8);
	return { compacted, summary: entry.summary, keptProbes, summarizedProbes };
}

/** The checks on the first model request an agent sent. */
function checkRequest(name, body, prepared) {
	const texts = strings(body);
	const holds = (p) => texts.some((text) => text.includes(p));
	assert.ok(holds(prepared.summary.trim()), `${name}: the summary is not in the first request`);
	const missing = prepared.keptProbes.filter((p) => !holds(p));
	assert.deepEqual(missing, [], `${name}: kept messages missing from the first request`);
	const leaked = prepared.summarizedProbes.filter(holds);
	assert.deepEqual(leaked, [], `${name}: summarized messages in the first request`);
	assert.ok(holds("continue"), `${name}: the new prompt is not in the first request`);
}

async function resumeInClaudeCode(prepared, work, mock) {
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

async function resumeInCodex(prepared, work, mock) {
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
