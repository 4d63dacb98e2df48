import type { Row } from "../../schemas/databases";
import { type BlockRecord, presentBlock } from "../blocks/presenter";
import type { DatabaseSchema } from "./property-types";
import { propertiesByName } from "./row-values";

export type { Row };

export function presentRow(schema: DatabaseSchema, record: BlockRecord): Row {
  const block = presentBlock(record);
  return { ...block, properties_by_name: propertiesByName(schema, block.properties, block) };
}
