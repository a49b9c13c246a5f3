/*
 * The approvals assessment: time per command over the whole floor suite (every trick and
 * the ordinary commands), after a warm-up pass, so no turn waits on it (target p99 ≤ 1 ms).
 */
import { availableParallelism, loadavg } from 'node:os';
import { assessCommand, assessScript } from '../src/approvals/index.js';
import { CASE_GROUPS, SCRIPT_CASES, SUITE_CONTEXT } from '../test/approvals/cases/index.js';
import { fmt, median, percentile } from './stats.js';

const ROUNDS = 20;

export async function run(): Promise<void> {
  const commands = CASE_GROUPS.flatMap((group) => group.cases.map(([command]) => command));
  for (const command of commands) assessCommand(command, SUITE_CONTEXT);
  const times = commands.map((): number[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    commands.forEach((command, i) => {
      const start = performance.now();
      assessCommand(command, SUITE_CONTEXT);
      times[i].push(performance.now() - start);
    });
  }
  // A command's cost is its median over the rounds: a single run also counts the time the machine gave to others.
  const perCommand = times.map((runs) => median(runs));
  const all = times.flat();
  const slowest = perCommand.indexOf(Math.max(...perCommand));
  const [load] = loadavg();
  console.log(
    `assessCommand over the floor suite (${commands.length} commands, ${ROUNDS} rounds each), per command: median ${fmt(median(perCommand), 3)} ms ` +
      `p99 ${fmt(percentile(perCommand, 99), 3)} ms max ${fmt(Math.max(...perCommand), 3)} ms (target p99 ≤ 1 ms)`,
  );
  console.log(
    `single runs: median ${fmt(median(all), 3)} ms p99 ${fmt(percentile(all, 99), 3)} ms max ${fmt(Math.max(...all), 3)} ms ` +
      `(wall clock, load average ${fmt(load, 1)} on ${availableParallelism()} cores)`,
  );
  console.log(`slowest command, ${fmt(perCommand[slowest], 3)} ms: ${JSON.stringify(commands[slowest]).slice(0, 100)}`);
  // execute_code scripts, read by what they do before they start.
  const scripts = SCRIPT_CASES.map(([script]) => script);
  for (const script of scripts) assessScript(script, SUITE_CONTEXT);
  const scriptTimes = scripts.map((script) => {
    const runs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const start = performance.now();
      assessScript(script, SUITE_CONTEXT);
      runs.push(performance.now() - start);
    }
    return median(runs);
  });
  console.log(
    `assessScript over the script table (${scripts.length} scripts, ${ROUNDS} rounds each), per script: median ${fmt(median(scriptTimes), 3)} ms ` +
      `p99 ${fmt(percentile(scriptTimes, 99), 3)} ms max ${fmt(Math.max(...scriptTimes), 3)} ms`,
  );
  await Promise.resolve();
}
