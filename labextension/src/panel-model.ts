/**
 * The Context sidebar's state, apart from its DOM and its requests (like ipywidgets' model and
 * view): what the user chose, which project is shown, and the packet the server answered.
 */
import { magicLine } from './magic';
import { PacketPayload, PacketQuery, QUERY_DEFAULTS, SETTINGS_DEFAULTS } from './generated';

export type Relevance = NonNullable<PacketQuery['relevance']>;
export type Profile = NonNullable<PacketQuery['profile']>;

export const RELEVANCE_RULES: readonly Relevance[] = ['auto', 'keywords', 'bm25'];
export const PROFILES: readonly Profile[] = ['design', 'ctx-0.8'];

/** The settings the sidebar takes from the Settings Editor. */
export interface PanelSettings {
  budget?: unknown;
  counter?: unknown;
  profile?: unknown;
  pollSeconds?: unknown;
}

export class PanelModel {
  budget: number = SETTINGS_DEFAULTS.budget;
  /** '' = as the CLI and %ctx: the chosen model's own tokenizer, else bytes/4. */
  counter: string = SETTINGS_DEFAULTS.counter;
  model = '';
  registry: string = QUERY_DEFAULTS.models.registry;
  focus = '';
  relevance: Relevance = QUERY_DEFAULTS.packet.relevance;
  profile: Profile = SETTINGS_DEFAULTS.profile;
  pollSeconds: number = SETTINGS_DEFAULTS.pollSeconds;
  /** The project shown, relative to the server root ('.' is the root); null: none found. */
  project: string | null = null;
  /** Showing the example project shipped with ctx-lab (asked for where no project was found). */
  example = false;
  /** Changes when the project's .context/ files change. */
  signature = '';
  packet: PacketPayload | null = null;

  /** The packet query for the current choices (the server's defaults for what is unset). */
  query(): PacketQuery {
    const query: PacketQuery = {
      ...(this.example ? { example: true } : { directory: this.project ?? undefined }),
      budget: this.model ? undefined : this.budget,
      model: this.model || undefined,
      registry: this.model && this.registry !== QUERY_DEFAULTS.models.registry ? this.registry : undefined
    };
    if (this.profile !== QUERY_DEFAULTS.packet.profile) {
      return { ...query, profile: this.profile };
    }
    return {
      ...query,
      counter: this.counter || undefined,
      focus: this.focus || undefined,
      relevance: this.relevance === QUERY_DEFAULTS.packet.relevance ? undefined : this.relevance
    };
  }

  /** The `%ctx packet` line for a notebook: `dir` is the project relative to the notebook's
   * directory (null: the sidebar found none; the example project is `--example`), `loadExt` adds `%load_ext ctx_lab` first. */
  cellCode(dir: string | null = this.project, loadExt = true): string {
    const size: [string, string] = this.model ? ['--model', this.model] : ['--budget', String(this.budget)];
    const positional = !this.example && dir && dir !== '.' ? [dir] : [];
    const design = this.profile === QUERY_DEFAULTS.packet.profile;
    const flags: [string, string | null][] = !design
      ? [size, ['--profile', this.profile]]
      : this.counter
        ? [size, ['--counter', this.counter]]
        : [size];
    if (this.example) {
      flags.unshift(['--example', null]);
    }
    if (design && this.focus) {
      flags.push(['--focus', this.focus]);
    }
    if (design && this.relevance !== QUERY_DEFAULTS.packet.relevance) {
      flags.push(['--relevance', this.relevance]);
    }
    const line = magicLine('packet', flags, positional);
    return loadExt ? `%load_ext ctx_lab\n${line}` : line;
  }

  /** Take the Settings Editor's values; true when the poll interval changed. */
  applySettings(values: PanelSettings): boolean {
    if (typeof values.budget === 'number') {
      this.budget = values.budget;
    }
    if (typeof values.counter === 'string') {
      this.counter = values.counter;
    }
    if (typeof values.profile === 'string' && (PROFILES as readonly string[]).includes(values.profile)) {
      this.profile = values.profile as Profile;
    }
    if (typeof values.pollSeconds === 'number' && values.pollSeconds !== this.pollSeconds) {
      this.pollSeconds = values.pollSeconds;
      return true;
    }
    return false;
  }
}
