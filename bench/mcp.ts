// The MCP server's get_page against what it stands for: one `tools/call` of `get_page` answers a
// page's fields and its markdown export, which over REST are two requests (GET /api/v1/pages/{id},
// then GET /api/v1/pages/{id}/export). All three run on the same Worker, taking turns; the cost of
// a request is the inverse of its throughput at the same concurrency, so the target compares the
// tool call's cost with the sum of the two REST requests' costs.
import { TARGETS } from "./config.ts";
import { type LoadResult, type LoadTarget, measureInTurn } from "./load.ts";
import type { TargetCheck } from "./report.ts";
import type { Target } from "./verify.ts";

export interface McpMeasurement {
  tool: LoadResult;
  page: LoadResult;
  exported: LoadResult;
  /** The tool call's cost over the page read's and the export's together. */
  costRatio: number;
}

/** JSON-RPC `tools/call` of get_page, as an MCP client sends it over Streamable HTTP (stateless: no session). */
const toolCall = (pageId: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "get_page", arguments: { id: pageId } },
  });

const MCP_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

/** Each request answers what it should before any load: a tool result holding the page's markdown, and two 200s. */
async function verify(targets: readonly LoadTarget[], pageId: string): Promise<void> {
  for (const target of targets) {
    const response = await fetch(target.url, {
      method: target.method ?? "GET",
      headers: target.headers,
      body: target.body?.toString(),
    });
    const text = await response.text();
    if (response.status !== 200)
      throw new Error(`MCP bench: ${target.url} answered ${response.status}: ${text.slice(0, 300)}`);
    if (target.method === "POST") {
      const answer = JSON.parse(text) as {
        result?: { isError?: boolean; structuredContent?: { id?: string; markdown?: unknown } };
      };
      const page = answer.result?.structuredContent;
      if (answer.result?.isError || page?.id !== pageId || typeof page.markdown !== "string") {
        throw new Error(`MCP bench: get_page did not answer the page's markdown: ${text.slice(0, 300)}`);
      }
    }
  }
}

/** Measures the three on the Worker of one dataset; `pageId` is a page with children (its export has a body). */
export async function measureMcp(worker: Target, pageId: string): Promise<McpMeasurement> {
  const origin = worker.server.origin;
  const targets: LoadTarget[] = [
    {
      url: `${origin}/mcp`,
      method: "POST",
      headers: { ...worker.headers, ...MCP_HEADERS },
      body: Buffer.from(toolCall(pageId)),
    },
    { url: `${origin}/api/v1/pages/${pageId}`, headers: worker.headers },
    { url: `${origin}/api/v1/pages/${pageId}/export?format=markdown`, headers: worker.headers },
  ];
  await verify(targets, pageId);
  const [tool, page, exported] = (await measureInTurn(targets)) as [LoadResult, LoadResult, LoadResult];
  const cost = (result: LoadResult) => 1 / result.requestsPerSecond;
  return { tool, page, exported, costRatio: cost(tool) / (cost(page) + cost(exported)) };
}

export function mcpTargets(m: McpMeasurement): TargetCheck[] {
  const rates = `tools/call ${m.tool.requestsPerSecond.toFixed(0)}, GET page ${m.page.requestsPerSecond.toFixed(0)}, export ${m.exported.requestsPerSecond.toFixed(0)} req/s`;
  const failures = [m.tool, m.page, m.exported].reduce((sum, result) => sum + result.non2xx + result.errors, 0);
  return [
    {
      target: `MCP get_page cost <= ${TARGETS.maxMcpGetPageCostRatio}x GET page + its markdown export`,
      subject: "tools/call get_page",
      value: `${m.costRatio.toFixed(2)}x (${rates})${failures > 0 ? `, ${failures} failed` : ""}`,
      pass: m.costRatio <= TARGETS.maxMcpGetPageCostRatio && failures === 0,
    },
  ];
}
