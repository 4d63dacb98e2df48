/** JSON path of a property inside `blocks.properties` (ids are quoted: legacy ids may hold spaces). */
export const propertyPath = (propertyId: string) => `$."${propertyId.replaceAll('"', '\\"')}"`;
