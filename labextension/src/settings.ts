/**
 * The plugin's settings with the server's counters as the choices of "Default counter": the
 * schema lists only what is fixed, and a fetch transform adds the counters the server has
 * (built in or installed as plugins) as a list, so the Settings Editor offers a dropdown of
 * real counters instead of a free text field.
 */
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ReadonlyPartialJSONObject } from '@lumino/coreutils';

import { CountersPayload } from './generated';

type Counter = CountersPayload['counters'][number];

export const DEFAULT_COUNTER_TITLE = "default: the chosen model's own tokenizer, else bytes/4 (as the CLI)";

/** The counter property's choices: the default (''), every counter, and a value already
 * stored that the server no longer has (so the stored settings stay valid and visible). */
export function counterChoices(counters: readonly Counter[], stored: unknown): { const: string; title: string }[] {
  const choices = [{ const: '', title: DEFAULT_COUNTER_TITLE }];
  for (const c of counters) {
    const notes = [c.exact ? 'exact' : 'estimate', c.available ? '' : `unavailable: ${c.reason}`].filter(Boolean);
    choices.push({ const: c.name, title: `${c.name} (${notes.join('; ')})` });
  }
  if (typeof stored === 'string' && stored && !counters.some(c => c.name === stored)) {
    choices.push({ const: stored, title: `${stored} (not on this server)` });
  }
  return choices;
}

/** Register the transform (before anything loads the plugin), then load the settings once the
 * counters are known. */
export async function loadSettings(
  registry: ISettingRegistry,
  pluginId: string,
  counters: Promise<readonly Counter[]>
): Promise<ISettingRegistry.ISettings> {
  let known: readonly Counter[] = [];
  registry.transform(pluginId, {
    fetch: plugin => {
      const properties = (plugin.schema.properties ?? {}) as Record<string, ReadonlyPartialJSONObject>;
      const stored = (plugin.data?.user as Record<string, unknown> | undefined)?.counter;
      properties.counter = { ...properties.counter, oneOf: counterChoices(known, stored) };
      plugin.schema.properties = properties as typeof plugin.schema.properties;
      return plugin;
    }
  });
  try {
    known = await counters;
  } catch {
    /* no server extension: only the default is offered */
  }
  return registry.load(pluginId);
}
