import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import {
  BackendError, LocalEnvironment, ProviderRegistry, RESERVED_BACKEND_NAMES, buildChildEnv,
  type TerminalEnvironmentProvider,
} from '../../src/environments/index.js';

const minimal = (name: string, extra: Partial<TerminalEnvironmentProvider> = {}): TerminalEnvironmentProvider => ({
  name,
  createEnvironment: ({ cwd }) => new LocalEnvironment({ cwd, timeout: 5, childEnv: () => buildChildEnv() }),
  ...extra,
});

/** A debug-level logger whose lines land in `lines`. */
function captureLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

describe('ProviderRegistry', () => {
  it('looks names up case-insensitively and lists built-ins first', () => {
    const registry = new ProviderRegistry();
    registry.register(minimal('acmebox'), 'acme');
    registry.register(minimal('local'), 'builtin');
    expect(registry.get('ACMEBOX')?.name).toBe('acmebox');
    expect(registry.get('AcmeBox')?.source).toBe('acme');
    expect(registry.has('Local')).toBe(true);
    expect(registry.get('nope')).toBeUndefined();
    expect(registry.names()).toEqual(['local', 'acmebox']);
  });

  it('require() of an unknown name throws a BackendError listing the known names', () => {
    const registry = new ProviderRegistry();
    registry.register(minimal('local'));
    registry.register(minimal('acmebox'), 'acme');
    expect(() => registry.require('nope')).toThrow(BackendError);
    expect(() => registry.require('nope')).toThrow(/unknown backend "nope"; known backends: local, acmebox/);
  });

  it.each(RESERVED_BACKEND_NAMES)('refuses a plugin that registers the reserved name %s, naming plugin and name', (name) => {
    const registry = new ProviderRegistry();
    expect(() => registry.register(minimal(name.toUpperCase()), 'evil')).toThrow(
      new RegExp(`plugin "evil": cannot register backend "${name}": the name is reserved`),
    );
    expect(registry.has(name)).toBe(false);
  });

  it('lets built-ins take reserved names and refuses a second registration of a name', () => {
    const registry = new ProviderRegistry();
    registry.register(minimal('sandbox'), 'builtin');
    registry.register(minimal('acmebox'), 'one');
    expect(() => registry.register(minimal('acmebox'), 'two')).toThrow(/plugin "two": cannot register backend "acmebox": plugin "one" already registered it/);
  });

  it('refuses invalid names and providers without createEnvironment', () => {
    const registry = new ProviderRegistry();
    expect(() => registry.register(minimal('has-dash'), 'p')).toThrow(/invalid/);
    expect(() => registry.register({ name: 'nocreate' } as unknown as TerminalEnvironmentProvider, 'p')).toThrow(/no createEnvironment/);
    expect(registry.names()).toEqual([]);
  });

  it('reads flags with defaults: skipContainerGuards follows isContainer when absent', async () => {
    const registry = new ProviderRegistry();
    const bare = registry.register(minimal('bare'), 'p');
    expect(bare.displayName).toBe('bare');
    expect(bare.isRemote).toBe(false);
    expect(bare.skipContainerGuards).toBe(false);
    expect(bare.sessionIsolatedWhenNonpersistent).toBe(false);
    expect(bare.stripEnvKeys).toEqual([]);
    expect(await bare.isAvailable()).toBe(true);
    expect(await bare.probe()).toEqual({ ok: true, detail: 'available' });
    const box = registry.register(minimal('box', { isContainer: true }), 'p');
    expect(box.skipContainerGuards).toBe(true);
    const explicit = registry.register(minimal('box2', { isContainer: true, skipContainerGuards: false }), 'p');
    expect(explicit.skipContainerGuards).toBe(false);
  });

  it('uses safe values when a provider throws, and logs at debug level', async () => {
    const { logger, lines } = captureLogger();
    const registry = new ProviderRegistry({ logger });
    const boom = (): never => {
      throw new Error('boom');
    };
    const provider = {
      name: 'fragile',
      isContainer: true,
      get skipContainerGuards(): boolean { return boom(); },
      get sessionIsolatedWhenNonpersistent(): boolean { return boom(); },
      get displayName(): string { return boom(); },
      get description(): string { return boom(); },
      get isRemote(): boolean { return boom(); },
      get envDescription(): string { return boom(); },
      get cachePathBase(): string { return boom(); },
      isAvailable: boom,
      probe: async () => boom(),
      doctorChecks: boom,
      setupInstructions: boom,
      createEnvironment: minimal('x').createEnvironment,
    } satisfies TerminalEnvironmentProvider;
    const safe = registry.register(provider, 'fragile-plugin');
    // A throwing skipContainerGuards keeps approvals on, even on a container backend.
    expect(safe.skipContainerGuards).toBe(false);
    expect(safe.sessionIsolatedWhenNonpersistent).toBe(true);
    expect(safe.displayName).toBe('fragile');
    expect(safe.description).toBe('');
    expect(safe.isRemote).toBe(false);
    expect(safe.envDescription).toBe('');
    expect(safe.cachePathBase).toBeNull();
    expect(await safe.isAvailable()).toBe(false);
    expect((await safe.probe()).ok).toBe(false);
    const checks = await safe.doctorChecks();
    expect(checks).toHaveLength(1);
    expect(checks[0].ok).toBe(false);
    expect(await safe.setupInstructions()).toBe('');
    const debug = lines.filter((line) => line.level === 20).map((line) => String(line.msg));
    expect(debug.some((msg) => msg.includes('skipContainerGuards threw'))).toBe(true);
    expect(debug.some((msg) => msg.includes('isAvailable() failed'))).toBe(true);
  });

  it('treats a wrong-typed flag as unsafe and a hanging isAvailable as unavailable', async () => {
    const registry = new ProviderRegistry();
    const safe = registry.register(
      minimal('odd', { skipContainerGuards: 'yes' as unknown as boolean, isAvailable: () => new Promise<boolean>(() => {}) }),
      'p',
    );
    expect(safe.skipContainerGuards).toBe(false);
    expect(await safe.isAvailable()).toBe(false);
  });

  it('unions stripEnvKeys of every provider, arrays and sets alike, skipping a throwing one', () => {
    const registry = new ProviderRegistry();
    registry.register(minimal('one', { stripEnvKeys: ['ONE_TOKEN', 'SHARED_KEY'] }), 'p1');
    registry.register(minimal('two', { stripEnvKeys: new Set(['TWO_SECRET', 'SHARED_KEY']) }), 'p2');
    registry.register({
      ...minimal('three'),
      get stripEnvKeys(): string[] {
        throw new Error('no');
      },
    }, 'p3');
    expect([...registry.strippedEnvKeys()].sort()).toEqual(['ONE_TOKEN', 'SHARED_KEY', 'TWO_SECRET']);
  });
});
