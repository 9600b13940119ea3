/** The typed client of the ctx_lab server extension (/ctx-lab/api/…): one method per command,
 * its query and answer types generated from the commands' declarations (generated.ts). */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import { makeService, QueryValue } from './generated';

/** An error the server answered: its error type (UsageError, PathOutsideRoot …) and status. */
export class CtxLabError extends Error {
  constructor(
    message: string,
    readonly type: string,
    readonly status: number
  ) {
    super(message);
  }
}

/** The query string of a call: absent values left out, arrays repeated, booleans true/false. */
export function queryString(query: Record<string, QueryValue | undefined>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === '') {
      continue;
    }
    const values = Array.isArray(value) ? value : [value];
    for (const one of values) {
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(one))}`);
    }
  }
  return parts.join('&');
}

/** GET /ctx-lab/api/<route>?<query>, its JSON answer, or a CtxLabError. */
export async function requestAPI<T>(route: string, query: Record<string, QueryValue | undefined>): Promise<T> {
  const settings = ServerConnection.makeSettings();
  const search = queryString(query);
  const url = URLExt.join(settings.baseUrl, 'ctx-lab', 'api', route) + (search ? `?${search}` : '');
  const response = await ServerConnection.makeRequest(url, {}, settings);
  const data = await response.json();
  if (!response.ok) {
    const error = data?.error ?? {};
    throw new CtxLabError(error.message ?? `HTTP ${response.status}`, error.type ?? 'Error', response.status);
  }
  return data as T;
}

/** The lab's client: `ctxlab.packet({ directory, budget })` → `Promise<PacketPayload | …>`. */
export const ctxlab = makeService(requestAPI);
