/**
 * Request values as fast-check generates them: JSON-like trees with a few markers that
 * are only turned into text when the request is sent. A marker keeps a counterexample
 * short (a 300 KB string is `Repeat("é", 150000)`) and lets an id be chosen from the
 * objects that exist when the request is sent, so a seed replays the same choices.
 */

/** Which objects an id is drawn from. */
export type Role =
  | "block"
  | "page"
  | "database"
  | "row"
  | "property"
  | "propertyName"
  | "selectProperty"
  | "dateProperty"
  | "option"
  | "optionName"
  | "view"
  | "comment"
  | "mention"
  | "pushSubscription";

/** Whose objects: the fuzzing user's own, or another user's. */
export type Owner = "self" | "other";

/** The id (or name) of the `pick`-th object of a role, resolved at send time. */
export class PoolRef {
  constructor(
    readonly role: Role,
    readonly pick: number,
    readonly owner: Owner = "self",
  ) {}
  toString(): string {
    return `<${this.owner === "self" ? "" : `${this.owner} `}${this.role} #${this.pick}>`;
  }
}

/** `unit` repeated `count` times. */
export class Repeat {
  constructor(
    readonly unit: string,
    readonly count: number,
  ) {}
  toString(): string {
    return `<${JSON.stringify(this.unit)} x ${this.count}>`;
  }
}

/** Arrays (`[[[...1...]]]`) or objects (`{"a":{"a":...1...}}`) nested `depth` levels. */
export class Deep {
  constructor(
    readonly depth: number,
    readonly shape: "array" | "object",
  ) {}
  toString(): string {
    return `<${this.shape}s nested ${this.depth} deep>`;
  }
}

/** JSON text inserted as it is (numbers JSON.stringify cannot write, such as `1e999`). */
export class Raw {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** An object whose keys may be markers too; duplicate keys are kept as written. */
export class Obj {
  constructor(readonly entries: readonly (readonly [Key, Tmpl])[]) {}
}

/** Parts joined by a separator into one string (e.g. comma-separated ids). */
export class Joined {
  constructor(
    readonly parts: readonly Tmpl[],
    readonly separator: string,
  ) {}
}

/**
 * A value that fits the database property referred to just before it (a row value of its
 * type, or a filter operator that applies to it), chosen by `pick` when the request is sent.
 */
export class Fit {
  constructor(
    readonly kind: "value" | "operator",
    readonly pick: number,
  ) {}
  toString(): string {
    return `<${this.kind} for the property #${this.pick}>`;
  }
}

export type Key = string | PoolRef | Repeat;
export type Tmpl =
  | null
  | boolean
  | number
  | string
  | readonly Tmpl[]
  | Obj
  | PoolRef
  | Fit
  | Repeat
  | Deep
  | Raw
  | Joined;

/** Turns markers into what they denote now: a pool reference into an id or name, a fit into a JSON value. */
export interface Resolver {
  id(ref: PoolRef): string;
  fit(fit: Fit): unknown;
}

/** A value as a plain string (query parameters, path segments, object keys). */
export function plain(value: Tmpl, ids: Resolver): string {
  if (typeof value === "string") return value;
  if (value instanceof PoolRef) return ids.id(value);
  if (value instanceof Fit) {
    const fitted = ids.fit(value);
    return typeof fitted === "string" ? fitted : JSON.stringify(fitted);
  }
  if (value instanceof Repeat) return value.unit.repeat(value.count);
  if (value instanceof Raw) return value.text;
  if (value instanceof Joined) return value.parts.map((part) => plain(part, ids)).join(value.separator);
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  return json(value, ids);
}

/** A value as JSON text. */
export function json(value: Tmpl, ids: Resolver): string {
  if (value === null || typeof value === "boolean") return String(value);
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (value instanceof Raw) return value.text;
  if (value instanceof Deep) {
    const [open, close] = value.shape === "array" ? ["[", "]"] : ['{"a":', "}"];
    return `${open.repeat(value.depth)}1${close.repeat(value.depth)}`;
  }
  if (value instanceof Fit) return JSON.stringify(ids.fit(value)) ?? "null";
  if (value instanceof PoolRef || value instanceof Repeat || value instanceof Joined) {
    return JSON.stringify(plain(value, ids));
  }
  if (value instanceof Obj) {
    return `{${value.entries.map(([key, item]) => `${JSON.stringify(plain(key, ids))}:${json(item, ids)}`).join(",")}}`;
  }
  return `[${value.map((item) => json(item, ids)).join(",")}]`;
}

/** A path into a template: object keys (by entry index) and array indexes. */
export type NodePath = readonly number[];

/** Every object and array node of a template with its path, root first. */
export function containers(value: Tmpl, path: NodePath = []): { path: NodePath; node: Obj | readonly Tmpl[] }[] {
  if (value instanceof Obj) {
    return [{ path, node: value }, ...value.entries.flatMap(([, item], i) => containers(item, [...path, i]))];
  }
  if (Array.isArray(value)) {
    return [{ path, node: value }, ...value.flatMap((item, i) => containers(item, [...path, i]))];
  }
  return [];
}

/** The template with the node at `path` replaced by `replace(node)`. */
export function updateAt(value: Tmpl, path: NodePath, replace: (node: Tmpl) => Tmpl): Tmpl {
  if (path.length === 0) return replace(value);
  const [head, ...rest] = path as [number, ...number[]];
  if (value instanceof Obj) {
    return new Obj(value.entries.map(([key, item], i) => [key, i === head ? updateAt(item, rest, replace) : item]));
  }
  if (Array.isArray(value)) return value.map((item, i) => (i === head ? updateAt(item, rest, replace) : item));
  return value;
}

/** A readable name for a path, e.g. `.content[0].children`. */
export function pathName(value: Tmpl, path: NodePath): string {
  let name = "";
  let current: Tmpl = value;
  for (const step of path) {
    if (current instanceof Obj) {
      const entry = current.entries[step];
      if (!entry) break;
      name += `.${typeof entry[0] === "string" ? entry[0] : entry[0].toString()}`;
      current = entry[1];
    } else if (Array.isArray(current)) {
      name += `[${step}]`;
      current = current[step] as Tmpl;
    }
  }
  return name || "(root)";
}
