/** The Context sidebar's requests: where the project is, its packet, the counters and models. */
import { ctxlab } from './api';
import { CountersPayload, CtxLabService, ModelsPayload, PacketPayload, PacketQuery } from './generated';

export type ModelRow = ModelsPayload['models'][number];
export type CounterRow = CountersPayload['counters'][number];

export class PanelClient {
  constructor(private readonly service: CtxLabService = ctxlab) {}

  /** The nearest project with a .context/ at or above `path`, and its files' signature. */
  async locate(path: string): Promise<{ project: string | null; signature: string }> {
    const found = await this.service.context({ directory: path });
    return { project: found.found ? found.dir : null, signature: found.signature ?? '' };
  }

  /** The packet for a query (never a comparison: the sidebar asks for none). */
  async packet(query: PacketQuery): Promise<PacketPayload> {
    const made = await this.service.packet(query);
    if (!('ledger' in made)) {
      throw new Error('the server answered a profile comparison, not a packet');
    }
    return made;
  }

  /** Every counter the server has, usable ones first. */
  async counters(): Promise<CounterRow[]> {
    const listing = await this.service.counters();
    return [...listing.counters.filter(c => c.available), ...listing.counters.filter(c => !c.available)];
  }

  /** The models of a registry (the built-in prefixes when none is named). */
  async models(registry?: string): Promise<ModelRow[]> {
    const listing = await this.service.models(registry ? { registry } : {});
    return 'models' in listing ? listing.models : [];
  }
}
