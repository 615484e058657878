// The notification types Gaugeway knows: every folder of the top-level plugins/ and of the
// directories named in `notifications.plugin_dirs`, loaded the same way (webhook has no
// back door). A folder that fails to load stops the start-up with its name; two folders
// claiming one type are refused.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { GaugewayError, fieldErrors } from '../errors.js';
import type { NotificationPlugin } from './plugin.js';

/** plugins/ of the installed package (dist/notifiers -> ../../plugins, as from src/) */
export const BUILTIN_PLUGINS = fileURLToPath(new URL('../../plugins/', import.meta.url));

const TYPE = /^[a-z][a-z0-9_]{0,31}$/;
const ajv = new Ajv({ allErrors: true, strict: false });

export interface LoadedPlugin {
  plugin: NotificationPlugin;
  folder: string;
  validate: ValidateFunction;
}

export class PluginRegistry {
  private constructor(private readonly byType: Map<string, LoadedPlugin>) {}

  static async load(dirs: readonly string[]): Promise<PluginRegistry> {
    const byType = new Map<string, LoadedPlugin>();
    for (const dir of dirs) {
      if (!existsSync(dir)) throw new GaugewayError('E_PLUGIN', `notification plugin directory ${dir} does not exist (notifications.plugin_dirs)`);
      for (const name of readdirSync(dir).sort()) {
        const folder = resolve(dir, name);
        if (!statSync(folder).isDirectory()) continue;
        const loaded = await loadOne(folder);
        const other = byType.get(loaded.plugin.type);
        if (other) throw new GaugewayError('E_PLUGIN', `notification plugins ${other.folder} and ${folder} both deliver type "${loaded.plugin.type}": remove one`);
        byType.set(loaded.plugin.type, loaded);
      }
    }
    return new PluginRegistry(byType);
  }

  get types(): string[] {
    return [...this.byType.keys()].sort();
  }

  get(type: string): LoadedPlugin | undefined {
    return this.byType.get(type);
  }

  /** Problems of a service's type and settings, by field (`type`, `settings.url`), or null. */
  check(type: string, settings: unknown): Record<string, string[]> | null {
    const loaded = this.byType.get(type);
    if (!loaded) return { type: [`must be one of: ${this.types.join(', ')}`] };
    if (loaded.validate(settings)) {
      const more = loaded.plugin.check?.(settings as Record<string, unknown>) ?? null;
      if (!more) return null;
      const errors = fieldErrors();
      for (const [name, messages] of Object.entries(more)) errors[`settings.${name}`] = messages;
      return errors;
    }
    const errors = fieldErrors();
    for (const e of loaded.validate.errors ?? []) {
      const path = e.instancePath.split('/').slice(1).join('.');
      const missing = e.keyword === 'required' ? String((e.params as { missingProperty: string }).missingProperty) : null;
      const extra = e.keyword === 'additionalProperties' ? String((e.params as { additionalProperty: string }).additionalProperty) : null;
      const field = ['settings', path, missing ?? extra].filter(Boolean).join('.');
      const message = missing ? 'Is required' : extra ? 'is not a setting of this type' : e.keyword === 'pattern' && /url$/.test(field) ? 'Is not a valid URL' : `${e.message ?? 'is invalid'}`;
      (errors[field] ??= []).push(message);
    }
    return errors;
  }
}

async function loadOne(folder: string): Promise<LoadedPlugin> {
  const fail = (why: string): never => { throw new GaugewayError('E_PLUGIN', `notification plugin ${folder} failed to load: ${why}`); };
  // an ES module: index.mjs, or index.js under a package.json with "type": "module"
  const index = ['index.mjs', 'index.js'].map((f) => join(folder, f)).find((f) => existsSync(f));
  if (!index) return fail('it has no index.mjs or index.js');
  let mod: unknown;
  try {
    mod = await import(pathToFileURL(index).href);
  } catch (err) {
    fail((err as Error).message);
  }
  const plugin: unknown = typeof mod === 'object' && mod !== null ? Reflect.get(mod, 'default') : undefined;
  if (typeof plugin !== 'object' || plugin === null) fail('index.js has no default export');
  const type: unknown = Reflect.get(plugin as object, 'type');
  const send: unknown = Reflect.get(plugin as object, 'send');
  if (typeof type !== 'string' || !TYPE.test(type)) fail('its default export has no valid `type` (lower-case letters, digits, _)');
  if (typeof send !== 'function') fail('its default export has no `send(notification, settings, context)` function');
  let schema: unknown;
  try {
    schema = JSON.parse(readFileSync(join(folder, 'settings.schema.json'), 'utf8'));
  } catch (err) {
    fail(`settings.schema.json: ${(err as Error).message}`);
  }
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema as object);
  } catch (err) {
    return fail(`settings.schema.json is not a valid JSON Schema: ${(err as Error).message}`);
  }
  return { plugin: plugin as NotificationPlugin, folder, validate };
}
