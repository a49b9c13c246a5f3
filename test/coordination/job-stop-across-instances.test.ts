import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CronStore } from '../../src/cron/index.js';
import { groupAlive } from '../../src/environments/index.js';
import { waitForGroupGone, waitForPgid } from '../fakes/slack-e2e-model.js';
import { ownerOf, postUpdate, textUpdate } from './gateway-processes.js';
import { addScriptJob, instancesCanRun, useTelegramInstances } from './telegram-instances.js';

/*
 * Two `hermes gateway` processes with cron on one Redis and one state.db. Two jobs of one thread
 * run (missed at start, cron.missed_runs: run_once) on the first instance; /cron stop and /stop
 * sent to the other stop them there.
 */
const runs = instancesCanRun('the job-stop-across-instances test');

const ADA = 1001;

describe.runIf(runs)('stopping a scheduled job from another instance than the one running it', () => {
  const groups: number[] = [];
  const ids: string[] = [];
  const fx = useTelegramInstances({
    name: 'job-stop-across',
    keyVar: 'HERMES_JOB_STOP_ACROSS_KEY',
    allowed: [ADA],
    config: { cron: { enabled: true, missed_runs: 'run_once' } },
    count: 2,
    prepare: (home) => {
      for (const name of ['J1', 'J2']) {
        const pgid = JSON.stringify(join(home, `${name}.pgid`));
        const payload = `import os, time\nwith open(${pgid} + '.tmp', 'w') as f:\n    f.write(str(os.getpgrp()))\nos.replace(${pgid} + '.tmp', ${pgid})\ntime.sleep(120)\n`;
        ids.push(addScriptJob(home, ADA, { schedule: 'every 1h', payload, nextRunAt: Date.now() - 60_000 }));
      }
    },
  });
  const { instances } = fx;

  afterAll(() => {
    // Were a stop to fail, the script would outlive the test: its group is this test's own descendant.
    for (const pgid of groups) if (pgid > 1 && groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
  });

  /** The job's script group, and the instance that does not run it. */
  const running = async (name: string) => {
    const pgid = await waitForPgid(fx.home, name);
    groups.push(pgid);
    const runner = ownerOf(pgid, instances);
    expect(runner, 'the job runs under one of the instances').toBeDefined();
    return { pgid, other: instances.find((instance) => instance !== runner)! };
  };
  const texts = () => fx.api.sentTo(ADA).map((sent) => sent.text);

  it('/cron stop <id> sent to the other instance kills the job’s script where it runs', async () => {
    const { pgid, other } = await running('J1');
    expect(groupAlive(pgid)).toBe(true);
    // The instance that started after the run began did not take it for one a stopped gateway left open.
    const store = CronStore.open(join(fx.home, 'state.db'));
    try {
      expect(store.runs(ids[0])[0]?.status).toBe('running');
    } finally {
      store.close();
    }
    expect(await postUpdate(other, textUpdate(ADA, `/cron stop ${ids[0]}`))).toBe(200);
    await fx.api.waitFor(() => texts().includes(`Stopped the running ${ids[0]}.`), 'the answer to /cron stop');
    await waitForGroupGone(pgid);
    expect(groupAlive(pgid)).toBe(false);
  }, 90_000);

  it('/stop sent to the other instance stops the thread’s job running elsewhere', async () => {
    const { pgid, other } = await running('J2');
    expect(await postUpdate(other, textUpdate(ADA, '/stop'))).toBe(200);
    await fx.api.waitFor(() => texts().includes('Stopped 1 running scheduled job.'), 'the answer to /stop');
    await waitForGroupGone(pgid);
    expect(groupAlive(pgid)).toBe(false);
    // A stopped run posts nothing.
    expect(texts().filter((text) => text.startsWith('⏰'))).toEqual([]);
  }, 90_000);
});
