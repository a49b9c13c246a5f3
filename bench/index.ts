/*
 * `npm run bench -- <name>...` runs the named benchmarks (all when none is named). Each
 * prints its figures next to a baseline measured in the same run; none of them asserts.
 */
const available = ['exec', 'rpc', 'kernel', 'sandbox', 'gateway', 'remote', 'transfer', 'approvals', 'files', 'agent', 'streaming', 'mcp', 'cli', 'scale-out', 'memory', 'models'] as const;

const asked = process.argv.slice(2).filter((name) => !name.startsWith('-'));
const names = asked.length > 0 ? asked : [...available];
for (const name of names) {
  if (!(available as readonly string[]).includes(name)) {
    console.error(`bench: unknown benchmark "${name}"; choose from ${available.join(', ')}`);
    process.exitCode = 2;
    continue;
  }
  let module: { run(): Promise<void> };
  try {
    module = (await import(`./${name}.js`)) as { run(): Promise<void> };
  } catch (error) {
    console.log(`${name}: not built yet (${(error as Error).message.split('\n')[0]})`);
    continue;
  }
  console.log(`# ${name}`);
  await module.run();
}
