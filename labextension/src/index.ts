/**
 * ctx-lab for JupyterLab: the Context sidebar, the pager view and their commands.
 * (The MIME renderers are the mime extension in ./mime.ts.)
 */
import { ILayoutRestorer, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, MainAreaWidget, Notification, WidgetTracker } from '@jupyterlab/apputils';
import { PathExt } from '@jupyterlab/coreutils';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { INotebookTracker, NotebookActions } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';

import { ctxlab } from './api';
import { SETTINGS_DEFAULTS } from './generated';
import { ContextPanel, contextIcon } from './panel';
import { ContextMonitor } from './monitor';
import { BINARY_EXTENSIONS, PagerView, extensionOf } from './pager';
import { loadSettings } from './settings';

export { ContextMonitor, ContextPanel, PagerView, contextIcon };

const COMMANDS = {
  open: 'ctx-lab:open-context-panel',
  insert: 'ctx-lab:insert-packet-cell',
  page: 'ctx-lab:page-file',
  refresh: 'ctx-lab:refresh-context-panel',
  monitor: 'ctx-lab:monitor-capture'
};

/** Capture files of `ctx-lab capture` (SQLite). */
const CAPTURE_EXTENSIONS = new Set(['db', 'sqlite', 'sqlite3']);

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'ctx-lab:plugin',
  description: 'ctx-lab: a Context sidebar, a pager view and commands.',
  autoStart: true,
  requires: [IDefaultFileBrowser],
  optional: [ICommandPalette, INotebookTracker, ILayoutRestorer, ISettingRegistry],
  activate: (
    app: JupyterFrontEnd,
    browser: IDefaultFileBrowser,
    palette: ICommandPalette | null,
    notebooks: INotebookTracker | null,
    restorer: ILayoutRestorer | null,
    settingRegistry: ISettingRegistry | null
  ) => {
    const pagerOptions = {
      linesPerPage: SETTINGS_DEFAULTS.linesPerPage as number,
      maxPages: SETTINGS_DEFAULTS.pagerMaxPages as number,
      maxTokens: SETTINGS_DEFAULTS.pagerMaxTokens as number
    };
    /** Insert a %ctx packet cell into the current notebook: the project's path relative to the
     * notebook's own directory, %load_ext only when the notebook lacks it. */
    const insertPacketCell = (): boolean => {
      const current = notebooks?.currentWidget;
      if (!current) {
        Notification.warning('ctx-lab: open a notebook to insert a %ctx packet cell into.', { autoClose: 5000 });
        return false;
      }
      const notebookDir = PathExt.dirname(current.context.path);
      const project = panel.project;
      const relative = project === null ? null : PathExt.relative(notebookDir, project === '.' ? '' : project) || '.';
      const loaded = current.content.widgets.some(cell =>
        cell.model.sharedModel.getSource().includes('%load_ext ctx_lab')
      );
      NotebookActions.insertBelow(current.content);
      const cell = current.content.activeCell;
      if (cell) {
        cell.model.sharedModel.setSource(panel.cellCode(relative, !loaded));
      }
      return true;
    };
    const panel = new ContextPanel(browser, insertPacketCell);
    app.shell.add(panel, 'left', { rank: 600 });
    restorer?.add(panel, panel.id);

    const pagers = new WidgetTracker<MainAreaWidget<PagerView>>({ namespace: 'ctx-lab-pager' });
    restorer?.restore(pagers, {
      command: COMMANDS.page,
      args: widget => ({ path: widget.content.path }),
      name: widget => widget.content.path
    });
    if (settingRegistry) {
      const counters = ctxlab.counters().then(listing => listing.counters);
      void loadSettings(settingRegistry, plugin.id, counters)
        .then(settings => {
          const apply = (): void => {
            const values = settings.composite as Record<string, unknown>;
            panel.applySettings(values);
            pagerOptions.linesPerPage = Number(values.linesPerPage ?? SETTINGS_DEFAULTS.linesPerPage);
            pagerOptions.maxPages = Number(values.pagerMaxPages ?? SETTINGS_DEFAULTS.pagerMaxPages);
            pagerOptions.maxTokens = Number(values.pagerMaxTokens ?? SETTINGS_DEFAULTS.pagerMaxTokens);
          };
          apply();
          settings.changed.connect(apply);
        })
        .catch(() => {
          /* the defaults stay */
        });
    }

    app.commands.addCommand(COMMANDS.open, {
      label: 'ctx-lab: Open Context Sidebar',
      execute: () => app.shell.activateById(panel.id)
    });
    app.commands.addCommand(COMMANDS.refresh, {
      label: 'ctx-lab: Refresh Context Sidebar',
      execute: () => panel.locate()
    });
    app.commands.addCommand(COMMANDS.insert, {
      label: 'ctx-lab: Insert %ctx packet Cell',
      execute: () => insertPacketCell()
    });
    const selectedPath = (): string => browser.selectedItems().next()?.value?.path ?? '';
    app.commands.addCommand(COMMANDS.page, {
      label: 'Page with ctx-lab',
      icon: contextIcon,
      isVisible: args => {
        const path = (args.path as string | undefined) ?? selectedPath();
        return !path || !BINARY_EXTENSIONS.has(extensionOf(path));
      },
      execute: args => {
        const path = (args.path as string | undefined) ?? selectedPath();
        if (!path) {
          Notification.info('ctx-lab: select a file in the file browser to page it.', { autoClose: 5000 });
          return;
        }
        const content = new PagerView(path, { ...pagerOptions });
        const widget = new MainAreaWidget({ content });
        widget.id = `ctx-lab-pager-${Date.now()}`;
        widget.title.label = `Pager: ${path.split('/').pop()}`;
        widget.title.icon = contextIcon;
        void pagers.add(widget);
        app.shell.add(widget, 'main');
        content.node.focus();
      }
    });
    app.commands.addCommand(COMMANDS.monitor, {
      label: 'Monitor Context with ctx-lab',
      caption: 'Follow a capture file of ctx-lab capture: what fills each request, live',
      icon: contextIcon,
      isVisible: args => {
        const path = (args.path as string | undefined) ?? selectedPath();
        return !path || CAPTURE_EXTENSIONS.has(extensionOf(path));
      },
      execute: args => {
        const path = (args.path as string | undefined) ?? selectedPath();
        if (!path) {
          Notification.info('ctx-lab: select a capture file (ctx-lab capture --db FILE) to monitor.', {
            autoClose: 5000
          });
          return;
        }
        const content = new ContextMonitor(path);
        const widget = new MainAreaWidget({ content });
        widget.id = content.id;
        widget.title.label = `Context: ${path.split('/').pop()}`;
        widget.title.icon = contextIcon;
        app.shell.add(widget, 'main');
      }
    });
    app.contextMenu.addItem({
      command: COMMANDS.monitor,
      selector: '.jp-DirListing-item[data-isdir="false"]',
      rank: 21
    });
    app.contextMenu.addItem({
      command: COMMANDS.page,
      selector: '.jp-DirListing-item[data-isdir="false"]',
      rank: 20
    });
    for (const command of Object.values(COMMANDS)) {
      palette?.addItem({ command, category: 'ctx-lab' });
    }
  }
};

export default plugin;
