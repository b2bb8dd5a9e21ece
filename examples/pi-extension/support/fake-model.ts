/**
 * A scripted stand-in for a language model, loaded into pi with `-e` for the
 * end-to-end tests. It registers the provider `fake` with one model,
 * `fake/scripted`, whose answers come from the JSON file FAKE_MODEL_SCRIPT:
 *
 *   [ {"toolCalls": [{"name": "bash", "arguments": {"command": "git status"}}]},
 *     {"text": "All done."} ]
 *
 * Turn N (N = the number of assistant messages so far, so the provider keeps
 * no state) answers with step N; past the end it answers with text, which
 * ends the agent loop. Before each turn it appends to FAKE_MODEL_LOG what it
 * was given: the tool results since its last turn and the last user text.
 *
 * A step may also switch the active agent first, as agent-switching
 * extensions do, by appending an `active_agent` session entry:
 *   {"activeAgent": "reviewer", "toolCalls": [...]}
 */
import * as fs from "node:fs";
import { createAssistantMessageEventStream } from "@mariozechner/pi-ai";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

interface Step {
	activeAgent?: string;
	text?: string;
	toolCalls?: Array<{ name: string; arguments: Record<string, unknown> }>;
}

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content.map((c: any) => (c && typeof c.text === "string" ? c.text : "")).join("");
}

export default function fakeModel(pi: ExtensionAPI) {
	const script: Step[] = JSON.parse(fs.readFileSync(process.env.FAKE_MODEL_SCRIPT!, "utf8"));
	const logFile = process.env.FAKE_MODEL_LOG;
	const log = (entry: unknown) => {
		if (logFile) fs.appendFileSync(logFile, `${JSON.stringify(entry)}\n`);
	};

	pi.registerProvider("fake", {
		baseUrl: "http://127.0.0.1:9/unused",
		apiKey: "unused",
		api: "fake-api",
		models: [
			{
				id: "scripted",
				name: "Scripted fake model",
				reasoning: false,
				input: ["text"],
				cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
				contextWindow: 128_000,
				maxTokens: 4_096,
			},
		],
		streamSimple(model, context) {
			const messages = context.messages as any[];
			const turn = messages.filter((m) => m.role === "assistant").length;
			const results: any[] = [];
			for (let i = messages.length - 1; i >= 0 && messages[i].role === "toolResult"; i--) results.unshift(messages[i]);
			const lastUser = [...messages].reverse().find((m) => m.role === "user");
			log({
				turn,
				userText: lastUser ? textOf(lastUser.content) : undefined,
				toolResults: results.map((r) => ({ toolName: r.toolName, isError: r.isError, text: textOf(r.content) })),
			});

			const step = script[turn] ?? { text: "The script is exhausted." };
			if (step.activeAgent) pi.appendEntry("active_agent", { name: step.activeAgent });
			const content = step.toolCalls
				? step.toolCalls.map((call, j) => ({
						type: "toolCall",
						id: `call_${turn}_${j}`,
						name: call.name,
						arguments: call.arguments,
					}))
				: [{ type: "text", text: step.text ?? "" }];
			const message: any = {
				role: "assistant",
				content,
				api: model.api,
				provider: model.provider,
				model: model.id,
				usage: {
					input: 0,
					output: 0,
					cacheRead: 0,
					cacheWrite: 0,
					totalTokens: 0,
					cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
				},
				stopReason: step.toolCalls ? "toolUse" : "stop",
				timestamp: Date.now(),
			};
			const stream = createAssistantMessageEventStream();
			// No deltas: "start" then "done" with the whole message is enough for pi's loop.
			queueMicrotask(() => {
				stream.push({ type: "start", partial: message });
				stream.push({ type: "done", reason: message.stopReason, message });
				stream.end(message);
			});
			return stream;
		},
	});
}
