/*
 * `node dist/bench/cpu-profile.js <file.cpuprofile> [top]`: the functions with the most self
 * time in a V8 CPU profile (`node --cpu-prof`), and the same summed per source file, so a
 * profile of the gateway bench says where the gateway's own time goes.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const profileSchema = z.object({
  nodes: z.array(
    z.object({
      id: z.number(),
      callFrame: z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number() }),
    }),
  ),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});

type Profile = z.infer<typeof profileSchema>;

/** Self time in ms per node id: each sample's following time delta goes to the sampled node. */
function selfTimes(profile: Profile): Map<number, number> {
  const out = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i + 1] ?? 0;
    out.set(profile.samples[i], (out.get(profile.samples[i]) ?? 0) + delta / 1000);
  }
  return out;
}

const shortUrl = (url: string) => url.replace(/^file:\/\/.*?\/(dist|node_modules)\//, '$1/').replace(/^node:/, 'node:');

function summarise(path: string, top: number): void {
  const profile = profileSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  const self = selfTimes(profile);
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const node of profile.nodes) {
    const ms = self.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : '(native)';
    const fn = `${functionName || '(anonymous)'}  ${where}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
    const file = url ? shortUrl(url) : functionName;
    byFile.set(file, (byFile.get(file) ?? 0) + ms);
  }
  const print = (title: string, table: Map<string, number>) => {
    console.log(title);
    for (const [name, ms] of [...table].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`${ms.toFixed(1).padStart(9)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${name}`);
    }
  };
  console.log(`${path}: ${total.toFixed(0)} ms sampled`);
  print('top self time by function:', byFunction);
  print('top self time by file:', byFile);
}

const [path, top] = process.argv.slice(2);
if (!path) {
  console.error('usage: node dist/bench/cpu-profile.js <file.cpuprofile> [top]');
  process.exitCode = 2;
} else summarise(path, Number(top ?? 30));
