// `npm run package`: the .deb's metadata and contents, its maintainer scripts, and the
// service started from an extracted copy (dpkg-deb -x), where dpkg-deb is available.
import t from 'tap';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/tmp.js';
import { poll } from '../helpers/poll.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dpkg = existsSync('/usr/bin/dpkg-deb') && existsSync('/usr/bin/fakeroot');

t.test('the Debian package', { skip: dpkg ? false : 'dpkg-deb and fakeroot are not installed here (Debian packages dpkg, fakeroot)' }, async (t) => {
  const dir = tempDir(t, 'gw-deb-');
  const deb = join(dir, 'gaugeway.deb');
  execFileSync(process.execPath, [join(ROOT, 'scripts/package-deb.js'), deb], { stdio: 'pipe' });
  const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;

  const field = (name: string) => execFileSync('dpkg-deb', ['--field', deb, name]).toString().trim();
  t.equal(field('Package'), 'gaugeway');
  t.equal(field('Version'), version);
  t.equal(field('Architecture'), 'all');
  t.match(field('Depends'), /nodejs \(>= 20\)/);
  const control = join(dir, 'control');
  execFileSync('dpkg-deb', ['--control', deb, control]);
  t.equal(readFileSync(join(control, 'conffiles'), 'utf8'), '/etc/gaugeway/config.yaml\n/etc/gaugeway/schema.json\n', 'the config is a conffile: edits survive upgrades');
  const postinst = readFileSync(join(control, 'postinst'), 'utf8');
  t.notMatch(postinst, /^\s*(systemctl|deb-systemd-invoke) (enable|start)/m, 'installing never enables or starts the service');
  for (const name of ['postinst', 'prerm', 'postrm']) t.notMatch(readFileSync(join(control, name), 'utf8'), /^\s*rm\b/m, `${name} removes no files (the data stays, even on purge)`);

  const listing = execFileSync('dpkg-deb', ['--contents', deb], { maxBuffer: 64 * 1024 * 1024 }).toString();
  t.match(listing, /^drwxr-xr-x root\/root .* \.\/$/m, 'the package root is 0755, owned by root');
  t.match(listing, /\.\/usr\/bin\/gaugeway -> \.\.\/lib\/gaugeway\/bin\/gaugeway\.js/);
  for (const path of ['./lib/systemd/system/gaugeway.service', './etc/gaugeway/config.yaml', './usr/lib/gaugeway/dist/main.js', './usr/lib/gaugeway/node_modules/level/']) {
    t.match(listing, ` ${path}`, path);
  }
  for (const dev of ['node_modules/typescript/', 'node_modules/tap/', './usr/lib/gaugeway/src/', './usr/lib/gaugeway/test/']) t.notMatch(listing, dev, `no ${dev}`);

  // an extracted copy runs
  const root = join(dir, 'root');
  execFileSync('dpkg-deb', ['-x', deb, root]);
  const bin = join(root, 'usr/lib/gaugeway/bin/gaugeway.js');
  t.equal(execFileSync(process.execPath, [bin, 'version']).toString().trim(), `gaugeway ${version}`);
  const unit = readFileSync(join(root, 'lib/systemd/system/gaugeway.service'), 'utf8');
  t.match(unit, /^ExecStart=\/usr\/bin\/gaugeway serve --config \/etc\/gaugeway\/config\.yaml$/m);
  t.match(unit, /^DynamicUser=yes$/m);
  t.match(unit, /^StateDirectory=gaugeway$/m);
  const config = join(dir, 'config.yaml');
  writeFileSync(config, `data_dir: ${join(dir, 'data')}\nhttp:\n  listen: 127.0.0.1:0\n`);
  const child = spawn(process.execPath, [bin, 'serve', '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => { child.kill('SIGKILL'); });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  const port = await poll(async () => Number(/"port":(\d+)[^\n]*gaugeway listening/.exec(out)?.[1]) || undefined);
  const health = await fetch(`http://127.0.0.1:${port}/health`);
  t.equal(health.status, 200, 'the service started from the extracted package answers');

  if (existsSync('/usr/bin/systemd-analyze')) {
    const verified = join(dir, 'gaugeway.service');
    writeFileSync(verified, unit.replaceAll('/usr/bin/gaugeway', join(root, 'usr/bin/gaugeway')));
    const r = (() => { try { return { code: 0, text: execFileSync('systemd-analyze', ['verify', verified], { stdio: 'pipe' }).toString() }; } catch (e) { return { code: 1, text: String((e as { stderr?: Buffer }).stderr ?? e) }; } })();
    t.equal(r.code, 0, `systemd-analyze verify: ${r.text}`);
  } else {
    t.comment('systemd-analyze is not installed: the unit was not verified');
  }
});
