import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { killGatewayProcess, logLines, stopGatewayProcess } from './gateway-processes.js';
import { addScriptJob, instancesCanRun, useTelegramInstances } from './telegram-instances.js';

/*
 * Three `hermes gateway` processes with cron enabled on one Redis and one state.db, and one job
 * every second: each scheduled time is run by one of them, and when one is killed the others go on.
 */
const runs = instancesCanRun('the jobs-across-instances test');

const ADA = 1001;

describe.runIf(runs)('a job every second on three gateway instances sharing one Redis and one state.db', () => {
  const fx = useTelegramInstances({ name: 'jobs-across', keyVar: 'HERMES_JOBS_ACROSS_KEY', allowed: [ADA], config: { cron: { enabled: true }, coordination: { lease_seconds: 1 } } });

  it('runs each scheduled time on exactly one instance, and the survivors keep the schedule after one is killed', async () => {
    const { api, home, instances } = fx;
    // Each run appends a line, so the runs are counted apart from the log and the chat.
    const runsFile = join(home, 'runs.txt');
    const id = addScriptJob(home, ADA, {
      schedule: 'every 1s',
      payload: `with open(${JSON.stringify(runsFile)}, 'a') as f:\n    f.write('ran\\n')\nprint('tick')\n`,
      nextRunAt: Date.now() + 1000,
    });
    for (let i = 0; i < 3; i++) await fx.start();
    const [a, b, c] = instances;
    const posts = () => api.sentTo(ADA).filter((sent) => sent.text.startsWith(`⏰ ${id} (every 1s): `));

    await api.waitFor(() => posts().length >= 4, 'four runs delivered by three instances');
    await killGatewayProcess(b);
    const killedAt = Date.now();
    const before = posts().length;
    await api.waitFor(() => posts().length >= before + 4, 'four more runs after one instance was killed');
    await stopGatewayProcess(a);
    await stopGatewayProcess(c);

    const started = logLines(home).filter((line) => line.msg === 'cron: job started' && line.job === id);
    const times = started.map((line) => Number(line.scheduledAt));
    // No scheduled time ran twice, and scheduled times a period apart: no second run slipped in between.
    expect(new Set(times).size).toBe(times.length);
    const sorted = [...times].sort((x, y) => x - y);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i] - sorted[i - 1]).toBeGreaterThanOrEqual(1000);
    // What ran is what was posted: each delivered once (a run cut by the kill or the stops is not).
    // (The killed instance's last log lines may be lost with it, so runs are not held to the log's count.)
    const ran = existsSync(runsFile) ? readFileSync(runsFile, 'utf8').split('\n').filter(Boolean).length : 0;
    expect(posts().length).toBeLessThanOrEqual(ran);
    expect(started.length - posts().length).toBeLessThanOrEqual(3);
    expect(posts().every((sent) => sent.text === `⏰ ${id} (every 1s): tick`)).toBe(true);
    // After the kill the survivors ran it, and the killed one nothing more.
    const after = started.filter((line) => Number(line.time) > killedAt);
    expect(after.length).toBeGreaterThanOrEqual(3);
    expect(after.every((line) => line.pid === a.child.pid || line.pid === c.child.pid)).toBe(true);
  }, 120_000);
});
