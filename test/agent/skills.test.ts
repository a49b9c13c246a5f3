import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { harness, registryOf, shellTool, toolMessages, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => h?.cleanup());

function writeSkill(home: string, folder: string, text: string): void {
  mkdirSync(join(home, 'skills', folder), { recursive: true });
  writeFileSync(join(home, 'skills', folder, 'SKILL.md'), text);
}

const WEATHER = `---
name: weather
description: Look up the weather with the Acme API
required_environment_variables:
  - HERMES_TEST_WEATHER_API_KEY
  - name: HERMES_TEST_WEATHER_REGION
    prompt: Your region
---
# Weather

Call the Acme API with $HERMES_TEST_WEATHER_API_KEY.
`;

describe('skills', () => {
  it('skills_list gives names and descriptions; the system prompt lists them; a broken one is skipped', async () => {
    h = await harness();
    writeSkill(h.home, 'weather', WEATHER);
    writeSkill(h.home, 'plain', 'No front matter, just instructions.');
    writeSkill(h.home, 'broken', '---\nname: [unclosed\n---\nbody');
    h.fake.enqueue({ toolCalls: [{ name: 'skills_list', arguments: {} }] }, { text: 'two skills' });
    await h.agent().runTurn({ sessionKey: 's', text: 'what skills?' });
    expect(String(h.fake.requests[0].body.messages[0].content)).toContain('- weather: Look up the weather with the Acme API');
    expect(JSON.parse(toolMessages(h.fake.requests[1].body)[0].content)).toEqual({
      skills: [
        { name: 'plain', description: '' },
        { name: 'weather', description: 'Look up the weather with the Acme API' },
      ],
      count: 2,
    });
  });

  it("a skill's variables reach terminal children only after skill_view, and stay for the session", async () => {
    h = await harness();
    writeSkill(h.home, 'weather', WEATHER);
    const env = { ...process.env, HERMES_TEST_WEATHER_API_KEY: 'sk-weather-123', HERMES_TEST_WEATHER_REGION: 'eu' };
    const show = { name: 'terminal', arguments: { command: 'echo "key=${HERMES_TEST_WEATHER_API_KEY:-unset}"' } };
    h.fake.enqueue(
      { toolCalls: [{ id: 'before', ...show }] },
      { toolCalls: [{ id: 'view', name: 'skill_view', arguments: { name: 'weather' } }] },
      { toolCalls: [{ id: 'after', ...show }] },
      { text: 'done' },
    );
    const agent = h.agent({ registry: registryOf(shellTool()), env });
    await agent.runTurn({ sessionKey: 's', text: 'weather please' });
    const results = Object.fromEntries(toolMessages(h.fake.requests[3].body).map((m) => [m.tool_call_id, JSON.parse(m.content)]));
    expect(results.before.output).toBe('key=unset\n');
    expect(results.view).toMatchObject({
      name: 'weather',
      content: '# Weather\n\nCall the Acme API with $HERMES_TEST_WEATHER_API_KEY.',
      required_environment_variables: ['HERMES_TEST_WEATHER_API_KEY', 'HERMES_TEST_WEATHER_REGION'],
    });
    expect(results.after.output).toBe('key=sk-weather-123\n');

    // Another session does not get it; this session keeps it after a restart.
    h.fake.enqueue({ toolCalls: [{ id: 'other', ...show }] }, { text: 'x' });
    await agent.runTurn({ sessionKey: 'other', text: 'and here?' });
    expect(JSON.parse(toolMessages(h.fake.requests[5].body)[0].content).output).toBe('key=unset\n');
    await agent.close();
    h.fake.enqueue({ toolCalls: [{ id: 'restarted', ...show }] }, { text: 'y' });
    await h.agent({ registry: registryOf(shellTool()), env }).runTurn({ sessionKey: 's', text: 'again' });
    const last = toolMessages(h.fake.requests[7].body).find((m) => m.tool_call_id === 'restarted')!;
    expect(JSON.parse(last.content).output).toBe('key=sk-weather-123\n');
  });

  it('skill_view of an unknown skill lists the installed ones; missing variables are pointed out', async () => {
    h = await harness();
    writeSkill(h.home, 'weather', WEATHER);
    h.fake.enqueue(
      { toolCalls: [{ id: 'nope', name: 'skill_view', arguments: { name: 'cooking' } }, { id: 'w', name: 'skill_view', arguments: { name: 'weather' } }] },
      { text: 'ok' },
    );
    await h.agent({ env: {} }).runTurn({ sessionKey: 's', text: 'x' });
    const [nope, weather] = toolMessages(h.fake.requests[1].body).map((m) => JSON.parse(m.content));
    expect(nope.error).toBe('No skill named "cooking". Installed skills: weather');
    expect(weather.missing_environment_variables).toEqual(['HERMES_TEST_WEATHER_API_KEY', 'HERMES_TEST_WEATHER_REGION']);
  });
});
