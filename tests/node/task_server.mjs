// A small MCP server (TypeScript SDK, protocol 2025-11-25) for the task tests: one tool with
// execution.taskSupport "optional" (`steps`: a task that counts `n` steps of `ms` milliseconds,
// its status message naming the step, a progress notification per step when the call asked for progress) and a plain tool with an icon. Run: node task_server.mjs
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { InMemoryTaskStore, InMemoryTaskMessageQueue } from "@modelcontextprotocol/sdk/experimental/tasks";
import { z } from "zod";

const taskStore = new InMemoryTaskStore();
const server = new McpServer(
  { name: "workbench-task-test-server", version: "1.0.0" },
  {
    capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    taskStore,
    taskMessageQueue: new InMemoryTaskMessageQueue(),
  },
);

const StepsSchema = z.object({
  n: z.number().int().min(1),
  ms: z.number().int().min(1),
  fail: z.boolean().default(false).describe("fail the task after the first step"),
});

async function run(taskId, args, extra) {
  // the tools/call's progress token stays valid for the task's lifetime (spec 2025-11-25)
  const token = extra._meta?.progressToken;
  for (let i = 1; i <= args.n; i++) {
    const task = await taskStore.getTask(taskId);
    if (!task || task.status === "cancelled") return;
    await taskStore.updateTaskStatus(taskId, "working", `step ${i}/${args.n}`);
    if (token !== undefined) {
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress: i, total: args.n, message: `progress ${i}/${args.n}` },
      });
    }
    await new Promise((resolve) => setTimeout(resolve, args.ms));
    if (args.fail) {
      await taskStore.updateTaskStatus(taskId, "failed", `boom at step ${i}`);
      return;
    }
  }
  const task = await taskStore.getTask(taskId);
  if (!task || task.status === "cancelled") return;
  await taskStore.storeTaskResult(taskId, "completed", {
    content: [{ type: "text", text: `counted ${args.n} steps` }],
  });
}

server.experimental.tasks.registerToolTask(
  "steps",
  {
    title: "Count steps",
    description: "Count n steps of ms milliseconds each, as a task.",
    inputSchema: StepsSchema,
    execution: { taskSupport: "optional" },
  },
  {
    createTask: async (args, extra) => {
      const task = await extra.taskStore.createTask({ ttl: 60000, pollInterval: 100 });
      run(task.taskId, StepsSchema.parse(args), extra).catch((error) =>
        extra.taskStore.updateTaskStatus(task.taskId, "failed", String(error)).catch(() => {}),
      );
      return { task };
    },
    getTask: async (args, extra) => await extra.taskStore.getTask(extra.taskId),
    getTaskResult: async (args, extra) => await extra.taskStore.getTaskResult(extra.taskId),
  },
);

server.registerTool(
  "plain",
  {
    description: "Say hello (no tasks).",
    inputSchema: {},
    icons: [
      { src: "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=", mimeType: "image/svg+xml" },
      { src: "javascript:alert(1)", mimeType: "image/png" },
    ],
  },
  async () => ({ content: [{ type: "text", text: "hello" }] }),
);

await server.connect(new StdioServerTransport());
