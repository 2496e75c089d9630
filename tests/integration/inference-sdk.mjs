// The official OpenAI and Anthropic SDKs against http://inference.local,
// plain and streamed.  Usage: node inference-sdk.mjs NODE_MODULES [PROXY]
// With PROXY, requests go through it with undici's ProxyAgent (Node's
// fetch ignores HTTP_PROXY); without, straight to inference.local.
// Prints one "name: value" line per result.
import { createRequire } from "node:module";
import path from "node:path";

const [modules, proxy] = process.argv.slice(2);
const require = createRequire(path.join(modules, "x.js"));
const OpenAI = require("openai").default ?? require("openai");
const sdk = require("@anthropic-ai/sdk");
const Anthropic = sdk.default ?? sdk.Anthropic ?? sdk;
// OpenAI through a tunnel (CONNECT inference.local:80, undici's default),
// Anthropic with plain absolute-form requests (proxyTunnel: false).
let fetchOpenAI = undefined, fetchAnthropic = undefined;
if (proxy) {
	const { ProxyAgent } = require("undici");
	fetchOpenAI = { dispatcher: new ProxyAgent(proxy) };
	fetchAnthropic = {
		dispatcher: new ProxyAgent({ uri: proxy, proxyTunnel: false }),
	};
}

async function step(name, fn) {
	try {
		console.log(`${name}: ${await fn()}`);
	} catch (e) {
		console.log(`${name}: ERROR ${e && e.message}`);
	}
}

const openai = new OpenAI({
	baseURL: "http://inference.local/v1",
	apiKey: "sk-job-placeholder",
	maxRetries: 0,
	timeout: 10000,
	fetchOptions: fetchOpenAI,
});
const anthropic = new Anthropic({
	baseURL: "http://inference.local",
	apiKey: "sk-ant-job-placeholder",
	maxRetries: 0,
	timeout: 10000,
	fetchOptions: fetchAnthropic,
});
const msgs = [{ role: "user", content: "hi" }];

await step("openai", async () => {
	const r = await openai.chat.completions.create({ model: "gpt-test", messages: msgs });
	return r.choices[0].message.content;
});
await step("openai-stream", async () => {
	const s = await openai.chat.completions.create({
		model: "gpt-test", messages: msgs, stream: true,
		stream_options: { include_usage: true },
	});
	let text = "";
	for await (const c of s)
		text += c.choices[0]?.delta?.content ?? "";
	return text;
});
await step("openai-models", async () => {
	const ids = [];
	for await (const m of openai.models.list())
		ids.push(m.id);
	return ids.sort().join(",");
});
await step("anthropic", async () => {
	const r = await anthropic.messages.create({
		model: "claude-test", max_tokens: 50, messages: msgs,
	});
	return r.content[0].text;
});
await step("anthropic-stream", async () => {
	const s = await anthropic.messages.create({
		model: "claude-test", max_tokens: 50, messages: msgs, stream: true,
	});
	let text = "";
	for await (const ev of s)
		if (ev.type === "content_block_delta")
			text += ev.delta.text;
	return text;
});
