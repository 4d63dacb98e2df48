import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import development from "../../../src/index";
import production from "../../../src/index.production";

// The explorer is in the development entry only (src/index.ts); deployments use
// src/index.production.ts (`[env.production] main`), which leaves it and its assets out.

async function get(worker: typeof development, path: string, vars: Partial<Env> = {}) {
  const execution = createExecutionContext();
  const response = await worker.fetch(new Request(`http://workspace.test${path}`), { ...env, ...vars }, execution);
  await waitOnExecutionContext(execution);
  return response;
}

const ASSET = "/documentation/assets/swagger-ui-dist/swagger-ui-bundle.js";

describe("the API explorer", () => {
  it("is served by the development entry, with its script, when API_EXPLORER is true", async () => {
    const page = await get(development, "/documentation", { API_EXPLORER: "true" });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("persistAuthorization");
    const script = await get(development, ASSET, { API_EXPLORER: "true" });
    expect(script.status).toBe(200);
    expect(script.headers.get("Content-Type")).toContain("text/javascript");
  });

  it("is a 404 where API_EXPLORER is not true, the contract still served", async () => {
    expect((await get(development, "/documentation", { API_EXPLORER: "false" })).status).toBe(404);
    expect((await get(development, ASSET, { API_EXPLORER: "false" })).status).toBe(404);
    expect((await get(development, "/documentation/openapi.json", { API_EXPLORER: "false" })).status).toBe(200);
  });

  it("is not in the production entry at all, whatever API_EXPLORER says; the contract is", async () => {
    const page = await get(production, "/documentation", { API_EXPLORER: "true" });
    expect(page.status).toBe(404);
    expect(await page.json()).toMatchObject({ code: "not_found" });
    expect((await get(production, ASSET, { API_EXPLORER: "true" })).status).toBe(404);
    const contract = await get(production, "/documentation/openapi.json");
    expect(contract.status).toBe(200);
    expect(((await contract.json()) as { paths: object }).paths).toHaveProperty(["/api/v1/pages"]);
  });
});
