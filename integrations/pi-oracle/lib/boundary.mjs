// The boundary cases of write-boundary.mjs: for every leaf of a session, keepRecentTokens at
// each exact sum of its newest projected entries' estimates, minus one, equal and plus one,
// with pi 1.6's prepareCompaction answer for each.

import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { FIXTURE_DIR, fixtureSessions } from "./expected.mjs";
import { loadSession, planFor } from "../oracle.mjs";

export { FIXTURE_DIR, fixtureSessions };
export const BOUNDARY_DIR = join(FIXTURE_DIR, "boundary");

/** Newest entries whose sums are used per leaf (the rest of the walk adds few new cases). */
const NEWEST = 6;

const PI_DIR = join(FIXTURE_DIR, "../../../../../integrations/pi-oracle/node_modules/@earendil-works/pi-coding-agent/dist");
const dist = (path) => import(pathToFileURL(join(PI_DIR, path)).href);

/** Keep values on the boundaries of one path: sums of its newest and oldest region entries. */
function boundaryKeeps(projected, estimateTokens) {
	const previous = projected.findIndex((entry) => entry.sourceEntry.type === "compaction" && entry.messages.length > 0);
	const tokens = projected
		.slice(previous + 1)
		.map((entry) => entry.messages.reduce((sum, message) => sum + estimateTokens(message), 0))
		.filter((value) => value > 0);
	const sums = new Set();
	let total = 0;
	for (let i = tokens.length - 1; i >= 0; i--) {
		total += tokens[i];
		// The newest few sums, and the last two (the region's start: "barely above keep").
		if (tokens.length - i <= NEWEST || i <= 1) sums.add(total);
	}
	const keeps = new Set();
	for (const sum of sums) for (const keep of [sum - 1, sum, sum + 1]) if (keep >= 0) keeps.add(keep);
	return [...keeps].sort((a, b) => a - b);
}

/** The boundary document of one session file: one JSON line per (leaf, keep). */
export async function boundaryDocument(file) {
	const sessionManager = await dist("core/session-manager.js");
	const compaction = await dist("core/compaction/compaction.js");
	const manager = loadSession(file);
	const lines = [];
	let plans = 0;
	for (const entry of manager.getEntries()) {
		const pathEntries = manager.getBranch(entry.id);
		const projected = sessionManager.buildSessionProjection(pathEntries).entries;
		for (const keep of boundaryKeeps(projected, compaction.estimateTokens)) {
			const plan = planFor(pathEntries, { reserveTokens: compaction.DEFAULT_COMPACTION_SETTINGS.reserveTokens, keepRecentTokens: keep });
			if (plan) plans++;
			lines.push(
				JSON.stringify({
					leaf: entry.id,
					keep,
					plan: plan && {
						firstKeptEntryId: plan.firstKeptEntryId,
						isSplitTurn: plan.isSplitTurn,
						messagesToSummarize: plan.messagesToSummarize,
						turnPrefixMessages: plan.turnPrefixMessages,
					},
				}),
			);
		}
	}
	return { text: `${lines.join("\n")}\n`, cases: lines.length, plans };
}
