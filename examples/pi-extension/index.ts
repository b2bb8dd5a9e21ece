/**
 * toolgate bridge for pi: before every tool call (and every `/skill:` input)
 * pi asks the toolgate permission plugin "may this run?" over JSON-RPC 2.0
 * (newline-framed, see toolgate's docs/protocol.md) and obeys the answer.
 *
 * The bridge is deliberately thin: toolgate reads the policy files, decides,
 * prompts through us, remembers session approvals and writes the audit log.
 * The bridge only moves messages and fails closed: whenever it cannot get a
 * confident "allow" from toolgate (toolgate missing, crashed, too slow, a
 * JSON-RPC error, a malformed answer, an exception here), the tool call is
 * blocked and a `/skill:` input is swallowed.
 *
 * Environment:
 *   TOOLGATE_BIN         the toolgate binary (default: `toolgate` on PATH)
 *   TOOLGATE_TIMEOUT_MS  how long to wait for an answer while no prompt is
 *                        open (default 10000)
 *   TOOLGATE_DEBUG_LOG   a file to append the bridge's debug log to (JSON
 *                        lines: process lifecycle, toolgate's stderr,
 *                        decision notifications)
 *
 * No runtime dependencies: the imports from pi are types only.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import {
	Connection,
	confinedCommand,
	type DebugLog,
	debugLogger,
	errorText,
	isObject,
	type Options,
	type PromptAnswer,
	readOptions,
	Unavailable,
	unavailableReason,
} from "../toolgate-client/connection.ts";

const PROTOCOL_VERSION = 1;
/** toolgate is restarted this many times per session after it dies. */
const MAX_RESTARTS = 1;

interface InitializeParams {
	protocolVersion: number;
	cwd: string;
	hasUI: boolean;
	agentName?: string;
	sessionId?: string;
	skills: Array<{ name: string; path: string }>;
	infrastructureDirs?: string[];
	host: { name: string; version?: string };
	/** This bridge runs a bash call's confine.command. */
	confines: boolean;
}

/** Where pi itself is installed (read-only infrastructure for toolgate) and its version. */
function findPiPackage(): { root: string; version?: string } | undefined {
	try {
		let dir = path.dirname(fs.realpathSync(process.argv[1] ?? ""));
		for (let i = 0; i < 6; i++) {
			const manifest = path.join(dir, "package.json");
			if (fs.existsSync(manifest)) {
				const pkg = JSON.parse(fs.readFileSync(manifest, "utf8"));
				if (typeof pkg.name === "string" && pkg.name.endsWith("/pi-coding-agent")) {
					return { root: dir, version: typeof pkg.version === "string" ? pkg.version : undefined };
				}
			}
			const parent = path.dirname(dir);
			if (parent === dir) break;
			dir = parent;
		}
	} catch {
		// unknown install: toolgate simply gets no infrastructure directory
	}
	return undefined;
}

/**
 * The active agent, as pi-permission-system finds it: the latest
 * `active_agent` session entry, else an `<active_agent name="…">` tag in the
 * system prompt.
 */
function activeAgent(ctx: ExtensionContext): string | undefined {
	const entries = ctx.sessionManager.getBranch() as unknown[];
	for (let i = entries.length - 1; i >= 0; i--) {
		const entry = entries[i];
		if (isObject(entry) && entry.type === "custom" && entry.customType === "active_agent") {
			const name = isObject(entry.data) ? entry.data.name : undefined;
			return typeof name === "string" && name.trim() ? name.trim() : undefined;
		}
	}
	let prompt = "";
	try {
		prompt = ctx.getSystemPrompt();
	} catch {
		return undefined;
	}
	const tag = /<active_agent\s+name\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(prompt);
	const name = tag ? (tag[1] ?? tag[2] ?? "").trim() : "";
	return name || undefined;
}

function skillsFromCommands(pi: ExtensionAPI): Array<{ name: string; path: string }> {
	return pi
		.getCommands()
		.filter((c) => c.source === "skill" && c.sourceInfo?.path)
		.map((c) => ({ name: c.name.replace(/^skill:/, ""), path: path.resolve(c.sourceInfo.path) }));
}

const DENY_REASON_HINT = "Share why this request was denied (optional).";

/** Asks the person through pi's UI; the option ids are toolgate's. */
async function askPerson(ctx: ExtensionContext | undefined, params: unknown, signal: AbortSignal): Promise<PromptAnswer> {
	if (!ctx?.hasUI) throw new Error("pi has no interactive UI in this mode");
	if (!isObject(params) || !Array.isArray(params.options)) throw new Error("prompt without options");
	const options = params.options.filter(
		(o): o is { id: string; label: string } => isObject(o) && typeof o.id === "string" && typeof o.label === "string",
	);
	if (options.length === 0) throw new Error("prompt without options");
	const timeoutMs = typeof params.timeoutMs === "number" && params.timeoutMs > 0 ? params.timeoutMs : undefined;
	const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
	const title = typeof params.title === "string" && params.title ? params.title : "Permission required";
	const message = typeof params.message === "string" ? params.message : "";
	const signals = ctx.signal ? AbortSignal.any([signal, ctx.signal]) : signal;
	const remaining = () => (deadline === undefined ? undefined : Math.max(1, deadline - Date.now()));
	const unanswered = () => {
		if (signals.aborted) throw new Error("the prompt was cancelled");
		if (deadline !== undefined && Date.now() >= deadline) throw new Error(`nobody answered within ${timeoutMs} ms`);
	};

	const label = await ctx.ui.select(message ? `${title}\n${message}` : title, options.map((o) => o.label), {
		timeout: timeoutMs,
		signal: signals,
	});
	const chosen = options.find((o) => o.label === label);
	if (!chosen) {
		unanswered();
		return { choice: "deny" }; // dismissed
	}
	if (chosen.id !== "deny_with_reason") return { choice: chosen.id };
	const reason = await ctx.ui.input(`${title}\n${DENY_REASON_HINT}`, "Reason shown back to the agent", {
		timeout: remaining(),
		signal: signals,
	});
	if (reason === undefined) unanswered();
	const text = reason?.trim();
	return text ? { choice: "deny_with_reason", reason: text } : { choice: "deny" };
}

/** The session's toolgate: spawning, one restart, initialize, the calls. */
class Toolgate {
	private conn: Connection | undefined;
	private restarts = 0;
	private stopped = false;
	private init: InitializeParams | undefined;
	/** The context of the latest event: prompts are shown through its UI. */
	ctx: ExtensionContext | undefined;

	constructor(
		private readonly opts: Options,
		private readonly debug: DebugLog,
	) {}

	/** Starts toolgate for a session and waits (bounded) for initialize. */
	async start(ctx: ExtensionContext, init: InitializeParams): Promise<void> {
		this.ctx = ctx;
		this.init = init;
		this.stopped = false;
		this.spawn();
		await this.conn?.ready.catch(() => {});
	}

	/** Re-sends initialize when what it carries changed (skills, agent). */
	async update(init: InitializeParams): Promise<void> {
		if (JSON.stringify(init) === JSON.stringify(this.init)) return;
		this.init = init;
		const conn = this.conn;
		if (!conn || conn.dead) return;
		this.debug("initialize", { params: init });
		const again = conn.ready.then(() => conn.request("initialize", init)).then((r) => this.initialized(r));
		conn.ready = again;
		await again.catch((err) => this.debug("initialize_failed", { error: errorText(err) }));
	}

	/** Sends one request; throws Unavailable when toolgate cannot answer. */
	async call(method: string, params: unknown): Promise<unknown> {
		const conn = this.conn;
		if (!conn) throw new Unavailable("toolgate was not started");
		await conn.ready;
		return conn.request(method, params);
	}

	async stop(): Promise<void> {
		this.stopped = true;
		const conn = this.conn;
		this.conn = undefined;
		await conn?.close();
	}

	private spawn(): void {
		const conn = new Connection(this.opts, {
			prompt: (params, signal) => askPerson(this.ctx, params, signal),
			died: (c, why) => this.died(c, why),
			debug: this.debug,
		});
		this.conn = conn;
		const init = this.init;
		this.debug("initialize", { params: init });
		conn.ready = conn.request("initialize", init).then((r) => this.initialized(r));
		conn.ready.catch((err) => {
			this.debug("initialize_failed", { error: errorText(err) });
			if (!conn.dead) this.notify(`toolgate failed to start: ${errorText(err)}. Every tool call will be blocked.`, "error");
		});
	}

	private initialized(result: unknown): unknown {
		if (!isObject(result)) throw new Unavailable("malformed answer to initialize");
		const policy = isObject(result.policy) ? result.policy : {};
		const warnings = Array.isArray(policy.warnings) ? policy.warnings : [];
		for (const w of warnings) {
			if (!isObject(w)) continue;
			const where = typeof w.path === "string" ? `${w.path}${w.line ? `:${w.line}` : ""}${w.column ? `:${w.column}` : ""}: ` : "";
			this.notify(`toolgate: ${where}${String(w.message ?? "")}`, "warning");
		}
		this.debug("initialized", { result });
		return result;
	}

	private died(conn: Connection, why: string): void {
		this.debug("died", { pid: conn.child.pid, why });
		if (conn !== this.conn || this.stopped) return;
		if (this.restarts < MAX_RESTARTS) {
			this.restarts++;
			this.debug("restart", { why });
			this.notify(`toolgate stopped (${why}); restarting it. Session approvals are forgotten.`, "warning");
			this.spawn();
			return;
		}
		this.notify(`toolgate is unavailable (${why}). Every tool call will be blocked until pi is restarted.`, "error");
	}

	private notify(message: string, level: "info" | "warning" | "error"): void {
		try {
			if (this.ctx?.hasUI) this.ctx.ui.notify(message, level);
		} catch {
			// the UI may be gone at shutdown
		}
	}
}

export default function toolgateBridge(pi: ExtensionAPI): void {
	const opts = readOptions(process.env);
	const debug = debugLogger(opts.debugLogPath);
	const gate = new Toolgate(opts, debug);
	const piPackage = findPiPackage();
	let skills: Array<{ name: string; path: string }> = [];

	const initParams = (ctx: ExtensionContext): InitializeParams => {
		const params: InitializeParams = {
			protocolVersion: PROTOCOL_VERSION,
			cwd: path.resolve(ctx.cwd),
			hasUI: ctx.hasUI,
			skills,
			host: { name: "pi", version: piPackage?.version },
			confines: true,
		};
		const agent = safe(() => activeAgent(ctx));
		if (agent) params.agentName = agent;
		const sessionId = safe(() => ctx.sessionManager.getSessionId());
		if (sessionId) params.sessionId = sessionId;
		if (piPackage) params.infrastructureDirs = [piPackage.root];
		return params;
	};

	pi.on("session_start", async (_event, ctx) => {
		skills = safe(() => skillsFromCommands(pi)) ?? [];
		await gate.start(ctx, initParams(ctx));
	});

	pi.on("before_agent_start", async (event, ctx) => {
		gate.ctx = ctx;
		const loaded = event.systemPromptOptions?.skills;
		if (Array.isArray(loaded)) skills = loaded.map((s) => ({ name: s.name, path: path.resolve(s.filePath) }));
		await gate.update(initParams(ctx));
	});

	pi.on("tool_call", async (event, ctx) => {
		try {
			gate.ctx = ctx;
			const params: Record<string, unknown> = {
				toolCallId: event.toolCallId,
				toolName: event.toolName,
				input: event.input,
				hasUI: ctx.hasUI,
			};
			const agent = safe(() => activeAgent(ctx));
			if (agent) params.agentName = agent;
			const result = await gate.call("tool_call", params);
			if (isObject(result) && result.action === "allow") {
				// Run confined: pi's tool_call input is mutable in place, and
				// what pi shows the person was drawn from the model's text.
				const confined = confinedCommand(result);
				if (confined !== undefined) {
					if (event.toolName !== "bash" || !isObject(event.input)) throw new Unavailable("confine on a call that is not bash");
					(event.input as Record<string, unknown>).command = confined;
				}
				return undefined;
			}
			if (isObject(result) && result.action === "block") {
				const reason = typeof result.reason === "string" && result.reason.trim() ? result.reason : "toolgate blocked this tool call.";
				return { block: true, reason };
			}
			throw new Unavailable("malformed answer to tool_call");
		} catch (err) {
			debug("tool_call_failed", { toolCallId: event.toolCallId, error: errorText(err) });
			return { block: true, reason: unavailableReason(err, "this tool call") };
		}
	});

	pi.on("input", async (event, ctx) => {
		if (!event.text.trimStart().startsWith("/skill:")) return { action: "continue" as const };
		let reason: string;
		try {
			gate.ctx = ctx;
			const params: Record<string, unknown> = { text: event.text, source: event.source };
			const agent = safe(() => activeAgent(ctx));
			if (agent) params.agentName = agent;
			const result = await gate.call("input", params);
			if (isObject(result) && result.action === "continue") return { action: "continue" as const };
			if (!isObject(result) || result.action !== "block") throw new Unavailable("malformed answer to input");
			reason = typeof result.reason === "string" && result.reason.trim() ? result.reason : "toolgate blocked this skill.";
		} catch (err) {
			debug("input_failed", { error: errorText(err) });
			reason = unavailableReason(err, "this skill");
		}
		try {
			ctx.ui.notify(reason, "warning");
		} catch {
			// the input is swallowed all the same
		}
		return { action: "handled" as const };
	});

	pi.on("session_shutdown", async () => {
		await gate.stop();
	});
}

function safe<T>(f: () => T): T | undefined {
	try {
		return f();
	} catch {
		return undefined;
	}
}
