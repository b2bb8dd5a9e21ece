/**
 * toolgate bridge for pi: before every tool call (and every `/skill:` input)
 * pi asks the toolgate permission plugin "may this run?" over JSON-RPC 2.0
 * (newline-framed, see toolgate's PROTOCOL.md) and obeys the answer.
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
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";

const PROTOCOL_VERSION = 1;
const DEFAULT_TIMEOUT_MS = 10_000;
/** toolgate is restarted this many times per session after it dies. */
const MAX_RESTARTS = 1;
/** After `shutdown` and end of input, how long toolgate may take to exit before it is killed. */
const SHUTDOWN_GRACE_MS = 1_000;
/** After toolgate's process exits, how long to wait for its stdout to close. */
const EXIT_DRAIN_MS = 200;
/** A line longer than this is a broken toolgate, not a message. */
const MAX_LINE_CHARS = 64 * 1024 * 1024;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface Options {
	bin: string;
	timeoutMs: number;
	debugLogPath?: string;
}

function readOptions(env: NodeJS.ProcessEnv): Options {
	const timeout = Number.parseInt(env.TOOLGATE_TIMEOUT_MS ?? "", 10);
	return {
		bin: env.TOOLGATE_BIN?.trim() || "toolgate",
		timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_TIMEOUT_MS,
		debugLogPath: env.TOOLGATE_DEBUG_LOG?.trim() || undefined,
	};
}

/** Why toolgate could not give an answer. Every one of these blocks. */
class Unavailable extends Error {}

function isObject(v: unknown): v is Record<string, unknown> {
	return typeof v === "object" && v !== null && !Array.isArray(v);
}

function errorText(err: unknown): string {
	return err instanceof Error ? err.message : String(err);
}

function unavailableReason(err: unknown, what: string): string {
	return `toolgate is unavailable (${errorText(err)}), so ${what} is blocked (fail-closed).`;
}

type DebugLog = (event: string, fields?: Record<string, unknown>) => void;

function debugLogger(file: string | undefined): DebugLog {
	if (!file) return () => {};
	return (event, fields) => {
		try {
			fs.appendFileSync(file, `${JSON.stringify({ time: new Date().toISOString(), event, ...fields })}\n`);
		} catch {
			// A debug log must never change a decision.
		}
	};
}

interface PromptAnswer {
	choice: string;
	reason?: string;
}

interface ConnectionEvents {
	/** Serve a `prompt` request; `signal` aborts when toolgate goes away. */
	prompt(params: unknown, signal: AbortSignal): Promise<PromptAnswer>;
	/** The process is gone (or never started); `why` says how. */
	died(conn: Connection, why: string): void;
	debug: DebugLog;
}

interface Pending {
	method: string;
	resolve(result: unknown): void;
	reject(err: Error): void;
	timer?: NodeJS.Timeout;
}

/**
 * One running toolgate process: the framing, request/response matching, the
 * time bound, and serving toolgate's own requests.
 */
class Connection {
	readonly child: ChildProcessWithoutNullStreams;
	/** Resolves with initialize's result; rejects if initialize failed. */
	ready: Promise<unknown> = Promise.resolve(undefined);
	private nextId = 1;
	private readonly pending = new Map<number, Pending>();
	private readonly promptAborts = new Set<AbortController>();
	private openPrompts = 0;
	private buffer = "";
	private deadReason: string | undefined;
	private closed = false;
	private readonly closedWaiters: Array<() => void> = [];

	constructor(
		private readonly opts: Options,
		private readonly events: ConnectionEvents,
	) {
		// stderr is piped into the debug log, never inherited: toolgate's
		// diagnostics must not be written over pi's terminal or its JSON output.
		this.child = spawn(opts.bin, [], { stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
		const child = this.child;
		events.debug("spawn", { bin: opts.bin, pid: child.pid });
		// An idle toolgate must not keep pi running (pi's print and json modes
		// exit when the event loop is empty), a busy one must: the process
		// handle is referenced only while a request or a prompt is open.
		child.unref();
		for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as { unref?: () => void }).unref?.();
		// Death is noticed once both the process and its stdout are gone
		// ("close"): answers already written are still read. Either alone
		// counts too after a short wait, so that a stdout held open by some
		// other process, or a live process that closed its stdout, cannot
		// keep calls waiting.
		let exited: string | undefined;
		const gone = () => (exited ? `toolgate ${exited}` : "toolgate closed its output");
		child.on("error", (err) => this.die(`cannot run ${opts.bin}: ${err.message}`));
		child.on("exit", (code, signal) => {
			exited = signal ? `killed by ${signal}` : `exited with code ${code}`;
			events.debug("exit", { pid: child.pid, code, signal });
			setTimeout(() => this.die(gone()), EXIT_DRAIN_MS).unref();
		});
		child.stdout.on("end", () => setTimeout(() => this.die(gone()), EXIT_DRAIN_MS).unref());
		child.on("close", () => {
			this.closed = true;
			for (const wake of this.closedWaiters.splice(0)) wake();
			this.die(gone());
		});
		child.stdin.on("error", (err) => this.die(`cannot write to toolgate: ${err.message}`));
		child.stdout.on("error", (err) => this.die(`cannot read from toolgate: ${err.message}`));
		child.stderr.on("error", () => {});
		child.stdout.setEncoding("utf8");
		child.stdout.on("data", (chunk: string) => this.onData(chunk));
		child.stderr.setEncoding("utf8");
		child.stderr.on("data", (chunk: string) => events.debug("stderr", { pid: child.pid, text: chunk }));
	}

	get dead(): boolean {
		return this.deadReason !== undefined;
	}

	/** Sends a request; resolves with its result, rejects with Unavailable. */
	request(method: string, params: unknown): Promise<unknown> {
		if (this.deadReason !== undefined) return Promise.reject(new Unavailable(this.deadReason));
		const id = this.nextId++;
		return new Promise((resolve, reject) => {
			const settle = <T>(f: (v: T) => void) => (v: T) => {
				f(v);
				this.hold();
			};
			const entry: Pending = { method, resolve: settle(resolve), reject: settle(reject) };
			this.pending.set(id, entry);
			this.hold();
			this.arm(id, entry);
			this.send({ jsonrpc: "2.0", id, method, params: params as Json });
		});
	}

	/** Asks toolgate to end the session (audit log flushed), then makes sure it is gone. */
	async close(): Promise<void> {
		if (!this.dead) {
			this.request("shutdown", undefined).catch(() => {});
			try {
				this.child.stdin.end();
			} catch {
				// already closed
			}
		}
		if (!(await this.waitClosed(SHUTDOWN_GRACE_MS))) {
			this.kill();
			await this.waitClosed(SHUTDOWN_GRACE_MS);
		}
		this.die("toolgate was stopped");
	}

	kill(): void {
		if (this.child.exitCode === null && this.child.signalCode === null) {
			try {
				this.child.kill("SIGKILL");
			} catch {
				// already gone
			}
		}
	}

	private waitClosed(ms: number): Promise<boolean> {
		if (this.closed || this.child.pid === undefined) return Promise.resolve(true);
		return new Promise((resolve) => {
			const timer = setTimeout(() => resolve(false), ms);
			this.closedWaiters.push(() => {
				clearTimeout(timer);
				resolve(true);
			});
		});
	}

	/**
	 * The time bound of a request. While a prompt is open the person is
	 * deciding, and toolgate bounds that wait itself (timeoutMs), so no
	 * request times out then; the bound starts afresh when the last prompt
	 * closes.
	 */
	private arm(id: number, entry: Pending): void {
		if (this.openPrompts > 0 || entry.timer) return;
		entry.timer = setTimeout(() => {
			this.pending.delete(id);
			entry.reject(new Unavailable(`no answer to ${entry.method} within ${this.opts.timeoutMs} ms`));
		}, this.opts.timeoutMs);
	}

	/** Keeps pi's event loop alive while toolgate has work outstanding. */
	private hold(): void {
		if (this.pending.size > 0 || this.openPrompts > 0) this.child.ref();
		else this.child.unref();
	}

	private disarmAll(): void {
		for (const entry of this.pending.values()) {
			clearTimeout(entry.timer);
			entry.timer = undefined;
		}
	}

	private send(message: JsonObject): void {
		if (this.dead) return;
		try {
			this.child.stdin.write(`${JSON.stringify(message)}\n`);
		} catch (err) {
			this.die(`cannot write to toolgate: ${errorText(err)}`);
		}
	}

	/** Splits stdout on "\n" only: U+2028 and U+2029 are ordinary characters inside JSON strings. */
	private onData(chunk: string): void {
		this.buffer += chunk;
		let newline: number;
		while ((newline = this.buffer.indexOf("\n")) >= 0) {
			let line = this.buffer.slice(0, newline);
			this.buffer = this.buffer.slice(newline + 1);
			if (line.endsWith("\r")) line = line.slice(0, -1);
			if (line.trim() !== "") this.onLine(line);
		}
		if (this.buffer.length > MAX_LINE_CHARS) {
			this.die("toolgate wrote an endless line");
			this.kill();
		}
	}

	private onLine(line: string): void {
		let message: unknown;
		try {
			message = JSON.parse(line);
		} catch {
			this.events.debug("unparseable", { line: line.slice(0, 1000) });
			return;
		}
		if (!isObject(message)) {
			this.events.debug("unexpected", { message });
			return;
		}
		const hasId = message.id !== undefined && message.id !== null;
		if (typeof message.method === "string") {
			if (hasId) void this.serve(message.id as string | number, message.method, message.params);
			else this.events.debug(message.method, { params: message.params });
			return;
		}
		const entry = typeof message.id === "number" ? this.pending.get(message.id) : undefined;
		if (!entry) {
			this.events.debug("unmatched", { message });
			return;
		}
		this.pending.delete(message.id as number);
		clearTimeout(entry.timer);
		if (message.error !== undefined) {
			const e = isObject(message.error) ? message.error : {};
			entry.reject(new Unavailable(`JSON-RPC error ${String(e.code)} from ${entry.method}: ${String(e.message ?? "")}`));
		} else if ("result" in message) {
			entry.resolve(message.result);
		} else {
			entry.reject(new Unavailable(`malformed answer to ${entry.method}`));
		}
	}

	/** Serves a request from toolgate: `prompt`, nothing else. */
	private async serve(id: string | number, method: string, params: unknown): Promise<void> {
		if (method !== "prompt") {
			this.send({ jsonrpc: "2.0", id, error: { code: -32601, message: `method not found: ${method}` } });
			return;
		}
		const abort = new AbortController();
		this.promptAborts.add(abort);
		this.openPrompts++;
		this.hold();
		this.disarmAll();
		try {
			const answer = await this.events.prompt(params, abort.signal);
			this.send({ jsonrpc: "2.0", id, result: answer as unknown as Json });
		} catch (err) {
			// toolgate counts an error answer as a failed prompt: the call is blocked.
			this.send({ jsonrpc: "2.0", id, error: { code: -32603, message: errorText(err) } });
		} finally {
			this.promptAborts.delete(abort);
			this.openPrompts--;
			this.hold();
			if (this.openPrompts === 0) for (const [pid, entry] of this.pending) this.arm(pid, entry);
		}
	}

	/** Marks the process dead: every waiting request fails, open prompts close. */
	private die(why: string): void {
		if (this.deadReason !== undefined) return;
		this.deadReason = why;
		this.disarmAll();
		for (const entry of this.pending.values()) entry.reject(new Unavailable(this.deadReason));
		this.pending.clear();
		this.hold();
		for (const abort of this.promptAborts) abort.abort();
		this.kill();
		this.events.died(this, this.deadReason);
	}
}

interface InitializeParams {
	protocolVersion: number;
	cwd: string;
	hasUI: boolean;
	agentName?: string;
	sessionId?: string;
	skills: Array<{ name: string; path: string }>;
	infrastructureDirs?: string[];
	host: { name: string; version?: string };
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
			if (isObject(result) && result.action === "allow") return undefined;
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
