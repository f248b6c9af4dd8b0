// Driving real pi 1.6 in RPC mode: an isolated agent directory pointing at the mock provider,
// pi started with the fixture extension, and a client for its JSONL protocol (records split
// on "\n" only, as docs/rpc.md requires).

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const PI_CLI = join(PACKAGE_DIR, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");
export const FIXTURE_EXTENSION = join(PACKAGE_DIR, "lib/fixture-extension.ts");

/**
 * A fresh world: a working directory (the session's cwd, where pi's tools act), a HOME and
 * an agent directory with `models.json` (the mock provider's `m1` with `model`'s fields, plus
 * `extraModels`) and
 * `settings.json` holding `settings`.
 */
export function makeWorld(mock, { model = {}, extraModels = [], settings = {} } = {}) {
	const root = mkdtempSync(join(tmpdir(), "pi16-oracle-"));
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
				models: [{ id: "m1", contextWindow: 128000, maxTokens: 4096, ...model }, ...extraModels],
			},
		},
	};
	writeFileSync(join(world.agentDir, "models.json"), JSON.stringify(models, null, 2));
	writeFileSync(
		join(world.agentDir, "settings.json"),
		JSON.stringify(
			{
				defaultProvider: "mock",
				defaultModel: "m1",
				defaultThinkingLevel: "off",
				cacheWarming: "off",
				retry: { enabled: false },
				enableInstallTelemetry: false,
				...settings,
			},
			null,
			2,
		),
	);
	return world;
}

/** The environment pi runs with: isolated, offline, no provider keys. */
export function worldEnv(world) {
	const env = { ...process.env, HOME: world.home, PI_CODING_AGENT_DIR: world.agentDir, PI_OFFLINE: "1" };
	for (const key of Object.keys(env)) {
		if (/_API_KEY$/.test(key) || key.startsWith("PI_") && !["PI_CODING_AGENT_DIR", "PI_OFFLINE"].includes(key)) {
			delete env[key];
		}
	}
	return env;
}

/**
 * pi 1.6 in RPC mode, writing into `world.sessionDir`, with the fixture extension loaded
 * (`extensions`: the extension files to load; `[]` runs plain pi, with no extension at all).
 */
export class Pi {
	constructor(world, { extensions = [FIXTURE_EXTENSION] } = {}) {
		const args = [PI_CLI, "--mode", "rpc", "--provider", "mock", "--model", "m1", "--no-skills"];
		args.push("--no-context-files", "--no-prompt-templates", "--no-themes", "--no-extensions");
		for (const extension of extensions) args.push("-e", extension);
		args.push("--session-dir", world.sessionDir);
		this.world = world;
		this.events = [];
		this.waiters = [];
		this.stderr = "";
		this.nextId = 0;
		this.proc = spawn(process.execPath, args, { cwd: world.cwd, env: worldEnv(world), stdio: ["pipe", "pipe", "pipe"] });
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
				const recent = this.events.slice(-30).map((e) => JSON.stringify(e).slice(0, 300));
				reject(new Error(`timed out waiting for ${what}; pi stderr:\n${this.stderr}\nlast events:\n${recent.join("\n")}`));
			}, timeoutMs);
			this.waiters.push({ predicate, resolve: resolveEvent, timer });
		});
	}

	/** Sends a command and waits for its response; a failed command is an error. */
	async send(command, { allowFailure = false, ...options } = {}) {
		const id = `c${++this.nextId}`;
		this.proc.stdin.write(`${JSON.stringify({ ...command, id })}\n`);
		const response = await this.waitFor((e) => e.type === "response" && e.id === id, {
			what: `response to ${command.type}`,
			...options,
		});
		if (!response.success && !allowFailure) {
			throw new Error(`${command.type} failed: ${response.error}\npi stderr:\n${this.stderr}`);
		}
		return response;
	}

	/** Sends a prompt (optionally with images) and waits until pi has settled. */
	async prompt(message, images) {
		const from = this.events.length;
		await this.send({ type: "prompt", message, ...(images ? { images } : {}) });
		return this.settled(from);
	}

	/** Waits for the `agent_settled` event after event index `from`. */
	settled(from) {
		return this.waitFor((e) => e.type === "agent_settled", { from, what: "agent_settled" });
	}

	/** Runs an extension command (`/name args`); waits for the notice it ends with. */
	async command(text) {
		const from = this.events.length;
		await this.send({ type: "prompt", message: text });
		const name = text.split(/\s/)[0].slice(1);
		const notice = await this.waitFor(
			(e) => e.type === "extension_ui_request" && e.method === "notify" && String(e.message).startsWith(`${name}:`),
			{ from, what: `notice of ${name}` },
		);
		if (notice.notifyType === "error" || String(notice.message).includes(": error ")) {
			throw new Error(`${text} failed: ${notice.message}`);
		}
		return notice;
	}

	/** The path of the session file pi is writing. */
	async sessionFile() {
		const state = (await this.send({ type: "get_state" })).data;
		if (state.sessionFile) return state.sessionFile;
		const files = readdirSync(this.world.sessionDir).filter((f) => f.endsWith(".jsonl"));
		return join(this.world.sessionDir, files[0]);
	}

	async entries() {
		return (await this.send({ type: "get_entries" })).data.entries;
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
