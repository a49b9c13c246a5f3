/*
 * Session kernels: warm-cell latency, cold start and idle memory of kernel_runner.py, next
 * to a Jupyter kernel (ipykernel driven by jupyter_client's BlockingKernelClient) measured
 * in the same run when Debian's python3-jupyter-client and python3-ipykernel are there.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { KernelProcess, kernelArgv } from '../src/execute-code/kernel/index.js';
import type { HostCommand } from '../src/environments/types.js';
import { descendants } from '../src/environments/supervisor.js';
import { fmt, median, percentile, timeRuns } from './stats.js';

const execFileAsync = promisify(execFile);
const CELL = 'x += 1; print(x)';
const WARM_CELLS = 1000;
const COLD_STARTS = 10;

/** The same interpreter for both kernels: Debian's, where the Jupyter packages live. */
function interpreter(): string {
  if (process.env.HERMES_BENCH_PYTHON) return process.env.HERMES_BENCH_PYTHON;
  if (existsSync('/usr/bin/python3')) return '/usr/bin/python3';
  const probe = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  return probe.stdout.trim() || 'python3';
}

function vmRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

function pssMb(pid: number): number {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return Number(/^Pss:\s+(\d+)\s+kB/m.exec(rollup)?.[1] ?? NaN) / 1024;
}

async function runCell(kernel: KernelProcess, code: string): Promise<void> {
  const outcome = await kernel.runCell(code, { timeoutMs: 10_000, onStdout() {}, onStderr() {} });
  if (outcome.kind !== 'ok') throw new Error(`bench cell failed: ${JSON.stringify(outcome)}`);
}

interface JupyterFigures {
  warm: number[];
  cold: number[];
  rssMb: number;
}

/** Drives ipykernel from Python; prints one JSON line of figures (ms, MB). */
const JUPYTER_HELPER = `
import json, sys, time
from jupyter_client.manager import KernelManager

def start():
    t0 = time.perf_counter()
    km = KernelManager(kernel_name="python3")
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    return km, kc, (time.perf_counter() - t0) * 1000

def rss(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024

def run(kc, code):
    # The lean client loop (what execute_interactive does, minus its hooks): send, take the
    # reply, drain iopub until the kernel is idle for this request (all output is in).
    msg_id = kc.execute(code)
    while True:
        reply = kc.get_shell_msg(timeout=30)
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    assert reply["content"]["status"] == "ok", reply["content"]
    while True:
        msg = kc.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return

cold = []
for _ in range(int(sys.argv[2])):
    km, kc, ms = start()
    cold.append(ms)
    kc.stop_channels()
    km.shutdown_kernel(now=True)

km, kc, _ = start()
run(kc, "x = 0")
for _ in range(50):
    run(kc, sys.argv[3])
time.sleep(0.5)
memory = rss(km.provisioner.process.pid)
warm = []
for _ in range(int(sys.argv[1])):
    t0 = time.perf_counter()
    run(kc, sys.argv[3])
    warm.append((time.perf_counter() - t0) * 1000)
kc.stop_channels()
km.shutdown_kernel(now=True)
print(json.dumps({"warm": warm, "cold": cold, "rssMb": memory}))
`;

async function jupyter(python: string): Promise<JupyterFigures | string> {
  const probe = spawnSync(python, ['-c', 'import jupyter_client, ipykernel'], { encoding: 'utf8' });
  if (probe.status !== 0) return 'not installed (apt-get install python3-jupyter-client python3-ipykernel)';
  try {
    const { stdout } = await execFileAsync(python, ['-c', JUPYTER_HELPER, String(WARM_CELLS), '3', CELL], { maxBuffer: 16 * 1024 * 1024, timeout: 600_000 });
    return JSON.parse(stdout.trim().split('\n').pop() ?? '') as JupyterFigures;
  } catch (error) {
    return `failed: ${(error as Error).message.split('\n')[0]}`;
  }
}

export async function run(): Promise<void> {
  const python = interpreter();
  const [file, ...args] = kernelArgv(python);
  const command: HostCommand = { file, args, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, cwd: process.cwd() };
  console.log(`interpreter ${python}`);

  // Warm cells.
  const kernel = await KernelProcess.start(command);
  await runCell(kernel, 'x = 0');
  for (let i = 0; i < 100; i++) await runCell(kernel, CELL);
  const warm = await timeRuns(WARM_CELLS, () => runCell(kernel, CELL));
  await new Promise((resolve) => setTimeout(resolve, 500));
  // kernel.pid is the supervisor the kernel runs under; the runner is its child. The supervisor's own cost: its proportional set size.
  const runner = descendants(kernel.pid)[0] ?? kernel.pid;
  const rss = vmRssMb(runner);
  const supervisorPss = pssMb(kernel.pid);
  await kernel.kill();

  // Cold starts, spawn to ready, next to a bare interpreter start.
  await KernelProcess.start(command).then((k) => k.kill());
  const cold: number[] = [];
  for (let i = 0; i < COLD_STARTS; i++) {
    const begin = performance.now();
    const started = await KernelProcess.start(command);
    cold.push(performance.now() - begin);
    await started.kill();
  }
  const bare = median(await timeRuns(COLD_STARTS, () => execFileAsync(python, ['-c', 'pass'])));

  const baseline = await jupyter(python);
  const j = typeof baseline === 'string' ? undefined : baseline;
  /** "jupyter 3.20 ms, 7.8x faster" or why there is no Jupyter figure. */
  const versus = (ours: number, theirs: ((figures: JupyterFigures) => number) | undefined, unit = 'ms') => {
    if (!j || !theirs) return `jupyter ${baseline as string}`;
    const value = theirs(j);
    return `jupyter ${fmt(value)} ${unit}, ${fmt(value / ours, 1)}x ${unit === 'ms' ? 'faster' : 'smaller'}`;
  };

  const p50 = median(warm);
  console.log(
    `kernel warm cell p50 ${fmt(p50)} ms p99 ${fmt(percentile(warm, 99))} ms over ${WARM_CELLS} cells of "${CELL}" ` +
      `(${versus(p50, (f) => median(f.warm))}${j ? `, jupyter p99 ${fmt(percentile(j.warm, 99))} ms` : ''}; target p50 ≤ 1 ms and ≥ 5x)`,
  );
  const coldMedian = median(cold);
  console.log(
    `kernel cold start median ${fmt(coldMedian)} ms over ${COLD_STARTS} (${versus(coldMedian, (f) => median(f.cold))}` +
      `${j ? ' (median of 3)' : ''}; bare "python3 -c pass" ${fmt(bare)} ms; target ≤ 150 ms)`,
  );
  console.log(`kernel idle RSS ${fmt(rss, 1)} MB (${versus(rss, (f) => f.rssMb, 'MB')}; target ≤ 20 MB); its supervisor adds ${fmt(supervisorPss, 1)} MB (PSS)`);
}
