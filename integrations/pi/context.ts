// The model's context under pi 1.6: pi's own projection, plus what only this engine records.
//
// pi builds each request from its session projection: the latest compaction, the context
// edits (`context_edit`: a replaced or omitted entry), the system messages carrying the prompt
// and tools. The engine's `prune` and `pin` commands may also have written `custom` entries pi
// ignores (`compaction.prune`, `compaction.pin`, `compaction.unpin`); this module applies them
// to the messages pi is about to send, and nothing else.
//
// Invariant: the result is pi's list with (a) the content of tool results a prune replaced
// swapped for the prune's placeholder and (b) one message carrying the active pins inserted.
// A message pi left out (omitted by a context edit, summarized by a compaction) never comes
// back, system messages stay where pi put them, and a prune never overrides a later context
// edit of the same entry (the latest edit wins, as in pi).

/** The `customType`s of the engine's entries that pi keeps out of its context. */
export const PRUNE_TYPE = "compaction.prune";
export const PIN_TYPE = "compaction.pin";
export const UNPIN_TYPE = "compaction.unpin";
/** The `customType` of the message that carries the active pins (the engine's name for it). */
export const PINS_MESSAGE_TYPE = "compaction.pins";

/**
 * The first line of the pins message. It must stay equal to `PINS_PREFACE` in
 * `crates/compaction-core/src/pins.rs`: the end-to-end tests compare the package's message
 * with `compaction context`.
 */
export const PINS_PREFACE =
	"The user pinned these instructions. They stay in force for the rest of the session, exactly as written, whatever the summary above says:";

/** The parts of a session entry this module reads (pi's `SessionEntry`, loosely typed). */
export interface EntryLike {
	type: string;
	id: string;
	customType?: string;
	data?: any;
	targetId?: string;
	timestamp?: string;
	message?: { role?: string; toolCallId?: string };
}

/** A message as pi's hooks hand it over (pi's `AgentMessage`, loosely typed). */
export interface MessageLike {
	role: string;
	content?: unknown;
	toolCallId?: string;
	customType?: string;
	[key: string]: unknown;
}

/** pi's projection: each context entry with the messages it contributes. */
export interface ProjectionLike {
	entries: { sourceEntry: EntryLike; messages: MessageLike[] }[];
}

/** What the engine's entries on the path ask of the context. */
export interface EngineView {
	/** Pruned tool results: entry id → placeholder text. */
	placeholders: Map<string, string>;
	/** The active pins' texts, oldest first. */
	pins: string[];
	/** Timestamp (ms) of the latest pin or unpin entry, for the pins message. */
	pinsTimestamp: number;
}

/** Whether the path holds any entry only the engine reads. */
export function hasEngineEntries(branch: EntryLike[]): boolean {
	return branch.some(
		(entry) => entry.type === "custom" && [PRUNE_TYPE, PIN_TYPE, UNPIN_TYPE].includes(entry.customType ?? ""),
	);
}

/**
 * The prunes and pins in force at the end of `branch` (root → leaf), read as the engine
 * reads them: a prune entry (`data.entries[].{id, placeholder}`) unless a later revert on
 * the path (`data.revert`) names it; a later prune of the same entry wins; a `context_edit`
 * of an entry after a prune of it cancels that prune. Pins: `compaction.pin` entries
 * (`data.text`) not named by a later `compaction.unpin` (`data.pinIds`). Malformed entries
 * are ignored, as the engine ignores them.
 */
export function engineView(branch: EntryLike[]): EngineView {
	const prunes: { id: string; position: number; items: { id: string; placeholder: string }[] }[] = [];
	const reverted = new Set<string>();
	const lastEdit = new Map<string, number>();
	let pins: { id: string; text: string }[] = [];
	let pinsTimestamp = 0;
	branch.forEach((entry, position) => {
		if (entry.type === "context_edit" && typeof entry.targetId === "string") {
			lastEdit.set(entry.targetId, position);
			return;
		}
		if (entry.type !== "custom") return;
		const data = entry.data;
		if (entry.customType === PRUNE_TYPE && data && typeof data === "object") {
			if (typeof data.revert === "string") {
				if (prunes.some((prune) => prune.id === data.revert)) reverted.add(data.revert);
			} else if (Array.isArray(data.entries)) {
				const items = data.entries.filter(
					(item: any) => typeof item?.id === "string" && typeof item?.placeholder === "string",
				);
				prunes.push({ id: entry.id, position, items });
			}
		} else if (entry.customType === PIN_TYPE && typeof data?.text === "string") {
			pins.push({ id: entry.id, text: data.text });
			pinsTimestamp = timestampOf(entry);
		} else if (entry.customType === UNPIN_TYPE && Array.isArray(data?.pinIds)) {
			pins = pins.filter((pin) => !data.pinIds.includes(pin.id));
			pinsTimestamp = timestampOf(entry);
		}
	});
	const placeholders = new Map<string, string>();
	for (const prune of prunes) {
		if (reverted.has(prune.id)) continue;
		for (const item of prune.items) {
			if ((lastEdit.get(item.id) ?? -1) > prune.position) continue;
			placeholders.set(item.id, item.placeholder);
		}
	}
	return { placeholders, pins: pins.map((pin) => pin.text), pinsTimestamp };
}

function timestampOf(entry: EntryLike): number {
	const time = entry.timestamp ? Date.parse(entry.timestamp) : Number.NaN;
	return Number.isFinite(time) ? time : Date.now();
}

/** The text of the pins message: the preface, then each pin verbatim in its own element. */
export function pinsMessageText(pins: string[]): string {
	let text = PINS_PREFACE;
	for (const pin of pins) {
		text += `\n\n<pinned-instruction>\n${pin}${pin.endsWith("\n") ? "" : "\n"}</pinned-instruction>`;
	}
	return text;
}

/**
 * The source entry id of each message in `messages`, when `messages` is exactly pi's
 * projection (same length, same roles in the same order); `undefined` otherwise (another
 * extension changed the list first).
 */
export function sourceIds(messages: MessageLike[], projection: ProjectionLike): (string | undefined)[] | undefined {
	const sources = projection.entries.flatMap((entry) =>
		entry.messages.map((message) => ({ id: entry.sourceEntry.id, role: message.role })),
	);
	if (sources.length !== messages.length) return undefined;
	if (sources.some((source, index) => source.role !== messages[index].role)) return undefined;
	return sources.map((source) => source.id);
}

/**
 * Applies `view` to `messages` (pi's request transcript, system messages included) in
 * place and returns how many prunes were applied and whether the pins were inserted.
 * `branch` resolves a pruned entry to its tool call id when the list no longer lines up
 * with the projection; a tool result is then replaced only when its call id is unique.
 */
export function applyEngineView(
	messages: MessageLike[],
	view: EngineView,
	projection: ProjectionLike,
	branch: EntryLike[],
): { pruned: number; pinned: boolean } {
	let pruned = 0;
	if (view.placeholders.size > 0) {
		const ids = sourceIds(messages, projection);
		const targets: [number, string][] = [];
		if (ids) {
			ids.forEach((id, index) => {
				const placeholder = id === undefined ? undefined : view.placeholders.get(id);
				if (placeholder !== undefined) targets.push([index, placeholder]);
			});
		} else {
			const byId = new Map(branch.map((entry) => [entry.id, entry]));
			for (const [id, placeholder] of view.placeholders) {
				const callId = byId.get(id)?.message?.toolCallId;
				if (!callId) continue;
				const matches = messages.flatMap((m, index) =>
					m.role === "toolResult" && m.toolCallId === callId ? [index] : [],
				);
				const onBranch = branch.filter(
					(e) => e.message?.role === "toolResult" && e.message.toolCallId === callId,
				);
				if (matches.length === 1 && onBranch.length === 1) targets.push([matches[0], placeholder]);
			}
		}
		for (const [index, placeholder] of targets) {
			if (messages[index].role !== "toolResult") continue;
			messages[index] = { ...messages[index], content: [{ type: "text", text: placeholder }] };
			pruned++;
		}
	}
	let pinned = false;
	const alreadyThere = messages.some((m) => m.customType === PINS_MESSAGE_TYPE);
	if (view.pins.length > 0 && !alreadyThere) {
		// After the compaction summary when the context starts with one, else before the
		// first conversation message (after pi's leading system message).
		let at = messages.findIndex((m) => m.role !== "system");
		if (at < 0) at = messages.length;
		else if (messages[at].role === "compactionSummary") at++;
		messages.splice(at, 0, {
			role: "custom",
			customType: PINS_MESSAGE_TYPE,
			content: pinsMessageText(view.pins),
			display: false,
			timestamp: view.pinsTimestamp,
		});
		pinned = true;
	}
	return { pruned, pinned };
}
