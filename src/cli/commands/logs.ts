import type { Command } from 'commander';
import { createReadStream, existsSync, readFileSync, statSync, watch } from 'node:fs';
import { pathsFor } from '../../config/index.js';
import { homeOption } from '../common.js';
import { formatLogLine, levelValue } from '../log-format.js';

interface LogsOptions {
  level: string;
  lines: string;
  follow?: boolean;
}

export function registerLogsCommand(program: Command): void {
  program
    .command('logs')
    .description('show HERMES_HOME/logs/agent.log readably')
    .option('--level <level>', 'the lowest level shown: TRACE, DEBUG, INFO, WARN, ERROR, FATAL', 'INFO')
    .option('-n, --lines <n>', 'how many of the last matching lines to show', '100')
    .option('-f, --follow', 'keep printing lines as they are written')
    .action(async (options: LogsOptions, command: Command) => {
      const min = levelValue(options.level);
      if (min === undefined) throw new Error(`--level: unknown level "${options.level}"; use TRACE, DEBUG, INFO, WARN, ERROR or FATAL`);
      const count = Number(options.lines);
      if (!Number.isInteger(count) || count < 0) throw new Error(`--lines: expected a whole number, got "${options.lines}"`);
      const file = pathsFor(homeOption(command)).logFile;
      if (!existsSync(file) && !options.follow) {
        console.error(`no log yet at ${file}`);
        return;
      }
      let offset = 0;
      if (existsSync(file)) {
        const text = readFileSync(file, 'utf8');
        offset = Buffer.byteLength(text);
        const shown = text.split('\n').map((line) => formatLogLine(line, min)).filter((line) => line !== null);
        for (const line of count === 0 ? [] : shown.slice(-count)) console.log(line);
      }
      if (options.follow) await follow(file, offset, min);
    });
}

/** Prints lines appended to `file` after `offset` until the process is stopped. */
async function follow(file: string, offset: number, min: number): Promise<never> {
  let partial = '';
  let reading = false;
  const readMore = () => {
    if (reading || !existsSync(file)) return;
    const size = statSync(file).size;
    if (size < offset) offset = 0; // the file was truncated or replaced
    if (size === offset) return;
    reading = true;
    const stream = createReadStream(file, { start: offset, end: size - 1, encoding: 'utf8' });
    stream.on('data', (chunk) => {
      const lines = (partial + String(chunk)).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const shown = formatLogLine(line, min);
        if (shown !== null) console.log(shown);
      }
    });
    stream.on('close', () => {
      offset = size;
      reading = false;
    });
  };
  const timer = setInterval(readMore, 250);
  try {
    watch(file, readMore);
  } catch {
    // no file yet: the interval picks it up
  }
  return new Promise<never>(() => void timer);
}
