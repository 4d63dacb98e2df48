import { vi } from "vitest";

/** What a faked third party does with each request the service sends it. */
export type ThirdParty = (request: Request) => Response | Promise<Response>;

export interface FakedThirdParties {
  /** Every request the service sent, in order. */
  requests: Request[];
  restore(): void;
}

/**
 * Replaces the third parties at the fetch boundary (the global `fetch` that
 * lib/outbound.ts calls): `handler` answers every outbound request until
 * `restore()`. Responses are built inside the handler, so they belong to the
 * request that reads them. Nothing of the service itself is replaced.
 */
export function fakeThirdParties(handler: ThirdParty): FakedThirdParties {
  const requests: Request[] = [];
  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input as RequestInfo, init as RequestInit);
    requests.push(request);
    return handler(request);
  });
  return { requests, restore: () => spy.mockRestore() };
}

/** Resolves when `signal` aborts: a third party that never answers. */
export const untilAborted = (signal: AbortSignal): Promise<never> =>
  new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
