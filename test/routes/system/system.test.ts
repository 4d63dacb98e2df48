import { describe, expect, it } from "vitest";
import { api } from "../../helpers/api";

describe("system endpoints", () => {
  it("GET / describes the deployment without credentials", async () => {
    const res = await api("/");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String), environment: "test", isVercel: false });
  });

  it("GET /test answers without credentials", async () => {
    const res = await api("/test");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String) });
  });
});
