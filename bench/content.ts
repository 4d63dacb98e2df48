// npm run bench -- content: the editor-content paths (markdown out and in, HTML, PDF,
// validation) on worst-case input of 1 MiB, each timed against plain input of the same size
// on the same path. Runs in Node on the service code itself; see README.md.

import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { registerHooks, stripTypeScriptTypes } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// The services are TypeScript imported without extensions, as bundlers read them. Node strips
// types from .ts files itself, but not parameter properties; these hooks resolve the
// extensionless imports under src/ and transform those files.
const SRC = new URL("../src/", import.meta.url).href;
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (context.parentURL?.startsWith(SRC) && /^\.\.?\//.test(specifier) && !/\.[cm]?[jt]s$/.test(specifier)) {
      return nextResolve(`${specifier}.ts`, context);
    }
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    if (!url.startsWith(SRC) || !url.endsWith(".ts")) return nextLoad(url, context);
    const source = stripTypeScriptTypes(readFileSync(fileURLToPath(url), "utf8"), { mode: "transform" });
    return { format: "module", source, shortCircuit: true };
  },
});

const { contentToMarkdown, markdownToContent } = await import("../src/services/content/markdown.ts");
const { contentToHtml } = await import("../src/services/content/html.ts");
const { contentToPdf } = await import("../src/services/content/pdf.ts");
const { validateContent } = await import("../src/services/content/editor-content.ts");
const { MAX_MARKDOWN_NESTING } = await import("../src/services/content/markdown-tokens.ts");
type ContentItem = import("../src/services/content/schema.ts").ContentItem;

const MiB = 1 << 20;
/** `unit` repeated to about `size` characters. */
const repeat = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length));
const paragraph = (text: string, marks: Record<string, unknown> = {}): ContentItem[] => [
  { type: "paragraph", children: [{ text, ...marks }] },
];
const PROSE = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. ";
const proseMarkdown = (size: number) => repeat(`${PROSE.repeat(4)}\n\n`, size);
const markdownIn = (markdown: string) => () => markdownToContent(markdown);
const markdownOut = (items: ContentItem[]) => () => contentToMarkdown(items);
const nested = (line: (depth: number) => string, size: number) => {
  let markdown = "";
  for (let depth = 0; markdown.length < size; depth++) markdown += line(depth);
  return markdown;
};

interface Case {
  name: string;
  path: string;
  /** The worst case and the plain input of about `size` characters, ready to run. */
  inputs(size: number): { worst: () => unknown; plain: () => unknown };
}

const spans = (count: number, marked: boolean) =>
  Array.from({ length: count }, (_, i) => ({
    text: "word ",
    ...(marked && i % 2 ? { bold: true } : {}),
    ...(marked && i % 3 ? { italic: true } : {}),
    ...(marked && i % 7 ? { link: `https://example.com/${i % 11}` } : {}),
  }));

const CASES: Case[] = [
  {
    name: "bold span holding a run of spaces",
    path: "markdown out",
    inputs: (size) => ({
      worst: markdownOut(paragraph(`a${repeat(" ", size)}b`, { bold: true })),
      plain: markdownOut(paragraph(repeat(PROSE, size), { bold: true })),
    }),
  },
  {
    name: 'run of "!"',
    path: "markdown out",
    inputs: (size) => ({
      worst: markdownOut(paragraph(repeat("!", size))),
      plain: markdownOut(paragraph(repeat(PROSE, size))),
    }),
  },
  {
    name: "spans switching bold, italic and links",
    path: "markdown out",
    inputs: (size) => ({
      worst: markdownOut([{ type: "paragraph", children: spans(size / 64, true) }]),
      plain: markdownOut([{ type: "paragraph", children: spans(size / 64, false) }]),
    }),
  },
  {
    name: "<summary> lines under a <details>",
    path: "markdown in",
    inputs: (size) => ({
      worst: markdownIn(`<details>\n${repeat("<summary>x\n", size)}`),
      plain: markdownIn(proseMarkdown(size)),
    }),
  },
  ...[
    ["unclosed emphasis `*_a`", "", "*_a", ""],
    ["emphasis openers, one closer `*a `", "", "*a ", " a*"],
    ["strikethrough openers, one closer `~~a `", "", "~~a ", " a~~"],
    ["links `[a](b)` without spaces", "", "[a](b)", ""],
    ["unclosed comments `a <!--`", "", "a <!--", ""],
    ["lazy lines of a list item", "- a\n", "b\n", ""],
    ["table-like lines in a paragraph", "a\n", "|b|\n|-|-|\n", ""],
  ].map(
    ([name, head, unit, tail]): Case => ({
      name: name as string,
      path: "markdown in",
      inputs: (size) => ({
        worst: markdownIn(`${head}${repeat(unit as string, size)}${tail}`),
        plain: markdownIn(proseMarkdown(size)),
      }),
    }),
  ),
  {
    name: "backtick runs of every length",
    path: "markdown in",
    inputs: (size) => {
      let markdown = "*";
      for (let run = 1; markdown.length < size; run++) markdown += `${"`".repeat(run)}a`;
      return { worst: markdownIn(markdown), plain: markdownIn(proseMarkdown(size)) };
    },
  },
  {
    // Each line a level deeper, up to the deepest list allowed (a list is two levels), then again.
    name: "lists nested to the limit, a level per line",
    path: "markdown in",
    inputs: (size) => {
      const depths = MAX_MARKDOWN_NESTING / 2 - 1;
      const line = (i: number) => `${i % depths === 0 ? "\n" : ""}${"  ".repeat(i % depths)}- a\n`;
      return { worst: markdownIn(nested(line, size)), plain: markdownIn(proseMarkdown(size)) };
    },
  },
  {
    name: "bold span holding a run of spaces",
    path: "HTML",
    inputs: (size) => ({
      worst: () => contentToHtml(paragraph(`a${repeat(" ", size)}b`, { bold: true })),
      plain: () => contentToHtml(paragraph(repeat(PROSE, size), { bold: true })),
    }),
  },
  {
    name: "a word of characters with no width",
    path: "PDF",
    inputs: (size) => ({
      worst: () => contentToPdf(paragraph(repeat("W\u200d\ufe0f", size))),
      plain: () => contentToPdf(paragraph(repeat(PROSE, size))),
    }),
  },
  {
    name: "spans of alternating marks",
    path: "validation",
    inputs: (size) => {
      const items = (marked: boolean) =>
        Array.from({ length: size / 128 }, (_, i) => ({
          type: "paragraph",
          children: [{ text: "some ", bold: marked && i % 2 === 0 }, { text: "words " }, { text: " ", italic: marked }],
        }));
      return { worst: () => validateContent(items(true)), plain: () => validateContent(items(false)) };
    },
  },
];

/**
 * The fastest of `runs` runs of `run`, in ms. The work is deterministic, so
 * anything above its fastest run is the machine (GC, the other core's load),
 * not the code: the minimum is the steadiest estimate of what the code costs.
 */
async function fastest(run: () => unknown, runs: number): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

interface ContentMeasurement {
  path: string;
  name: string;
  worstMs: number;
  plainMs: number;
  /** Worst case over plain input, both 1 MiB. */
  ratio: number;
  /** The worst case at 1 MiB over the same at 256 KiB: 4 when linear, 16 when quadratic. */
  growth: number;
}

/** Each worst case at 1 MiB against plain input, and at 256 KiB; about 40 s in all. */
export async function measureContent(log: (message: string) => void): Promise<ContentMeasurement[]> {
  const results: ContentMeasurement[] = [];
  for (const { name, path, inputs } of CASES) {
    const full = inputs(MiB);
    // A quarter, not a half: four times the input is 4x the time when linear and 16x when
    // quadratic, far enough apart that timer and GC noise cannot blur them (2x against 4x can).
    const quarter = inputs(MiB / 4);
    // Warm-up of every function timed, so none is measured while the JIT still compiles it.
    await full.plain();
    await quarter.worst();
    const once = await fastest(full.worst, 1);
    // At least three runs, and enough for about 300 ms of each (a path of a few ms needs dozens).
    const runs = Math.min(60, Math.max(3, Math.ceil(300 / once)));
    const worstMs = await fastest(full.worst, runs);
    const plainMs = await fastest(full.plain, runs);
    let quarterMs = await fastest(quarter.worst, runs);
    let growth = worstMs / quarterMs;
    if (growth > MAX_GROWTH) {
      // Measured once more, both sizes interleaved: a pause on a busy machine can land on one
      // size's runs; a super-linear case is over the line every time.
      const fullAgain = await fastest(full.worst, runs);
      quarterMs = await fastest(quarter.worst, runs);
      growth = Math.min(growth, fullAgain / quarterMs);
    }
    const result = { path, name, worstMs, plainMs, ratio: worstMs / plainMs, growth };
    results.push(result);
    log(`${path}: ${name}: ${worstMs.toFixed(0)} ms, plain ${plainMs.toFixed(0)} ms`);
  }
  return results;
}

/** Growth from 256 KiB to 1 MiB above this is reported as super-linear (the geometric middle of 4 and 16). */
export const MAX_GROWTH = 8;

export function formatContentTable(results: readonly ContentMeasurement[]): string {
  const rows = results.map(
    (r) =>
      `| ${r.path} | ${r.name} | ${r.worstMs.toFixed(0)} | ${r.plainMs.toFixed(0)} | ${r.ratio.toFixed(1)} | ${r.growth.toFixed(1)} |${r.growth > MAX_GROWTH ? " FAIL" : ""}`,
  );
  return [
    "| path | worst case (1 MiB) | worst ms | plain ms | ratio | growth |",
    "| --- | --- | ---: | ---: | ---: | ---: |",
    ...rows,
  ].join("\n");
}

/** `npm run bench -- content`, or the content section of a full run: prints and saves the table. */
export async function runContentBench(log: (message: string) => void = console.log): Promise<number> {
  const startedAt = new Date().toISOString();
  const results = await measureContent(log);
  const table = formatContentTable(results);
  console.log(`\n${table}\n`);
  console.log(
    `ratio: worst case over plain input of the same size on the same path; growth: the worst case at 1 MiB over 256 KiB (linear 4, quadratic 16; above ${MAX_GROWTH} fails).`,
  );
  const dir = fileURLToPath(new URL("results/", import.meta.url));
  await mkdir(dir, { recursive: true });
  const json = JSON.stringify({ startedAt, node: process.version, results }, null, 2);
  const markdown = `# Content worst cases, ${startedAt}\n\n${table}\n`;
  for (const base of [`content-${startedAt.replace(/[:.]/g, "-")}`, "content-latest"]) {
    await writeFile(join(dir, `${base}.json`), json);
    await writeFile(join(dir, `${base}.md`), markdown);
  }
  return results.every((r) => r.growth <= MAX_GROWTH) ? 0 : 1;
}
