import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { HEALTH_MEDIA_TYPE } from "../../../src/routes/system/system.routes";
import { EXPECTED_MIGRATION } from "../../../src/services/health/health";
import { api } from "../../helpers/api";
import { contractOperations } from "../../helpers/contract";

interface Check {
  componentType: string;
  status: string;
  observedValue?: string | number;
  observedUnit?: string;
  time: string;
  output?: string;
}
interface Health {
  status: "pass" | "fail";
  description: string;
  checks: Record<string, Check[]>;
}

const health = async () => {
  const res = await api<string>("/health");
  return { ...res, report: JSON.parse(res.body) as Health };
};

const FUTURE_MIGRATION = "9999_not_in_this_code.sql";

afterEach(async () => {
  await env.DB.prepare("DELETE FROM d1_migrations WHERE name = ?").bind(FUTURE_MIGRATION).run();
});

describe("GET /health", () => {
  it("declares the Cache-Control it is sent with, on a pass and on a fail", async () => {
    const operations = await contractOperations();
    const operation = operations.find(({ name }) => name === "GET /health")?.operation;
    for (const status of ["200", "503"]) {
      expect(Object.keys(operation?.responses[status]?.headers ?? {}), status).toContain("Cache-Control");
    }
  });

  it("answers 200 pass with D1, its migration, R2 and the Durable Object namespace, without a credential", async () => {
    const res = await health();
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain(HEALTH_MEDIA_TYPE);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.report.status).toBe("pass");
    expect(Object.keys(res.report.checks).sort()).toEqual([
      "database:migration",
      "database:responseTime",
      "reminderQueue:responseTime",
      "storage:responseTime",
    ]);
    for (const [name, [check]] of Object.entries(res.report.checks)) {
      expect(check?.status, name).toBe("pass");
      expect(Number.isNaN(Date.parse(check?.time ?? "")), name).toBe(false);
    }
    expect(res.report.checks["database:migration"]?.[0]?.observedValue).toBe(EXPECTED_MIGRATION);
    expect(res.report.checks["database:responseTime"]?.[0]).toMatchObject({ observedUnit: "ms" });
  });

  it("expects the last migration of the journal this code was built with", () => {
    expect(EXPECTED_MIGRATION).toMatch(/^\d{4}_[a-z0-9_]+\.sql$/);
  });

  it("answers 503 fail naming the database when its migrations are not the ones this code expects", async () => {
    await env.DB.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(FUTURE_MIGRATION).run();
    const res = await health();
    expect(res.status).toBe(503);
    expect(res.report.status).toBe("fail");
    expect(res.report.description).toContain("database:migration");
    expect(res.report.checks["database:migration"]?.[0]).toMatchObject({
      status: "fail",
      observedValue: FUTURE_MIGRATION,
      output: expect.stringContaining(EXPECTED_MIGRATION),
    });
    // The others still answered.
    expect(res.report.checks["storage:responseTime"]?.[0]?.status).toBe("pass");
  });

  it("reads nothing of any user and carries no quota fields (an open route)", async () => {
    const res = await health();
    expect(res.headers.get("RateLimit-Policy")).toBeNull();
    expect(res.body).not.toMatch(/@|sr_/);
  });
});
