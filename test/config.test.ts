import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { envName, flagName, loadConfig, SETTINGS } from '../src/config.js';

describe('configuration', () => {
  it('derives flags and environment names from the settings table', () => {
    expect(flagName('snapshotsDir')).to.equal('snapshots-dir');
    expect(envName('snapshotsDir')).to.equal('JPS_SNAPSHOTS_DIR');
  });

  it('takes a flag over the environment and the environment over the default', () => {
    expect(loadConfig({}, {}).port).to.equal(8080);
    expect(loadConfig({}, { JPS_PORT: '9000' }).port).to.equal(9000);
    expect(loadConfig({ port: '9100' }, { JPS_PORT: '9000' }).port).to.equal(9100);
    expect(loadConfig({}, { JPS_DATA_DIR: '/srv/jobs' }).dataDir).to.equal('/srv/jobs');
  });

  it('resolves the data and snapshots folders to absolute paths, from a flag, the environment or the default', () => {
    expect(loadConfig({}, {}).dataDir).to.equal(resolve('data'));
    expect(loadConfig({}, {}).snapshotsDir).to.equal(resolve('snapshots'));
    expect(loadConfig({ dataDir: 'here/data' }, {}).dataDir).to.equal(resolve('here/data'));
    expect(loadConfig({}, { JPS_SNAPSHOTS_DIR: '../snaps' }).snapshotsDir).to.equal(resolve('../snaps'));
    for (const setting of SETTINGS.filter((s) => s.kind === 'folder'))
      expect(isAbsolute(String(loadConfig({}, {})[setting.key])), setting.key).to.equal(true);
  });

  it('refuses a log level it does not know in one line naming the flag or variable, the levels and an example', () => {
    expect(() => loadConfig({ logLevel: 'verbose' }, {})).to.throw(
      /^--log-level must be one of fatal, error, warn, info, debug, trace, silent \(e\.g\. --log-level info\); got "verbose"$/,
    );
    expect(() => loadConfig({}, { JPS_LOG_LEVEL: 'Verbose' })).to.throw(
      /^JPS_LOG_LEVEL must be one of .* \(e\.g\. JPS_LOG_LEVEL=info\); got "Verbose"$/,
    );
    expect(() => loadConfig({}, { JPS_LOG_LEVEL: 'warning' })).to.throw('did you mean "warn"?');
    expect(loadConfig({ logLevel: 'debug' }, {}).logLevel).to.equal('debug');
  });

  it('refuses a setting that is not a whole number, naming it', () => {
    expect(() => loadConfig({ port: 'eighty' }, {})).to.throw('--port must be a whole number');
    expect(() => loadConfig({}, { JPS_QUERY_TIMEOUT_MS: '1.5' })).to.throw('JPS_QUERY_TIMEOUT_MS');
    expect(() => loadConfig({ port: 'eighty' }, {})).to.throw('e.g. --port 8080');
  });

  it("takes the embedded store's shared buffers as a size, and refuses anything else with an example", () => {
    expect(loadConfig({}, {}).stateBuffers).to.equal('128MB');
    expect(loadConfig({}, { JPS_STATE_BUFFERS: '16MB' }).stateBuffers).to.equal('16MB');
    for (const bad of ['16', '16mb', '0MB', 'lots'])
      expect(() => loadConfig({ stateBuffers: bad }, {}), bad).to.throw('--state-buffers must be a size in kB, MB or GB (e.g. 128MB)');
  });

  it('documents every setting in docs/operations.md', () => {
    const docs = readFileSync(new URL('../docs/operations.md', import.meta.url), 'utf8');
    for (const setting of SETTINGS) {
      expect(docs, setting.key).to.include(`\`--${flagName(setting.key)}\``);
      expect(docs, setting.key).to.include(`\`${envName(setting.key)}\``);
    }
  });
});
