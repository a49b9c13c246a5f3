// A gateway's side of the sandbox attacks, run in a child process so that a test can run it
// as root and again as a plain user (setpriv --reuid=65534). It builds sandbox environments
// from the built package (dist/), runs what a hostile command would, and prints one JSON line.
// argv: <package root> <work folder> <scenario>
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [root, work, scenario] = process.argv.slice(2);
const envs = await import(join(root, 'dist/src/environments/index.js'));
const cfg = await import(join(root, 'dist/src/config/index.js'));

async function sandbox(overrides, session = 's1') {
  const home = join(work, `home-${session}`);
  mkdirSync(home, { recursive: true });
  const config = cfg.configSchema.parse(cfg.deepMerge({ terminal: { backend: 'sandbox' } }, overrides));
  const paths = cfg.hermesPaths(home);
  const { registry } = await envs.loadProviderRegistry({ config, paths });
  const manager = new envs.EnvironmentManager({ config, paths, registry });
  return { manager, paths, environment: await manager.environmentFor(session) };
}

const py = (lines) => `python3 - <<'PY'\n${lines.join('\n')}\nPY`;
const out = {};

if (scenario === 'proc') {
  const { manager, environment } = await sandbox({});
  const files = ['/proc/sys/kernel/core_pattern', '/proc/sys/kernel/hostname', '/proc/sys/vm/drop_caches', '/proc/sysrq-trigger', '/proc/sys/kernel/modprobe', '/proc/sys/fs/suid_dumpable'];
  const run = await environment.execute(py([
    'import os, json',
    `files = ${JSON.stringify(files)}`,
    'res = {}',
    'for p in files:',
    '    try:',
    '        f = open(p, "w"); f.close(); res[p] = "OPENED"',
    '    except OSError as e:',
    '        res[p] = e.errno',
    'writable = []',
    'for d, _, names in os.walk("/proc/sys"):',
    '    for n in names:',
    '        p = os.path.join(d, n)',
    '        try:',
    '            os.close(os.open(p, os.O_WRONLY)); writable.append(p)',
    '        except OSError:',
    '            pass',
    'status = dict(l.split(":\\t", 1) for l in open("/proc/self/status").read().splitlines() if ":\\t" in l)',
    'print(json.dumps({"files": res, "writable": writable, "nnp": status["NoNewPrivs"].strip(), "capeff": status["CapEff"].strip(), "uid": status["Uid"].split()}))',
  ]));
  out.proc = run;
  await manager.closeAll();
} else if (scenario === 'core') {
  // The escape of the issue, against a harmless target: core_pattern piped to a workspace file that would leave a mark.
  const { manager, environment } = await sandbox({});
  const mark = join(work, 'core-escape-mark');
  writeFileSync(join(environment.cwd, 'pwn.sh'), `#!/bin/sh\ntouch ${mark}\n`, { mode: 0o755 });
  out.core = await environment.execute(`chmod 755 pwn.sh 2>/dev/null; (echo "|$PWD/pwn.sh" > /proc/sys/kernel/core_pattern) 2>&1; echo rc=$?; sh -c 'kill -SEGV $$'; sleep 1; echo done`);
  out.mark = mark;
  await manager.closeAll();
} else if (scenario === 'setuid') {
  const { manager, environment } = await sandbox({});
  out.made = await environment.execute('cp /usr/bin/id ./suid-id && chmod 4755 ./suid-id && cp /usr/bin/id ./sgid-id && chmod 2755 ./sgid-id && echo made');
  out.path = join(environment.cwd, 'suid-id');
  out.gpath = join(environment.cwd, 'sgid-id');
  await manager.closeAll();
} else if (scenario === 'sessions') {
  const home = join(work, 'home-shared');
  mkdirSync(home, { recursive: true });
  chmodSync(work, 0o755);
  chmodSync(home, 0o755);
  const config = cfg.configSchema.parse({ terminal: { backend: 'sandbox' } });
  const paths = cfg.hermesPaths(home);
  const { registry } = await envs.loadProviderRegistry({ config, paths });
  const manager = new envs.EnvironmentManager({ config, paths, registry });
  const a = await manager.environmentFor('alice-session');
  await a.execute('echo private > notes.txt');
  const b = await manager.environmentFor('bob-session');
  out.sandboxes = paths.sandboxes;
  out.a = a.cwd;
  out.b = b.cwd;
  out.listing = await b.execute(`ls -a ${JSON.stringify(paths.sandboxes)}`);
  out.enter = await b.execute(`ls ${JSON.stringify(a.cwd)}; cat ${JSON.stringify(join(a.cwd, 'notes.txt'))}`);
  await manager.closeAll();
} else {
  throw new Error(`unknown scenario ${scenario}`);
}
console.log(JSON.stringify(out));
process.exit(0);
