// The model settings form: shown by itself when no model is configured (model.name is
// empty), and behind the Settings button otherwise. The gateway looks up the endpoint's
// models, makes a test call and saves (the key to .env, the rest to config.yaml); the new
// model answers the next message, with no restart. The key is sent, never shown back.
import { answerPairing, getSettings, listModels, listPairing, saveSettings, testSettings } from './api.js';
import { h } from './render.js';

const PROVIDERS = [
  { id: 'openai', label: 'OpenAI', baseUrl: 'https://api.openai.com/v1', keyHint: 'sk-…', env: 'OPENAI_API_KEY' },
  { id: 'anthropic', label: 'Anthropic (Claude)', baseUrl: 'https://api.anthropic.com', keyHint: 'sk-ant-…', env: 'ANTHROPIC_API_KEY', api: 'anthropic' },
  { id: 'openrouter', label: 'OpenRouter', baseUrl: 'https://openrouter.ai/api/v1', keyHint: 'sk-or-…', env: 'OPENROUTER_API_KEY' },
  { id: 'ollama', label: 'Ollama (local, no account)', baseUrl: 'http://127.0.0.1:11434/v1', keyHint: 'not needed', env: 'OLLAMA_API_KEY' },
  // No address is guessed for a server of one's own: the field starts empty, with an example.
  { id: 'custom', label: 'Any OpenAI-compatible URL', baseUrl: '', placeholder: 'http://host:port/v1', keyHint: 'if the server wants one', env: 'MODEL_API_KEY' },
];

/** The same settings as files, for those who keep them there (README: "The web chat"). */
function fileSnippet(provider, model) {
  const yaml = ['model:', ...(provider.api ? [`  provider: ${provider.api}`] : []), `  base_url: ${provider.baseUrl || provider.placeholder}`, `  name: ${model || (provider.id === 'ollama' ? 'qwen2.5:7b' : 'gpt-4o-mini')}`, `  api_key_env: ${provider.env}`];
  return h(
    'details',
    { className: 'setup-files' },
    h('summary', {}, 'Or write it in the files yourself'),
    h('p', { className: 'setup-file' }, 'config.yaml'),
    h('pre', {}, h('code', {}, yaml.join('\n'))),
    provider.id === 'ollama'
      ? h('p', { className: 'muted' }, 'Ollama needs no key. Run ', h('code', {}, 'ollama pull qwen2.5:7b'), ' first (any model with tool support works).')
      : [h('p', { className: 'setup-file' }, '.env'), h('pre', {}, h('code', {}, `${provider.env}=${provider.keyHint}`))],
    h('p', { className: 'muted' }, 'A running gateway picks up changes to both files by itself.'),
  );
}

function field(label, control, hint) {
  return h('div', { className: 'field' }, h('label', { for: control.id }, label), control, hint && h('p', { className: 'hint', id: `${control.id}-hint` }, hint));
}

/**
 * Fills `section` with the settings form. `status` is `/api/status`; `onSaved(status)` is
 * told the new model once it is saved. Resolves when the form is shown.
 */
export async function renderSetup(section, status, { onSaved, open = !status.model.configured } = {}) {
  section.replaceChildren();
  section.hidden = !open;
  if (!open) return;
  const settings = await getSettings();
  const configured = status.model.configured;
  let provider = PROVIDERS.find((p) => p.id === settings.provider) ?? PROVIDERS[3];

  const providerSelect = h('select', { id: 'setup-provider', name: 'provider' }, PROVIDERS.map((p) => h('option', { value: p.id }, p.label)));
  providerSelect.value = provider.id;
  const baseUrl = h('input', { id: 'setup-base-url', name: 'baseUrl', type: 'url', required: 'true', autocomplete: 'off', spellcheck: 'false', value: settings.baseUrl || provider.baseUrl, placeholder: provider.placeholder ?? provider.baseUrl });
  const apiKey = h('input', { id: 'setup-api-key', name: 'apiKey', type: 'password', autocomplete: 'off', spellcheck: 'false' });
  // A free text field: the endpoint's /models list, when it answers, only suggests (a datalist).
  const modelList = h('datalist', { id: 'setup-model-list' });
  const modelSelect = h('input', { id: 'setup-model', name: 'model', type: 'text', required: 'true', autocomplete: 'off', spellcheck: 'false', list: modelList.id, placeholder: 'a model id, e.g. gpt-4o-mini' });
  const loadButton = h('button', { type: 'button', className: 'ghost' }, 'Load models');
  const testButton = h('button', { type: 'button' }, 'Test');
  const saveButton = h('button', { type: 'submit', className: 'primary' }, 'Save');
  const result = h('p', { className: 'setup-result', role: 'status', 'aria-live': 'polite' });
  const { title, intro } = headingFor(status, configured);
  const files = h('div', {});

  const keyPlaceholder = () => {
    const saved = settings.keySet && provider.env === settings.apiKeyEnv;
    apiKey.placeholder = saved ? `saved in ${status.envFile} — leave empty to keep it` : provider.keyHint;
  };
  const say = (text, tone = 'info') => {
    result.textContent = text;
    result.dataset.tone = tone;
  };
  const values = () => ({ provider: provider.id, baseUrl: baseUrl.value.trim(), apiKey: apiKey.value.trim(), model: modelSelect.value.trim() });
  const setModels = (ids, wanted) => {
    modelList.replaceChildren(...ids.map((id) => h('option', { value: id })));
    if (wanted) modelSelect.value = wanted;
    else if (!modelSelect.value && ids.length === 1) modelSelect.value = ids[0];
  };
  const busy = async (work) => {
    for (const button of [loadButton, testButton, saveButton]) button.disabled = true;
    try {
      await work();
    } catch (error) {
      say(error.message, 'error');
    } finally {
      for (const button of [loadButton, testButton, saveButton]) button.disabled = false;
    }
  };
  const loadModels = () =>
    busy(async () => {
      if (!baseUrl.value.trim()) return say('Give the Base URL first (your server\'s address, ending in /v1).');
      say(`Asking ${baseUrl.value.trim()}/models…`);
      // `note`: the saved key was not sent (it is for another base URL).
      const { models: ids, note } = await listModels(values());
      setModels(ids, modelSelect.value || settings.model);
      const listed = ids.length > 0 ? `${ids.length} model${ids.length === 1 ? '' : 's'} listed: pick one or type its id, then Save.` : 'The endpoint lists no models: type the model id, then Save.';
      say(note ? `${listed} Note: ${note}.` : listed, ids.length > 0 && !note ? 'info' : 'error');
    });

  providerSelect.addEventListener('change', () => {
    provider = PROVIDERS.find((p) => p.id === providerSelect.value);
    baseUrl.value = provider.baseUrl;
    baseUrl.placeholder = provider.placeholder ?? provider.baseUrl;
    modelSelect.value = '';
    setModels([]);
    keyPlaceholder();
    files.replaceChildren(fileSnippet(provider, ''));
    say('');
  });
  // The list depends on the address and the key: ask again once both are filled in.
  baseUrl.addEventListener('change', () => void loadModels());
  apiKey.addEventListener('change', () => void loadModels());
  loadButton.addEventListener('click', () => void loadModels());
  testButton.addEventListener('click', () =>
    busy(async () => {
      say(`Calling ${modelSelect.value || 'the model'}…`);
      const { reply, note } = await testSettings(values());
      say(note ? `The model answered: ${reply}. Note: ${note}.` : `The model answered: ${reply}`, note ? 'error' : 'ok');
    }),
  );
  const form = h(
    'form',
    { className: 'setup-form', 'aria-label': 'Model settings', novalidate: 'true' },
    field('Provider', providerSelect),
    field('Base URL', baseUrl),
    field('API key', apiKey, 'Kept in HERMES_HOME/.env (mode 0600); never shown again.'),
    h('div', { className: 'field field-model' }, h('label', { for: modelSelect.id }, 'Model'), h('div', { className: 'field-row' }, modelSelect, modelList, loadButton)),
    h('div', { className: 'setup-actions' }, testButton, saveButton),
    result,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(async () => {
      if (!modelSelect.value.trim()) throw new Error('Give a Model first: type its id, or Load models to pick from the endpoint\'s list.');
      say(`Testing ${modelSelect.value.trim()}, then saving…`);
      const saved = await saveSettings(values());
      apiKey.value = '';
      const restart = saved.needsRestart.length > 0 ? ` Restart the gateway for: ${saved.needsRestart.join(', ')}.` : '';
      say(`Saved: ${saved.settings.model} answers the next message.${restart}`, 'ok');
      // The heading follows the state: a model is configured now.
      title.textContent = 'Model settings';
      intro.firstChild.textContent = `The agent uses ${saved.settings.model} at ${saved.settings.baseUrl}. `;
      onSaved?.(saved.settings);
    });
  });
  keyPlaceholder();
  files.replaceChildren(fileSnippet(provider, settings.model));
  if (settings.model) setModels([settings.model], settings.model);

  section.append(title, intro, settings.canSave ? form : h('p', { className: 'muted' }, 'This web chat has no login (platforms.web.auth: none), so it cannot change settings: write them in the files.'), files);
  if (settings.pairing) section.append(await pairingPanel());
  if (settings.canSave && (settings.keySet || provider.id === 'ollama' || (provider.id === 'custom' && baseUrl.value.trim())) && !configured) void loadModels();
}

/** The form's heading and first paragraph; Save changes both. */
function headingFor(status, configured) {
  const title = h('h3', { id: 'setup-title' }, configured ? 'Model settings' : 'No model is configured');
  const intro = h(
      'p',
      {},
      configured ? `The agent uses ${status.model.name} at ${status.model.baseUrl}. ` : 'The agent needs a model before it can answer. ',
      'Pick a provider, give its key, pick a model and press Save: the gateway makes a test call, keeps the key in ',
      h('code', {}, status.envFile),
      ' and the rest in ',
      h('code', {}, status.configFile),
      ', and the next message uses it — no restart.',
  );
  return { title, intro };
}

/**
 * Who waits to be let in (`dm_policy: pairing`): platform, name and id, how long ago they wrote,
 * with Approve and Refuse. The page never sees the codes: the owner is logged in, a click decides.
 */
async function pairingPanel() {
  const list = h('ul', { className: 'pairing-list', 'aria-label': 'Waiting to pair' });
  const note = h('p', { className: 'muted', role: 'status' });
  const panel = h('section', { className: 'pairing', 'aria-labelledby': 'pairing-title' }, h('h3', { id: 'pairing-title' }, 'Pairing requests'), note, list);
  const refresh = async () => {
    let waiting;
    try {
      waiting = await listPairing();
    } catch (error) {
      note.textContent = `The waiting codes could not be read: ${error.message}`;
      return;
    }
    list.replaceChildren(
      ...waiting.map((who) => {
        const name = who.userName ? `${who.userName} (${who.userId})` : who.userId;
        const age = who.minutes < 1 ? 'just now' : `${who.minutes} min ago`;
        const answer = (kind) => async () => {
          try {
            await answerPairing({ platform: who.platform, userId: who.userId }, kind);
            note.textContent = kind === 'approve' ? `${name} on ${who.platform} may talk to the bot now.` : `${name} on ${who.platform} was refused.`;
          } catch (error) {
            note.textContent = error.message;
          }
          await refresh();
        };
        const approve = h('button', { type: 'button', 'aria-label': `Approve ${name} on ${who.platform}` }, 'Approve');
        const refuse = h('button', { type: 'button', className: 'ghost', 'aria-label': `Refuse ${name} on ${who.platform}` }, 'Refuse');
        approve.addEventListener('click', answer('approve'));
        refuse.addEventListener('click', answer('refuse'));
        return h('li', {}, h('span', {}, `${who.platform}: ${name}, ${age}`), ' ', approve, ' ', refuse);
      }),
    );
    if (waiting.length === 0 && !note.textContent) note.textContent = 'Nobody is waiting. Strangers get a code when a platform has dm_policy: pairing.';
  };
  await refresh();
  return panel;
}
