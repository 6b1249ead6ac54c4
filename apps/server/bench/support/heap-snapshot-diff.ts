// What each open stream keeps on a target's heap, from the two heap snapshots the capacity
// bench writes with TOOLWIRE_BENCH_HEAP_SNAPSHOT=1 (before the streams, and with N open).
// Node ids are stable within a process, so the objects in the second snapshot that the first
// lacks are what the streams (and anything else since) allocated and still hold.
//
//   node --max-old-space-size=8192 bench/support/heap-snapshot-diff.ts --streams 300 \
//     gateway=/tmp/capacity-1-before.heapsnapshot,/tmp/capacity-1-open.heapsnapshot \
//     sdk-proxy=/tmp/capacity-2-before.heapsnapshot,/tmp/capacity-2-open.heapsnapshot
//
// Prints, per target and per stream: the new objects by kind (constructor, closure name,
// system type), their count and self size side by side across targets; then, for the first
// target, where they hang in the dominator tree (each new object kept alive only through an
// old one, with what it holds, a few levels down), which is what removing it would free.
import { readFileSync } from 'node:fs';

interface Graph {
  /** Per node: its kind (an index into `kinds`), id, self size, first edge. */
  kind: Uint32Array;
  id: Float64Array;
  selfSize: Float64Array;
  firstEdge: Uint32Array;
  /** Per edge: its target node and, for named edges, its name (-1 for elements and weak). */
  edgeTo: Uint32Array;
  edgeName: Int32Array;
  edgeWeak: Uint8Array;
  kinds: string[];
  strings: string[];
}

interface RawSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

// Kinds whose names carry no class (string contents, code of a function): grouped by type only.
const BY_TYPE_ONLY = new Set(['string', 'concatenated string', 'sliced string', 'number', 'code', 'symbol', 'bigint', 'regexp']);

function load(path: string): Graph {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as RawSnapshot;
  const meta = raw.snapshot.meta;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const [typeAt, nameAt, idAt, sizeAt, edgeCountAt] = ['type', 'name', 'id', 'self_size', 'edge_count'].map((f) => meta.node_fields.indexOf(f)) as [number, number, number, number, number];
  const [edgeTypeAt, edgeNameAt, edgeToAt] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f)) as [number, number, number];
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const n = raw.nodes.length / nf;
  const e = raw.edges.length / ef;
  const kinds: string[] = [];
  const kindIndex = new Map<string, number>();
  const kind = new Uint32Array(n);
  const id = new Float64Array(n);
  const selfSize = new Float64Array(n);
  const firstEdge = new Uint32Array(n + 1);
  let edge = 0;
  for (let i = 0; i < n; i++) {
    const base = i * nf;
    const type = nodeTypes[raw.nodes[base + typeAt]!]!;
    const name = raw.strings[raw.nodes[base + nameAt]!]!;
    const label = BY_TYPE_ONLY.has(type) ? `(${type})` : type === 'closure' ? `closure ${name || '(anonymous)'}` : type === 'object' || type === 'native' ? name : `${type}: ${name.slice(0, 60)}`;
    let k = kindIndex.get(label);
    if (k === undefined) {
      k = kinds.push(label) - 1;
      kindIndex.set(label, k);
    }
    kind[i] = k;
    id[i] = raw.nodes[base + idAt]!;
    selfSize[i] = raw.nodes[base + sizeAt]!;
    firstEdge[i] = edge;
    edge += raw.nodes[base + edgeCountAt]!;
  }
  firstEdge[n] = edge;
  const edgeTo = new Uint32Array(e);
  const edgeName = new Int32Array(e);
  const edgeWeak = new Uint8Array(e);
  for (let j = 0; j < e; j++) {
    const base = j * ef;
    const type = edgeTypes[raw.edges[base + edgeTypeAt]!]!;
    edgeTo[j] = raw.edges[base + edgeToAt]! / nf;
    edgeWeak[j] = type === 'weak' || type === 'shortcut' ? 1 : 0;
    edgeName[j] = type === 'element' || type === 'hidden' || type === 'weak' ? -1 : raw.edges[base + edgeNameAt]!;
  }
  return { kind, id, selfSize, firstEdge, edgeTo, edgeName, edgeWeak, kinds, strings: raw.strings };
}

/** Nodes of `open` whose ids `before` lacks. */
function newNodes(before: Graph, open: Graph): Uint8Array {
  const ids = new Set<number>(before.id);
  const fresh = new Uint8Array(open.id.length);
  for (let i = 0; i < open.id.length; i++) fresh[i] = ids.has(open.id[i]!) ? 0 : 1;
  return fresh;
}

interface KindTotals {
  count: number;
  size: number;
}

function totalsByKind(g: Graph, fresh: Uint8Array): Map<string, KindTotals> {
  const totals = new Map<string, KindTotals>();
  for (let i = 0; i < fresh.length; i++) {
    if (fresh[i] === 0) continue;
    const label = g.kinds[g.kind[i]!]!;
    const t = totals.get(label) ?? { count: 0, size: 0 };
    t.count++;
    t.size += g.selfSize[i]!;
    totals.set(label, t);
  }
  return totals;
}

/** Immediate dominators from the root (node 0), weak edges ignored (Cooper, Harvey and Kennedy's iteration). */
function dominators(g: Graph): { idom: Int32Array; retained: Float64Array } {
  const n = g.kind.length;
  // Post order by an explicit-stack DFS.
  const order = new Int32Array(n).fill(-1);
  const post: number[] = [];
  const stack: number[] = [0];
  const cursor = new Uint32Array(n);
  const seen = new Uint8Array(n);
  seen[0] = 1;
  for (let i = 0; i < n; i++) cursor[i] = g.firstEdge[i]!;
  while (stack.length > 0) {
    const v = stack[stack.length - 1]!;
    let pushed = false;
    while (cursor[v]! < g.firstEdge[v + 1]!) {
      const j = cursor[v]!++;
      if (g.edgeWeak[j] === 1) continue;
      const w = g.edgeTo[j]!;
      if (seen[w] === 1) continue;
      seen[w] = 1;
      stack.push(w);
      pushed = true;
      break;
    }
    if (!pushed) {
      stack.pop();
      order[v] = post.length;
      post.push(v);
    }
  }
  // Predecessors (strong edges between reachable nodes).
  const predCount = new Uint32Array(n + 1);
  for (let v = 0; v < n; v++) {
    if (seen[v] === 0) continue;
    for (let j = g.firstEdge[v]!; j < g.firstEdge[v + 1]!; j++) if (g.edgeWeak[j] === 0) predCount[g.edgeTo[j]! + 1]!++;
  }
  for (let v = 0; v < n; v++) predCount[v + 1]! += predCount[v]!;
  const preds = new Uint32Array(predCount[n]!);
  const fill = predCount.slice(0, n);
  for (let v = 0; v < n; v++) {
    if (seen[v] === 0) continue;
    for (let j = g.firstEdge[v]!; j < g.firstEdge[v + 1]!; j++) if (g.edgeWeak[j] === 0) preds[fill[g.edgeTo[j]!]!++] = v;
  }
  const idom = new Int32Array(n).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while (order[a]! < order[b]!) a = idom[a]!;
      while (order[b]! < order[a]!) b = idom[b]!;
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let k = post.length - 2; k >= 0; k--) {
      const v = post[k]!;
      let dom = -1;
      for (let p = predCount[v]!; p < predCount[v + 1]!; p++) {
        const u = preds[p]!;
        if (idom[u] === -1) continue;
        dom = dom === -1 ? u : intersect(u, dom);
      }
      if (dom !== -1 && idom[v] !== dom) {
        idom[v] = dom;
        changed = true;
      }
    }
  }
  const retained = Float64Array.from(g.selfSize);
  for (const v of post) if (v !== 0 && idom[v]! >= 0) retained[idom[v]!]! += retained[v]!;
  return { idom, retained };
}

const kb = (bytes: number): string => (bytes / 1024).toFixed(2);

function printKinds(labels: string[], totals: Map<string, KindTotals>[], streams: number, top: number): void {
  const all = new Map<string, number>();
  for (const t of totals) for (const [k, v] of t) all.set(k, Math.max(all.get(k) ?? 0, v.size));
  const rows = [...all.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  console.log(['kind'.padEnd(48), ...labels.map((l) => `${l}: n/stream  B/stream`.padStart(30))].join(''));
  for (const [k] of rows) {
    const cells = totals.map((t) => {
      const v = t.get(k);
      return (v === undefined ? '-' : `${(v.count / streams).toFixed(2).padStart(8)} ${(v.size / streams).toFixed(0).padStart(9)}`).padStart(30);
    });
    console.log([k.slice(0, 47).padEnd(48), ...cells].join(''));
  }
  for (const [i, t] of totals.entries()) {
    let size = 0;
    let count = 0;
    for (const v of t.values()) {
      size += v.size;
      count += v.count;
    }
    console.log(`${labels[i]}: new objects ${(count / streams).toFixed(1)} per stream, ${kb(size / streams)} KB per stream (self sizes)`);
  }
}

/**
 * The dominator subtrees of the new objects: grouped by kind at each level (a level's kind
 * and the name of the edge it hangs by from its dominator), with retained size per stream.
 */
function printDominated(g: Graph, fresh: Uint8Array, streams: number, depth: number, minBytes: number): void {
  const { idom, retained } = dominators(g);
  const children = new Map<number, number[]>();
  const tops: number[] = [];
  for (let v = 0; v < idom.length; v++) {
    if (fresh[v] === 0 || idom[v]! < 0) continue;
    const d = idom[v]!;
    if (fresh[d] === 0) tops.push(v);
    else {
      const list = children.get(d);
      if (list === undefined) children.set(d, [v]);
      else list.push(v);
    }
  }
  // The name of an edge from `from` to `to`, when there is a named one.
  const edgeLabel = (from: number, to: number): string => {
    for (let j = g.firstEdge[from]!; j < g.firstEdge[from + 1]!; j++) {
      if (g.edgeTo[j] === to && g.edgeName[j]! >= 0) return `.${g.strings[g.edgeName[j]!]!.slice(0, 40)}`;
    }
    return '';
  };
  const group = (nodes: number[], withParent: boolean): [string, number[]][] => {
    const groups = new Map<string, number[]>();
    for (const v of nodes) {
      const d = idom[v]!;
      const label = `${g.kinds[g.kind[v]!]!}${edgeLabel(d, v)}${withParent ? ` ← ${g.kinds[g.kind[d]!]!}` : ''}`;
      const list = groups.get(label);
      if (list === undefined) groups.set(label, [v]);
      else list.push(v);
    }
    const sum = (list: number[]): number => list.reduce((s, v) => s + retained[v]!, 0);
    return [...groups.entries()].sort((a, b) => sum(b[1]) - sum(a[1]));
  };
  const walk = (nodes: number[], level: number, withParent: boolean): void => {
    for (const [label, list] of group(nodes, withParent)) {
      const size = list.reduce((s, v) => s + retained[v]!, 0);
      if (size / streams < minBytes) continue;
      console.log(`${'  '.repeat(level)}${kb(size / streams).padStart(7)} KB  ${(list.length / streams).toFixed(2).padStart(6)}/stream  ${label}`);
      if (level + 1 < depth) walk(list.flatMap((v) => children.get(v) ?? []), level + 1, false);
    }
  };
  console.log(`\nnew objects by dominator (retained KB per stream, count per stream; a top level hangs off an old object, named after '←'):`);
  walk(tops, 0, true);
}

const args = process.argv.slice(2);
let streams = 1;
let depth = 4;
let minBytes = 64;
let top = 45;
const targets: { label: string; before: string; open: string }[] = [];
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  if (arg === '--streams') streams = Number(args[++i]);
  else if (arg === '--depth') depth = Number(args[++i]);
  else if (arg === '--min-bytes') minBytes = Number(args[++i]);
  else if (arg === '--top') top = Number(args[++i]);
  else {
    const [label, paths] = arg.split('=') as [string, string | undefined];
    const [before, open] = (paths ?? '').split(',');
    if (before === undefined || open === undefined) throw new Error(`expected label=before.heapsnapshot,open.heapsnapshot, got ${arg}`);
    targets.push({ label, before, open });
  }
}
if (targets.length === 0) throw new Error('usage: heap-snapshot-diff.ts --streams N label=before,open [label=before,open]');
const totals: Map<string, KindTotals>[] = [];
let first: { graph: Graph; fresh: Uint8Array } | undefined;
for (const target of targets) {
  const before = load(target.before);
  const open = load(target.open);
  const fresh = newNodes(before, open);
  totals.push(totalsByKind(open, fresh));
  first ??= { graph: open, fresh };
}
printKinds(
  targets.map((t) => t.label),
  totals,
  streams,
  top,
);
if (first !== undefined) printDominated(first.graph, first.fresh, streams, depth, minBytes);
