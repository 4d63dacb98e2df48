import { describe, expect, it } from "vitest";
import { createUser, type TestUser } from "../../helpers/api";
import {
  expectConditionalRead,
  expectPreconditionFailed,
  expectRacingWriters,
  expectWrittenTag,
  sendWith,
} from "../../helpers/conditional";
import { createDatabase } from "../../helpers/databases";
import { createView, getView, postView, storedView, VIEWS } from "../../helpers/views";

const send = sendWith;

async function viewOf(user: TestUser) {
  const database = await createDatabase(user, { properties: [{ name: "Notes", type: "text" }] });
  const view = await createView(user, database.id, { view_type: "table", name: "All" });
  return { database, view, path: `${VIEWS}/view/${view.id}` };
}

describe("saved view validators (RFC 9110 §8.8.3, §13.1)", () => {
  it("a read answers a strong ETag; If-None-Match with it is 304 with no body", async () => {
    const user = await createUser();
    const { path } = await viewOf(user);
    await expectConditionalRead(user, path);
  });

  it("a creation answers the new view's ETag, the one a read of it answers", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { properties: [{ name: "Notes", type: "text" }] });
    const created = await postView(user, database.id, { view_type: "board", name: "Board" });
    await expectWrittenTag(created, null, () => getView(user, created.body.id));
  });

  it("PATCH answers the new tag; a stale If-Match is a 412 on PATCH and DELETE, and nothing is written", async () => {
    const user = await createUser();
    const { view, path } = await viewOf(user);
    const stale = (await getView(user, view.id)).headers.get("ETag") ?? "";
    const patched = await send(user, "PATCH", path, { "If-Match": stale }, { name: "Renamed" });
    const current = await expectWrittenTag(patched, stale, () => getView(user, view.id));
    const stored = await storedView(view.id);
    for (const [method, body] of [
      ["PATCH", { name: "clobber" }],
      ["DELETE", undefined],
    ] as const) {
      const res = await send(user, method, path, { "If-Match": stale }, body);
      expectPreconditionFailed(res, current, method);
    }
    expect(await storedView(view.id)).toEqual(stored);
    expect((await send(user, "DELETE", path, { "If-Match": current ?? "" })).status).toBe(200);
    expect(await storedView(view.id)).toBeNull();
  });

  it("two writers racing with one tag: exactly one wins, the other is a 412, the stored name is the winner's", async () => {
    const user = await createUser();
    const { view, path } = await viewOf(user);
    await expectRacingWriters({
      read: () => getView(user, view.id),
      write: (tag, value) => send(user, "PATCH", path, { "If-Match": tag }, { name: value }),
      stored: async () => (await getView(user, view.id)).body.name,
    });
  });

  it("If-Match: * writes while it exists; another user's view is a 404 whatever the preconditions", async () => {
    const owner = await createUser();
    const other = await createUser();
    const { path } = await viewOf(owner);
    expect((await send(owner, "PATCH", path, { "If-Match": "*" }, { name: "Any" })).status).toBe(200);
    expect((await send(other, "PATCH", path, { "If-Match": "*" }, { name: "x" })).status).toBe(404);
    expect((await send(other, "DELETE", path, { "If-Match": '"stale"' })).status).toBe(404);
    expect((await send(other, "GET", path, { "If-None-Match": "*" })).status).toBe(404);
  });
});
