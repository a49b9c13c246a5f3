export { configSchema, type HermesConfig, type ConfigOverrides, type DeepPartial } from './schema.js';
export {
  loadConfig,
  validateConfig,
  defaultConfig,
  deepMerge,
  readYamlFile,
  type LoadedConfig,
  type LoadConfigOptions,
} from './load.js';
export { getConfigValue, setConfigValue, setConfigValues, parseCliValue } from './edit.js';
export { hermesPaths, resolveHome, type HermesPaths } from './paths.js';
export { loadDotEnv, readDotEnv, setDotEnvValue, dotEnvProblem } from './dotenv.js';
export { watchConfig, applyConfigChanges, changedKeys, isHotKey, type ConfigChange, type ConfigWatcher, type WatchConfigOptions } from './watch.js';
export { savedKeyFor, sameEndpoint, normalisedEndpoint, hostOf, type ScopedKey } from './key-scope.js';
export { isAdmin, type Admins } from './admins.js';
