import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { errorMessage } from '../../shared/errors.js';

/** What `plugin.yaml` declares, plus where the plugin lives. */
export interface PluginManifest {
  name: string;
  version: string;
  description: string;
  kind: string;
  /** The plugin's folder. */
  dir: string;
  /** `index.js` or `index.mjs`, when present. */
  entry?: string;
  /** Why the manifest cannot be used, when it cannot. */
  problem?: string;
}

/** Every folder under `pluginsDir` that has a plugin.yaml, sorted by name. A missing folder is no plugins. */
export function discoverPlugins(pluginsDir: string): PluginManifest[] {
  let entries: string[];
  try {
    entries = readdirSync(pluginsDir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
  const found: PluginManifest[] = [];
  for (const folder of entries.sort()) {
    const dir = join(pluginsDir, folder);
    const file = join(dir, 'plugin.yaml');
    if (!existsSync(file)) continue;
    found.push(readManifest(dir, folder, file));
  }
  return found;
}

function readManifest(dir: string, folder: string, file: string): PluginManifest {
  const entry = ['index.js', 'index.mjs'].map((name) => join(dir, name)).find((path) => existsSync(path));
  const base: PluginManifest = { name: folder, version: '', description: '', kind: '', dir, entry };
  let data: unknown;
  try {
    data = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    return { ...base, problem: `${file}: is not valid YAML: ${errorMessage(error).split('\n')[0]}` };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { ...base, problem: `${file}: expected name, version, description and kind keys` };
  }
  const fields = data as Record<string, unknown>;
  const text = (key: string) => (typeof fields[key] === 'string' || typeof fields[key] === 'number' ? String(fields[key]) : '');
  const manifest: PluginManifest = {
    ...base,
    name: text('name') || folder,
    version: text('version'),
    description: text('description'),
    kind: text('kind'),
  };
  if (manifest.kind !== 'backend') {
    return { ...manifest, problem: `${file}: kind is ${JSON.stringify(fields.kind ?? null)}; this gateway loads plugins of kind "backend"` };
  }
  if (!entry) return { ...manifest, problem: `${dir}: no index.js or index.mjs exporting register(ctx)` };
  return manifest;
}
