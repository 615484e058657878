// GAUGEWAY_SECTION__KEY=value overrides section.key: a double underscore separates
// levels, single underscores stay part of the key, the value is read as a YAML scalar
// (or flow collection). A GAUGEWAY_ name that matches no key is an error, like an
// unknown key in the file: a typo must not be ignored silently.
import { parse as parseYaml } from 'yaml';
import { configSchema } from './schema.js';
import { absolutePath, isPathKey, isRecord, setPath } from './paths.js';
import { closest } from './describe.js';

const PREFIX = 'GAUGEWAY_';
/** Names that are not config keys: the config file's own location. */
const NOT_KEYS = new Set(['GAUGEWAY_CONFIG']);

export interface EnvOverride {
  path: string[];
  variable: string;
}

/**
 * Applies the overrides to `data`. `referenced` holds the variables the file uses as
 * `${NAME}`: those are the file's inputs, not overrides. Returns what was applied.
 */
export function applyEnvironment(
  data: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  referenced: Set<string>,
  fail: (variable: string, path: string[], message: string) => void,
): EnvOverride[] {
  const applied: EnvOverride[] = [];
  for (const [name, value] of Object.entries(env).sort(([a], [b]) => a.localeCompare(b))) {
    if (!name.startsWith(PREFIX) || NOT_KEYS.has(name) || referenced.has(name) || value === undefined) continue;
    const path = name.slice(PREFIX.length).toLowerCase().split('__');
    const problem = unknownKey(path);
    if (problem) { fail(name, path, problem); continue; }
    let parsed: unknown;
    try { parsed = parseYaml(value); } catch { parsed = value; }
    if (isPathKey(path)) parsed = absolutePath(parsed, process.cwd());
    setPath(data, path, parsed);
    applied.push({ path, variable: name });
  }
  return applied;
}

/** Why `path` names no key of the schema, or null when it does. */
function unknownKey(path: string[]): string | null {
  let properties: Record<string, unknown> = configSchema.properties;
  for (let i = 0; i < path.length; i++) {
    const node = properties[path[i]!];
    const envName = (keys: string[]) => PREFIX + keys.join('__').toUpperCase();
    if (!isRecord(node)) {
      const hint = closest(path[i]!, Object.keys(properties));
      return `names no config key${hint ? ` (did you mean ${envName([...path.slice(0, i), hint])}?)` : ''}`;
    }
    if (i < path.length - 1) {
      if (!isRecord(node.properties)) return `${path.slice(0, i + 1).join('.')} has no keys below it`;
      properties = node.properties;
    }
  }
  return null;
}
