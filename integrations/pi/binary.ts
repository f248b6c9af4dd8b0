// Finding, checking and running the `compaction` binary.
//
// Invariant: the binary only ever reads pi's session file (`summarize`, `plan`, `context`
// never write it); a run is killed when pi's abort signal fires, and API keys reach it only
// through its environment, never its arguments.

import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** The oldest `compaction` version this package works with (it needs `summarize`). */
export const MIN_VERSION = "0.1.0";

/** The key of this package's configuration in pi's settings.json files. */
export const SETTINGS_KEY = "compactionEngine";

/** This package's configuration, merged from the global then the project settings file. */
export interface EngineConfig {
	/** `false` turns the whole package off: pi compacts and summarizes branches itself. */
	enabled?: boolean;
	/** Path of the `compaction` binary; default: `compaction` found on PATH. */
	binary?: string;
	/** Handle `/compact` and automatic compaction (default true). */
	compact?: boolean;
	/** Handle branch summaries of `/tree` navigation (default true). */
	branchSummary?: boolean;
	/**
	 * Who writes summaries: `"offline"` (default: no network, no key), `"pi"` (pi's current
	 * model, when its API is OpenAI-compatible or Anthropic), or a provider name (`"openai"`,
	 * `"anthropic"`) used with `summaryModel`, `baseUrl` and `apiKeyEnv`.
	 */
	summarizer?: string;
	/** The model that writes summaries with an explicit provider. */
	summaryModel?: string;
	/** Base URL of an explicit provider's API. */
	baseUrl?: string;
	/** Environment variable holding an explicit provider's API key. */
	apiKeyEnv?: string;
}

/** Reads one settings file's section of ours; a missing file is an empty section. */
function readSection(path: string): EngineConfig {
	if (!existsSync(path)) return {};
	let document: unknown;
	try {
		document = JSON.parse(readFileSync(path, "utf8"));
	} catch (error) {
		throw new Error(`${path}: invalid JSON: ${(error as Error).message}`);
	}
	const section = (document as Record<string, unknown> | null)?.[SETTINGS_KEY];
	if (section === undefined) return {};
	if (typeof section !== "object" || section === null || Array.isArray(section)) {
		throw new Error(`${path}: "${SETTINGS_KEY}" must be an object`);
	}
	return section as EngineConfig;
}

/** pi's agent directory: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`. */
export function agentDir(): string {
	return process.env.PI_CODING_AGENT_DIR || join(homedir(), ".pi", "agent");
}

/** The configuration for a session in `cwd`: global settings, then the project's. */
export function loadConfig(cwd: string): EngineConfig {
	return {
		...readSection(join(agentDir(), "settings.json")),
		...readSection(join(cwd, ".pi", "settings.json")),
	};
}

/** What one run of the binary produced. */
export interface RunResult {
	code: number | null;
	stdout: string;
	stderr: string;
	/** The run was stopped by the abort signal. */
	aborted: boolean;
}

/** Runs the binary with `args`; kills it (SIGTERM) when `signal` aborts. */
export function runBinary(
	binary: string,
	args: string[],
	options: { cwd: string; signal?: AbortSignal; env?: Record<string, string> },
): Promise<RunResult> {
	return new Promise((resolve, reject) => {
		if (options.signal?.aborted) {
			resolve({ code: null, stdout: "", stderr: "", aborted: true });
			return;
		}
		const child = spawn(binary, args, {
			cwd: options.cwd,
			env: { ...process.env, ...options.env },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		let aborted = false;
		child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
		const onAbort = () => {
			aborted = true;
			child.kill("SIGTERM");
		};
		options.signal?.addEventListener("abort", onAbort, { once: true });
		child.on("error", (error) => {
			options.signal?.removeEventListener("abort", onAbort);
			reject(error);
		});
		child.on("close", (code) => {
			options.signal?.removeEventListener("abort", onAbort);
			resolve({ code, stdout, stderr, aborted });
		});
	});
}

/** Compares dotted versions: negative when `a` < `b`. */
export function compareVersions(a: string, b: string): number {
	const parts = (v: string) => v.split(/[.+-]/).slice(0, 3).map((p) => Number.parseInt(p, 10) || 0);
	const [x, y] = [parts(a), parts(b)];
	for (let i = 0; i < 3; i++) {
		if (x[i] !== y[i]) return x[i] - y[i];
	}
	return 0;
}

/** What a checked binary is and can do. */
export interface BinaryInfo {
	version: string;
	/** `summarize` takes `--reason` (the engine's extensions are told pi's reason). */
	reason: boolean;
}

/**
 * Checks that `binary` runs and is recent enough; returns its version and abilities, or
 * throws an error that says what to do.
 */
export async function checkBinary(binary: string, cwd: string): Promise<BinaryInfo> {
	let result: RunResult;
	try {
		result = await runBinary(binary, ["--version"], { cwd });
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT") {
			throw new Error(
				`the \`${binary}\` binary was not found (install it with \`cargo install --path crates/compaction-cli\`, or set "${SETTINGS_KEY}.binary" in settings.json)`,
			);
		}
		throw new Error(`cannot run \`${binary}\`: ${(error as Error).message}`);
	}
	const version = /(\d+\.\d+\.\d+)/.exec(result.stdout)?.[1];
	if (result.code !== 0 || !version) {
		throw new Error(`\`${binary} --version\` failed: ${(result.stderr || result.stdout).trim()}`);
	}
	if (compareVersions(version, MIN_VERSION) < 0) {
		throw new Error(`\`${binary}\` is version ${version}; this package needs ${MIN_VERSION} or newer`);
	}
	const help = await runBinary(binary, ["summarize", "--help"], { cwd });
	return { version, reason: help.code === 0 && help.stdout.includes("--reason") };
}

/** pi's `Usage` (pi 1.6 adds it to session totals and reads `cost.total`). */
export interface PiUsage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	totalTokens: number;
	cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

/**
 * The engine's summarizer usage in pi's full shape: missing counts are 0, a bare `cost`
 * number is the total, and `cost` is always present (pi's session statistics fail on a
 * usage without it). No usage at all (the offline summarizer) is all zeros.
 */
export function piUsage(usage: unknown): PiUsage {
	const u = (usage && typeof usage === "object" ? usage : {}) as Record<string, unknown>;
	const n = (value: unknown) => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0);
	const input = n(u.input);
	const output = n(u.output);
	const cacheRead = n(u.cacheRead);
	const cacheWrite = n(u.cacheWrite);
	const totalTokens = n(u.totalTokens) || input + output + cacheRead + cacheWrite;
	const c = u.cost;
	const cost =
		c && typeof c === "object"
			? (() => {
					const o = c as Record<string, unknown>;
					const parts = { input: n(o.input), output: n(o.output), cacheRead: n(o.cacheRead), cacheWrite: n(o.cacheWrite) };
					const total = n(o.total) || parts.input + parts.output + parts.cacheRead + parts.cacheWrite;
					return { ...parts, total };
				})()
			: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: n(c) };
	return { input, output, cacheRead, cacheWrite, totalTokens, cost };
}

/**
 * What went wrong in a failed run: the JSON error a `--json` command prints on stdout
 * (`{"error": {"message", "causes"}}`), else the `error:` line of stderr and its causes,
 * else stderr's last line.
 */
export function failureText(result: RunResult): string {
	try {
		const error = JSON.parse(result.stdout)?.error;
		if (error?.message) return [error.message, ...(error.causes ?? [])].join(": ");
	} catch {
		// Not JSON: the error is on stderr.
	}
	const lines = result.stderr.split("\n").map((line) => line.trim()).filter((line) => line !== "");
	const start = lines.findIndex((line) => line.startsWith("error:"));
	if (start >= 0) {
		return lines
			.slice(start)
			.map((line) => line.replace(/^(error|caused by):\s*/, ""))
			.join(": ");
	}
	return lines[lines.length - 1] ?? `exit code ${result.code}`;
}
