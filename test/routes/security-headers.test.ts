import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { type ApiResponse, api, createUser } from "../helpers/api";
import { BLOCKS } from "../helpers/blocks";
import { createDatabase, createRow } from "../helpers/databases";
import { createPage, PAGES } from "../helpers/pages";

// What browsers and spreadsheets do with our responses: no content sniffing,
// no scripts in exported HTML, no formulas run from exported CSV.

const expectNoSniff = (res: ApiResponse, what: string) =>
  expect(res.headers.get("X-Content-Type-Options"), what).toBe("nosniff");

describe("X-Content-Type-Options: nosniff on every response", () => {
  it("on successes, errors, exports and the OpenAPI document", async () => {
    const user = await createUser();
    const page = await createPage(user, { title: "Sniffed" });

    const responses: [string, ApiResponse, number][] = [
      ["200 JSON", await api(`${PAGES}/${page.id}`, { auth: user }), 200],
      ["201 JSON", await api(BLOCKS, { method: "POST", auth: user, body: { type: "paragraph" } }), 201],
      ["404", await api(`${BLOCKS}/${crypto.randomUUID()}`, { auth: user }), 404],
      ["401", await api(PAGES), 401],
      ["400", await api(BLOCKS, { method: "POST", auth: user, body: "{not json" }), 400],
      ["markdown export", await api(`${PAGES}/${page.id}/export?format=markdown`, { auth: user }), 200],
      ["html export", await api(`${PAGES}/${page.id}/export?format=html`, { auth: user }), 200],
      ["openapi.json", await api("/documentation/openapi.json"), 200],
    ];

    for (const [what, res, status] of responses) {
      expect(res.status, what).toBe(status);
      expectNoSniff(res, what);
    }
  });
});

describe("HTML exports", () => {
  it("carry a restrictive Content-Security-Policy header", async () => {
    const user = await createUser();
    const page = await createPage(user, {
      title: "Scripted",
      content: [{ type: "paragraph", children: [{ text: "<script>alert(1)</script>" }] }],
    });

    const res = await api<string>(`${PAGES}/${page.id}/export?format=html`, { auth: user });

    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("text/html");
    const policy = res.headers.get("Content-Security-Policy") ?? "";
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("sandbox");
    expect(policy).not.toContain("script-src");
    expect(res.body).not.toContain("<script>alert(1)</script>");
  });
});

const FORMULA_NAME = '=HYPERLINK("http://evil.test")';

describe("CSV exports neutralise cells a spreadsheet would run as formulas", () => {
  it("prefixes text, title values and property names starting with = + - @ tab or CR with '; numbers stay", async () => {
    const user = await createUser();
    const database = await createDatabase(user, {
      title: "Formulas",
      properties: [
        { name: FORMULA_NAME, type: "text" },
        { name: "Amount", type: "number" },
        { name: "@Notes", type: "text" },
      ],
    });
    const formula = FORMULA_NAME;
    const rows = [
      { title: "=1+2", [formula]: "+cmd|' /C calc'!A0", Amount: -5, "@Notes": "-2+3" },
      { title: "@SUM(A1:A2)", [formula]: "\t=tab", Amount: 12.5, "@Notes": "\r=cr" },
      { title: "plain", [formula]: "a=b", Amount: 0, "@Notes": "no formula - here" },
      { title: "=1+2\nsecond line", [formula]: "-", Amount: 1, "@Notes": "@" },
    ];
    for (const row of rows) await createRow(user, database.id, row);

    const res = await api<string>(`${PAGES}/${database.id}/export?format=csv`, { auth: user });

    expect(res.status).toBe(200);
    const parsed = Papa.parse<string[]>(res.body, { newline: "\r\n" }).data;
    const header = parsed[0] ?? [];
    const column = (name: string) => header.indexOf(name);
    expect(header).toContain(`'${formula}`);
    expect(header).toContain("'@Notes");
    expect(header).toContain("Amount");
    const cells = parsed.slice(1).map((line) => ({
      title: line[column("title")],
      formula: line[column(`'${formula}`)],
      amount: line[column("Amount")],
      notes: line[column("'@Notes")],
    }));
    expect(cells).toEqual([
      { title: "'=1+2", formula: "'+cmd|' /C calc'!A0", amount: "-5", notes: "'-2+3" },
      { title: "'@SUM(A1:A2)", formula: "'\t=tab", amount: "12.5", notes: "'\r=cr" },
      { title: "plain", formula: "a=b", amount: "0", notes: "no formula - here" },
      { title: "'=1+2\nsecond line", formula: "'-", amount: "1", notes: "'@" },
    ]);
    expectNoSniff(res, "csv export");
  });

  it("prefixes a cell starting with NUL, as ASVS 5.0 V1.2.10 lists it", async () => {
    const user = await createUser();
    const database = await createDatabase(user, { title: "Nul", properties: [{ name: "Note", type: "text" }] });
    await createRow(user, database.id, { title: "\u0000=1+2", Note: "\u0000@SUM(A1:A2)" });

    const res = await api<string>(`${PAGES}/${database.id}/export?format=csv`, { auth: user });

    expect(res.status).toBe(200);
    const [header = [], line = []] = Papa.parse<string[]>(res.body, { newline: "\r\n" }).data;
    expect(line[header.indexOf("title")]).toBe("'\u0000=1+2");
    expect(line[header.indexOf("Note")]).toBe("'\u0000@SUM(A1:A2)");
  });
});
