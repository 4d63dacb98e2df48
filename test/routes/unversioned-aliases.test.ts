import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createUser } from "../helpers/api";

const schemaNames = async (databaseId: string) =>
  (
    await env.DB.prepare("SELECT name FROM database_properties WHERE database_id = ? ORDER BY position")
      .bind(databaseId)
      .all<{ name: string }>()
  ).results.map((row) => row.name);

const DEFAULT_COLUMNS = ["title", "created_time", "created_by", "last_edited_time", "last_edited_by"];

describe("unversioned creation paths", () => {
  it("POST /api/blocks creates a database with its default schema", async () => {
    const user = await createUser();
    const res = await api<{ id: string; type: string; created_by: string }>("/api/blocks", {
      method: "POST",
      auth: user,
      body: { type: "database", properties: { title: "Projects" } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: "database", created_by: user.id });
    expect(await schemaNames(res.body.id)).toEqual(DEFAULT_COLUMNS);
  });

  it("POST /api/pages creates a database with its default schema", async () => {
    const user = await createUser();
    const res = await api<{ id: string; properties: { title: string } }>("/api/pages", {
      method: "POST",
      auth: user,
      body: { type: "database", title: "Reading list" },
    });
    expect(res.status).toBe(201);
    expect(res.body.properties.title).toBe("Reading list");
    expect(await schemaNames(res.body.id)).toEqual(DEFAULT_COLUMNS);
  });

  it("require credentials and refuse bad input like their versioned twins", async () => {
    for (const path of ["/api/blocks", "/api/pages"]) {
      const anonymous = await api(path, { method: "POST", body: { type: "database" } });
      expect(anonymous.status).toBe(401);
      const noType = await api(path, { method: "POST", auth: await createUser(), body: { type: 42 } });
      expect(noType.status).toBe(400);
      expect(noType.body).toMatchObject({ details: { issues: [expect.objectContaining({ path: "type" })] } });
    }
  });

  it("only create: other methods are a 405", async () => {
    const res = await api("/api/blocks", { auth: await createUser() });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("POST");
  });
});
