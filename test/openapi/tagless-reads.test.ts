import { describe, expect, it } from "vitest";
import { api, createUser, type TestUser } from "../helpers/api";
import { expectErrorBody } from "../helpers/auth-matrix";
import { BLOCKS, createBlock } from "../helpers/blocks";
import { contractOperations } from "../helpers/contract";

// A GET whose answer has no entity tag (a listing, a tree, an export) still answers If-Match and
// If-None-Match (RFC 9110 §13.1.1, §13.1.2, §13.2.2): a listed If-Match tag matches nothing (412),
// If-None-Match `*` is false for what exists (304), a listed If-None-Match tag matches nothing
// (the answer as without it); what does not exist is a 404 whatever the preconditions.

const LISTED_TAG = '"b.WyJhbnl0aGluZyJd"';

/** Reads that answer 200 on any account: each with the path it needs. */
const READS: [name: string, path: (user: TestUser, page: string) => string][] = [
  ["a listing", () => BLOCKS],
  ["a search", () => `${BLOCKS}?q=plan`],
  ["a block's children", (_user, page) => `${BLOCKS}/${page}/children`],
  ["a block's hierarchy", (_user, page) => `${BLOCKS}/${page}/hierarchy`],
  ["the change feed", () => "/api/v1/changes"],
  ["a page's export", (_user, page) => `/api/v1/pages/${page}/export?format=markdown`],
];

async function arranged(): Promise<{ user: TestUser; page: string }> {
  const user = await createUser();
  const page = await createBlock(user, { type: "page", properties: { title: "Launch plan" } });
  return { user, page: page.id };
}

describe("a read without an entity tag answers the preconditions", () => {
  it.each(READS)("%s: a listed If-Match tag is a 412 naming the header, with no ETag", async (_name, path) => {
    const { user, page } = await arranged();
    const res = await api(path(user, page), { auth: user, headers: { "If-Match": LISTED_TAG } });
    expectErrorBody(res, 412);
    expect(res.body).toMatchObject({
      code: "precondition_failed",
      details: { header: "If-Match" },
      request_id: res.headers.get("X-Request-Id"),
    });
    expect(res.headers.get("ETag")).toBeNull();
    // The refusal's own headers, not the answer it replaced (an export's attachment, a listing's count).
    expect(res.headers.get("Content-Type")).toContain("application/json");
    expect(res.headers.get("Content-Disposition")).toBeNull();
    expect(res.headers.get("X-Total-Count")).toBeNull();
  });

  it.each(READS)(
    "%s: If-None-Match * is a 304 with no body; If-Match * and a listed If-None-Match answer as without them",
    async (_name, path) => {
      const { user, page } = await arranged();
      const plain = await api(path(user, page), { auth: user });
      expect(plain.status).toBe(200);
      const notModified = await api(path(user, page), { auth: user, headers: { "If-None-Match": "*" } });
      expect(notModified.status).toBe(304);
      expect(notModified.body).toBe("");
      expect(notModified.headers.get("Content-Type")).toBeNull();
      expect(notModified.headers.get("Content-Disposition")).toBeNull();
      expect(notModified.headers.get("Content-Length") ?? "0").toBe("0");
      expect(notModified.headers.get("X-Request-Id")).not.toBeNull();
      for (const headers of [{ "If-Match": "*" }, { "If-None-Match": LISTED_TAG }] as Record<string, string>[]) {
        const res = await api(path(user, page), { auth: user, headers });
        expect(res.status, JSON.stringify(headers)).toBe(200);
        expect(res.body, JSON.stringify(headers)).toEqual(plain.body);
      }
    },
  );

  it("HEAD answers as GET does", async () => {
    const { user } = await arranged();
    const failed = await api(BLOCKS, { method: "HEAD", auth: user, headers: { "If-Match": LISTED_TAG } });
    expect(failed.status).toBe(412);
    expect((await api(BLOCKS, { method: "HEAD", auth: user, headers: { "If-None-Match": "*" } })).status).toBe(304);
  });

  it("what the caller cannot see is a 404 first, another user's included; a malformed field is a 400", async () => {
    const [alice, bob] = [await createUser(), await createUser()];
    const page = await createBlock(alice, { type: "page" });
    for (const headers of [{ "If-Match": LISTED_TAG }, { "If-None-Match": "*" }] as Record<string, string>[]) {
      expectErrorBody(await api(`${BLOCKS}/${page.id}/children`, { auth: bob, headers }), 404);
    }
    const malformed = await api(BLOCKS, { auth: alice, headers: { "If-Match": "not-a-tag" } });
    expectErrorBody(malformed, 400);
    expect(malformed.body).toMatchObject({ details: { header: "If-Match" } });
  });

  it("without a credential it is a 401, whatever the preconditions", async () => {
    expectErrorBody(await api(BLOCKS, { headers: { "If-Match": LISTED_TAG } }), 401);
  });

  it("the contract declares both headers, the 304 and the 412 on every GET whose 200 carries no ETag", async () => {
    const lacking = (await contractOperations())
      .filter(({ method, operation }) => method === "get" && !operation.responses["200"]?.headers?.ETag)
      .filter(({ operation }) => !operation.responses["304"] || !operation.responses["412"])
      .map(({ name }) => name);
    expect(lacking).toEqual([]);
    const { body } = await api<{ paths: Record<string, { get?: { parameters?: { name: string; in: string }[] } }> }>(
      "/documentation/openapi.json",
    );
    const headers = (body.paths["/api/v1/blocks"]?.get?.parameters ?? [])
      .filter((parameter) => parameter.in === "header")
      .map((parameter) => parameter.name);
    expect(headers).toEqual(expect.arrayContaining(["If-Match", "If-None-Match"]));
  });
});
