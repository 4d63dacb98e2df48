import { z } from "@hono/zod-openapi";
import { BlockIdParams, HierarchyQuery } from "../../routes/blocks/blocks.schemas";
import type { BlockTree } from "../../schemas/blocks";
import { getHierarchy, HIERARCHY_DEFAULT_DEPTH } from "../../services/blocks/queries";
import { rowTitles } from "../row-titles";
import { blockLabel } from "../text";
import { defineTool } from "../tool";

// A block's subtree as GET /api/v1/blocks/{id}/hierarchy serves it, told compactly.

interface CompactNode {
  id: string;
  type: string;
  text: string;
  children: CompactNode[];
}

const compact = (node: BlockTree, titles: Map<string, string>): CompactNode => ({
  id: node.id,
  type: node.type,
  text: blockLabel(node, titles.get(node.id)),
  children: node.children.map((child) => compact(child, titles)),
});

/** Every node of a tree, the root first. */
const nodesOf = (node: BlockTree): BlockTree[] => [node, ...node.children.flatMap(nodesOf)];

/** One line per block, indented by depth: `- [type] text (id)`. */
function outline(node: CompactNode, depth = 0, lines: string[] = []): string[] {
  lines.push(`${"  ".repeat(depth)}- [${node.type}] ${node.text || "(empty)"} (${node.id})`);
  for (const child of node.children) outline(child, depth + 1, lines);
  return lines;
}

export const getBlockTreeTool = defineTool({
  name: "get_block_tree",
  title: "Read a block tree",
  description: `A block (page, database, row or editor block) and its active descendants to \`depth\` levels (default ${HIERARCHY_DEFAULT_DEPTH}), one line each: type, text, id. Structured content nests them in \`children\`; \`truncated\` says when a huge tree was cut.`,
  scope: "read",
  input: z.strictObject({ id: BlockIdParams.shape.id, depth: HierarchyQuery.shape.depth }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(ctx, { id, depth }) {
    const { tree, truncated } = await getHierarchy(ctx, id, depth ?? HIERARCHY_DEFAULT_DEPTH);
    const root = compact(tree, await rowTitles(ctx, nodesOf(tree)));
    const lines = outline(root);
    if (truncated) lines.push("(cut short: the tree is larger than one answer holds)");
    return { text: lines.join("\n"), structured: { tree: root, truncated } };
  },
});
