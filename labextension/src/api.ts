/** Calls to the ctx_lab server extension (/ctx-lab/api/…). */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

export async function api<T = any>(route: string, params: Record<string, string | number | undefined>): Promise<T> {
  const settings = ServerConnection.makeSettings();
  const query = Object.entries(params)
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
    .join('&');
  const url = URLExt.join(settings.baseUrl, 'ctx-lab', 'api', route) + (query ? `?${query}` : '');
  const response = await ServerConnection.makeRequest(url, {}, settings);
  const data = await response.json();
  if (!response.ok) {
    throw new Error(data?.error?.message ?? `HTTP ${response.status}`);
  }
  return data as T;
}
