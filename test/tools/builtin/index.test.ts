import { describe, expect, it } from 'vitest';
import { SCRIPT_TOOL_NAMES, SCRIPT_TOOL_SIGNATURES, scriptTools } from '../../../src/tools/index.js';
import { ToolRegistry } from '../../../src/tools/index.js';
import { makeToolContext } from '../../helpers/tool-context.js';

/** `path, offset=1, limit=2000` → [['path'], ['offset', '1'], ['limit', '2000']]. */
function parseParams(params: string): Array<{ name: string; value?: string }> {
  return params.split(/,\s*/).map((part) => {
    const [name, value] = part.split('=');
    return value === undefined ? { name } : { name, value };
  });
}

function pythonDefault(value: unknown): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return JSON.stringify(value);
  return String(value);
}

describe('script tools', () => {
  it('scriptTools() gives the seven tools and send_file in the order of SCRIPT_TOOL_NAMES', () => {
    expect(scriptTools().map((t) => t.name)).toEqual([...SCRIPT_TOOL_NAMES]);
    expect(SCRIPT_TOOL_NAMES).toEqual(['read_file', 'write_file', 'search_files', 'patch', 'terminal', 'web_search', 'web_extract', 'send_file']);
  });

  it('each Python signature names exactly the tool\'s parameters, required first, with the schema\'s defaults', () => {
    for (const tool of scriptTools()) {
      const signature = SCRIPT_TOOL_SIGNATURES[tool.name];
      expect(signature, tool.name).toBeDefined();
      expect(signature.doc.length).toBeGreaterThan(10);
      const schema = tool.parameters as { properties: Record<string, { default?: unknown }>; required?: string[] };
      const params = parseParams(signature.params);
      expect(params.map((p) => p.name), tool.name).toEqual(Object.keys(schema.properties));
      for (const param of params) {
        const property = schema.properties[param.name];
        if (param.value === undefined) {
          expect(schema.required ?? [], `${tool.name}.${param.name} is required`).toContain(param.name);
        } else {
          expect(param.value, `${tool.name}.${param.name}`).toBe(pythonDefault(property.default));
        }
      }
    }
  });

  it('the JSON schemas are plain objects the model can read', () => {
    for (const tool of scriptTools()) {
      expect(tool.parameters).toMatchObject({ type: 'object' });
      expect(tool.parameters).not.toHaveProperty('$schema');
      expect(tool.description.length).toBeGreaterThan(20);
    }
    const terminal = scriptTools().find((t) => t.name === 'terminal')!;
    expect(terminal.parameters).not.toHaveProperty('additionalProperties', false);
    const read = scriptTools().find((t) => t.name === 'read_file')!;
    expect(read.parameters).toHaveProperty('additionalProperties', false);
  });

  it('register in one registry and answer non-object arguments with { error }', async () => {
    const registry = new ToolRegistry(scriptTools());
    const ctx = makeToolContext();
    for (const name of SCRIPT_TOOL_NAMES) {
      const result = (await registry.dispatch(name, { nonsense: [1, 2] }, ctx)) as Record<string, unknown>;
      if (name === 'terminal') expect(result.error).toMatch(/command/);
      else expect(result.error, name).toMatch(new RegExp(`^Invalid arguments for ${name}`));
    }
  });
});
