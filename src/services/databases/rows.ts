import { type Block, type BlockRecord, presentBlock } from "../blocks/record";
import type { DatabaseSchema } from "./property-types";
import { propertiesByName } from "./row-values";

/** A database row: the block, plus its properties keyed by display name (regenerated, never stored). */
export interface Row extends Block {
  properties_by_name: Record<string, unknown>;
}

export function presentRow(schema: DatabaseSchema, record: BlockRecord): Row {
  const block = presentBlock(record);
  return { ...block, properties_by_name: propertiesByName(schema, block.properties, block) };
}
