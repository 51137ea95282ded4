/**
 * Reads a V8 CPU profile (.cpuprofile, as `node --cpu-prof` or the bench's BENCH_PROFILE writes) and
 * prints where the time went: self time by package (node_modules/<pkg>), by our own folder
 * (src/<area>), by the engine's buckets (garbage collector, program, idle), and the top functions.
 *
 *   node dist/bench/profile-summary.js <file.cpuprofile> [rows]
 */
import fs from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function bucket(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return url;
  const src = /\/dist\/(src|bench)\/([^/]+)/.exec(url);
  if (src) return `${src[1]}/${src[2].replace(/\.js$/, '')}`;
  return url.replace(/^file:\/\//, '');
}

export function summarizeProfile(profile: Profile, rows = 15): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // The profiler's own stop call (node:inspector) is not server work.
  const profilerCall = (id: number): boolean => {
    for (let cur: number | undefined = id; cur != null; cur = parent.get(cur)) if (byId.get(cur)!.callFrame.url === 'node:inspector') return true;
    return false;
  };
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    if (!profilerCall(id)) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0) || 1;
  const groups = new Map<string, number>();
  const fns = new Map<string, number>();
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    const { url, functionName, lineNumber } = n.callFrame;
    const b = bucket(url, functionName);
    groups.set(b, (groups.get(b) ?? 0) + us);
    const f = `${functionName || '(anonymous)'} ${b}${url ? `:${lineNumber + 1}` : ''}`;
    fns.set(f, (fns.get(f) ?? 0) + us);
  }
  const idle = groups.get('(idle)') ?? 0;
  const busy = total - idle;
  const pct = (us: number) => `${((100 * us) / (busy || 1)).toFixed(1).padStart(5)}%`;
  const top = (m: Map<string, number>) =>
    [...m]
      .filter(([k]) => !k.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, rows)
      .map(([k, us]) => `  ${pct(us)}  ${k}`)
      .join('\n');
  return [
    `  busy ${(busy / 1000).toFixed(0)} ms of ${(total / 1000).toFixed(0)} ms sampled (shares below are of busy time)`,
    '  by package / folder:',
    top(groups),
    '  top functions (self time):',
    top(fns),
  ].join('\n');
}

if (require.main === module) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node dist/bench/profile-summary.js <file.cpuprofile> [rows]');
    process.exit(2);
  }
  console.log(summarizeProfile(JSON.parse(fs.readFileSync(file, 'utf8')) as Profile, Number(process.argv[3] ?? 15)));
}
