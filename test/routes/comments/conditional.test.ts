import { describe, expect, it } from "vitest";
import { api, createUser } from "../../helpers/api";
import { createBlock } from "../../helpers/blocks";
import { COMMENTS, createComment, storedComment } from "../../helpers/comments";
import { sendWith } from "../../helpers/conditional";
import { sessionOf } from "../../helpers/cursor-matrix";

// A comment has no entity tag, so If-Match can name no version of it (RFC 9110 §13.1.1): a listed
// tag is a 412 and nothing is written; `*` writes while it exists.

const send = sendWith<{ error?: string; details?: Record<string, unknown> }>;

describe("If-Match on writes of a resource without an entity tag", () => {
  it("PATCH and DELETE of a comment with a listed tag: 412 without ETag, the comment unchanged", async () => {
    const user = await createUser();
    const comment = await createComment(user, (await createBlock(user, { type: "paragraph" })).id, "Ship it?");
    const stored = await storedComment(comment.id);
    for (const [method, body] of [
      ["PATCH", { content: "Overwritten" }],
      ["DELETE", undefined],
      ["POST", {}],
    ] as const) {
      const path = method === "POST" ? `${COMMENTS}/${comment.id}/resolve` : `${COMMENTS}/${comment.id}`;
      const res = await send(user, method, path, { "If-Match": '"c.anything"' }, body);
      expect(res.status, method).toBe(412);
      expect(res.body).toMatchObject({ code: "precondition_failed", details: { header: "If-Match" } });
      expect(res.body.error).toContain("no entity tag");
      expect(res.headers.get("ETag")).toBeNull();
    }
    expect(await storedComment(comment.id)).toEqual(stored);
    const patched = await send(user, "PATCH", `${COMMENTS}/${comment.id}`, { "If-Match": "*" }, { content: "Edited" });
    expect(patched.status).toBe(200);
    expect((await storedComment(comment.id))?.content).toBe("Edited");
    expect((await send(user, "DELETE", `${COMMENTS}/${comment.id}`, { "If-Match": "*" })).status).toBe(200);
    expect(await storedComment(comment.id)).toBeNull();
    // `*` on what is not there: the route's own 404.
    expect((await send(user, "DELETE", `${COMMENTS}/${comment.id}`, { "If-Match": "*" })).status).toBe(404);
  });

  it("the 412 wrote nothing, so it frees its Idempotency-Key: the same key without If-Match then runs", async () => {
    const user = await createUser();
    const comment = await createComment(user, (await createBlock(user, { type: "paragraph" })).id);
    const key = `"${crypto.randomUUID()}"`;
    const path = `${COMMENTS}/${comment.id}`;
    const body = { content: "Once" };
    const refused = await send(user, "PATCH", path, { "If-Match": '"stale"', "Idempotency-Key": key }, body);
    expect(refused.status).toBe(412);
    const ran = await send(user, "PATCH", path, { "Idempotency-Key": key }, body);
    expect(ran.status).toBe(200);
    expect(ran.headers.get("Idempotent-Replayed")).toBeNull();
    expect((await storedComment(comment.id))?.content).toBe("Once");
  });

  it("revoking an API key with a listed tag is a 412: the key keeps working", async () => {
    const user = await createUser();
    const session = await sessionOf(user);
    const created = await api<{ id: string; key: string }>("/api/v1/api-keys", {
      method: "POST",
      auth: session,
      body: { name: "agent" },
    });
    const revoke = (ifMatch: string) =>
      api(`/api/v1/api-keys/${created.body.id}`, { method: "DELETE", auth: session, headers: { "If-Match": ifMatch } });
    expect((await revoke('"k.stale"')).status).toBe(412);
    expect((await api("/api/v1/blocks", { auth: created.body.key })).status).toBe(200);
    expect((await revoke("*")).status).toBe(200);
    expect((await api("/api/v1/blocks", { auth: created.body.key })).status).toBe(401);
  });
});
