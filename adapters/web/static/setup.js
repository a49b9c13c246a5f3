// What the page shows when no model is configured (model.name is empty): the exact
// settings for the three usual choices, instead of a chat that silently never answers.
import { h } from './render.js';

const CHOICES = [
  {
    title: 'OpenAI',
    yaml: ['model:', '  base_url: https://api.openai.com/v1', '  name: gpt-4o-mini', '  api_key_env: OPENAI_API_KEY'],
    env: 'OPENAI_API_KEY=sk-…your key…',
  },
  {
    title: 'OpenRouter',
    yaml: ['model:', '  base_url: https://openrouter.ai/api/v1', '  name: openai/gpt-4o-mini', '  api_key_env: OPENROUTER_API_KEY'],
    env: 'OPENROUTER_API_KEY=sk-or-…your key…',
  },
  {
    title: 'Ollama (local, no account)',
    note: ['Run ', 'ollama pull llama3.1', ' first; any model with tool calling works.'],
    yaml: ['model:', '  base_url: http://127.0.0.1:11434/v1', '  name: llama3.1', '  api_key_env: OLLAMA_API_KEY'],
    env: 'OLLAMA_API_KEY=ollama   # Ollama ignores the key, but one must be set',
  },
];

/** Fills `section` with the set-up help and shows it; hides it when a model is configured. */
export function renderSetup(section, status) {
  section.replaceChildren();
  section.hidden = status.model.configured;
  if (status.model.configured) return;
  section.append(
    h('h3', { id: 'setup-title' }, 'No model is configured'),
    h(
      'p',
      {},
      'The agent needs a model before it can answer: ',
      h('code', {}, 'model.name'),
      ' is empty. Pick one of these, put the settings in ',
      h('code', {}, status.configFile),
      ' and the key in ',
      h('code', {}, status.envFile),
      ', then restart ',
      h('code', {}, 'npm start'),
      '.',
    ),
    h(
      'div',
      { className: 'setup-choices' },
      CHOICES.map((choice) =>
        h(
          'section',
          { className: 'setup-choice', 'aria-label': choice.title },
          h('h4', {}, choice.title),
          choice.note && h('p', { className: 'muted' }, choice.note[0], h('code', {}, choice.note[1]), choice.note[2]),
          h('p', { className: 'setup-file' }, 'config.yaml'),
          h('pre', {}, h('code', {}, choice.yaml.join('\n'))),
          h('p', { className: 'setup-file' }, '.env'),
          h('pre', {}, h('code', {}, choice.env)),
        ),
      ),
    ),
    h(
      'p',
      { className: 'muted' },
      'Or set keys one by one: ',
      h('code', {}, 'npx hermes config set model.name gpt-4o-mini'),
      '.',
    ),
  );
}
