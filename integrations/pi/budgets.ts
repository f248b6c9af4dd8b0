// pi's compaction budgets for the model in use, and what a small window needs.
//
// pi 1.6 resolves `reserveTokens` and `keepRecentTokens` per model: the model's
// `compaction.modelOverrides["provider/modelId"]` entry, else the ordinary setting, else its
// defaults (16384 and 20000), sized for windows of 128k tokens and more. The engine caps a
// budget left at its default at a quarter of the window and refuses one that is not below
// the window. pi's extension API cannot change pi's own budgets, and pi decides before any
// extension hook runs whether there is anything to compact; so for a model whose window the
// budgets do not fit, the package names the `modelOverrides` entry that gives pi the
// engine's budgets (`budgetAdvice`).

/** pi 1.6's built-in budgets. */
export const PI_DEFAULT_BUDGETS = { reserveTokens: 16384, keepRecentTokens: 20000 } as const;

export type BudgetKey = keyof typeof PI_DEFAULT_BUDGETS;

const KEYS: BudgetKey[] = ["reserveTokens", "keepRecentTokens"];

/** One budget as pi resolves it, and where its value came from. */
export interface Budget {
	value: number;
	from: "pi's default" | "compaction setting" | "model override";
}

export interface ModelRef {
	provider: string;
	id: string;
	contextWindow?: number;
}

/** pi's budgets for `model`, resolved as pi 1.6 does (override, then setting, then default). */
export function piBudgets(settings: Record<string, any> | undefined, model: ModelRef): Record<BudgetKey, Budget> {
	const compaction = settings?.compaction ?? {};
	const override = compaction.modelOverrides?.[`${model.provider}/${model.id}`];
	const out = {} as Record<BudgetKey, Budget>;
	for (const key of KEYS) {
		const fromOverride = override && typeof override === "object" ? override[key] : undefined;
		if (typeof fromOverride === "number") out[key] = { value: fromOverride, from: "model override" };
		else if (typeof compaction[key] === "number") out[key] = { value: compaction[key], from: "compaction setting" };
		else out[key] = { value: PI_DEFAULT_BUDGETS[key], from: "pi's default" };
	}
	return out;
}

/** What a model's window needs that pi's budgets do not give. */
export interface BudgetAdvice {
	/** `provider/modelId`. */
	model: string;
	window: number;
	budgets: Record<BudgetKey, Budget>;
	/** The budgets to set in the model's `modelOverrides` entry (the engine's values). */
	entry: Partial<Record<BudgetKey, number>>;
}

/**
 * The `modelOverrides` entry `model` needs, or `undefined` when pi's budgets fit its window
 * (or the window is unknown). A budget does not fit when it is pi's default and above a
 * quarter of the window (the engine would cap it there), or when it is not below the window;
 * either way the entry gives it a quarter of the window, as the engine does.
 */
export function budgetAdvice(settings: Record<string, any> | undefined, model: ModelRef): BudgetAdvice | undefined {
	const window = model.contextWindow;
	if (!window || window <= 0) return undefined;
	const quarter = Math.max(1, Math.floor(window / 4));
	const budgets = piBudgets(settings, model);
	const entry: Partial<Record<BudgetKey, number>> = {};
	for (const key of KEYS) {
		const budget = budgets[key];
		if ((budget.from === "pi's default" && budget.value > quarter) || budget.value >= window) entry[key] = quarter;
	}
	if (Object.keys(entry).length === 0) return undefined;
	return { model: `${model.provider}/${model.id}`, window, budgets, entry };
}

/** The advice in words, ending with the JSON to merge into `settingsFile`. */
export function adviceText(advice: BudgetAdvice, settingsFile: string): string {
	const current = KEYS.map((key) => `${key} ${advice.budgets[key].value} (${advice.budgets[key].from})`).join(", ");
	const patch = { compaction: { modelOverrides: { [advice.model]: advice.entry } } };
	return (
		`pi's compaction budgets (${current}) do not fit the ${advice.window}-token window of ${advice.model} ` +
		`(the engine caps each at a quarter of the window; pi keeps its own, so it compacts late or finds nothing to compact). ` +
		`Give pi the engine's budgets for this model; merge into ${settingsFile}: ${JSON.stringify(patch)}`
	);
}
