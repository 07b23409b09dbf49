/**
 * Sets of field paths as structured-merge-diff keeps them: a trie whose edges are path elements
 * in their `fieldsV1` spelling (`f:<field>`, `k:<json of the key fields>`, `v:<json value>`,
 * `i:<index>`), each node knowing which of its elements are members themselves. `fieldsV1`
 * (`metadata.managedFields[].fieldsV1`) is this trie as JSON: a member is `{}`, a node that is a
 * member and has children also carries `".": {}`; elements are ordered as upstream orders them
 * (fields, then keys, then values, then indices).
 */
import { isJsonMap, type JsonMap } from './json.js';

const Rank: Readonly<Record<string, number>> = { f: 0, k: 1, v: 2, i: 3 };

/** upstream's PathElement order, close enough for its serialization order. */
function comparePathElements(a: string, b: string): number {
  const ra = Rank[a.charAt(0)] ?? 4;
  const rb = Rank[b.charAt(0)] ?? 4;
  if (ra !== rb) return ra - rb;
  if (ra === 3) return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `f:<name>`, `i:<index>`, or `k:`/`v:` followed by JSON (a key object, a value). */
function isPathElement(pe: string): boolean {
  const body = pe.slice(2);
  switch (pe.slice(0, 2)) {
    case 'f:':
      return true;
    case 'i:':
      return /^\d+$/.test(body);
    case 'k:':
    case 'v:':
      try {
        const parsed = JSON.parse(body) as unknown;
        return pe.startsWith('v:') || isJsonMap(parsed);
      } catch {
        return false;
      }
    default:
      return false;
  }
}

export class FieldSet {
  readonly members = new Set<string>();
  readonly children = new Map<string, FieldSet>();

  isEmpty(): boolean {
    return this.members.size === 0 && [...this.children.values()].every((c) => c.isEmpty());
  }

  /** Adds a path (a zero-length path, the whole object, is never tracked). */
  insert(path: readonly string[]): void {
    if (path.length === 0) return;
    const parent = path.slice(0, -1).reduce<FieldSet>((node, pe) => node.child(pe), this);
    parent.members.add(path[path.length - 1] ?? '');
  }

  child(pe: string): FieldSet {
    let c = this.children.get(pe);
    if (c === undefined) {
      c = new FieldSet();
      this.children.set(pe, c);
    }
    return c;
  }

  /** The node at `path` (each element followed as a child), if there is one. */
  #at(path: readonly string[]): FieldSet | undefined {
    return path.reduce<FieldSet | undefined>((node, pe) => node?.children.get(pe), this);
  }

  has(path: readonly string[]): boolean {
    return this.#at(path.slice(0, -1))?.members.has(path[path.length - 1] ?? '') ?? false;
  }

  /** Whether the path or anything below it is in the set. */
  hasPrefix(path: readonly string[]): boolean {
    if (path.length === 0) return !this.isEmpty();
    if (this.has(path)) return true;
    const node = this.#at(path);
    return node !== undefined && !node.isEmpty();
  }

  /** Every member path. */
  paths(prefix: readonly string[] = []): string[][] {
    const out: string[][] = [];
    const elements = new Set([...this.members, ...this.children.keys()]);
    for (const pe of [...elements].sort(comparePathElements)) {
      if (this.members.has(pe)) out.push([...prefix, pe]);
      const c = this.children.get(pe);
      if (c !== undefined) out.push(...c.paths([...prefix, pe]));
    }
    return out;
  }

  clone(): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const [pe, c] of this.children) out.children.set(pe, c.clone());
    return out;
  }

  union(other: FieldSet): FieldSet {
    const out = this.clone();
    for (const p of other.paths()) out.insert(p);
    return out;
  }

  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const p of this.paths()) if (!other.has(p)) out.insert(p);
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const p of this.paths()) if (other.has(p)) out.insert(p);
    return out;
  }

  /** This set without `path` and everything below it. */
  withoutSubtree(path: readonly string[]): FieldSet {
    const out = new FieldSet();
    for (const p of this.paths()) {
      if (!path.every((pe, i) => p[i] === pe)) out.insert(p);
    }
    return out;
  }

  /** This set without the member `path` (its children stay). */
  withoutMember(path: readonly string[]): FieldSet {
    const out = this.clone();
    out.#at(path.slice(0, -1))?.members.delete(path[path.length - 1] ?? '');
    return out;
  }

  /** Only what is below `prefix` (with the prefix itself). */
  onlySubtree(prefix: readonly string[]): FieldSet {
    const out = new FieldSet();
    for (const p of this.paths()) if (prefix.every((pe, i) => p[i] === pe)) out.insert(p);
    return out;
  }

  toFieldsV1(): JsonMap {
    const out: JsonMap = {};
    const elements = new Set([...this.members, ...this.children.keys()]);
    for (const pe of [...elements].sort(comparePathElements)) {
      const c = this.children.get(pe);
      if (c === undefined || c.isEmpty()) {
        if (this.members.has(pe)) out[pe] = {};
        continue;
      }
      out[pe] = this.members.has(pe) ? { '.': {}, ...c.toFieldsV1() } : c.toFieldsV1();
    }
    return out;
  }

  /** Parses `fieldsV1`; undefined when it is not such a trie. */
  static fromFieldsV1(value: unknown): FieldSet | undefined {
    if (!isJsonMap(value)) return undefined;
    const out = new FieldSet();
    for (const [pe, sub] of Object.entries(value)) {
      if (!isPathElement(pe) || !isJsonMap(sub)) return undefined;
      const keys = Object.keys(sub);
      if (keys.length === 0 || keys.includes('.')) out.members.add(pe);
      if (keys.some((k) => k !== '.')) {
        const rest = { ...sub };
        delete rest['.'];
        const child = FieldSet.fromFieldsV1(rest);
        if (child === undefined) return undefined;
        out.children.set(pe, child);
      }
    }
    return out;
  }
}

/** A key value as upstream prints it: strings quoted, other values as JSON. */
const printValue = (v: unknown): string => JSON.stringify(v);

/** `.spec.containers[name="c"].image`: a path as conflict messages print it. */
export function printPath(path: readonly string[]): string {
  return path
    .map((pe) => {
      const body = pe.slice(2);
      switch (pe.charAt(0)) {
        case 'f':
          return `.${body}`;
        case 'k': {
          const key = JSON.parse(body) as Record<string, unknown>;
          return `[${Object.entries(key)
            .map(([k, v]) => `${k}=${printValue(v)}`)
            .join(',')}]`;
        }
        case 'v':
          return `[=${body}]`;
        default:
          return `[${body}]`;
      }
    })
    .join('');
}
