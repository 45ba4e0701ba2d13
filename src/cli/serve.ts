// `serve`: runs the HTTP API until SIGTERM or SIGINT, then drains requests in flight and closes the stores.

import { SETTINGS } from '../config.js';
import { JSON_OPTION, type Command } from './command.js';
import { print } from './output.js';

/**
 * The first SIGTERM or SIGINT. The listeners stay for the life of the process: a signal sent to the
 * process group reaches this process again through npm and the shell, and must not cut the drain short.
 */
function stopSignal(onRepeat: (signal: NodeJS.Signals) => void): Promise<NodeJS.Signals> {
  return new Promise((done) => {
    let received = false;
    const on = (signal: NodeJS.Signals) => {
      if (received) return onRepeat(signal);
      received = true;
      done(signal);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
  });
}

export const serve: Command = {
  name: 'serve',
  summary:
    'Serves the HTTP API. With --demo (what `npm start` runs) it first publishes a demo catalog and creates a demo account, and prints its key.',
  options: [
    {
      name: 'demo',
      boolean: true,
      help: 'publish (once) a generated demo catalog, create (once) a demo account and key, print the key and a curl line',
    },
    JSON_OPTION,
  ],
  settings: SETTINGS.map((s) => s.key),
  async run({ options, config, json }) {
    const { checkPort, startService } = await import('../service.js');
    const { demoBanner, ensureDemoCatalog, ensureDemoKey } = await import('./demo.js');
    // A port in use is said before the demo catalog is built (a minute on a first start).
    await checkPort(config.port, config.host);
    if (options.demo) await ensureDemoCatalog(config);
    // For a person watching (npm start, or a terminal): the progress of a long catalog open, readable, besides the JSON log.
    const echoProgress = options.demo || process.stderr.isTTY ? (line: string) => process.stderr.write(`${line}\n`) : undefined;
    const service = await startService(config, { echoProgress });
    const { logger } = service.ctx;
    const stop = stopSignal((signal) => logger.info({ signal }, 'already shutting down; the drain goes on'));
    const demo = options.demo ? await ensureDemoKey(service.ctx.store, config.dataDir) : undefined;
    if (json) print(true, { url: service.url, pid: process.pid, store: service.ctx.store.kind, demo_key: demo?.key ?? null });
    else if (demo) process.stdout.write(demoBanner(service.url, demo, config.dataDir));
    const signal = await stop;
    logger.info({ signal }, 'shutting down');
    await service.close();
    return service.requestsCut() > 0 ? 1 : 0;
  },
};
