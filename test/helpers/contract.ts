import { api } from "./api";

/** What the walks over the contract read of an operation. */
export interface ContractOperation {
  operationId?: string;
  description?: string;
  security?: Record<string, string[]>[];
  responses: Record<string, { headers?: Record<string, { $ref?: string; description?: string }> }>;
}

const HTTP_METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** Every operation of the served contract, named `METHOD /path` as the contract writes the path. */
export async function contractOperations() {
  type Paths = Record<string, Partial<Record<(typeof HTTP_METHODS)[number], ContractOperation>>>;
  const document = await api<{ paths: Paths }>("/documentation/openapi.json");
  return Object.entries(document.body.paths).flatMap(([path, item]) =>
    HTTP_METHODS.flatMap((method) => {
      const operation = item[method];
      return operation ? [{ name: `${method.toUpperCase()} ${path}`, path, method, operation }] : [];
    }),
  );
}

/** The operations that need a credential (a non-empty `security`). */
export const securedOf = (operations: Awaited<ReturnType<typeof contractOperations>>) =>
  operations.filter(({ operation }) => (operation.security ?? []).length > 0);

/** A concrete URL for a templated path: every parameter filled with an id nobody owns. */
export const concrete = (path: string) => path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000");
