/**
 * From an operation of the OpenAPI document to an arbitrary of requests: a valid-ish
 * base (ids of real objects, parameters and a body drawn from their schemas) and zero to
 * two mutations of it (a bad id, a bad parameter, a bad field, a malformed body, a wrong
 * content type, a wrong credential). Everything is data, so fast-check can shrink it.
 */
import fc from "fast-check";
import { type Operation, type ParameterObject, type Resolve, type SchemaObject, typesOf } from "./openapi";
import {
  Fit,
  Joined,
  type Key,
  type NodePath,
  Obj,
  PoolRef,
  pathName,
  Repeat,
  type Role,
  type Tmpl,
  updateAt,
} from "./template";
import {
  AUTH_VARIANTS,
  type AuthPlan,
  BAD_BYTES,
  BAD_CONTENT_TYPES,
  badText,
  badValue,
  EXTRA_KEYS,
  type Labeled,
  MALFORMED_JSON,
  ODD_HEADERS,
  ODD_STRINGS,
  OTHER_METHODS,
  PATH_SHAPES,
  type PathShape,
} from "./values";

/** How a request body is written. */
export type BodyPlan =
  | { kind: "none" }
  | { kind: "json"; value: Tmpl }
  | { kind: "text"; text: string }
  | { kind: "truncated"; value: Tmpl; cut: number }
  | { kind: "bytes"; bytes: readonly number[] }
  | { kind: "form"; value: Tmpl }
  | { kind: "multipart"; value: Tmpl };

export interface Segment {
  value: Tmpl;
  /** Put into the URL as it is rather than percent-encoded. */
  raw: boolean;
}

export interface QueryEntry extends Segment {
  name: string;
}

/** A request before ids are resolved. */
export interface Plan {
  path: Record<string, Segment>;
  query: QueryEntry[];
  body: BodyPlan;
  /** undefined: the default for the body (application/json for JSON); null: no header. */
  contentType?: string | null;
  /** The fuzzing user's key by default (sent on secured operations only). */
  auth: AuthPlan;
  /** Another method than the operation's. */
  method?: string;
  /** Headers besides Authorization and Content-Type. */
  headers?: Record<string, string>;
  /** Another shape of the path. */
  pathShape?: PathShape;
}

export type Mutation =
  | { t: "path"; name: string; label: string; segment: Segment }
  | { t: "query-set"; name: string; label: string; segment: Segment }
  | { t: "query-drop"; name: string }
  | { t: "query-repeat"; name: string; label: string; segment: Segment }
  | { t: "body-replace"; pick: number; bad: Labeled }
  | { t: "body-delete"; pick: number; entry: number }
  | { t: "body-add"; pick: number; key: Labeled<string>; bad: Labeled }
  | { t: "body-duplicate"; pick: number; entry: number; bad: Labeled }
  | { t: "body-wrap"; pick: number }
  | { t: "body-long-array"; pick: number; count: number }
  | { t: "body-foreign-ref"; pick: number }
  | { t: "body-wrong-kind"; pick: number; role: Role }
  | { t: "body-whole"; label: string; value: Tmpl }
  | { t: "body-raw"; label: string; body: BodyPlan }
  | { t: "content-type"; contentType: string | null; encoding: "json" | "form" | "multipart" }
  | { t: "auth"; auth: AuthPlan }
  | { t: "method"; method: string }
  | { t: "header"; label: string; name: string; value: string }
  | { t: "path-shape"; shape: PathShape };

export interface Case {
  base: Plan;
  mutations: Mutation[];
}

const ref = (role: Role, owner: "self" | "other" = "self") =>
  fc.nat(1000).map((pick) => new PoolRef(role, pick, owner));

const snake = (key: string) => key.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();

/** The kind of object a field or parameter name refers to, if any. */
function roleForName(name: string, apiPath: string): Role[] | undefined {
  const key = snake(name);
  if (key.includes("option")) return ["option"];
  if (key.endsWith("date_property")) return ["dateProperty"];
  if (key === "visible_properties" || key === "property" || key.endsWith("_property")) {
    return ["propertyName", "property"];
  }
  if (key.includes("property")) return apiPath.includes("option") ? ["selectProperty"] : ["property"];
  if (key.includes("view")) return ["view"];
  if (apiPath.includes("/comments") && (key === "id" || key === "parent_id")) return ["comment"];
  if (apiPath.includes("/mentions") && key === "id") return ["mention"];
  if (apiPath.includes("/push-subscriptions") && key === "id") return ["pushSubscription"];
  if (key.endsWith("page_id")) return ["page", "row"];
  if (key.includes("database")) return ["database"];
  if (key === "parent_id") return ["page", "block", "database"];
  if (key === "id" || key === "ids") {
    if (apiPath.includes("/databases")) return ["database"];
    if (apiPath.includes("/pages")) return ["page", "row", "database"];
    return ["block", "page", "row"];
  }
  if (key.endsWith("_id")) return ["block"];
  return undefined;
}

/** Past this depth, valid-ish values stop growing: optional fields and empty arrays are left out. */
const MAX_DEPTH = 6;

const ROLES: Role[] = [
  "block",
  "page",
  "database",
  "row",
  "property",
  "propertyName",
  "selectProperty",
  "dateProperty",
  "option",
  "optionName",
  "view",
  "comment",
  "mention",
  "pushSubscription",
];

const WORDS = ["Alpha", "beta", "Todo", "Done", "Art", "Notes", "Q3 plan", "x", "Hello world", "Due"];

/** Values a database row property might plausibly take: mostly one that fits the property's type. */
const rowValue: fc.Arbitrary<Tmpl> = fc.oneof(
  { weight: 8, arbitrary: fc.nat(1000).map((pick) => new Fit("value", pick)) },
  ref("optionName"),
  ref("option"),
  fc.constantFrom<Tmpl>("Todo", "Art", "Not started", "2026-01-05", "2026-01-05T10:00:00Z", "", null, true, 3, 2.5),
  fc.array(ref("optionName"), { maxLength: 3 }),
  fc.constant(new Obj([["start", "2026-01-05"]])),
  fc.constant(
    new Obj([
      ["start", "2026-01-05"],
      ["end", "2026-01-09"],
    ]),
  ),
  fc.constantFrom(...WORDS),
);

/** Named things grouped by their snake_case spelling, so that `parentId` and `parent_id` form one group. */
function aliasGroups<T>(named: [string, T][]): [string, T][][] {
  const groups = new Map<string, [string, T][]>();
  for (const entry of named) groups.set(snake(entry[0]), [...(groups.get(snake(entry[0])) ?? []), entry]);
  return [...groups.values()];
}

/** Turns a plain JSON value into a template. */
function toTmpl(value: unknown): Tmpl {
  if (Array.isArray(value)) return value.map(toTmpl);
  if (value && typeof value === "object") return new Obj(Object.entries(value).map(([k, v]) => [k, toTmpl(v)]));
  return value as Tmpl;
}

const smallJson: fc.Arbitrary<Tmpl> = fc.jsonValue({ maxDepth: 3 }).map(toTmpl);

/** Builds valid-ish value arbitraries from schemas; one per operation (it knows the path for id roles). */
export class ValidValues {
  private readonly cache = new Map<SchemaObject, Map<string, fc.Arbitrary<Tmpl>>>();

  constructor(
    private readonly resolve: Resolve,
    private readonly vocabulary: Map<string, string[]>,
    private readonly apiPath: string,
  ) {}

  of(schema: SchemaObject | undefined, key?: string, depth = 0): fc.Arbitrary<Tmpl> {
    const resolved = this.resolve(schema);
    const cacheKey = `${key ?? ""}|${depth}`;
    let byKey = this.cache.get(resolved);
    if (!byKey) {
      byKey = new Map();
      this.cache.set(resolved, byKey);
    }
    let arbitrary = byKey.get(cacheKey);
    if (!arbitrary) {
      arbitrary = this.build(resolved, key, depth);
      byKey.set(cacheKey, arbitrary);
    }
    return arbitrary;
  }

  private build(schema: SchemaObject, key: string | undefined, depth: number): fc.Arbitrary<Tmpl> {
    if (schema.allOf) return this.of(this.merge(schema.allOf), key, depth);
    const branches = schema.anyOf ?? schema.oneOf;
    if (branches) return fc.oneof(...branches.map((b) => this.of(b, key, depth + 1)));
    const types = typesOf(schema);
    const nullable = types.includes("null") || (schema.enum?.includes(null) ?? false);
    const main = this.nonNull(schema, types, key, depth);
    const examples = [schema.example, ...(schema.examples ?? [])].filter((e) => e !== undefined).map(toTmpl);
    const withExamples =
      examples.length > 0 ? fc.oneof({ weight: 3, arbitrary: main }, fc.constantFrom(...examples)) : main;
    return nullable ? fc.oneof({ weight: 5, arbitrary: withExamples }, fc.constant(null)) : withExamples;
  }

  private nonNull(schema: SchemaObject, types: string[], key: string | undefined, depth: number): fc.Arbitrary<Tmpl> {
    const enumValues = (schema.enum ?? []).filter((v) => v !== null) as Tmpl[];
    if (key === "operator" && enumValues.length > 0) {
      // A filter operator: mostly one that applies to the property named before it.
      const fitting = fc.nat(1000).map((pick) => new Fit("operator", pick));
      return fc.oneof({ weight: 4, arbitrary: fitting }, fc.constantFrom(...enumValues));
    }
    if (enumValues.length > 0) return fc.constantFrom(...enumValues);
    const type = types.find((t) => t !== "null");
    const roles = key ? roleForName(key, this.apiPath) : undefined;
    if (key === "id" && type === "string") {
      // A caller-supplied id: usually a new one, sometimes one that exists.
      return fc.oneof({ weight: 6, arbitrary: this.string(schema, key) }, ...(roles ?? []).map((role) => ref(role)));
    }
    if (type === "string" || (type === undefined && roles)) {
      if (roles && key !== "ids") return fc.oneof(...roles.map((role) => ref(role)));
      if (key === "ids")
        return fc.array(ref("page"), { minLength: 1, maxLength: 3 }).map((ids) => new Joined(ids, ","));
      return this.string(schema, key);
    }
    if (type === "integer" || type === "number") return this.number(schema, type);
    if (type === "boolean") return fc.boolean();
    if (type === "array") {
      const minLength = schema.minItems ?? 0;
      if (depth >= MAX_DEPTH && minLength === 0) return fc.constant([]);
      const maxLength = depth >= MAX_DEPTH ? minLength : Math.max(minLength, Math.min(schema.maxItems ?? 3, 3));
      return fc.array(this.of(schema.items, key, depth + 1), { minLength, maxLength });
    }
    if (type === "object" || schema.properties) return this.object(schema, key, depth);
    // No type: anything.
    return key === "value" || key === "content" ? fc.oneof(rowValue, smallJson) : smallJson;
  }

  private string(schema: SchemaObject, key: string | undefined): fc.Arbitrary<Tmpl> {
    const min = schema.minLength ?? 0;
    const max = Math.min(schema.maxLength ?? 24, 24);
    const fits = (s: string) => s.length >= min && s.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY);
    const pattern = schema.pattern ? new RegExp(schema.pattern) : undefined;
    const words = (key ? (this.vocabulary.get(key) ?? []) : []).filter((w) => fits(w) && (!pattern || pattern.test(w)));
    if (schema.format === "date-time") return fc.constantFrom("2026-01-05T10:00:00.000Z", "2025-12-31T23:59:59Z");
    if (schema.format === "date") return fc.constantFrom("2026-01-05", "2025-12-31");
    const generated = pattern
      ? fc.stringMatching(pattern, { maxLength: Math.max(max, 1) }).filter(fits)
      : fc.oneof(fc.constantFrom(...WORDS.filter(fits)), fc.string({ minLength: min, maxLength: Math.max(min, max) }));
    return words.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...words) }, generated) : generated;
  }

  private number(schema: SchemaObject, type: string): fc.Arbitrary<Tmpl> {
    const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -5);
    const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 120);
    const integers = fc.integer({ min: Math.ceil(min), max: Math.max(Math.ceil(min), Math.floor(max)) });
    if (type === "integer") return integers;
    return fc.oneof(integers, fc.double({ min, max, noNaN: true, noDefaultInfinity: true }));
  }

  private object(schema: SchemaObject, key: string | undefined, depth: number): fc.Arbitrary<Tmpl> {
    const properties = Object.entries(schema.properties ?? {});
    if (properties.length === 0) {
      // A free-form object: for `properties`, keys are property names or ids of the target database.
      const keyArb: fc.Arbitrary<Key> =
        key === "properties"
          ? fc.oneof(ref("propertyName"), ref("property"), fc.constantFrom("title", "icon", "Status", "meta"))
          : fc.constantFrom("a", "title", "meta", "note");
      const value = key === "properties" ? fc.oneof(rowValue, smallJson) : smallJson;
      return fc
        .array(fc.tuple(keyArb, value), { maxLength: depth >= MAX_DEPTH ? 0 : 4 })
        .map((entries) => new Obj(entries));
    }
    const required = new Set(schema.required ?? []);
    // Alternative spellings of one field (parent_id, parentId): a valid-ish body gives one of them.
    const groups = aliasGroups(properties).filter(
      (group) => depth < MAX_DEPTH || group.some(([name]) => required.has(name)),
    );
    // About two optional fields per object: a body with every field set is refused for one of them.
    const optional = groups.filter((group) => !group.some(([name]) => required.has(name))).length;
    const percent = Math.round(100 * Math.min(0.5, 2 / Math.max(optional, 1)));
    const fields = groups.map((group) => {
      const value = fc.oneof(
        ...group.map(([name, child]) => this.of(child, name, depth + 1).map((v) => [name, v] as const)),
      );
      if (group.some(([name]) => required.has(name))) return value;
      return fc.oneof(
        { weight: percent, arbitrary: value },
        { weight: 100 - percent, arbitrary: fc.constant(undefined) },
      );
    });
    return fc
      .tuple(...fields)
      .map((entries) => new Obj(entries.filter((e): e is readonly [string, Tmpl] => e !== undefined)));
  }

  private merge(parts: SchemaObject[]): SchemaObject {
    const merged: SchemaObject = { type: "object", properties: {}, required: [] };
    for (const part of parts.map(this.resolve)) {
      Object.assign(merged.properties as object, part.properties ?? {});
      merged.required?.push(...(part.required ?? []));
    }
    return merged;
  }
}

/** Bad path segments: each with a label, put into the URL raw or percent-encoded. */
function badSegment(roles: Role[]): fc.Arbitrary<Labeled<Segment>> {
  const raw = (label: string, value: Tmpl): Labeled<Segment> => ({ label, value: { value, raw: true } });
  const enc = (label: string, value: Tmpl): Labeled<Segment> => ({ label, value: { value, raw: false } });
  const otherKinds: Role[] = ["block", "page", "database", "row", "view", "property", "option"];
  return fc.oneof(
    { weight: 3, arbitrary: fc.oneof(...roles.map((role) => ref(role, "other"))).map((r) => enc("other-user", r)) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...otherKinds.filter((k) => !roles.includes(k))), fc.nat(1000))
        .map(([role, pick]) => enc(`wrong-kind:${role}`, new PoolRef(role, pick))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.oneof(...roles.map((role) => ref(role))), fc.constantFrom("%20", "/", "%2F", ".json", "%00", "/.."))
        .map(([r, suffix]) => raw(`valid-plus:${suffix}`, new Joined([r, suffix], ""))),
    },
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        raw("empty", ""),
        enc("space", " "),
        enc("null", "null"),
        enc("zero", "0"),
        enc("negative", "-1"),
        enc("unknown-uuid", "6f1c2a7e-2f0e-4a55-9a83-6a1f4f1b2c3d"),
        enc("unknown-prop-id", "prop_0123456789abcdef"),
        enc("unknown-opt-id", "opt_0123456789abcdef"),
        enc("too-long", new Repeat("a", 129)),
        enc("huge", new Repeat("a", 10_000)),
        enc("huge-unicode", new Repeat("\u00e9", 3000)),
        raw("dot-dot", ".."),
        raw("dot", "."),
        raw("encoded-dot-dot", "%2e%2e"),
        raw("encoded-slash", "a%2Fb"),
        raw("slash", "a/b"),
        raw("encoded-nul", "%00"),
        raw("bad-escape", "%ZZ"),
        raw("lone-percent", "%"),
        raw("overlong-utf8", "%C0%AF"),
        raw("encoded-surrogate", "%ED%A0%80"),
        enc("question-mark", "?x=1"),
        enc("hash", "#frag"),
        raw("wildcard", "*"),
        enc("sql", "' OR '1'='1"),
        raw("double-slash", "/"),
      ),
    },
    { weight: 3, arbitrary: fc.constantFrom(...ODD_STRINGS).map(({ label, value }) => enc(label, value)) },
  );
}

/** A valid-ish value for a query parameter (a query string has no null). */
function queryValue(values: ValidValues, parameter: ParameterObject): fc.Arbitrary<Tmpl> {
  return values.of(parameter.schema, parameter.name).filter((value) => value !== null);
}

const EXTRA_QUERY_NAMES = ["foo", "__proto__", "constructor", "limit[]", "sortBy[]", "", "q\u0000", "p".repeat(1000)];

/** The arbitrary of cases for one operation. */
export function caseArbitrary(resolve: Resolve, vocabulary: Map<string, string[]>, op: Operation) {
  const values = new ValidValues(resolve, vocabulary, op.path);
  const rolesOf = (name: string) => roleForName(name, op.path) ?? ["block"];

  const pathArb = fc.record(
    Object.fromEntries(
      op.pathParams.map((p) => [
        p.name,
        // A parameter with a fixed set of values (an enum, like an AI provider) takes one of them; others name objects.
        (resolve(p.schema).enum
          ? values.of(p.schema, p.name)
          : fc.oneof(...rolesOf(p.name).map((role) => ref(role)))
        ).map((value): Segment => ({ value, raw: false })),
      ]),
    ),
  ) as fc.Arbitrary<Record<string, Segment>>;

  const queryArb = fc
    .tuple(
      ...aliasGroups(op.queryParams.map((p) => [p.name, p] as [string, ParameterObject])).map((group) => {
        const entry = fc.oneof(
          ...group.map(([name, p]) => queryValue(values, p).map((value): QueryEntry => ({ name, value, raw: false }))),
        );
        return group.some(([, p]) => p.required) ? entry : fc.option(entry, { nil: undefined, freq: 2 });
      }),
    )
    .map((entries) => entries.filter((e): e is QueryEntry => e !== undefined));

  const validBody = op.body?.schema ? values.of(op.body.schema) : fc.constant(new Obj([]));
  const bodyArb: fc.Arbitrary<BodyPlan> = op.body
    ? fc.oneof(
        { weight: 9, arbitrary: validBody.map((value): BodyPlan => ({ kind: "json", value })) },
        { weight: op.body.required ? 0 : 1, arbitrary: fc.constant<BodyPlan>({ kind: "none" }) },
      )
    : fc.constant<BodyPlan>({ kind: "none" });

  // Documented header parameters: a valid-ish value (always when required), as plain text.
  const headersArb = fc
    .tuple(
      ...op.headerParams.map((p) => {
        const entry = queryValue(values, p).map((value) => [p.name, latin1(plainText(value))] as const);
        return p.required ? entry : fc.option(entry, { nil: undefined, freq: 2 });
      }),
    )
    .map((entries) => Object.fromEntries(entries.filter((e) => e !== undefined)));

  const base: fc.Arbitrary<Plan> = fc.record({
    path: pathArb,
    query: queryArb,
    body: bodyArb,
    auth: fc.constant<AuthPlan>({ kind: "self", label: "self" }),
    headers: headersArb,
  });

  const mutations: fc.WeightedArbitrary<Mutation>[] = [];
  const add = (weight: number, arbitrary: fc.Arbitrary<Mutation>) => mutations.push({ weight, arbitrary });

  for (const p of op.pathParams) {
    add(
      Math.ceil(24 / op.pathParams.length),
      badSegment(rolesOf(p.name)).map((bad) => ({ t: "path", name: p.name, label: bad.label, segment: bad.value })),
    );
  }
  const queryNames = op.queryParams.map((p) => p.name);
  if (queryNames.length > 0) {
    const name = fc.constantFrom(...queryNames);
    const badQuery = fc.tuple(badText, fc.boolean()).map(([bad, raw]) => ({ bad, raw }));
    add(
      14,
      fc.tuple(name, badQuery).map(([n, { bad, raw }]) => ({
        t: "query-set",
        name: n,
        label: bad.label,
        segment: { value: bad.value, raw },
      })),
    );
    add(
      3,
      name.map((n) => ({ t: "query-drop", name: n })),
    );
    add(
      3,
      fc.tuple(name, badText).map(([n, bad]) => ({
        t: "query-repeat",
        name: n,
        label: bad.label,
        segment: { value: bad.value, raw: false },
      })),
    );
  }
  add(
    queryNames.length > 0 ? 3 : 5,
    fc.tuple(fc.constantFrom(...EXTRA_QUERY_NAMES), badText).map(([n, bad]) => ({
      t: "query-set",
      name: n,
      label: `unknown:${bad.label}`,
      segment: { value: bad.value, raw: false },
    })),
  );

  const sendsBody = op.method !== "GET" && op.method !== "HEAD";
  if (op.body) {
    const pick = fc.nat(200);
    add(16, fc.record({ t: fc.constant("body-replace" as const), pick, bad: badValue }));
    add(5, fc.record({ t: fc.constant("body-delete" as const), pick, entry: fc.nat(20) }));
    add(
      5,
      fc.record({ t: fc.constant("body-add" as const), pick, key: fc.constantFrom(...EXTRA_KEYS), bad: badValue }),
    );
    add(2, fc.record({ t: fc.constant("body-duplicate" as const), pick, entry: fc.nat(20), bad: badValue }));
    add(3, fc.record({ t: fc.constant("body-wrap" as const), pick }));
    add(3, fc.record({ t: fc.constant("body-long-array" as const), pick, count: fc.constantFrom(51, 101, 501, 2000) }));
    add(4, fc.record({ t: fc.constant("body-foreign-ref" as const), pick }));
    add(2, fc.record({ t: fc.constant("body-wrong-kind" as const), pick, role: fc.constantFrom(...ROLES) }));
    add(
      4,
      fc
        .oneof(
          badValue.map(({ label, value }) => ({ label: `whole:${label}`, value })),
          smallJson.map((value) => ({ label: "whole:random-json", value })),
          validBody.map((value) => ({ label: "whole:array-of-body", value: [value] as Tmpl })),
        )
        .map(({ label, value }) => ({ t: "body-whole", label, value })),
    );
  }
  if (sendsBody) {
    add(
      op.body ? 7 : 3,
      fc
        .oneof(
          fc.constantFrom(...MALFORMED_JSON).map(({ label, value }) => ({
            label: `malformed:${label}`,
            body: { kind: "text", text: value } as BodyPlan,
          })),
          fc.constantFrom(...BAD_BYTES).map(({ label, value }) => ({
            label: `bytes:${label}`,
            body: { kind: "bytes", bytes: value } as BodyPlan,
          })),
          fc.tuple(validBody, fc.nat(10_000)).map(([value, cut]) => ({
            label: "malformed:truncated",
            body: { kind: "truncated", value, cut } as BodyPlan,
          })),
        )
        .map(({ label, body }) => ({ t: "body-raw", label, body })),
    );
    add(
      op.body ? 7 : 2,
      fc.record({
        t: fc.constant("content-type" as const),
        contentType: fc.constantFrom(...BAD_CONTENT_TYPES),
        encoding: fc.constantFrom("json" as const, "form" as const, "multipart" as const),
      }),
    );
  }
  add(
    4,
    fc.constantFrom(...AUTH_VARIANTS).map((auth) => ({ t: "auth", auth })),
  );

  const otherMethods = OTHER_METHODS.filter((m) => m !== op.method);
  add(
    2,
    fc.constantFrom(...otherMethods).map((method) => ({ t: "method", method })),
  );
  const oddHeaders = [
    ...ODD_HEADERS,
    ...op.headerParams.flatMap((p) =>
      ["", "x".repeat(5000), "\u00ff\u00fe", "-1", "1e999", "null"].map((value) => ({
        label: `${p.name}:${value.length > 20 ? "huge" : JSON.stringify(value)}`,
        name: p.name,
        value,
      })),
    ),
  ];
  add(
    2 + op.headerParams.length * 4,
    fc.constantFrom(...oddHeaders).map(({ label, name, value }) => ({ t: "header", label, name, value })),
  );
  add(
    2,
    fc.constantFrom(...PATH_SHAPES).map((shape) => ({ t: "path-shape", shape })),
  );

  const mutation = fc.oneof(...mutations);
  const mutationList = fc.oneof(
    { weight: 15, arbitrary: fc.constant<Mutation[]>([]) },
    { weight: 65, arbitrary: fc.tuple(mutation).map((m): Mutation[] => m) },
    { weight: 20, arbitrary: fc.tuple(mutation, mutation).map((m): Mutation[] => m) },
  );
  return fc.record({ base, mutations: mutationList });
}

/** A header value from a valid-ish template: markers are not expected in headers, so they stay symbolic. */
function plainText(value: Tmpl): string {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : "x";
}

/** Header values must be Latin-1 without line breaks or NUL. */
const latin1 = (text: string) => text.replace(/[^\x20-\x7e\xa0-\xff]/g, "?");

/** Every node of a template (root first) with its path. */
function nodes(value: Tmpl, path: NodePath = []): NodePath[] {
  if (value instanceof Obj) return [path, ...value.entries.flatMap(([, v], i) => nodes(v, [...path, i]))];
  if (Array.isArray(value)) return [path, ...value.flatMap((v, i) => nodes(v, [...path, i]))];
  return [path];
}

function nodeAt(value: Tmpl, path: NodePath): Tmpl {
  let current = value;
  for (const step of path) {
    if (current instanceof Obj) current = (current.entries[step]?.[1] ?? null) as Tmpl;
    else if (Array.isArray(current)) current = current[step] as Tmpl;
  }
  return current;
}

/** The plan a case describes, and a label for each mutation applied. */
export function applyCase(c: Case): { plan: Plan; labels: string[] } {
  let plan: Plan = { ...c.base, path: { ...c.base.path }, query: [...c.base.query] };
  const labels: string[] = [];
  const jsonBody = (): Tmpl | undefined => (plan.body.kind === "json" ? plan.body.value : undefined);
  const setBody = (value: Tmpl) => {
    plan = { ...plan, body: { kind: "json", value } };
  };
  /** The JSON body, and the `pick`-th of its nodes that `keep` accepts (with its path), if there is one. */
  const target = (pick: number, keep: (node: Tmpl) => boolean) => {
    const body = jsonBody();
    if (body === undefined) return undefined;
    const candidates = nodes(body).filter((p) => keep(nodeAt(body, p)));
    const path = candidates[pick % Math.max(candidates.length, 1)];
    return path === undefined ? undefined : { body, path, node: nodeAt(body, path) };
  };

  for (const m of c.mutations) {
    switch (m.t) {
      case "path":
        plan.path[m.name] = m.segment;
        labels.push(`path.${m.name}:${m.label}`);
        break;
      case "query-set":
        plan.query = [...plan.query.filter((q) => q.name !== m.name), { name: m.name, ...m.segment }];
        labels.push(`query.${m.name}:${m.label}`);
        break;
      case "query-drop":
        plan.query = plan.query.filter((q) => q.name !== m.name);
        labels.push(`query.${m.name}:missing`);
        break;
      case "query-repeat":
        plan.query = [...plan.query, { name: m.name, ...m.segment }];
        labels.push(`query.${m.name}:repeated:${m.label}`);
        break;
      case "body-replace": {
        const at = target(m.pick, () => true);
        if (!at) break;
        setBody(updateAt(at.body, at.path, () => m.bad.value));
        labels.push(`body${pathName(at.body, at.path)}:${m.bad.label}`);
        break;
      }
      case "body-delete": {
        const at = target(m.pick, (node) => node instanceof Obj && node.entries.length > 0);
        if (!at) break;
        const entries = (at.node as Obj).entries;
        const index = m.entry % entries.length;
        setBody(updateAt(at.body, at.path, () => new Obj(entries.filter((_, i) => i !== index))));
        labels.push(`body${pathName(at.body, [...at.path, index])}:missing`);
        break;
      }
      case "body-add":
      case "body-duplicate": {
        const at = target(m.pick, (node) => node instanceof Obj);
        if (!at) break;
        const entries = (at.node as Obj).entries;
        const key = m.t === "body-add" ? m.key.value : entries[m.entry % Math.max(entries.length, 1)]?.[0];
        if (key === undefined) break;
        setBody(updateAt(at.body, at.path, () => new Obj([...entries, [key, m.bad.value]])));
        const where = pathName(at.body, at.path).replace("(root)", "");
        const keyName = typeof key === "string" ? key.slice(0, 20) : key.toString();
        labels.push(`body${where}.${keyName}:${m.t === "body-add" ? "extra" : "duplicate"}:${m.bad.label}`);
        break;
      }
      case "body-wrap": {
        const at = target(m.pick, (node) => node instanceof Obj);
        if (!at) break;
        setBody(updateAt(at.body, at.path, (node) => [node]));
        labels.push(`body${pathName(at.body, at.path)}:array-instead-of-object`);
        break;
      }
      case "body-long-array": {
        const at = target(m.pick, (node) => Array.isArray(node) && node.length > 0);
        if (!at) break;
        const items = at.node as readonly Tmpl[];
        setBody(
          updateAt(at.body, at.path, () => Array.from({ length: m.count }, (_, i) => items[i % items.length] as Tmpl)),
        );
        labels.push(`body${pathName(at.body, at.path)}:${m.count}-items`);
        break;
      }
      case "body-foreign-ref":
      case "body-wrong-kind": {
        const at = target(m.pick, (node) => node instanceof PoolRef);
        if (!at) break;
        const ref = at.node as PoolRef;
        const replaced =
          m.t === "body-foreign-ref" ? new PoolRef(ref.role, ref.pick, "other") : new PoolRef(m.role, ref.pick);
        setBody(updateAt(at.body, at.path, () => replaced));
        const what = m.t === "body-foreign-ref" ? "other-user" : `wrong-kind:${m.role}`;
        labels.push(`body${pathName(at.body, at.path)}:${what}`);
        break;
      }
      case "body-whole":
        setBody(m.value);
        labels.push(`body:${m.label}`);
        break;
      case "body-raw":
        plan = { ...plan, body: m.body };
        labels.push(`body:${m.label}`);
        break;
      case "content-type": {
        const value = jsonBody() ?? new Obj([["a", 1]]);
        const body: BodyPlan = m.encoding === "json" ? { kind: "json", value } : { kind: m.encoding, value };
        plan = { ...plan, body, contentType: m.contentType };
        labels.push(`content-type:${m.contentType === null ? "none" : JSON.stringify(m.contentType)}:${m.encoding}`);
        break;
      }
      case "auth":
        plan = { ...plan, auth: m.auth };
        labels.push(`auth:${m.auth.label}`);
        break;
      case "method":
        plan = { ...plan, method: m.method };
        labels.push(`method:${m.method}`);
        break;
      case "header":
        plan = { ...plan, headers: { ...plan.headers, [m.name]: m.value } };
        labels.push(`header:${m.label}`);
        break;
      case "path-shape":
        plan = { ...plan, pathShape: m.shape };
        labels.push(`path:${m.shape}`);
        break;
    }
  }
  return { plan, labels };
}
