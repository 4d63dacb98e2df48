import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { meterD1, type RoundTripMeter } from "../../src/db/round-trips";
import { answerAsStatement, wrapD1 } from "../../src/db/wrap-d1";
import { createUser } from "../helpers/api";

const metered = () => {
  const meter: RoundTripMeter = { count: 0, milliseconds: 0 };
  return { meter, d1: meterD1(env.DB, meter) };
};

describe("the D1 wrapper", () => {
  it("lets a batch hook surround every batch with statements of its own, in the same round trip and atomically", async () => {
    const user = await createUser();
    const { meter, d1: underneath } = metered();
    const surrounding: unknown[][] = [];
    let after = "SELECT 'after' AS at";
    const d1 = wrapD1(underneath, {
      batch: async (statements, send) => {
        const results = await send([
          underneath.prepare("SELECT 'before' AS at"),
          ...statements,
          underneath.prepare(after),
        ]);
        surrounding.push([results[0]?.results, results.at(-1)?.results]);
        return results.slice(1, -1);
      },
    });

    const results = await d1.batch([d1.prepare("SELECT ? AS n").bind(1), d1.prepare("SELECT ? AS n").bind(2)]);
    expect(results.map((result) => result.results)).toEqual([[{ n: 1 }], [{ n: 2 }]]);
    expect(surrounding).toEqual([[[{ at: "before" }], [{ at: "after" }]]]);
    expect(meter.count).toBe(1);

    // The added statements commit or fail with the work: a failing one undoes the write.
    after = "SELECT json('not json')";
    await expect(
      d1.batch([d1.prepare("UPDATE users SET name = 'changed' WHERE id = ?").bind(user.id)]),
    ).rejects.toThrow(/malformed JSON/i);
    expect(await env.DB.prepare("SELECT name FROM users WHERE id = ?").bind(user.id).first("name")).toBeNull();
  });

  it("lets a statement hook send a lone statement as a batch and answer as its own method would", async () => {
    const user = await createUser();
    const { meter, d1: underneath } = metered();
    const d1 = wrapD1(underneath, {
      statement: async (call) => {
        const [result] = (await underneath.batch([call.statement])) as [D1Result<Record<string, unknown>>];
        return answerAsStatement(result, call.method, call.args);
      },
    });
    const mine = d1.prepare("SELECT id, email FROM users WHERE id = ?").bind(user.id);
    const direct = env.DB.prepare("SELECT id, email FROM users WHERE id = ?").bind(user.id);
    expect(await mine.first()).toEqual(await direct.first());
    expect(await mine.first("email")).toBe(user.email);
    expect(await mine.raw()).toEqual(await direct.raw());
    expect(await mine.raw({ columnNames: true })).toEqual(await direct.raw({ columnNames: true }));
    expect((await mine.all()).results).toEqual((await direct.all()).results);
    expect(meter.count).toBe(5);
  });
});
