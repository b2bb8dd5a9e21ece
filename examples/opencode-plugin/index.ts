/**
 * toolgate for OpenCode: before every tool call OpenCode runs, this plugin
 * asks a long-lived toolgate process "may this run?" over JSON-RPC 2.0
 * (toolgate's docs/protocol.md, the same protocol as the pi extension) and obeys
 * the answer. A block is a thrown Error: OpenCode does not run the tool and
 * the model sees toolgate's reason.
 *
 * Asks: where a person can answer (the TUI, `opencode serve` with a client),
 * toolgate's ask is shown through OpenCode's own permission dialog. The
 * `config` hook makes OpenCode ask for every tool the plugin gates; a call
 * toolgate allows has its OpenCode question answered "once" by the plugin, a
 * call toolgate blocks never gets that far, and a call toolgate asks about is
 * left to the person, whose answer goes back to toolgate as the answer to its
 * prompt (once → allow_once, always → allow_session, reject → deny), so the
 * audit log and session approvals are toolgate's. Where nobody can answer
 * (`opencode run`), toolgate is told there is no UI: an ask blocks, with a
 * reason that says how to allow the call.
 *
 * Fail-closed: toolgate missing, crashed, too slow, answering garbage, or an
 * exception here all block.
 *
 * Environment:
 *   TOOLGATE_BIN          the toolgate binary (default: `toolgate` on PATH)
 *   TOOLGATE_TIMEOUT_MS   how long to wait for an answer while no prompt is
 *                         open (default 10000)
 *   TOOLGATE_DEBUG_LOG    a file to append the plugin's debug log to
 *   TOOLGATE_OPENCODE_ASK `opencode` (show asks in OpenCode's dialog) or
 *                         `block` (an ask blocks); default: `block` under
 *                         `opencode run`, `opencode` otherwise
 *
 * Install: a one-line file in OpenCode's plugin folder (README.md):
 *   export { ToolgatePlugin } from "/path/to/toolgate/examples/opencode-plugin/index.ts";
 * No runtime dependencies: the import from @opencode-ai/plugin is types only.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Plugin } from "@opencode-ai/plugin";
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
/** toolgate is restarted this many times per OpenCode instance after it dies. */
const MAX_RESTARTS = 1;

/** What toolgate decides for one OpenCode call. */
interface MappedCall {
	toolName: string;
	input: Record<string, unknown>;
	cwd?: string;
}

/** OpenCode's tools whose path argument is `filePath`; toolgate's is `path`. */
const FILE_PATH_TOOLS: Record<string, string> = { read: "read", write: "write", edit: "edit", multiedit: "edit" };

/**
 * OpenCode's permission key for each built-in tool the plugin gates (the key
 * its `permission` config and its dialog use). For these tools OpenCode shows
 * a dialog when its permission says "ask", so toolgate's ask can be shown.
 */
const PERMISSION_KEYS: Record<string, string> = {
	bash: "bash",
	read: "read",
	write: "edit",
	edit: "edit",
	multiedit: "edit",
	apply_patch: "edit",
	patch: "edit",
	glob: "glob",
	grep: "grep",
	list: "list",
	webfetch: "webfetch",
	websearch: "websearch",
	codesearch: "codesearch",
	task: "task",
	todowrite: "todowrite",
	skill: "skill",
	lsp: "lsp",
	list_mcp_resources: "read",
	list_mcp_resource_templates: "read",
	read_mcp_resource: "read",
};

/** OpenCode's name for an MCP server in tool ids (its sanitize step). */
function sanitizeName(name: string): string {
	return name.replace(/[^a-zA-Z0-9_-]/g, "_");
}

/** The configured MCP server an OpenCode tool id `server_tool` belongs to (the longest match). */
function mcpServerOf(tool: string, servers: string[]): { server: string; tool: string } | undefined {
	let best: { server: string; tool: string } | undefined;
	for (const server of servers) {
		const prefix = `${sanitizeName(server)}_`;
		if (tool.startsWith(prefix) && tool.length > prefix.length && (!best || server.length > best.server.length)) {
			best = { server, tool: tool.slice(prefix.length) };
		}
	}
	return best;
}

/**
 * Maps an OpenCode tool call to toolgate's tool and input (README.md has the
 * table). Throws on arguments that cannot be mapped without guessing.
 */
function mapCall(tool: string, args: unknown, directory: string, mcpServers: string[]): MappedCall {
	const a: Record<string, unknown> = isObject(args) ? { ...args } : {};
	const rename = (from: string, to: string) => {
		if (!(from in a)) return;
		if (to in a) throw new Error(`the ${tool} call has both ${from} and ${to}`);
		a[to] = a[from];
		delete a[from];
	};
	if (tool === "bash") {
		const input: Record<string, unknown> = { command: a.command };
		if (a.timeout !== undefined) input.timeout = a.timeout;
		const call: MappedCall = { toolName: "bash", input };
		if (a.workdir !== undefined && a.workdir !== null && a.workdir !== "") {
			if (typeof a.workdir !== "string") throw new Error("the bash call's workdir is not a string");
			call.cwd = path.resolve(directory, a.workdir);
		}
		return call;
	}
	if (tool in FILE_PATH_TOOLS) {
		rename("filePath", "path");
		return { toolName: FILE_PATH_TOOLS[tool], input: a };
	}
	switch (tool) {
		case "glob":
			return { toolName: "find", input: a };
		case "grep":
			rename("include", "glob");
			return { toolName: "grep", input: a };
		case "list":
			if (a.path === undefined) a.path = directory;
			return { toolName: "ls", input: a };
		case "skill":
			return { toolName: "skill", input: a };
	}
	if (!(tool in PERMISSION_KEYS)) {
		const mcp = mcpServerOf(tool, mcpServers);
		if (mcp) return { toolName: "mcp", input: { tool: `${mcp.server}:${mcp.tool}`, arguments: a } };
	}
	return { toolName: tool, input: a };
}

/**
 * The markers of a patch (apply_patch, patch: Codex's patch format) that name
 * a file, and the tool toolgate decides the file with: created or moved to →
 * write; changed, deleted or moved away → edit. A marker is read with the
 * blanks around it trimmed, as the patch tools read it; reading a line that is
 * not one as one only adds a file to check.
 */
const PATCH_MARKERS: Array<[string, string]> = [
	["*** Add File:", "write"],
	["*** Delete File:", "edit"],
	["*** Update File:", "edit"],
	["*** Move to:", "write"],
];

/** The toolgate calls of a patch tool's call: one per file the patch names. Throws when it names none. */
function patchCalls(tool: string, args: unknown): MappedCall[] {
	const text = isObject(args) ? args.patchText : undefined;
	if (typeof text !== "string") throw new Error(`the ${tool} call has no patchText`);
	if (!text.includes("*** Begin Patch")) {
		throw new Error(`the ${tool} call's patch has no "*** Begin Patch" line, so toolgate cannot tell which files it changes`);
	}
	const seen = new Set<string>();
	const calls: MappedCall[] = [];
	text.split("\n").forEach((line, i) => {
		const t = line.trim();
		for (const [marker, toolName] of PATCH_MARKERS) {
			if (!t.startsWith(marker)) continue;
			const file = t.slice(marker.length).trim();
			if (!file) throw new Error(`line ${i + 1} of the ${tool} call's patch names no file`);
			const key = `${toolName}\0${file}`;
			if (!seen.has(key)) {
				seen.add(key);
				calls.push({ toolName, input: { path: file } });
			}
		}
	});
	if (calls.length === 0) throw new Error(`the ${tool} call's patch names no file to add, update, delete or move`);
	return calls;
}

/** OpenCode's permission key for a tool, when OpenCode will ask about it. */
function permissionKey(tool: string, mcpServers: string[]): string | undefined {
	if (tool in PERMISSION_KEYS) return PERMISSION_KEYS[tool];
	return mcpServerOf(tool, mcpServers) ? tool : undefined;
}

type Perm = string | Record<string, string>;

/** An OpenCode permission value where nothing is allowed unasked: allow → ask, deny kept. */
function escalated(value: unknown): Perm {
	if (typeof value === "string") return value === "deny" ? "deny" : "ask";
	if (!isObject(value)) return "ask";
	const out: Record<string, string> = { "*": "ask" };
	for (const [pattern, action] of Object.entries(value)) {
		if (pattern === "*") delete out["*"];
		out[pattern] = action === "deny" ? "deny" : "ask";
	}
	return out;
}

/**
 * OpenCode 1.18's built-in agents' own denies, which a global `permission`
 * key would otherwise override (OpenCode merges the config after them).
 */
const allDenied = (keep: string[] = []): Record<string, Perm> =>
	Object.fromEntries(
		Object.values(PERMISSION_KEYS)
			.filter((k) => !keep.includes(k))
			.map((k) => [k, "deny"]),
	);
const NATIVE_AGENT_DENIES: Record<string, Record<string, Perm>> = {
	title: allDenied(),
	summary: allDenied(),
	compaction: allDenied(),
	plan: { edit: { "*": "deny", ".opencode/plans/*.md": "ask" } },
	general: { todowrite: "deny" },
	explore: allDenied(["grep", "glob", "list", "bash", "webfetch", "websearch", "read"]),
};

/** A permission setting with every allow made an ask (keys are wildcards over tool names). */
function escalatedAll(perm: unknown): Record<string, unknown> {
	const own: Record<string, unknown> = typeof perm === "string" ? { "*": perm } : isObject(perm) ? { ...perm } : {};
	for (const key of Object.keys(own)) own[key] = escalated(own[key]);
	return own;
}

/**
 * Makes OpenCode ask for every tool the plugin gates (toolgate's allow
 * answers the question itself): every allow in the global permission and in
 * every configured agent's becomes ask, each gated key asks, denies stay.
 */
function escalateConfig(cfg: Record<string, unknown>, mcpServers: string[]): void {
	const global = escalatedAll(cfg.permission);
	const keys = new Set([...Object.values(PERMISSION_KEYS), ...mcpServers.map((s) => `${sanitizeName(s)}_*`)]);
	for (const key of keys) if (!(key in global)) global[key] = escalated(global["*"]);
	cfg.permission = global;
	const agents: Record<string, unknown> = isObject(cfg.agent) ? cfg.agent : {};
	cfg.agent = agents;
	for (const [name, agent] of Object.entries(agents)) {
		if (isObject(agent) && agent.permission !== undefined) agents[name] = { ...agent, permission: escalatedAll(agent.permission) };
	}
	for (const [name, denies] of Object.entries(NATIVE_AGENT_DENIES)) {
		const agent = isObject(agents[name]) ? (agents[name] as Record<string, unknown>) : {};
		const own = isObject(agent.permission) ? agent.permission : {};
		agents[name] = { ...agent, permission: { ...denies, ...own } };
	}
}

/** Where OpenCode is installed and its version (the package of the running binary). */
function findOpencode(): { root: string; version?: string } | undefined {
	try {
		let dir = path.dirname(fs.realpathSync(process.execPath));
		for (let i = 0; i < 4; i++) {
			const manifest = path.join(dir, "package.json");
			if (fs.existsSync(manifest)) {
				const pkg = JSON.parse(fs.readFileSync(manifest, "utf8"));
				if (typeof pkg.name === "string" && /^opencode(-|$)/.test(pkg.name)) {
					return { root: dir, version: typeof pkg.version === "string" ? pkg.version : undefined };
				}
			}
			dir = path.dirname(dir);
		}
	} catch {
		// unknown install
	}
	return undefined;
}

const HOW_TO_ALLOW =
	" To allow it, add an allow rule for it to your toolgate policy (~/.config/toolgate/config.json or" +
	" <project>/.toolgate/config.json; `toolgate explain` shows which rule decides), or run OpenCode where a" +
	" person can answer (the TUI or `opencode serve`), where toolgate's question is shown as OpenCode's permission prompt.";

/** A person's answer in OpenCode's dialog. */
type Reply = "once" | "always" | "reject";

/** One OpenCode call toolgate asks a person about. */
interface AskedCall {
	/** OpenCode permission requests raised for this call. */
	requests: Set<string>;
	/** The person's answer, once given. */
	reply?: Reply;
	/** toolgate's open prompts for this call, answered with the person's reply. */
	waiters: Array<{ options: string[]; resolve(a: PromptAnswer): void }>;
	/** Resolves when toolgate first prompts for this call. */
	prompted: Promise<void>;
	markPrompted(): void;
	isPrompted: boolean;
	/** The call's OpenCode tool and arguments (OpenCode runs what they hold when it runs). */
	tool: string;
	args: unknown;
	/** Set once toolgate's allow rewrote a bash call to run confined, or said it runs as written. */
	settled?: boolean;
	/** toolgate's final answer, once known: true = allow. */
	allowed?: boolean;
}

function choiceFor(reply: Reply, options: string[]): PromptAnswer {
	if (reply === "reject") return { choice: "deny" };
	if (reply === "always" && options.includes("allow_session")) return { choice: "allow_session" };
	return { choice: "allow_once" };
}

class Gate {
	private conn: Connection | undefined;
	private restarts = 0;
	private stopped = false;
	/** The config hook made OpenCode ask for every gated tool. */
	private escalated = false;
	private init: Record<string, unknown>;
	private mcpServers: string[] = [];
	/** Calls toolgate allowed: their OpenCode questions are answered "once". */
	private readonly approved = new Set<string>();
	/** The policy's sandbox is on (initialize): an allowed bash call may come back to run confined. */
	private confining = false;
	/** Calls a person decides, by call id. */
	private readonly asked = new Map<string, AskedCall>();
	/** OpenCode permission request id → call id, for the person's calls. */
	private readonly requestCall = new Map<string, string>();

	constructor(
		private readonly opts: Options,
		private readonly debug: DebugLog,
		private readonly ctx: Parameters<Plugin>[0],
		readonly interactive: boolean,
	) {
		const oc = findOpencode();
		this.init = {
			protocolVersion: PROTOCOL_VERSION,
			cwd: path.resolve(ctx.directory),
			hasUI: interactive,
			host: { name: "opencode", version: oc?.version },
			confines: true,
		};
		if (oc) this.init.infrastructureDirs = [oc.root];
		this.spawn();
	}

	/** The config hook: MCP server names, and (interactive) OpenCode asks for every gated tool. */
	configure(cfg: Record<string, unknown>): void {
		this.mcpServers = isObject(cfg.mcp) ? Object.keys(cfg.mcp) : [];
		if (this.interactive) {
			escalateConfig(cfg, this.mcpServers);
			this.escalated = true;
		}
		if (this.mcpServers.length > 0) {
			this.init = { ...this.init, mcpServers: this.mcpServers };
			const conn = this.conn;
			if (conn && !conn.dead) {
				const init = this.init;
				conn.ready = conn.ready.then(() => conn.request("initialize", init));
				conn.ready.catch(() => {});
			}
		}
	}

	/** tool.execute.before: returns to let the call go on, throws to block it. */
	async before(tool: string, callID: string, args: unknown): Promise<void> {
		let mapped: MappedCall;
		let files: MappedCall[] = [];
		try {
			if (tool === "apply_patch" || tool === "patch") files = patchCalls(tool, args);
			mapped = files.length > 0 ? files[0] : mapCall(tool, args, this.ctx.directory, this.mcpServers);
		} catch (err) {
			throw new Error(`toolgate: this ${tool} call is blocked: ${errorText(err)}`);
		}
		if (files.length > 1) mapped = await this.patchMain(callID, files);
		await this.denyNormalizedURL(tool, callID, mapped);
		// Only where OpenCode will show its dialog (its config was made to
		// ask, and the tool is one it asks about) may toolgate prompt.
		const personCanAnswer = this.escalated && permissionKey(tool, this.mcpServers) !== undefined;
		const params: Record<string, unknown> = {
			toolCallId: callID,
			toolName: mapped.toolName,
			input: mapped.input,
			hasUI: personCanAnswer,
		};
		if (mapped.cwd) params.cwd = mapped.cwd;
		let asked: AskedCall | undefined;
		if (personCanAnswer) {
			let markPrompted = () => {};
			const prompted = new Promise<void>((resolve) => (markPrompted = resolve));
			asked = { requests: new Set(), waiters: [], prompted, markPrompted, isPrompted: false, tool, args };
			const a = asked;
			a.markPrompted = () => {
				a.isPrompted = true;
				markPrompted();
			};
			this.asked.set(callID, asked);
		}
		const result = this.call("tool_call", params);
		let first: { result: unknown } | "prompted";
		try {
			first = asked ? await Promise.race([result.then((r) => ({ result: r })), asked.prompted.then(() => "prompted" as const)]) : { result: await result };
		} catch (err) {
			this.asked.delete(callID);
			this.debug("tool_call_failed", { callID, error: errorText(err) });
			throw new Error(unavailableReason(err, "this tool call"));
		}
		if (first === "prompted") {
			// OpenCode asks the person next; their answer is toolgate's prompt's.
			void result.then(
				(r) => this.personDecided(callID, r),
				(err) => this.personDecided(callID, undefined, err),
			);
			return;
		}
		this.asked.delete(callID);
		const r = first.result;
		if (isObject(r) && r.action === "allow") {
			confine(tool, args, r);
			this.approved.add(callID);
			return;
		}
		if (isObject(r) && r.action === "block") {
			let reason = typeof r.reason === "string" && r.reason.trim() ? r.reason : "toolgate blocked this tool call.";
			const decision = isObject(r.decision) ? r.decision : {};
			if (decision.resolution === "confirmation_unavailable") reason += HOW_TO_ALLOW;
			throw new Error(reason);
		}
		throw new Error(unavailableReason(new Unavailable("malformed answer to tool_call"), "this tool call"));
	}

	/**
	 * A patch is one toolgate call per file it touches; the most restrictive
	 * decides. Every file but the most restrictive one is decided here, for
	 * the record and without a person (one that is not allowed blocks the
	 * patch); the most restrictive one is the call OpenCode's flow decides,
	 * and asks a person about where one can answer.
	 */
	private async patchMain(callID: string, files: MappedCall[]): Promise<MappedCall> {
		const rank: Record<string, number> = { allow: 0, ask: 1, deny: 2 };
		const params = (i: number) => ({ toolCallId: `${callID}#${i}`, toolName: files[i].toolName, input: files[i].input, hasUI: false });
		let checks: unknown[];
		try {
			checks = await Promise.all(files.map((_, i) => this.call("check", params(i))));
		} catch (err) {
			throw new Error(unavailableReason(err, "this tool call"));
		}
		const severity = (c: unknown) => (isObject(c) && typeof c.state === "string" && c.state in rank ? rank[c.state] : rank.deny);
		let main = 0;
		checks.forEach((c, i) => {
			if (severity(c) > severity(checks[main])) main = i;
		});
		if (severity(checks[main]) === rank.deny) return files[main];
		for (let i = 0; i < files.length; i++) {
			if (i === main) continue;
			let r: unknown;
			try {
				r = await this.call("tool_call", params(i));
			} catch (err) {
				throw new Error(unavailableReason(err, "this tool call"));
			}
			if (isObject(r) && r.action === "allow") continue;
			let reason = isObject(r) && typeof r.reason === "string" && r.reason.trim() ? r.reason : "toolgate blocked this tool call.";
			const decision = isObject(r) && isObject(r.decision) ? r.decision : {};
			if (decision.resolution === "confirmation_unavailable") reason += HOW_TO_ALLOW;
			throw new Error(reason);
		}
		return files[main];
	}

	/**
	 * A URL is decided as written (below) and as the fetcher normalizes it
	 * (HTTPS://EVIL.example is https://evil.example/): a deny of the
	 * normalized form blocks, recorded as toolgate's decision of that form.
	 */
	private async denyNormalizedURL(tool: string, callID: string, mapped: MappedCall): Promise<void> {
		if (tool !== "webfetch" || typeof mapped.input.url !== "string") return;
		let normalized: string;
		try {
			normalized = new URL(mapped.input.url.trim()).href;
		} catch {
			return; // OpenCode refuses it too; decided as written
		}
		if (normalized === mapped.input.url) return;
		const params = { toolCallId: `${callID}#normalized`, toolName: mapped.toolName, input: { ...mapped.input, url: normalized }, hasUI: false };
		let r: unknown;
		try {
			const c = await this.call("check", params);
			if (!isObject(c) || c.state !== "deny") return;
			r = await this.call("tool_call", params);
		} catch (err) {
			throw new Error(unavailableReason(err, "this tool call"));
		}
		if (isObject(r) && r.action === "allow") return;
		throw new Error(isObject(r) && typeof r.reason === "string" && r.reason.trim() ? r.reason : "toolgate blocked this tool call.");
	}

	/** toolgate's final answer for a call a person was asked about. */
	private personDecided(callID: string, r: unknown, err?: unknown): void {
		const a = this.asked.get(callID);
		if (!a) return;
		a.allowed = err === undefined && isObject(r) && r.action === "allow";
		if (a.allowed) {
			try {
				confine(a.tool, a.args, r);
				a.settled = true;
			} catch (cerr) {
				a.allowed = false;
				err = cerr;
			}
		}
		this.debug("person_decided", { callID, allowed: a.allowed, error: err === undefined ? undefined : errorText(err) });
		if (a.allowed) return;
		// toolgate blocked (its prompt timed out, it died…): an OpenCode
		// question still open is rejected, so the tool does not run.
		const reason = err !== undefined ? unavailableReason(err, "this tool call") : isObject(r) && typeof r.reason === "string" ? r.reason : "toolgate blocked this tool call.";
		if (a.reply === undefined) for (const id of a.requests) void this.reply(id, "reject", reason);
	}

	/** toolgate asks a person (only for calls sent with hasUI true). */
	private prompt(params: unknown, signal: AbortSignal): Promise<PromptAnswer> {
		if (!isObject(params) || typeof params.toolCallId !== "string") return Promise.reject(new Error("prompt without toolCallId"));
		const a = this.asked.get(params.toolCallId);
		if (!a) return Promise.reject(new Error("no one can answer this prompt"));
		const options = Array.isArray(params.options) ? params.options.filter(isObject).map((o) => String(o.id)) : [];
		if (a.reply !== undefined) return Promise.resolve(choiceFor(a.reply, options));
		if (!a.isPrompted) this.toast(params);
		a.markPrompted();
		return new Promise((resolve, reject) => {
			const waiter = { options, resolve };
			a.waiters.push(waiter);
			signal.addEventListener("abort", () => reject(new Error("the prompt was cancelled")), { once: true });
		});
	}

	/** Shows toolgate's question next to OpenCode's dialog (the TUI's toast). */
	private toast(params: Record<string, unknown>): void {
		const message = typeof params.message === "string" ? params.message : "";
		if (!message) return;
		try {
			const tui = (this.ctx.client as unknown as { tui?: { showToast?: (o: unknown) => Promise<unknown> } }).tui;
			void tui?.showToast?.({ body: { title: "toolgate asks", message, variant: "warning", duration: 15000 } })?.catch?.(() => {});
		} catch {
			// a toast is a courtesy
		}
	}

	/** The event hook: OpenCode's permission questions and their answers. */
	onEvent(event: unknown): void {
		if (!isObject(event) || !isObject(event.properties)) return;
		const p = event.properties;
		if (event.type === "permission.asked") {
			// OpenCode's own "always" would let later calls run without asking
			// (it records the patterns for the session): "always" is recorded
			// by toolgate instead, as a session approval.
			if (Array.isArray(p.always)) p.always.length = 0;
			const callID = isObject(p.tool) && typeof p.tool.callID === "string" ? p.tool.callID : undefined;
			const id = typeof p.id === "string" ? p.id : undefined;
			if (!callID || !id) return;
			const a = this.asked.get(callID);
			if (a) {
				if (a.reply === "once" || a.reply === "always") void this.reply(id, "once");
				else if (a.reply === "reject" || a.allowed === false) void this.reply(id, "reject");
				else {
					a.requests.add(id);
					this.requestCall.set(id, callID);
				}
				return;
			}
			if (this.approved.has(callID)) void this.reply(id, "once");
			return;
		}
		if (event.type === "permission.replied") {
			const id = typeof p.requestID === "string" ? p.requestID : undefined;
			const callID = id ? this.requestCall.get(id) : undefined;
			if (!id || !callID) return;
			this.requestCall.delete(id);
			const a = this.asked.get(callID);
			const reply = p.reply;
			if (!a || a.reply !== undefined || (reply !== "once" && reply !== "always" && reply !== "reject")) return;
			a.reply = reply;
			this.debug("person_replied", { callID, reply });
			for (const w of a.waiters.splice(0)) w.resolve(choiceFor(reply, w.options));
		}
	}

	/** shell.env runs just before bash spawns: a call a person has not approved must not. */
	shellEnv(callID: unknown): void {
		if (typeof callID !== "string") return;
		const a = this.asked.get(callID);
		if (a && a.reply !== "once" && a.reply !== "always") {
			throw new Error("toolgate: this command needs a person's approval, and it has none, so it is blocked.");
		}
		if (a && this.confining && !a.settled) {
			// toolgate's answer (which may rewrite the command to run
			// confined) has not come: the command must not run as written.
			throw new Error("toolgate: this command's approval has not reached toolgate yet, so it is blocked.");
		}
	}

	/** tool.execute.after: forget the call. */
	done(callID: string): void {
		this.approved.delete(callID);
		const a = this.asked.get(callID);
		this.asked.delete(callID);
		if (a && a.reply === undefined) {
			// OpenCode ran the call without asking the person (it should not:
			// see escalateConfig): say so, and close toolgate's prompt.
			this.debug("ran_without_answer", { callID });
			for (const w of a.waiters.splice(0)) w.resolve({ choice: "deny" });
		}
	}

	/** Answers one OpenCode permission request through OpenCode's own API. */
	private async reply(requestID: string, reply: Reply, message?: string): Promise<void> {
		try {
			const client = (this.ctx.client as unknown as { _client?: { post(o: unknown): Promise<{ error?: unknown }> } })._client;
			if (!client) throw new Error("the OpenCode client has no raw transport");
			const res = await client.post({
				url: "/permission/{requestID}/reply",
				path: { requestID },
				body: message ? { reply, message } : { reply },
				headers: { "Content-Type": "application/json" },
			});
			if (res?.error) throw new Error(JSON.stringify(res.error));
			this.debug("replied", { requestID, reply });
		} catch (err) {
			// An unanswered question stays open: the call waits, it does not run.
			this.debug("reply_failed", { requestID, reply, error: errorText(err) });
		}
	}

	/** The instance is disposed: toolgate ends its session (audit log flushed). */
	async stop(): Promise<void> {
		this.stopped = true;
		const conn = this.conn;
		this.conn = undefined;
		await conn?.close();
	}

	private async call(method: string, params: unknown): Promise<unknown> {
		const conn = this.conn;
		if (!conn) throw new Unavailable("toolgate was not started");
		await conn.ready;
		return conn.request(method, params);
	}

	private spawn(): void {
		const conn = new Connection(this.opts, {
			prompt: (params, signal) => this.prompt(params, signal),
			died: (c, why) => this.died(c, why),
			debug: this.debug,
		});
		this.conn = conn;
		const init = this.init;
		this.debug("initialize", { params: init });
		conn.ready = conn.request("initialize", init).then((r) => {
			if (!isObject(r)) throw new Unavailable("malformed answer to initialize");
			this.debug("initialized", { result: r });
			const c = isObject(r.policy) && isObject(r.policy.confinement) ? r.policy.confinement : {};
			this.confining = c.mode === "on" || c.mode === "required";
			return r;
		});
		conn.ready.catch((err) => this.debug("initialize_failed", { error: errorText(err) }));
	}

	private died(conn: Connection, why: string): void {
		this.debug("died", { pid: conn.child.pid, why });
		if (conn !== this.conn || this.stopped) return;
		for (const a of this.asked.values()) for (const w of a.waiters.splice(0)) w.resolve({ choice: "deny" });
		if (this.restarts < MAX_RESTARTS) {
			this.restarts++;
			this.debug("restart", { why });
			this.spawn();
		}
	}
}

/** Whether a person can answer OpenCode's permission questions in this process. */
function personCanAnswer(env: NodeJS.ProcessEnv): boolean {
	const mode = env.TOOLGATE_OPENCODE_ASK?.trim();
	if (mode === "block") return false;
	if (mode === "opencode") return true;
	// `opencode run` rejects every question itself; the TUI, `serve`, `web`
	// and `acp` hand them to a person.
	return !process.argv.slice(2).includes("run");
}

export const ToolgatePlugin: Plugin = async (ctx) => {
	const opts = readOptions(process.env);
	const debug = debugLogger(opts.debugLogPath);
	const gate = new Gate(opts, debug, ctx, personCanAnswer(process.env));
	debug("plugin", { directory: ctx.directory, interactive: gate.interactive, argv: process.argv });
	return {
		config: async (cfg) => {
			gate.configure(cfg as unknown as Record<string, unknown>);
		},
		event: async ({ event }) => {
			gate.onEvent(event);
		},
		"tool.execute.before": async (input, output) => {
			await gate.before(input.tool, input.callID, output.args);
		},
		"tool.execute.after": async (input) => {
			gate.done(input.callID);
		},
		"shell.env": async (input) => {
			gate.shellEnv(input.callID);
		},
		dispose: async () => {
			await gate.stop();
		},
	};
};

/**
 * Rewrites an allowed bash call's arguments to run toolgate's confined
 * command (the result's confine.command) in place of the model's; OpenCode
 * runs the arguments it handed tool.execute.before, and shows the person
 * the call as the model wrote it.
 */
function confine(tool: string, args: unknown, result: unknown): void {
	const confined = confinedCommand(result);
	if (confined === undefined) return;
	if (tool !== "bash" || !isObject(args)) throw new Unavailable("confine on a call that is not bash");
	args.command = confined;
}
