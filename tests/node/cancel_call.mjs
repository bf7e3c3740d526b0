// An independent MCP client (the official TypeScript SDK): call a tool over stdio and abort the
// request after `abortAfterMs`; print what happened as one JSON line.
// usage: node cancel_call.mjs <tool> <json arguments> <abortAfterMs> -- <server command...>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [tool, argsJson, abortAfter, sep, command, ...commandArgs] = process.argv.slice(2);
if (sep !== "--" || !command) {
  console.error("usage: node cancel_call.mjs <tool> <json arguments> <abortAfterMs> -- <server command...>");
  process.exit(2);
}
const transport = new StdioClientTransport({ command, args: commandArgs, env: process.env, stderr: "ignore" });
const client = new Client({ name: "workbench-ts-test-client", version: "1.0.0" });
await client.connect(transport);
const controller = new AbortController();
setTimeout(() => controller.abort("cancelled by the test"), Number(abortAfter));
let outcome;
try {
  const result = await client.callTool({ name: tool, arguments: JSON.parse(argsJson) }, undefined,
                                       { signal: controller.signal, onprogress: () => {} });
  outcome = { outcome: "result", result };
} catch (error) {
  outcome = { outcome: "aborted", error: String(error) };
}
// give the server time to see notifications/cancelled and write its log row before stdin closes
await new Promise((resolve) => setTimeout(resolve, 1500));
await client.close();
console.log(JSON.stringify(outcome));
