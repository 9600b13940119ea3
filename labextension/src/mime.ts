/**
 * MIME renderer extension: application/vnd.ctx-lab.<kind>+json for every payload kind.
 * An unknown payload version falls back to the (sanitized) HTML the Python side also sends.
 */
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { warningList } from './dom';
import { AnyPayload } from './generated';
import { KINDS, PAYLOAD_VERSION, RENDERERS, mimeType } from './renderers';

export class CtxRenderer extends Widget implements IRenderMime.IRenderer {
  constructor(
    private readonly options: IRenderMime.IRendererOptions,
    private readonly kind: string
  ) {
    super();
    this.addClass('ctx-lab');
    this.node.dataset.ctxKind = kind;
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const payload = model.data[this.options.mimeType] as AnyPayload | undefined;
    this.node.textContent = '';
    delete this.node.dataset.ctxFallback;
    const render = (RENDERERS as Record<string, ((p: AnyPayload) => HTMLElement) | undefined>)[this.kind];
    if (!payload || payload.version !== PAYLOAD_VERSION || !render) {
      const html = model.data['text/html'];
      this.node.dataset.ctxFallback = 'html';
      if (typeof html === 'string') {
        this.node.innerHTML = this.options.sanitizer.sanitize(html);
      } else {
        this.node.textContent = String(model.data['text/plain'] ?? '');
      }
      return;
    }
    this.node.appendChild(render(payload));
    const listed = 'warnings' in payload && Array.isArray(payload.warnings) ? (payload.warnings as string[]) : [];
    const warnings = warningList(listed);
    if (warnings) {
      this.node.appendChild(warnings);
    }
  }
}

const extensions: IRenderMime.IExtension[] = KINDS.map(kind => ({
  id: `ctx-lab:${kind}-renderer`,
  rendererFactory: {
    safe: true,
    mimeTypes: [mimeType(kind)],
    defaultRank: 0,
    createRenderer: (options: IRenderMime.IRendererOptions) => new CtxRenderer(options, kind)
  },
  rank: 0,
  dataType: 'json' as const
}));

export default extensions;
