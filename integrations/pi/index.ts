// pi package (pi 1.6): pi's compaction and branch summaries through the `compaction` engine.
//
// - `session_before_compact`: `compaction summarize` plans and summarizes the session at
//   pi's leaf, told pi's reason (manual, threshold, overflow); pi appends the returned
//   compaction (with `fromHook: true`) and its `usage` (pi's full shape, cost included).
// - `session_compact_failed`: says what failed when the engine took part.
// - `session_before_tree`: the same for the summary of the branch left by `/tree`.
// - `context_with_system`: when the path holds entries only this engine reads (`custom`
//   entries `compaction.prune`, `compaction.pin`, `compaction.unpin`), their prunes and pins
//   are applied to the messages pi is about to send (context.ts); pi's projection (context
//   edits, compaction, system messages) is otherwise sent as pi built it.
// - `session_start`, `model_select`: when pi's compaction budgets do not fit the model's
//   window (8k–32k local models with pi's defaults), the user is told once which
//   `compaction.modelOverrides` entry gives pi the engine's budgets (budgets.ts); settings
//   warnings (a misspelt key) are shown once.
// - `/compaction-stats`: context size, pi's trigger with pi's budgets for the model, and
//   what the next compaction would keep.
// - Tools `compaction_recall` and `compaction_search` (when the binary has `recall` and
//   `search`): the model reads what compaction and pruning took out of its context.
//
// Invariant: whenever the engine cannot answer (binary missing, too old, failing), pi's own
// behaviour runs and the user is told why; an abort kills the engine and writes nothing.
// Configuration: the `compactionEngine` key of pi's settings.json (README.md here).

import { mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { adviceText, budgetAdvice, piBudgets } from "./budgets.ts";
import {
	agentDir,
	type BinaryInfo,
	checkBinary,
	type EngineConfig,
	failureText,
	loadConfig,
	piUsage,
	runBinary,
	SETTINGS_KEY,
} from "./binary.ts";
import { applyEngineView, engineView, hasEngineEntries } from "./context.ts";

/** The environment variable that carries pi's API key to the engine for `summarizer: "pi"` (not `COMPACTION_*`: the engine warns about such names it does not read). */
const PI_KEY_VAR = "PI_COMPACTION_API_KEY";

interface Engine {
	config: EngineConfig;
	binary: string;
	info: BinaryInfo;
}

/** Why pi compacts (`session_before_compact`). */
type CompactReason = "manual" | "threshold" | "overflow";

/** What the package did in the compaction pi is running, for `session_compact_failed`. */
interface CompactAttempt {
	reason: CompactReason;
	/** Why the engine could not answer, when pi's own compaction ran instead. */
	engineFailure?: string;
}

/** A compaction's reason in words, for messages to the user. */
function reasonName(reason: CompactReason): string {
	switch (reason) {
		case "manual":
			return "/compact";
		case "threshold":
			return "automatic compaction";
		case "overflow":
			return "overflow recovery";
	}
}

/** The status line while the engine compacts: the reason and what pi does after. */
function statusText(reason: CompactReason, willRetry: boolean): string {
	switch (reason) {
		case "manual":
			return "compaction engine: /compact…";
		case "threshold":
			return "compaction engine: automatic compaction (the context is over the threshold)…";
		case "overflow":
			return willRetry
				? "compaction engine: overflow recovery (the model rejected the context; the turn is retried after)…"
				: "compaction engine: overflow recovery (the context outgrew the model's window)…";
	}
}

/** A session file the engine can read, and how to clean up after it. */
interface SessionSnapshot {
	file: string;
	leaf: string | null;
	cleanup: () => void;
}

/** The key of the package's status line while the engine compacts. */
const STATUS_KEY = "compaction";

export default async function compactionEngine(pi: ExtensionAPI) {
	const verified = new Map<string, BinaryInfo>();
	let attempt: CompactAttempt | undefined;
	/** Messages shown once per pi process (settings warnings, budget advice). */
	const shownOnce = new Set<string>();

	/** Tells the user something went wrong and what pi does instead. */
	function warn(ctx: ExtensionContext, message: string) {
		const text = `compaction: ${message}`;
		if (ctx.hasUI) ctx.ui.notify(text, "warning");
		else console.error(text);
	}

	/** [`warn`], once per distinct message. */
	function warnOnce(ctx: ExtensionContext, message: string) {
		if (shownOnce.has(message)) return;
		shownOnce.add(message);
		warn(ctx, message);
	}

	/** The engine's `warning:` lines (settings it ignores, …) from a run's stderr, shown once each. */
	function relayWarnings(ctx: ExtensionContext, stderr: string) {
		for (const line of stderr.split("\n")) {
			const match = /^warning:\s*(.+)$/.exec(line.trim());
			if (match) warnOnce(ctx, match[1]);
		}
	}

	/** Tells the user, once per model, which `modelOverrides` entry a small window needs. */
	function adviseBudgets(ctx: ExtensionContext, model: ExtensionContext["model"]) {
		if (!model) return;
		const advice = budgetAdvice(pi.getSettings() as any, model);
		if (advice) warnOnce(ctx, adviceText(advice, join(agentDir(), "settings.json")));
	}

	/** Settings warnings of the engine (`compaction config`), once; silent when it cannot run. */
	async function relaySettingsWarnings(ctx: ExtensionContext) {
		try {
			const config = loadConfig(ctx.cwd);
			if (config.enabled === false) return;
			const result = await runBinary(config.binary ?? "compaction", ["config", "--json"], { cwd: ctx.cwd });
			if (result.code !== 0) return;
			for (const warning of JSON.parse(result.stdout).warnings ?? []) warnOnce(ctx, String(warning));
		} catch {
			// A missing or failing binary is reported when pi first compacts.
		}
	}

	pi.on("session_start", async (_event, ctx) => {
		adviseBudgets(ctx, ctx.model);
		await relaySettingsWarnings(ctx);
	});

	pi.on("model_select", async (event, ctx) => {
		adviseBudgets(ctx, event.model);
	});

	/**
	 * The configuration and a verified binary, or `undefined` when unusable (with a warning,
	 * also handed to `problem`) or turned off (silently).
	 */
	async function engine(
		ctx: ExtensionContext,
		fallback: string,
		problem: (message: string) => void = () => {},
	): Promise<Engine | undefined> {
		const unusable = (error: unknown) => {
			const message = (error as Error).message;
			problem(message);
			warn(ctx, `${message}; ${fallback}`);
			return undefined;
		};
		let config: EngineConfig;
		try {
			config = loadConfig(ctx.cwd);
		} catch (error) {
			return unusable(error);
		}
		if (config.enabled === false) return undefined;
		const binary = config.binary ?? "compaction";
		if (!verified.has(binary)) {
			try {
				verified.set(binary, await checkBinary(binary, ctx.cwd));
			} catch (error) {
				return unusable(error);
			}
		}
		return { config, binary, info: verified.get(binary) as BinaryInfo };
	}

	/**
	 * pi's session file when it is on disk; otherwise (`--no-session`, nothing flushed yet) a
	 * temporary copy of pi's header and entries.
	 */
	function snapshot(ctx: ExtensionContext): SessionSnapshot {
		const manager = ctx.sessionManager;
		const leaf = manager.getLeafId();
		const file = manager.getSessionFile();
		if (file && existsSync(file)) return { file, leaf, cleanup: () => {} };
		const dir = mkdtempSync(join(tmpdir(), "pi-compaction-"));
		const copy = join(dir, "session.jsonl");
		const lines = [manager.getHeader(), ...manager.getEntries()].map((e) => JSON.stringify(e));
		writeFileSync(copy, `${lines.join("\n")}\n`, { mode: 0o600 });
		return { file: copy, leaf, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
	}

	/** Flags choosing the summarizer, and the environment that carries a key. */
	async function summarizerArgs(
		ctx: ExtensionContext,
		config: EngineConfig,
	): Promise<{ args: string[]; env: Record<string, string> }> {
		const args: string[] = [];
		const env: Record<string, string> = {};
		const model = ctx.model;
		if (model?.contextWindow) args.push("--context-window", String(model.contextWindow));
		const choice = config.summarizer ?? "offline";
		if (choice === "offline") {
			args.push("--offline");
		} else if (choice === "pi") {
			if (!model) throw new Error("no model is selected in pi");
			const provider =
				model.api === "openai-completions"
					? "openai"
					: model.api === "anthropic-messages"
						? "anthropic"
						: undefined;
			if (!provider) {
				throw new Error(
					`pi's model ${model.provider}/${model.id} uses the ${model.api} API, which the engine cannot call; set "${SETTINGS_KEY}.summarizer" to "offline" or a provider`,
				);
			}
			args.push("--provider", provider, "--summary-model", model.id, "--model", model.id);
			if (model.baseUrl) args.push("--base-url", model.baseUrl);
			const auth = await ctx.modelRegistry.getApiKeyAndHeaders(model);
			if (auth.ok && auth.apiKey) {
				env[PI_KEY_VAR] = auth.apiKey;
				args.push("--api-key-env", PI_KEY_VAR);
			}
		} else {
			args.push("--provider", choice);
			if (config.summaryModel) args.push("--summary-model", config.summaryModel);
			if (config.baseUrl) args.push("--base-url", config.baseUrl);
			if (config.apiKeyEnv) args.push("--api-key-env", config.apiKeyEnv);
		}
		return { args, env };
	}

	/** Runs `compaction summarize` and parses its JSON; `"aborted"` when pi aborted it. */
	async function summarize(
		ctx: ExtensionContext,
		setup: Engine,
		session: SessionSnapshot,
		extra: string[],
		signal: AbortSignal,
	): Promise<Record<string, any> | "aborted"> {
		const { args, env } = await summarizerArgs(ctx, setup.config);
		const command = ["summarize", session.file, "--json", "--quiet", ...extra, ...args];
		const result = await runBinary(setup.binary, command, { cwd: ctx.cwd, signal, env });
		if (result.aborted) return "aborted";
		relayWarnings(ctx, result.stderr);
		if (result.code !== 0) throw new Error(failureText(result));
		return JSON.parse(result.stdout);
	}

	pi.on("session_before_compact", async (event, ctx) => {
		const reason: CompactReason = event.reason ?? "manual";
		const willRetry = event.willRetry === true;
		const current: CompactAttempt = { reason };
		attempt = current;
		const fallback = "pi's own compaction runs instead";
		const setup = await engine(ctx, fallback, (message) => {
			current.engineFailure = message;
		});
		if (!setup || setup.config.compact === false) return undefined;
		const failed = (message: string) => {
			current.engineFailure = message;
			warn(ctx, `${message}; ${fallback}`);
			return undefined;
		};
		const session = snapshot(ctx);
		if (ctx.hasUI) ctx.ui.setStatus(STATUS_KEY, statusText(reason, willRetry));
		try {
			const extra = session.leaf ? ["--leaf", session.leaf] : [];
			if (setup.info.reason) extra.push("--reason", reason);
			if (event.customInstructions) extra.push("--instructions", event.customInstructions);
			const out = await summarize(ctx, setup, session, extra, event.signal);
			if (out === "aborted" || out.cancelled) return { cancel: true };
			if (!out.compacted) return failed(`the engine finds nothing to compact (${out.reason})`);
			const compaction = out.compaction ?? {};
			return {
				compaction: {
					summary: compaction.summary,
					// null: the engine keeps nothing before the compaction (pi then names the
					// compaction itself as the first kept entry).
					firstKeptEntryId: compaction.firstKeptEntryId ?? undefined,
					tokensBefore: compaction.tokensBefore ?? out.tokensBefore,
					details: compaction.details ?? undefined,
					usage: piUsage(compaction.usage ?? out.entry?.usage ?? out.usage),
				},
			};
		} catch (error) {
			if (event.signal.aborted) return { cancel: true };
			return failed(`summarize failed: ${(error as Error).message}`);
		} finally {
			if (ctx.hasUI) ctx.ui.setStatus(STATUS_KEY, undefined);
			session.cleanup();
		}
	});

	pi.on("session_compact", async () => {
		attempt = undefined;
	});

	pi.on("session_compact_failed", async (event, ctx) => {
		const current = attempt;
		attempt = undefined;
		if (event.aborted) return;
		const reason = reasonName(event.reason);
		const piError = event.errorMessage ?? "compaction failed";
		if (event.fromExtension) {
			warn(ctx, `pi could not store the engine's compaction (${reason}): ${piError}; the session is unchanged`);
		} else if (current?.engineFailure && current.reason === event.reason) {
			warn(
				ctx,
				`${reason} failed: the engine could not compact (${current.engineFailure}), then pi's own compaction failed too (${piError}); the session is unchanged`,
			);
		}
	});

	pi.on("session_before_tree", async (event, ctx) => {
		const preparation = event.preparation;
		if (!preparation.userWantsSummary || !preparation.oldLeafId) return undefined;
		if (preparation.entriesToSummarize.length === 0) return undefined;
		const fallback = "pi's own branch summary runs instead";
		const setup = await engine(ctx, fallback);
		if (!setup || setup.config.branchSummary === false) return undefined;
		const session = snapshot(ctx);
		try {
			const extra = ["--branch-from", preparation.oldLeafId, "--branch-to", preparation.targetId];
			if (preparation.customInstructions) {
				extra.push("--instructions", preparation.customInstructions);
				if (preparation.replaceInstructions) extra.push("--replace-instructions");
			}
			const out = await summarize(ctx, setup, session, extra, event.signal);
			if (out === "aborted" || out.cancelled) return { cancel: true };
			if (!out.summarized) return undefined;
			const summary = out.summary ?? {};
			return {
				summary: {
					summary: summary.summary,
					details: summary.details ?? undefined,
					usage: piUsage(summary.usage ?? out.entry?.usage ?? out.usage),
				},
			};
		} catch (error) {
			if (event.signal.aborted) return { cancel: true };
			warn(ctx, `summarize failed: ${(error as Error).message}; ${fallback}`);
			return undefined;
		} finally {
			session.cleanup();
		}
	});

	// Prunes and pins recorded as entries pi ignores, applied to the transcript pi is about
	// to send (its projection, system messages included): `context_with_system` sees the
	// system messages in place, so inserting the pins message leaves them where pi put them.
	pi.on("context_with_system", async (event, ctx) => {
		const branch = ctx.sessionManager.getBranch() as any[];
		if (!hasEngineEntries(branch)) return undefined;
		let config: EngineConfig;
		try {
			config = loadConfig(ctx.cwd);
		} catch (error) {
			warn(ctx, `${(error as Error).message}; pi's own context is sent (prunes and pins not applied)`);
			return undefined;
		}
		if (config.enabled === false) return undefined;
		const view = engineView(branch);
		const projection = ctx.sessionManager.buildSessionProjection() as any;
		const messages = [...event.messages] as any[];
		const { pruned, pinned } = applyEngineView(messages, view, projection, branch);
		if (pruned === 0 && !pinned) return undefined;
		return { messages: messages as typeof event.messages };
	});

	// The history tools, when the binary has `recall` and `search`. Decided while pi starts
	// (the factory is awaited), so the tool set never changes under a running prompt.
	const historyBinary = await binaryWithHistory(process.cwd());
	if (historyBinary) {
		for (const tool of HISTORY_TOOLS) {
			pi.registerTool({
				name: tool.name,
				label: tool.label,
				description: tool.description,
				promptSnippet: tool.snippet,
				parameters: tool.parameters as any,
				async execute(_toolCallId, params, signal, _onUpdate, ctx) {
					const session = snapshot(ctx);
					try {
						const args = tool.args(session, params as Record<string, unknown>);
						const result = await runBinary(historyBinary, args, { cwd: ctx.cwd, signal });
						if (result.code !== 0) throw new Error(failureText(result));
						return { content: [{ type: "text", text: result.stdout }], details: {} };
					} finally {
						session.cleanup();
					}
				},
			});
		}
	}

	pi.registerCommand("compaction-stats", {
		description: "Context size, compaction trigger, and what the next compaction would keep",
		handler: async (_args, ctx) => {
			const setup = await engine(ctx, "no statistics");
			if (!setup) return;
			const session = snapshot(ctx);
			try {
				// pi's own budgets for the model, so the trigger and the cut shown are pi's.
				const model = ctx.model;
				const budgets = model ? piBudgets(pi.getSettings() as any, model) : undefined;
				const advice = model ? budgetAdvice(pi.getSettings() as any, model) : undefined;
				const args = ["plan", session.file, "--json"];
				if (session.leaf) args.push("--leaf", session.leaf);
				if (model?.contextWindow) args.push("--context-window", String(model.contextWindow));
				if (budgets) {
					args.push("--reserve", String(budgets.reserveTokens.value));
					args.push("--keep-recent", String(budgets.keepRecentTokens.value));
				}
				const result = await runBinary(setup.binary, args, { cwd: ctx.cwd });
				relayWarnings(ctx, result.stderr);
				const adviceLine = advice ? adviceText(advice, join(agentDir(), "settings.json")) : undefined;
				if (result.code !== 0) {
					if (!adviceLine) throw new Error(failureText(result));
					ctx.ui.notify(`pi cannot compact this session: ${adviceLine}`, "warning");
					return;
				}
				const text = statsText(JSON.parse(result.stdout), budgets?.reserveTokens.value);
				ctx.ui.notify(adviceLine ? `${text}\n${adviceLine}` : text, adviceLine ? "warning" : "info");
			} catch (error) {
				warn(ctx, `plan failed: ${(error as Error).message}`);
			} finally {
				session.cleanup();
			}
		},
	});
}

/**
 * The configured binary when it runs and has `recall` and `search`; `undefined` otherwise
 * (quietly: a missing binary is reported when pi first compacts).
 */
async function binaryWithHistory(cwd: string): Promise<string | undefined> {
	try {
		const config = loadConfig(cwd);
		if (config.enabled === false) return undefined;
		const binary = config.binary ?? "compaction";
		for (const command of ["recall", "search"]) {
			const probe = await runBinary(binary, [command, "--help"], { cwd });
			if (probe.code !== 0) return undefined;
		}
		return binary;
	} catch {
		return undefined;
	}
}

/**
 * Tools that let the model read what compaction and pruning took out of its context
 * (`compaction recall`, `compaction search`); plain JSON Schemas, which pi validates as is.
 */
const HISTORY_TOOLS = [
	{
		name: "compaction_recall",
		label: "Recall",
		description:
			"Return the original content of a session entry that a compaction summarized or a prune replaced with a placeholder. Give the entry id the placeholder or compaction_search shows.",
		snippet: "Read the original of an entry that compaction summarized or pruned",
		parameters: {
			type: "object",
			properties: { id: { type: "string", description: "The entry id" } },
			required: ["id"],
			additionalProperties: false,
		},
		args: (session: SessionSnapshot, params: Record<string, unknown>) => ["recall", session.file, String(params.id)],
	},
	{
		name: "compaction_search",
		label: "Search history",
		description:
			"Search (case-insensitive, literal text) the parts of this session the context no longer shows: summarized messages and pruned tool outputs. Returns entry ids for compaction_recall.",
		snippet: "Search what compaction summarized or pruned out of the context",
		parameters: {
			type: "object",
			properties: {
				query: { type: "string", description: "The text to find" },
				limit: { type: "integer", description: "At most this many hits (default 20)" },
			},
			required: ["query"],
			additionalProperties: false,
		},
		args: (session: SessionSnapshot, params: Record<string, unknown>) => {
			const args = ["search", session.file, String(params.query)];
			if (session.leaf) args.push("--leaf", session.leaf);
			if (typeof params.limit === "number") args.push("--limit", String(params.limit));
			return args;
		},
	},
];

/**
 * The `/compaction-stats` message for a `compaction plan --json` report made with pi's
 * budgets. The trigger is pi's: the context above the window less `reserveTokens`
 * (`reserve`; without it, the engine's own trigger reasons).
 */
export function statsText(plan: Record<string, any>, reserve?: number): string {
	const percent = plan.contextWindow ? Math.round((100 * plan.contextTokens) / plan.contextWindow) : 0;
	let trigger: string;
	if (reserve !== undefined && plan.contextWindow) {
		const limit = plan.contextWindow - reserve;
		trigger =
			plan.contextTokens > limit
				? `trigger: reached (${plan.contextTokens} tokens > ${limit}, the window less reserveTokens ${reserve})`
				: `trigger: not reached (${plan.contextTokens} of ${limit} tokens, the window less reserveTokens ${reserve})`;
	} else {
		trigger = plan.shouldCompact ? `trigger: reached (${(plan.triggerReasons ?? []).join("; ")})` : "trigger: not reached";
	}
	const lines = [`context: ${plan.contextTokens} tokens of ${plan.contextWindow} (${percent}%, ${plan.estimator} estimate)`, trigger];
	if (plan.compactable) {
		lines.push(
			`next compaction: summarizes ${plan.messagesToSummarize} messages` +
				(plan.isSplitTurn ? ` and ${plan.turnPrefixMessages} of the current turn` : "") +
				`, keeps from entry ${plan.firstKeptEntryId} (${plan.keptTokens} tokens), about ${plan.estimatedTokensAfter} tokens after`,
		);
	} else {
		lines.push(`next compaction: nothing to compact (${plan.reason ?? "session too small"})`);
	}
	return lines.join("\n");
}
