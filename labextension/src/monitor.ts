/**
 * The Context monitor: follows a capture file of `ctx-lab capture` live — the latest request's
 * anatomy, its fill against the model's window, what the prompt cache served, and the timeline
 * of every call — polling the anatomy route while it is visible, without reloading.
 */
import { Widget } from '@lumino/widgets';

import { adviceList, renderAnatomy, timeline, windowView } from './anatomy';
import { ctxlab } from './api';
import { el, fmt } from './dom';
import { AnatomyPayload, AnatomySessionPayload } from './generated';

/** How many of the latest calls the timeline shows. */
export const MONITOR_CALLS = 50;

export class ContextMonitor extends Widget {
  private readonly status = el('div', { class: 'ctx-muted', 'data-ctx-monitor-status': '' }, 'Waiting for calls…');
  private readonly fill = el('div', { 'data-ctx-monitor-fill': '' });
  private readonly cache = el('div', { 'data-ctx-monitor-cache': '' });
  private readonly predicted = el('div', { class: 'ctx-muted', 'data-ctx-monitor-predicted': '' });
  private readonly chart = el('div', { 'data-ctx-monitor-timeline': '' });
  private readonly latest = el('div', { 'data-ctx-monitor-latest': '' });
  private timer: number | undefined;
  private seen = '';
  private busy = false;

  constructor(
    readonly path: string,
    readonly pollMs = 1000
  ) {
    super();
    this.addClass('ctx-lab');
    this.addClass('ctx-monitor');
    this.id = `ctx-lab-monitor-${Date.now()}`;
    this.node.dataset.ctxMonitor = path;
    this.node.append(
      el('h3', {}, 'Context monitor'),
      el('div', { class: 'ctx-muted' }, `following ${path}`),
      this.status,
      this.fill,
      this.cache,
      this.predicted,
      this.chart,
      this.latest
    );
    this.timer = window.setInterval(() => void this.refresh(), this.pollMs);
    void this.refresh();
  }

  dispose(): void {
    window.clearInterval(this.timer);
    super.dispose();
  }

  /** Read the capture file again and redraw when a call was added. */
  async refresh(): Promise<void> {
    if (this.busy || this.isDisposed || (this.isAttached && !this.isVisible)) {
      return;
    }
    this.busy = true;
    try {
      const session = await ctxlab.anatomy({ file: this.path, session: true, last: MONITOR_CALLS });
      if (!('rows' in session)) {
        return;
      }
      const rows = session.rows;
      const signature = `${rows.length}:${rows.length ? rows[rows.length - 1].call : ''}`;
      if (signature !== this.seen) {
        this.seen = signature;
        this.render(session);
        await this.predict();
      }
      this.status.removeAttribute('data-ctx-monitor-error');
    } catch (error) {
      this.status.textContent = String(error).replace(/^Error: /, '');
      this.status.setAttribute('data-ctx-monitor-error', '');
    } finally {
      this.busy = false;
    }
  }

  /** The latest call's cache split as the providers' rules predict it, beside the reported. */
  private async predict(): Promise<void> {
    this.predicted.textContent = '';
    try {
      const report = await ctxlab.cache({ file: this.path });
      const last = report.calls[report.calls.length - 1];
      if (!last) {
        return;
      }
      const reported = last.reported
        ? ` · reported ${fmt(last.reported.cache_read)} read, ${fmt(last.reported.cache_write)} written`
        : '';
      const miss = last.miss_cause ? ` · miss: ${last.miss_cause}` : '';
      this.predicted.dataset.ctxMonitorPredictedRead = String(last.cache_read);
      this.predicted.textContent = `predicted by the caching rules: ${fmt(last.cache_read)} read, ${fmt(last.cache_write)} written${reported}${miss}`;
    } catch {
      this.predicted.textContent = ''; // a capture the cache rules cannot read: nothing to add
    }
  }

  private render(session: AnatomySessionPayload): void {
    const rows = session.rows;
    this.node.dataset.ctxMonitorCalls = String(rows.length);
    if (!rows.length) {
      this.status.textContent = 'No calls yet: point an agent at the proxy.';
      return;
    }
    const last = session.calls[session.calls.length - 1] as AnatomyPayload;
    this.status.textContent = `${rows.length} call${rows.length === 1 ? '' : 's'} · latest: call ${last.call} (${last.model})`;
    this.fill.textContent = '';
    this.fill.append(windowView(last));
    if (rows.length > 1) {
      const grew = (rows[rows.length - 1].used ?? 0) - (rows[rows.length - 2].used ?? 0);
      this.fill.append(
        el(
          'div',
          { class: grew > 0 ? 'ctx-head' : 'ctx-muted', 'data-ctx-monitor-grew': grew },
          grew > 0
            ? `grew by ${fmt(grew)} tokens since the last call`
            : grew === 0
              ? 'the same size as the last call'
              : `shrank by ${fmt(-grew)} tokens since the last call (compacted or trimmed)`
        )
      );
    }
    this.cache.textContent = '';
    if (last.reported_input) {
      const read = last.cache_read ?? 0;
      const share = ((read / last.reported_input) * 100).toFixed(0);
      this.cache.append(
        el(
          'span',
          { 'data-ctx-monitor-cache-read': read },
          `prompt cache: ${fmt(read)} of ${fmt(last.reported_input)} input tokens read from cache (${share}%), ${fmt(last.cache_write ?? 0)} written`
        )
      );
    }
    const broke = session.breaks[session.breaks.length - 1];
    if (broke) {
      this.cache.append(el('div', { class: 'ctx-warn' }, `last cache break: call ${broke.call} — ${broke.reason}`));
    }
    this.chart.textContent = '';
    this.chart.append(timeline(rows));
    const advice = adviceList(session.advice);
    if (advice) {
      this.chart.append(advice);
    }
    this.latest.textContent = '';
    this.latest.append(renderAnatomy(last));
  }
}
