// What pi 1.6.0 itself computes from a session file, at every entry used as leaf: the model
// context (role and source entry of each projected message), its token estimate, and the
// compaction plan. Everything is computed by pi's own exported functions, loaded from the
// pinned package's dist/; this file only walks the leaves and maps pi's plan messages back to
// the entries they came from.
//
//   node oracle.mjs SESSION.jsonl [--keep-recent N] [--reserve N] [--window N]
//
// Prints one JSON document (format in README.md). Needs Node >= 22.19, like pi 1.6.

import { isDeepStrictEqual } from "node:util";
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const PI_DIR = join(HERE, "node_modules/@earendil-works/pi-coding-agent");
// pi's package exports only a subset at its root; prepareCompaction and the projected token
// estimate live in its dist modules, imported here by file (one module instance each).
const dist = (path) => import(pathToFileURL(join(PI_DIR, "dist", path)).href);
const sessionManager = await dist("core/session-manager.js");
const compaction = await dist("core/compaction/compaction.js");
const compactionUtils = await dist("core/compaction/utils.js");

/** The version of the pi package the oracle runs. */
export const PI_VERSION = JSON.parse(readFileSync(join(PI_DIR, "package.json"), "utf8")).version;

/** pi's defaults (DEFAULT_COMPACTION_SETTINGS): keep 20000 recent tokens, reserve 16384. */
export const DEFAULTS = {
	keepRecentTokens: compaction.DEFAULT_COMPACTION_SETTINGS.keepRecentTokens,
	reserveTokens: compaction.DEFAULT_COMPACTION_SETTINGS.reserveTokens,
};

/**
 * Loads `file` the way pi 1.6 opens a session (loadEntriesFromFile, then the in-memory
 * migration a SessionManager applies) and returns the manager. Nothing is written back: the
 * manager is in-memory. (pi's loader itself appends a missing final newline to the file; the
 * files pi writes always end with one.)
 */
export function loadSession(file) {
	if (!existsSync(file)) throw new Error(`${file}: no such file`);
	const fileEntries = sessionManager.loadEntriesFromFile(resolve(file));
	if (fileEntries.length === 0) {
		throw new Error(`${file}: not a pi session (pi 1.6 loads nothing from it: line 1 is not a session header)`);
	}
	const header = fileEntries[0];
	return sessionManager.SessionManager.inMemory(header.cwd, undefined, fileEntries);
}

/**
 * pi's compaction preparation for `pathEntries` (as prepareCompaction returns it) with its
 * messages mapped back to source entry ids, or null when pi has nothing to compact.
 *
 * prepareCompaction builds buildSessionProjection(pathEntries) and slices its projected
 * entries: messages to summarize come from [boundaryStart, historyEnd), the turn prefix from
 * [turnStart, firstKept), where boundaryStart follows the newest compaction with a projected
 * contribution and historyEnd is the turn start of a split turn, else the first kept entry.
 * Both slices drop compaction entries and system messages. The oracle rebuilds the same
 * projection (same input, same function), lists the eligible messages of [boundaryStart,
 * firstKept) with their entries, and takes the summarized ones from its start and the prefix
 * ones from its end. Every mapped message is checked deep-equal to the one pi returned, and the
 * two counts must add up to the whole list, so a mismatch is an error, never a guess.
 */
export function planFor(pathEntries, settings) {
	const plan = compaction.prepareCompaction(pathEntries, { enabled: true, ...settings });
	if (!plan) return null;
	const projection = sessionManager.buildSessionProjection(pathEntries);
	const projected = projection.entries;
	const previous = projected.findIndex((entry) => entry.sourceEntry.type === "compaction" && entry.messages.length > 0);
	const boundaryStart = previous + 1;
	const firstKeptIndex = projected.findIndex((entry) => entry.sourceEntry.id === plan.firstKeptEntryId);
	if (firstKeptIndex < boundaryStart) {
		throw new Error(`first kept entry ${plan.firstKeptEntryId} is not after the previous compaction in the projection`);
	}
	const eligible = [];
	for (let i = boundaryStart; i < firstKeptIndex; i++) {
		const entry = projected[i];
		if (entry.sourceEntry.type === "compaction") continue;
		for (const message of entry.messages) {
			if (message.role !== "system") eligible.push({ message, entryId: entry.sourceEntry.id });
		}
	}
	const summarized = plan.messagesToSummarize.length;
	const prefix = plan.turnPrefixMessages.length;
	if (summarized + prefix !== eligible.length) {
		throw new Error(
			`plan has ${summarized} + ${prefix} messages, the projection ${eligible.length} before ${plan.firstKeptEntryId}`,
		);
	}
	const mapped = (messages, slice) =>
		messages.map((message, i) => {
			if (!isDeepStrictEqual(message, slice[i].message)) {
				throw new Error(`plan message ${i} (${message.role}) differs from projected message of entry ${slice[i].entryId}`);
			}
			return slice[i].entryId;
		});
	const { readFiles, modifiedFiles } = compactionUtils.computeFileLists(plan.fileOps);
	return {
		firstKeptEntryId: plan.firstKeptEntryId,
		isSplitTurn: plan.isSplitTurn,
		messagesToSummarize: mapped(plan.messagesToSummarize, eligible.slice(0, summarized)),
		turnPrefixMessages: mapped(plan.turnPrefixMessages, eligible.slice(summarized)),
		tokensBefore: plan.tokensBefore,
		readFiles,
		modifiedFiles,
		previousSummary: plan.previousSummary !== undefined,
	};
}

/** The oracle's answer for one leaf: context, tokens and plan for the path root→leaf. */
export function leafResult(manager, leafId, settings) {
	const pathEntries = manager.getBranch(leafId);
	const projection = sessionManager.buildSessionProjection(pathEntries);
	const context = projection.entries.flatMap((entry) =>
		entry.messages.map((message) => ({ role: message.role, entryId: entry.sourceEntry.id })),
	);
	const contextTokens = compaction.estimateProjectedContextTokens(projection, pathEntries).tokens;
	const result = {
		leaf: leafId,
		context,
		contextTokens,
		rawContextTokens: compaction.estimateContextTokens(projection.messages).tokens,
	};
	if (settings.contextWindow !== null) {
		result.shouldCompact = compaction.shouldCompact(contextTokens, settings.contextWindow, {
			enabled: true,
			reserveTokens: settings.reserveTokens,
			keepRecentTokens: settings.keepRecentTokens,
		});
	}
	result.plan = planFor(pathEntries, { reserveTokens: settings.reserveTokens, keepRecentTokens: settings.keepRecentTokens });
	return result;
}

/** The oracle's document for a session file: every entry, in file order, used as leaf. */
export function runOracle(file, options = {}) {
	const settings = {
		keepRecentTokens: options.keepRecentTokens ?? DEFAULTS.keepRecentTokens,
		reserveTokens: options.reserveTokens ?? DEFAULTS.reserveTokens,
		contextWindow: options.contextWindow ?? null,
	};
	const manager = loadSession(file);
	return {
		pi: PI_VERSION,
		session: basename(file),
		settings,
		leaves: manager.getEntries().map((entry) => leafResult(manager, entry.id, settings)),
	};
}

/**
 * The document as text: keys in a fixed order, one line per leaf (so a change shows as the
 * leaves it touches), a final newline.
 */
export function formatDocument(doc) {
	const head = `{\n"pi": ${JSON.stringify(doc.pi)},\n"session": ${JSON.stringify(doc.session)},\n"settings": ${JSON.stringify(doc.settings)},\n"leaves": [\n`;
	return `${head}${doc.leaves.map((leaf) => JSON.stringify(leaf)).join(",\n")}\n]\n}\n`;
}

function parseArgs(argv) {
	const options = {};
	let file;
	const flags = { "--keep-recent": "keepRecentTokens", "--reserve": "reserveTokens", "--window": "contextWindow" };
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg in flags) {
			const value = Number(argv[++i]);
			if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${arg} needs a non-negative integer, got ${argv[i]}`);
			options[flags[arg]] = value;
		} else if (arg.startsWith("-")) {
			throw new Error(`unknown option ${arg}`);
		} else if (file === undefined) {
			file = arg;
		} else {
			throw new Error(`one session file only (got ${file} and ${arg})`);
		}
	}
	if (file === undefined) throw new Error("usage: oracle.mjs SESSION.jsonl [--keep-recent N] [--reserve N] [--window N]");
	return { file, options };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	try {
		const { file, options } = parseArgs(process.argv.slice(2));
		process.stdout.write(formatDocument(runOracle(file, options)));
	} catch (error) {
		console.error(`oracle: ${error instanceof Error ? error.message : error}`);
		process.exit(1);
	}
}
