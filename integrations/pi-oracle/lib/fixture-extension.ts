// The session maker's extension: RPC mode has commands for prompts, compaction and bash, but
// not for the rest of what pi 1.6 writes into a session. These commands reach it through pi's
// public extension API, so every entry in the fixtures is written by pi itself.
//
//   /fx-goto ID              navigate the tree to ID, summarizing the branch left behind
//   /fx-tools a,b            set the active tools (pi appends a system message patch)
//   /fx-tools-next a,b       set them at the next turn end that ran tools (mid-run change)
//   /fx-section NAME TEXT    set a prompt section for the next runs ("-" removes it)
//   /fx-edit ID JSON         at the next turn end, propose a context_edit of entry ID
//                            (JSON is the replacement: null, or {"content": ...})
//   /fx-retry-last           at the next turn end, omit the answer and ask again (docs' example)
//   /fx-retain-none TEXT     at the next turn end, propose a compaction that keeps nothing
//   /fx-compaction ID TEXT   at the next turn end, propose a compaction keeping from ID
//   /fx-hook-compact TEXT    the next compaction's summary comes from this extension
//   /fx-note TEXT            append a custom message (in the model's context)
//   /fx-state JSON           append a custom entry (extension state, not in context)
//   /fx-label ID TEXT        label entry ID
//   /fx-name TEXT            name the session
//   /fx-model ID             switch to model ID of the mock provider
// Every command ends with a notice "<name>: ok" (or "<name>: error <message>").

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

type Draft = Record<string, unknown>;

export default function (pi: ExtensionAPI) {
	let pendingDrafts: Draft[] = [];
	let retryLast = false;
	let hookSummary: string | undefined;
	let nextTools: string[] | undefined;
	const sections: Record<string, string | null> = {};

	const command = (name: string, description: string, run: (args: string, ctx: any) => Promise<void> | void) => {
		pi.registerCommand(name, {
			description,
			handler: async (args: string, ctx: any) => {
				try {
					await run(args.trim(), ctx);
					ctx.ui.notify(`${name}: ok`, "info");
				} catch (error) {
					ctx.ui.notify(`${name}: error ${error instanceof Error ? error.message : String(error)}`, "error");
				}
			},
		});
	};
	const split = (args: string): [string, string] => {
		const space = args.indexOf(" ");
		return space < 0 ? [args, ""] : [args.slice(0, space), args.slice(space + 1)];
	};

	command("fx-goto", "navigate with a branch summary", async (args, ctx) => {
		const result = await ctx.navigateTree(args, { summarize: true });
		if (result.cancelled) throw new Error("navigation cancelled");
	});
	command("fx-tools", "set the active tools", (args) => {
		pi.setActiveTools(args.split(",").filter(Boolean));
	});
	command("fx-tools-next", "set the active tools at the next turn end after tools ran", (args) => {
		nextTools = args.split(",").filter(Boolean);
	});
	command("fx-section", "set or remove a prompt section", (args) => {
		const [name, text] = split(args);
		sections[name] = text === "-" ? null : text;
	});
	command("fx-edit", "propose a context edit at the next turn end", (args) => {
		const [targetId, json] = split(args);
		pendingDrafts.push({ type: "context_edit", targetId, replacement: JSON.parse(json) });
	});
	command("fx-retry-last", "omit the next answer and ask again", () => {
		retryLast = true;
	});
	command("fx-retain-none", "propose a compaction keeping nothing", (args) => {
		pendingDrafts.push({ type: "compaction", summary: args, firstKeptEntryId: null, details: { by: "fixture" } });
	});
	command("fx-compaction", "propose a compaction keeping from an entry", (args) => {
		const [firstKeptEntryId, summary] = split(args);
		pendingDrafts.push({ type: "compaction", summary, firstKeptEntryId });
	});
	command("fx-hook-compact", "summarize the next compaction here", (args) => {
		hookSummary = args;
	});
	command("fx-note", "append a custom message", (args) => {
		pi.sendMessage({ customType: "fx-note", content: args, display: true, details: { from: "fixture" } });
	});
	command("fx-state", "append a custom entry", (args) => {
		pi.appendEntry("fx-state", JSON.parse(args));
	});
	command("fx-label", "label an entry", (args) => {
		const [id, label] = split(args);
		pi.setLabel(id, label || undefined);
	});
	command("fx-name", "name the session", (args) => {
		pi.setSessionName(args);
	});
	command("fx-model", "switch the model", async (args, ctx) => {
		const model = ctx.modelRegistry.find("mock", args);
		if (!model) throw new Error(`no model mock/${args}`);
		if (!(await pi.setModel(model))) throw new Error(`cannot use mock/${args}`);
	});

	pi.on("before_agent_start", (event: any) => {
		for (const [name, text] of Object.entries(sections)) {
			if (text === null) delete event.systemPromptOptions.sections[name];
			else event.systemPromptOptions.sections[name] = text;
		}
	});

	pi.on("turn_end", (event: any) => {
		if (nextTools && event.toolResults.length > 0) {
			pi.setActiveTools(nextTools);
			nextTools = undefined;
		}
		const drafts = pendingDrafts;
		pendingDrafts = [];
		let extra: Draft[] = [];
		let again = false;
		if (retryLast && event.outcome === "completed" && event.toolResults.length === 0) {
			retryLast = false;
			again = true;
			extra = [
				{ type: "context_edit", targetId: event.messageEntryId, replacement: null },
				{ type: "custom_message", customType: "fx-retry", content: "Answer again, shorter.", display: false },
			];
		}
		if (drafts.length === 0 && extra.length === 0) return;
		return { entries: [...event.entries, ...drafts, ...extra], ...(again ? { continue: true } : {}) };
	});

	pi.on("session_before_compact", (event: any) => {
		if (hookSummary === undefined) return;
		const summary = hookSummary;
		hookSummary = undefined;
		const { preparation } = event;
		return {
			compaction: {
				summary,
				firstKeptEntryId: preparation.firstKeptEntryId,
				tokensBefore: preparation.tokensBefore,
				details: { summarizedMessages: preparation.messagesToSummarize.length, reason: event.reason },
			},
		};
	});
}
