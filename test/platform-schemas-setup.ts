// In-process tests read config.yaml as the CLI does: with each platform's own section schema.
import { givePlatformSchemas } from '../adapters/config.js';

givePlatformSchemas();
