/**
 * The host side of toolgate's wire protocol (docs/protocol.md), shared by the
 * pi extension (../pi-extension/index.ts) and the OpenCode plugin
 * (../opencode-plugin/index.ts): spawning one toolgate process, newline
 * framing, request/response matching, the time bound, serving toolgate's
 * `prompt` requests, and noticing death. Every fault is an `Unavailable`
 * error, which both hosts turn into a block (fail-closed).
 *
 * Node's and Bun's `node:child_process` and `node:fs` only: no
 * dependencies, loaded as TypeScript by pi (jiti) and by OpenCode (Bun).
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import * as fs from "node:fs";

export const DEFAULT_TIMEOUT_MS = 10_000;
/** After `shutdown` and end of input, how long toolgate may take to exit before it is killed. */
const SHUTDOWN_GRACE_MS = 1_000;
/** After toolgate's process exits, how long to wait for its stdout to close. */
const EXIT_DRAIN_MS = 200;
/** A line longer than this is a broken toolgate, not a message. */
const MAX_LINE_CHARS = 64 * 1024 * 1024;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface Options {
	bin: string;
	timeoutMs: number;
	debugLogPath?: string;
}

export function readOptions(env: NodeJS.ProcessEnv): Options {
	const timeout = Number.parseInt(env.TOOLGATE_TIMEOUT_MS ?? "", 10);
	return {
		bin: env.TOOLGATE_BIN?.trim() || "toolgate",
		timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_TIMEOUT_MS,
		debugLogPath: env.TOOLGATE_DEBUG_LOG?.trim() || undefined,
	};
}

/** Why toolgate could not give an answer. Every one of these blocks. */
export class Unavailable extends Error {}

export function isObject(v: unknown): v is Record<string, unknown> {
	return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function errorText(err: unknown): string {
	return err instanceof Error ? err.message : String(err);
}

export function unavailableReason(err: unknown, what: string): string {
	return `toolgate is unavailable (${errorText(err)}), so ${what} is blocked (fail-closed).`;
}

export type DebugLog = (event: string, fields?: Record<string, unknown>) => void;

export function debugLogger(file: string | undefined): DebugLog {
	if (!file) return () => {};
	return (event, fields) => {
		try {
			fs.appendFileSync(file, `${JSON.stringify({ time: new Date().toISOString(), event, ...fields })}\n`);
		} catch {
			// A debug log must never change a decision.
		}
	};
}

export interface PromptAnswer {
	choice: string;
	reason?: string;
}

export interface ConnectionEvents {
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
export class Connection {
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


/**
 * The command a tool_call result says to run in place of a bash call's own
 * (`confine.command`: toolgate sandbox with the decision's profile), or
 * undefined when the call runs as written. A `confine` that is there but
 * not a command is a malformed answer, which blocks.
 */
export function confinedCommand(result: unknown): string | undefined {
	if (!isObject(result) || result.confine === undefined) return undefined;
	const c = isObject(result.confine) ? result.confine.command : undefined;
	if (typeof c !== "string" || c.trim() === "") throw new Unavailable("malformed confine in the answer to tool_call");
	return c;
}
