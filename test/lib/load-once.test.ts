import { describe, expect, it } from "vitest";
import { loadOnce } from "../../src/lib/load-once";

describe("loadOnce", () => {
  it("loads at the first call and answers every later call with the module kept, loading no more", async () => {
    let loads = 0;
    const module = { name: "the module" };
    const load = loadOnce(async () => {
      loads += 1;
      return module;
    });
    expect(loads).toBe(0);
    expect(await load()).toBe(module);
    expect(await load()).toBe(module);
    expect(loads).toBe(1);
  });

  it("keeps the module, not a pending promise: overlapping first calls each load, and the first loaded is kept", async () => {
    let loads = 0;
    const load = loadOnce(async () => ({ load: ++loads }));
    const [first, second] = await Promise.all([load(), load()]);
    expect(loads).toBe(2);
    expect(second).toBe(first);
    expect(await load()).toBe(first);
  });

  it("a failed load is not kept: the next call tries again", async () => {
    let loads = 0;
    const load = loadOnce(async () => {
      loads += 1;
      if (loads === 1) throw new Error("not now");
      return "loaded";
    });
    await expect(load()).rejects.toThrow("not now");
    expect(await load()).toBe("loaded");
  });
});
