// A gateway's side of the sandbox attacks, run in a child process so that a test can run it
// as root and again as a plain user (setpriv --reuid=65534). It builds sandbox environments
// from the built package (dist/), runs what a hostile command would, and prints one JSON line.
// argv: <package root> <work folder> <scenario> [backend]
import { chmodSync, chownSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
} else if (scenario === 'limits' || scenario === 'defaults') {
  // Each limit crossed, on the backend named in argv[5]: small limits from config, or the defaults.
  const backend = process.argv[5] ?? 'sandbox';
  const cwd = join(work, 'project');
  mkdirSync(cwd, { recursive: true });
  const small = { processes: 40, memory: '256m', file_size: '8m', cpu_time: 1, open_files: 64 };
  const { manager, environment } = await sandbox({ terminal: { backend, ...(backend === 'local' ? { cwd } : {}), ...(scenario === 'limits' ? { limits: small } : {}) } });
  const gib = scenario === 'limits' ? 0.5 : 3;
  const offset = scenario === 'limits' ? 16 << 20 : 1 << 30;
  out.limits = await environment.execute(py([
    'import os, subprocess',
    'try:',
    `    b = bytearray(int(${gib} * 1024 ** 3)); print("memory ALLOCATED")`,
    'except MemoryError:',
    '    print("memory refused")',
    'try:',
    `    f = open("big.bin", "wb"); f.seek(${offset}); f.write(b"x"); f.flush(); print("fsize WRITTEN")`,
    'except OSError as e:',
    '    print("fsize refused", e.errno)',
    'files = []',
    'try:',
    '    for i in range(2000): files.append(open("/dev/null"))',
    '    print("nofile OPENED")',
    'except OSError as e:',
    '    print("nofile refused", e.errno, len(files) < 2000)',
    'for f in files: f.close()',
  ]), { timeout: 60 });
  if (backend === 'sandbox') {
    out.fork = await environment.execute(py([
      'import subprocess',
      'kids = []',
      'try:',
      '    for i in range(1000): kids.append(subprocess.Popen(["sleep", "5"]))',
      '    print("fork STARTED", len(kids))',
      'except OSError as e:',
      '    print("fork refused", e.errno, len(kids))',
      'for k in kids: k.kill()',
    ]), { timeout: 60 });
  }
  if (scenario === 'limits') {
    const started = Date.now();
    out.cpu = await environment.execute('python3 -c "while True: pass"; echo "exit=$?"', { timeout: 60 });
    out.cpuSeconds = (Date.now() - started) / 1000;
  }
  rmSync(join(environment.cwd, 'big.bin'), { force: true });
  await manager.closeAll();
} else if (scenario === 'home') {
  // HERMES_HOME inside the working folder, one or the other spelled through a symlink (/home -> /var/home).
  const SECRET = 'sk-hold-test-secret-0123456789';
  const real = join(work, 'var', 'home');
  const user = join(real, 'alice');
  mkdirSync(join(user, '.hermes', 'logs'), { recursive: true });
  writeFileSync(join(user, '.hermes', '.env'), `OPENAI_API_KEY=${SECRET}\n`);
  writeFileSync(join(user, 'project.txt'), 'mine\n');
  symlinkSync(real, join(work, 'home'));
  const spelled = join(work, 'home', 'alice');
  // The user's home is theirs (a plain user's id when this runs as root).
  if (process.getuid() === 0) for (const path of [user, join(user, 'project.txt')]) chownSync(path, 4242, 4242);
  const make = async (home, cwd, binds = []) => {
    const config = cfg.configSchema.parse({ terminal: { backend: 'sandbox', cwd, sandbox: { extra_ro_binds: binds } } });
    const { registry } = await envs.loadProviderRegistry({ config, paths: cfg.hermesPaths(home) });
    const manager = new envs.EnvironmentManager({ config, paths: cfg.hermesPaths(home), registry });
    return { manager, environment: await manager.environmentFor('s') };
  };
  out.secret = SECRET;
  out.reads = [];
  for (const [home, cwd] of [[join(spelled, '.hermes'), user], [join(user, '.hermes'), spelled]]) {
    const { manager, environment } = await make(home, cwd);
    const run = await environment.execute(`cat project.txt; cat .hermes/.env; cat ${JSON.stringify(join(home, '.env'))}; cat ${JSON.stringify(join(user, '.hermes', '.env'))}; cat ${JSON.stringify(join(spelled, '.hermes', '.env'))}; ls -a .hermes; echo end`);
    const file = await environment.readFile('.hermes/.env').then((data) => data.toString(), (error) => `refused ${error.code}`);
    out.reads.push({ home, cwd, run, file });
    await manager.closeAll();
  }
  out.refused = {};
  const project = join(work, 'elsewhere');
  mkdirSync(project, { recursive: true });
  for (const bind of ['/', work, join(work, 'home'), spelled, join(user, '.hermes', 'logs'), join(spelled, '.hermes')]) {
    try {
      const { manager } = await make(join(spelled, '.hermes'), project, [bind]);
      await manager.closeAll();
      out.refused[bind] = 'ACCEPTED';
    } catch (error) {
      out.refused[bind] = error.message;
    }
  }
} else if (scenario === 'bindhome') {
  // work/alias is a bind mount of work/var/home (made by the test in a mount namespace of its own): the same folder by another path.
  const SECRET = 'sk-bind-test-secret-0123456789';
  const user = join(work, 'var', 'home', 'alice');
  mkdirSync(join(user, '.hermes'), { recursive: true });
  writeFileSync(join(user, '.hermes', '.env'), `OPENAI_API_KEY=${SECRET}\n`);
  writeFileSync(join(user, 'project.txt'), 'mine\n');
  chownSync(user, 4242, 4242);
  chownSync(join(user, 'project.txt'), 4242, 4242);
  const home = join(user, '.hermes');
  const make = async (cwd, binds = []) => {
    const config = cfg.configSchema.parse({ terminal: { backend: 'sandbox', cwd, sandbox: { extra_ro_binds: binds } } });
    const { registry } = await envs.loadProviderRegistry({ config, paths: cfg.hermesPaths(home) });
    const manager = new envs.EnvironmentManager({ config, paths: cfg.hermesPaths(home), registry });
    return { manager, environment: await manager.environmentFor('s') };
  };
  out.secret = SECRET;
  const { manager, environment } = await make(join(work, 'alias', 'alice'));
  out.run = await environment.execute('cat project.txt; cat .hermes/.env; ls -a .hermes; echo end');
  await manager.closeAll();
  const project = join(work, 'elsewhere');
  mkdirSync(project, { recursive: true });
  out.refused = {};
  for (const bind of [join(work, 'alias'), join(work, 'alias', 'alice', '.hermes')]) {
    try {
      const made = await make(project, [bind]);
      await made.manager.closeAll();
      out.refused[bind] = 'ACCEPTED';
    } catch (error) {
      out.refused[bind] = error.message;
    }
  }
} else {
  throw new Error(`unknown scenario ${scenario}`);
}
console.log(JSON.stringify(out));
process.exit(0);
