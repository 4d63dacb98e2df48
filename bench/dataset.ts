// The benchmark dataset: users and a stream of `blocks` rows, generated from a
// fixed seed so every run (and both sizes) has the same shape and fixtures.
//
// Layout, in insertion order:
//   1. fixtures, identical at every size: a page with a fixed set of children
//      (get-one and children), and a CHAIN_DEPTH-deep chain of pages (hierarchy);
//   2. filler up to the requested size: page trees (page > sub-pages > sub-pages,
//      each with text blocks, some with a database of rows), 80% owned by the
//      bench user, 10% by other users, 10% shared (created_by NULL), a few
//      archived or trashed. SEARCH_PLANTED paragraphs spread through the filler
//      carry SEARCH_WORD, so search results do not grow with the size.
import type { BlockRecord } from "../src/services/blocks/presenter.ts";
import { CHAIN_DEPTH, SEARCH_PLANTED, SEARCH_WORD } from "./config.ts";

/**
 * A `blocks` row as inserted (the service's own row type); `seq`, `schema_version` and `version` (0) and
 * the generated `position_key` are left to SQLite. JSON columns are text.
 */
export type BlockRow = Omit<
  BlockRecord,
  "seq" | "schema_version" | "version" | "position_key" | "archived" | "in_trash"
> & {
  archived: 0 | 1;
  in_trash: 0 | 1;
};

export interface UserRow {
  id: string;
  email: string;
  name: string;
}

/** What the load tests ask for, and what a correct answer contains. */
export interface Fixtures {
  benchUserId: string;
  /** A paragraph the bench user owns (get-one). */
  blockId: string;
  /** A page the bench user owns (children). */
  pageId: string;
  pageChildCount: number;
  /** Root of the chain (hierarchy at depth CHAIN_DEPTH). */
  chainRootId: string;
  /** Blocks in the chain's tree down to CHAIN_DEPTH, root included. */
  chainNodeCount: number;
  /** Planted search matches the bench user may see (the rest belong to someone else). */
  searchVisibleCount: number;
}

export interface Dataset {
  size: number;
  users: UserRow[];
  fixtures: Fixtures;
  /** Exactly `size` rows, parents before their children. */
  blocks: () => Generator<BlockRow>;
}

const OTHER_USERS = 20;
const TEAMSPACES = 5;
/** Owners of the planted search blocks: most the bench user's, some shared, some someone else's. */
const SEARCH_OWNERS: readonly ("bench" | "shared" | "other")[] = [
  ...Array<"bench">(SEARCH_PLANTED - 4).fill("bench"),
  "shared",
  "shared",
  "other",
  "other",
];

/** Filler text. No word shares a prefix with SEARCH_WORD, which is searched as a prefix. */
const VOCABULARY = (
  "the a of and to in for on with as by at from project plan review meeting notes team design roadmap " +
  "customer release feature bug fix sprint goal metric revenue budget quarter launch draft spec api " +
  "database migration index query latency throughput cache deploy staging production incident retro " +
  "onboarding hiring interview candidate offer policy security audit access token key rotation backup " +
  "restore schedule deadline owner status blocked done progress priority high low medium follow up " +
  "action item decision summary context problem proposal alternative risk mitigation estimate scope " +
  "milestone dependency vendor contract invoice payment support ticket escalation feedback survey " +
  "research experiment result analysis dashboard report weekly monthly annual planning strategy " +
  "marketing campaign content blog newsletter social event conference travel expense office remote"
).split(" ");

const TEXT_TYPES = ["paragraph", "paragraph", "paragraph", "heading_2", "to_do", "bulleted_list_item"] as const;

/** Mulberry32: tiny, seedable, good enough to shape test data. */
export function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number): number => Math.floor(next() * below);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  /** A v4-shaped UUID, so ids index like the Worker's `crypto.randomUUID()` ones. */
  const uuid = (): string => {
    const hex = Array.from({ length: 32 }, () => int(16).toString(16));
    hex[12] = "4";
    hex[16] = (8 + int(4)).toString(16);
    const s = hex.join("");
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  };
  return { next, int, pick, uuid };
}

type Random = ReturnType<typeof createRandom>;

const EPOCH = Date.parse("2026-01-01T00:00:00Z");
const DAY = 86_400_000;

/** Created within the year before EPOCH, updated up to 30 days later. */
function timestamps(random: Random): Pick<BlockRow, "created_at" | "updated_at"> {
  const created = EPOCH - random.next() * 365 * DAY;
  const updated = Math.min(EPOCH, created + random.next() * 30 * DAY);
  return { created_at: new Date(created).toISOString(), updated_at: new Date(updated).toISOString() };
}

function sentence(random: Random, minWords: number, maxWords: number): string {
  const count = minWords + random.int(maxWords - minWords + 1);
  return Array.from({ length: count }, () => random.pick(VOCABULARY)).join(" ");
}

/** Generates one dataset of `size` blocks. Same size, same rows. */
export function createDataset(size: number): Dataset {
  // Ids of users and fixtures come from their own stream so they are known before the rows are.
  const ids = createRandom(1);
  const benchUser: UserRow = { id: ids.uuid(), email: "bench@example.test", name: "Bench User" };
  const others: UserRow[] = Array.from({ length: OTHER_USERS }, (_, i) => ({
    id: ids.uuid(),
    email: `user${String(i + 1).padStart(2, "0")}@example.test`,
    name: `User ${i + 1}`,
  }));
  const teamspaces = Array.from({ length: TEAMSPACES }, () => ids.uuid());
  const fixturePageId = ids.uuid();
  const fixtureTextIds = Array.from({ length: 8 }, () => ids.uuid());
  const fixtureSubpageIds = Array.from({ length: 2 }, () => ids.uuid());
  const chainIds = Array.from({ length: CHAIN_DEPTH + 1 }, () => ids.uuid());
  // Every chain page has one text block; the deepest page's is one level past CHAIN_DEPTH,
  // so a correct depth cut-off leaves it out.
  const chainNodeCount = chainIds.length + CHAIN_DEPTH;
  if (size < 1_000) throw new Error(`Dataset size ${size} is too small for the fixtures and search plants`);

  function* blocks(): Generator<BlockRow> {
    const random = createRandom(size);
    let emitted = 0;

    const row = (fields: Partial<BlockRow> & Pick<BlockRow, "id" | "type" | "properties">): BlockRow => {
      emitted += 1;
      return {
        parent_id: null,
        database_id: null,
        teamspace_id: null,
        content: null,
        position: null,
        archived: 0,
        in_trash: 0,
        created_by: null,
        last_edited_by: null,
        ...timestamps(random),
        ...fields,
      };
    };
    const page = (id: string, parentId: string | null, owner: string | null, position: number) =>
      row({
        id,
        type: "page",
        parent_id: parentId,
        teamspace_id: random.pick(teamspaces),
        properties: JSON.stringify({ title: `${sentence(random, 2, 5)} ${position}`, icon: "📄" }),
        position,
        created_by: owner,
        last_edited_by: owner,
      });
    const text = (
      parentId: string,
      owner: string | null,
      position: number,
      body = sentence(random, 8, 24),
      id = random.uuid(),
    ) => {
      const type = random.pick(TEXT_TYPES);
      const content = { rich_text: [{ type: "text", text: body }], ...(type === "to_do" ? { checked: false } : {}) };
      return row({
        id,
        type,
        parent_id: parentId,
        properties: JSON.stringify({ color: "default" }),
        content: JSON.stringify(content),
        position,
        created_by: owner,
        last_edited_by: owner,
      });
    };

    // 1. Fixtures: always active and the bench user's.
    const me = benchUser.id;
    yield page(fixturePageId, null, me, 1);
    for (const [i, id] of fixtureTextIds.entries()) yield text(fixturePageId, me, i + 1, undefined, id);
    for (const [i, id] of fixtureSubpageIds.entries()) yield page(id, fixturePageId, me, fixtureTextIds.length + i + 1);
    for (const [level, id] of chainIds.entries()) {
      yield page(id, chainIds[level - 1] ?? null, me, 1);
      yield text(id, me, 2);
    }

    // 2. Filler, with SEARCH_WORD planted in evenly spaced paragraphs.
    const fixtureCount = emitted;
    const fillerSize = size - fixtureCount;
    const plantEvery = Math.floor(fillerSize / (SEARCH_PLANTED + 1));
    let planted = 0;
    const ownerOfPlanted = (index: number): string | null => {
      const kind = SEARCH_OWNERS[index];
      return kind === "bench" ? me : kind === "other" ? (others[index % others.length]?.id ?? null) : null;
    };

    // Recursion over one page tree; `depth` 0 is a top-level page. Returns early once `size` is reached.
    function* tree(
      parentId: string | null,
      owner: string | null,
      depth: number,
      position: number,
    ): Generator<BlockRow> {
      const pageId = random.uuid();
      const pageRow = page(pageId, parentId, owner, position);
      if (depth > 0 && random.next() < 0.01) pageRow.archived = 1;
      yield pageRow;
      const textCount = 4 + random.int(5);
      for (let i = 1; i <= textCount && emitted < size; i++) {
        const due = planted < SEARCH_PLANTED && emitted - fixtureCount >= (planted + 1) * plantEvery;
        if (due) {
          // Planted blocks are active and owned per SEARCH_OWNERS, whoever owns the page around them.
          const plantedOwner = ownerOfPlanted(planted);
          yield text(pageId, plantedOwner, i, `${sentence(random, 4, 8)} ${SEARCH_WORD} ${sentence(random, 4, 8)}`);
          planted += 1;
          continue;
        }
        const block = text(pageId, owner, i);
        const roll = random.next();
        if (roll < 0.02) block.archived = 1;
        else if (roll < 0.03) block.in_trash = 1;
        yield block;
      }
      const subpages = depth === 0 ? 3 : depth === 1 ? 2 : 0;
      for (let i = 1; i <= subpages && emitted < size; i++) yield* tree(pageId, owner, depth + 1, textCount + i);
      if (depth === 0 && random.next() < 0.25 && emitted < size)
        yield* database(pageId, owner, textCount + subpages + 1);
    }

    function* database(parentId: string, owner: string | null, position: number): Generator<BlockRow> {
      const databaseId = random.uuid();
      yield row({
        id: databaseId,
        type: "database",
        parent_id: parentId,
        properties: JSON.stringify({ title: `${sentence(random, 1, 3)} tracker` }),
        position,
        created_by: owner,
        last_edited_by: owner,
      });
      const rows = 8 + random.int(9);
      for (let i = 1; i <= rows && emitted < size; i++) {
        yield row({
          id: random.uuid(),
          type: "database_row",
          parent_id: databaseId,
          database_id: databaseId,
          properties: JSON.stringify({
            title: sentence(random, 2, 6),
            Status: random.pick(["Not started", "In progress", "Done"]),
            Priority: random.pick(["Low", "Medium", "High"]),
            Notes: sentence(random, 3, 10),
          }),
          position: i,
          created_by: owner,
          last_edited_by: owner,
        });
      }
    }

    for (let position = 2; emitted < size; position++) {
      const roll = random.next();
      const owner = roll < 0.8 ? me : roll < 0.9 ? random.pick(others).id : null;
      yield* tree(null, owner, 0, position);
    }
    if (planted !== SEARCH_PLANTED) throw new Error(`Planted ${planted} search blocks, expected ${SEARCH_PLANTED}`);
  }

  return {
    size,
    users: [benchUser, ...others],
    fixtures: {
      benchUserId: benchUser.id,
      blockId: fixtureTextIds[0] as string,
      pageId: fixturePageId,
      pageChildCount: fixtureTextIds.length + fixtureSubpageIds.length,
      chainRootId: chainIds[0] as string,
      chainNodeCount,
      searchVisibleCount: SEARCH_OWNERS.filter((owner) => owner !== "other").length,
    },
    blocks,
  };
}
